#include "observe/metrics/cad_ose.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace dw::observe::metrics {
namespace {

constexpr uint64_t kSensorFactBase = 65536;
constexpr uint64_t kNeuronFactBase = uint64_t{1} << 31;

// The hash of a tuple of small non-negative integers as the reference implementation's runtime
// (CPython 2, 64-bit) computes it. Semi-contexts are keyed by it and ties between equally active
// contexts are broken by it, so using the same one keeps the choice of active neurons the same.
int64_t TupleHash(const std::vector<uint64_t>& items) {
  uint64_t x = 0x345678;
  uint64_t mult = 1000003;
  int64_t len = static_cast<int64_t>(items.size());
  for (uint64_t item : items) {
    --len;
    x = (x ^ item) * mult;
    mult += static_cast<uint64_t>(82520 + len + len);
  }
  x += 97531;
  int64_t h = static_cast<int64_t>(x);
  return h == -1 ? -2 : h;
}

}  // namespace

CadOse::CadOse(CadOseOptions options) : o_(options) {
  // Out-of-contract options are brought into range rather than left to misbehave.
  o_.value_bits = std::clamp(o_.value_bits, 1, 8);
  o_.rest_period = std::max<size_t>(1, o_.rest_period);
  max_bin_ = std::ldexp(1.0, o_.value_bits) - 1.0;
  history_.push_back(1.0);  // the original starts its score history at 1: a rest period first
}

size_t CadOse::ContextByFacts(const std::vector<Pair>& pairs, bool zero_level) {
  size_t added = 0;
  for (const auto& [left, right] : pairs) {
    int64_t lh = TupleHash(left), rh = TupleHash(right);
    auto [lit, lnew] = semi_by_hash_[0].try_emplace(lh, static_cast<uint32_t>(lefts_.size()));
    if (lnew) {
      lefts_.push_back(LeftSemi{left.size(), {}, {}});
      for (uint64_t f : left) semi_by_fact_[0][f].push_back(lit->second);
    }
    auto [rit, rnew] = semi_by_hash_[1].try_emplace(rh, static_cast<uint32_t>(rights_.size()));
    if (rnew) {
      rights_.push_back(RightSemi{right.size(), {}});
      for (uint64_t f : right) semi_by_fact_[1][f].push_back(rit->second);
    }
    auto& map = lefts_[lit->second].contexts;
    auto [cit, cnew] = map.try_emplace(rit->second, static_cast<uint32_t>(contexts_.size()));
    if (cnew) {
      ++added;
      Context c;
      c.right = right;
      c.zero_level = zero_level;
      c.left_hash = lh;
      c.right_hash = rh;
      contexts_.push_back(std::move(c));
      if (zero_level) {
        new_context_id_ = cit->second;
        return 1;
      }
    } else if (zero_level) {
      contexts_[cit->second].zero_level = true;
      return 0;
    }
  }
  return added;
}

void CadOse::Cross(int side, const Facts& facts) {
  auto semis_matched = [&](uint32_t id) -> Facts& {
    return side == 0 ? lefts_[id].matched : rights_[id].matched;
  };
  for (uint32_t id : crossed_[side]) semis_matched(id).clear();
  std::vector<uint32_t> touched;
  for (uint64_t f : facts) {
    auto it = semi_by_fact_[side].find(f);
    if (it == semi_by_fact_[side].end()) continue;
    for (uint32_t id : it->second) {
      Facts& m = semis_matched(id);
      if (m.empty()) touched.push_back(id);
      m.push_back(f);
    }
  }
  std::sort(touched.begin(), touched.end());  // creation order, as the original scans them
  crossed_[side] = std::move(touched);
}

CadOse::Facts CadOse::Predictions() const {
  double best = 0;
  std::vector<const Context*> best_contexts;
  for (uint32_t id : crossed_[0]) {
    const LeftSemi& l = lefts_[id];
    if (l.matched.size() != l.size) continue;
    for (const auto& [right_id, cid] : l.contexts) {
      const Context& c = contexts_[cid];
      double w = c.offered > 0 ? static_cast<double>(c.hit) / static_cast<double>(c.offered) : 0.0;
      if (w > best) {
        best = w;
        best_contexts.assign(1, &c);
      } else if (w == best) {
        best_contexts.push_back(&c);
      }
    }
  }
  std::set<uint64_t> out;
  for (const Context* c : best_contexts) out.insert(c->right.begin(), c->right.end());
  return Facts(out.begin(), out.end());
}

void CadOse::UpdateContexts(bool new_context, std::vector<Active>* active, size_t* selected,
                            std::vector<Pair>* potential) {
  *selected = 0;
  for (uint32_t lid : crossed_[0]) {
    const LeftSemi& l = lefts_[lid];
    bool left_full = l.matched.size() == l.size;
    for (const auto& [rid, cid] : l.contexts) {
      if (cid == new_context_id_) continue;
      Context& c = contexts_[cid];
      const RightSemi& r = rights_[rid];
      size_t right_matched = r.matched.size();
      bool may_cross = c.zero_level && new_context && right_matched > 0 &&
                       l.matched.size() <= o_.max_left_semi_context_facts;
      if (left_full) {
        ++*selected;
        c.offered += r.size;
        if (right_matched == 0) continue;
        c.hit += right_matched;
        if (right_matched == r.size) {
          ++c.active;
          active->push_back(Active{cid, c.active, c.left_hash, c.right_hash});
          continue;
        }
      }
      if (may_cross) potential->emplace_back(l.matched, r.matched);
    }
  }
  new_context_id_ = 0;
}

void CadOse::Step(const Facts& facts, double* active_fraction, double* added_fraction) {
  std::set<Pair> unique_potential;
  bool new_context = false;
  if (!left_facts_.empty() && !facts.empty()) {
    Pair zero{left_facts_, facts};
    unique_potential.insert(zero);
    new_context = ContextByFacts({zero}, true) == 1;
  }
  Cross(1, facts);
  std::vector<Active> active;
  size_t selected = 0;
  std::vector<Pair> potential;
  UpdateContexts(new_context, &active, &selected, &potential);
  unique_potential.insert(potential.begin(), potential.end());

  *active_fraction =
      selected > 0 ? static_cast<double>(active.size()) / static_cast<double>(selected) : 0.0;

  std::stable_sort(active.begin(), active.end(), [](const Active& a, const Active& b) {
    if (a.count != b.count) return a.count < b.count;
    if (a.left_hash != b.left_hash) return a.left_hash < b.left_hash;
    return a.right_hash < b.right_hash;
  });
  std::set<uint64_t> next(facts.begin(), facts.end());
  size_t first = active.size() > o_.max_active_neurons ? active.size() - o_.max_active_neurons : 0;
  for (size_t i = first; i < active.size(); ++i) next.insert(kNeuronFactBase + active[i].id);
  left_facts_.assign(next.begin(), next.end());

  size_t added = potential.empty() ? 0 : ContextByFacts(potential, false);
  Cross(0, left_facts_);
  predicted_ = Predictions();
  if (new_context) ++added;
  *added_fraction = new_context && !unique_potential.empty()
                        ? static_cast<double>(added) / static_cast<double>(unique_potential.size())
                        : 0.0;
}

double CadOse::Observe(double value) {
  double lo, hi;
  if (o_.fixed_min && o_.fixed_max) {
    lo = *o_.fixed_min;
    hi = *o_.fixed_max;
  } else {
    if (!have_range_) {
      lo_ = hi_ = value;
      have_range_ = true;
    }
    if (o_.freeze_after == 0 || points_ < o_.freeze_after) {
      lo_ = std::min(lo_, value);
      hi_ = std::max(hi_, value);
    }
    ++points_;
    double margin = (hi_ - lo_) * o_.range_margin;
    lo = lo_ - margin;
    hi = hi_ + margin;
  }
  double range = hi - lo;
  if (range == 0) range = max_bin_;
  double step = range / max_bin_;
  // Truncation towards zero, as the original's int(). Clamped to the bits (a fixed range the
  // value leaves would otherwise need more of them), unless extend_levels: then a value beyond
  // the range takes as many more bits as its level needs, as the original's binary encoding does,
  // and one below it a fact of its own.
  double q = std::trunc((value - lo) / step);
  bool below = false;
  uint64_t level;
  int bits = o_.value_bits;
  if (o_.extend_levels) {
    below = q < 0;
    level = static_cast<uint64_t>(std::min(std::abs(q), 1048575.0));
    while (bits < 20 && (level >> bits) != 0) ++bits;
  } else {
    level = static_cast<uint64_t>(std::clamp(q, 0.0, max_bin_));
  }

  Facts facts;
  double error = 0;
  for (int s = 0; s < bits; ++s) {
    uint64_t f = kSensorFactBase + static_cast<uint64_t>(2 * s) + ((level >> s) & 1);
    facts.push_back(f);
    if (!std::binary_search(predicted_.begin(), predicted_.end(), f)) error += std::ldexp(1.0, s);
  }
  if (below) {
    uint64_t f = kSensorFactBase + 64;
    facts.push_back(f);
    if (!std::binary_search(predicted_.begin(), predicted_.end(), f)) error += 1;
  }
  std::sort(facts.begin(), facts.end());

  double active_fraction = 0, added_fraction = 0;
  Step(facts, &active_fraction, &added_fraction);
  double score = error > 0 ? (1.0 - active_fraction + added_fraction) / 2.0 : 0.0;
  last_raw_ = score;
  last_predicted_ = error == 0;

  double recent_max = *std::max_element(history_.begin(), history_.end());
  double returned = recent_max < o_.base_threshold ? score : 0.0;
  history_.push_back(score);
  while (history_.size() > o_.rest_period) history_.pop_front();
  return returned;
}

size_t CadOse::MemoryBytes() const {
  size_t b = sizeof(*this) + history_.size() * sizeof(double);
  for (const LeftSemi& l : lefts_) b += sizeof(l) + l.contexts.size() * 48;
  b += rights_.size() * sizeof(RightSemi);
  for (const Context& c : contexts_) b += sizeof(c) + c.right.size() * sizeof(uint64_t);
  for (int s = 0; s < 2; ++s) {
    b += semi_by_hash_[s].size() * 32;
    for (const auto& [f, ids] : semi_by_fact_[s]) b += 48 + ids.size() * sizeof(uint32_t);
  }
  return b;
}

}  // namespace dw::observe::metrics
