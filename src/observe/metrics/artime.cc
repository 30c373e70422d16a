#include "observe/metrics/artime.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace dw::observe::metrics {
namespace {

// The full Haar transform of a power-of-two window, laid out as the original's wavelet library
// lays it out: the coarsest scaling coefficient, then the details from coarsest to finest. A
// detail is (second - first) / sqrt(2), the sign that library's mirror filter gives.
std::vector<double> Haar(std::vector<double> x) {
  const double a = 1.0 / std::sqrt(2.0);
  std::vector<double> out(x.size());
  size_t n = x.size();
  while (n > 1) {
    size_t half = n / 2;
    std::vector<double> s(half);
    for (size_t k = 0; k < half; ++k) {
      s[k] = a * x[2 * k] + a * x[2 * k + 1];
      out[half + k] = -a * x[2 * k] + a * x[2 * k + 1];
    }
    std::copy(s.begin(), s.end(), x.begin());
    n = half;
  }
  out[0] = x[0];
  return out;
}

// Shifts each value of v down to [0, 1]: minus the minimum, over the maximum left (if not 0).
void Rescale(std::vector<double>& v) {
  double lo = *std::min_element(v.begin(), v.end());
  for (double& x : v) x -= lo;
  double hi = *std::max_element(v.begin(), v.end());
  if (hi != 0)
    for (double& x : v) x /= hi;
}

// Close to the cosine similarity; the original's choice for a zero vector kept.
double Similarity(const std::vector<double>& a, const std::vector<double>& b) {
  double na = 0, nb = 0, dot = 0;
  for (size_t k = 0; k < a.size(); ++k) {
    na += a[k] * a[k];
    nb += b[k] * b[k];
    dot += a[k] * b[k];
  }
  na = std::sqrt(na);
  nb = std::sqrt(nb);
  if (na == 0) return 1 - nb;
  if (nb == 0) return 1 - na;
  return dot / (na * nb);
}

void Shift(std::deque<double>& d, double v) {
  d.pop_front();
  d.push_back(v);
}

}  // namespace

Artime::Artime(ArtimeOptions options) : o_(options) {
  // Out-of-contract options are brought into range rather than left to misbehave.
  size_t w = 2;
  while (w < o_.window && w < kMaxWindow) w *= 2;
  o_.window = w;
  o_.levels = std::max(1, o_.levels);
  o_.windows_per_pb = std::max<size_t>(1, o_.windows_per_pb);
  if (o_.file_length) {
    size_t n = *o_.file_length;
    probation_ = n < 5000 ? static_cast<size_t>(std::floor(0.15 * static_cast<double>(n))) : 750;
  } else {
    probation_ = o_.probation_rows;
  }
  probation_ -= probation_ % 2;
  sstep_ = std::max<size_t>(1, probation_ / (o_.window * o_.windows_per_pb));
  // At least one full feature window in the probation (the original needs it too).
  trend_window_ = std::max(probation_ / sstep_, o_.window + 1);
  mask_ = o_.window * 3 / 2;
  sim_window_.assign(trend_window_ / 2 + 1, 1.0);
  sim_diff_window_.assign(trend_window_ + 1, 0.0);
  ds_window_.assign(sstep_, 0.0);
  medbin_.assign(static_cast<size_t>(o_.levels) + 1, 0);
  f_window_.assign(o_.window, 0.0);
}

double Artime::Downsample() {
  double sum = 0, mx = ds_window_.front(), mn = mx;
  for (double v : ds_window_) {
    sum += v;
    mx = std::max(mx, v);
    mn = std::min(mn, v);
  }
  double mean = sum / static_cast<double>(ds_window_.size());
  if (dsi_ == 1) moving_average_ = mean;
  moving_average_ = (moving_average_ + mean) / 2;
  // The extreme furthest from the running average stands for the block (a spike, up or down),
  // unless it is within 10% of the mean (a rule on raw values: never true for a negative mean).
  double ds = std::abs(mx - moving_average_) < std::abs(mn - moving_average_) ? mn : mx;
  if (std::abs(ds - mean) < 0.1 * mean) ds = mean;
  return ds;
}

double Artime::Normalise(double raw) const {
  double lo = lo_, hi = hi_;
  if (o_.fixed_min && o_.fixed_max) {
    lo = *o_.fixed_min;
    hi = *o_.fixed_max;
  } else if (o_.range == ArtimeRange::kProbation) {
    double margin = (hi_ - lo_) * o_.range_margin;
    lo -= margin;
    hi += margin;
  }
  double ds = raw - lo;
  if (hi - lo != 0) ds /= hi - lo;
  // Complement coding needs [0, 1]: a value beyond a frozen range is its end.
  return std::clamp(ds, 0.0, 1.0);
}

Artime::Features Artime::Featurise(double normalised) {
  size_t k = ++level_index_;
  int top = o_.levels;
  int level = std::clamp(static_cast<int>(std::nearbyint(normalised * top)), 0, top);
  double ds = static_cast<double>(level) / top;
  // The running median of the levels, moved at most one occupied level a value (the original's
  // "close enough" median).
  ++medbin_[level];
  int64_t medpos = static_cast<int64_t>(k / 2);
  if (k == 1) medlevel_ = level;
  if (medlevel_ > level) ++below_med_;
  else if (medlevel_ < level) ++above_med_;
  if (medpos < above_med_) {
    below_med_ += medbin_[medlevel_];
    ++medlevel_;
    while (medlevel_ < top && medbin_[medlevel_] == 0) ++medlevel_;
    above_med_ -= medbin_[medlevel_];
  } else if (medpos < below_med_) {
    above_med_ += medbin_[medlevel_];
    --medlevel_;
    while (medlevel_ > 0 && medbin_[medlevel_] == 0) --medlevel_;
    below_med_ -= medbin_[medlevel_];
  }
  double med = static_cast<double>(medlevel_) / top;
  if (std::abs(ds - med) < o_.chomp) ds = med;

  Shift(f_window_, ds);
  Features f(2 * o_.window, 0.0);
  if (k >= o_.window) {
    std::vector<double> dw(f_window_.begin(), f_window_.end());
    Rescale(dw);
    std::vector<double> fw = Haar(dw);
    Rescale(fw);
    std::copy(fw.begin(), fw.end(), f.begin());
    std::copy(f_window_.begin(), f_window_.end(), f.begin() + static_cast<ptrdiff_t>(o_.window));
  }
  return f;
}

Artime::Match Artime::Train(std::vector<std::vector<double>>& w, double rho_lb, double rho_ub,
                            const Features& f, bool learning) {
  size_t d = f.size();
  std::vector<double> x(2 * d);
  for (size_t k = 0; k < d; ++k) {
    x[k] = f[k];
    x[d + k] = 1 - f[k];
  }
  if (w.empty()) {
    // The original starts with one category of all ones and does not learn the first sample.
    w.emplace_back(2 * d, 1.0);
    return Match{true, 0, 0};
  }
  size_t n = w.size();
  std::vector<double> m(n), me(n);
  std::vector<std::vector<double>> em(n, std::vector<double>(2 * d));
  for (size_t j = 0; j < n; ++j) {
    double num = 0, nw = 0;
    for (size_t k = 0; k < 2 * d; ++k) {
      em[j][k] = std::min(x[k], w[j][k]);
      num += std::abs(em[j][k]);
      nw += std::abs(w[j][k]);
    }
    if (nw == 0) nw = 0.001;
    double fs = num / nw;
    // The energy: the fuzzy match of the newest value (and its complement) alone.
    double es = (std::abs(em[j][d - 1]) + std::abs(em[j][2 * d - 1])) /
                (std::abs(w[j][d - 1]) + std::abs(w[j][2 * d - 1]));
    m[j] = fs * fs * fs * es * es;
    me[j] = es;
  }
  // Descending, stable; a NaN first, as the original's sort (NaN is greatest) reversed puts it.
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (std::isnan(m[a]) || std::isnan(m[b])) return std::isnan(m[a]) && !std::isnan(m[b]);
    return m[a] > m[b];
  });
  Match out{false, 0, 0};
  bool mismatch = true;
  for (size_t bmu : order) {
    if (m[bmu] > out.best) {
      out.best = m[bmu];
      out.energy = me[bmu];
    }
    if (!learning) continue;
    if (m[bmu] >= rho_ub) {
      w[bmu] = em[bmu];  // fast commit: the category shrinks to what this sample shares with it
      if (m[bmu] >= out.best) out.resonated = true;
      mismatch = false;
    } else if (m[bmu] >= rho_lb && mismatch) {
      if (m[bmu] >= out.best) out.resonated = true;
      w.push_back(x);  // a new category of the same cluster
      mismatch = false;
      break;
    } else {
      break;
    }
  }
  if (mismatch && learning) {
    out.resonated = false;  // a new cluster
    w.push_back(x);
  }
  return out;
}

double Artime::InitialRho(const std::vector<Features>& probation) const {
  size_t n = probation.size();
  std::vector<double> sums(n, 0.0);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < n; ++j) sums[i] += i == j ? 1.0 : Similarity(probation[i], probation[j]);
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return sums[a] < sums[b]; });
  std::vector<std::vector<double>> trial;
  std::vector<double> best;
  for (size_t i : order) best.push_back(Train(trial, o_.initial_rho, o_.initial_rho, probation[i], true).best);
  // The mean of the best matches from the (1-based) trend_window / 2-th on.
  size_t from = std::min(n - 1, trend_window_ / 2 - 1);
  double sum = std::accumulate(best.begin() + static_cast<ptrdiff_t>(from), best.end(), 0.0);
  return sum / static_cast<double>(n - from);
}

double Artime::Detect(const Features& f, size_t i) {
  bool update_after_anomaly = i - last_anomaly_i_ == mask_;
  bool update_for_trend = i - last_rho_update_i_ >= trend_window_ / 2;
  bool mask_after_anomaly = i - last_anomaly_i_ <= mask_;
  if (i > trend_window_ + mask_ && mask_after_cat_ && no_new_cat_count_ >= mask_)
    mask_after_cat_ = false;
  // Windows before the first full one are matched, not learnt (they keep the indexes aligned).
  Match m = Train(weights_, rho_lb_, rho_ub_, f, i >= o_.window);
  bool resonated = i >= o_.window && m.resonated;
  no_new_cat_count_ = resonated ? no_new_cat_count_ + 1 : 0;
  ++a_count_;
  a_mean_ += (m.best - a_mean_) / static_cast<double>(a_count_);
  Shift(sim_window_, m.best);
  Shift(sim_diff_window_, rho_ub_ - m.best);
  // The lowest similarity while masked after an anomaly stands for that anomaly.
  if (i - last_anomaly_i_ < mask_ && anomaly_sims_ > 0 && m.best < anomaly_sim_last_)
    anomaly_sim_last_ = m.best;
  bool masking = mask_after_cat_ || mask_after_anomaly;
  bool below_last = m.best < last_anomaly_sim_ * (mask_after_anomaly ? 0.90 : 0.70);
  double score = 0;
  if (i > trend_window_ && !resonated && (!masking || below_last)) {
    double fs = std::min(0.999, m.best);
    double ub = ((1 - fs) - (1 - rho_ub_)) / (1 - fs);
    double lb = ((1 - fs) - (1 - rho_lb_)) / (1 - fs);
    score = std::min(1.0, ub * 0.35 + lb * 0.65 + (1.0 - m.energy) * 1.5);
    score = std::round(score * 1e6) / 1e6;
    if (anomaly_sims_ > 0) anomaly_sim_sum_ += anomaly_sim_last_;
    anomaly_sim_last_ = m.best;
    ++anomaly_sims_;
    last_anomaly_sim_ = m.best;
    last_anomaly_i_ = i;
  }
  mask_after_cat_ = !resonated || mask_after_cat_;
  if (i > trend_window_ && (update_after_anomaly || update_for_trend)) {
    // The vigilances follow the similarities: the upper one the mean best match (capped), the
    // lower one up towards the recent minimum, or down by the recent shortfalls under the upper
    // one, but not under the anomalies' mean similarity.
    double min_sim = *std::min_element(sim_window_.begin(), sim_window_.end());
    double new_ub = std::min(0.97, a_mean_);
    double new_lb;
    if (rho_lb_ <= min_sim) {
      new_lb = rho_lb_ + (min_sim - rho_lb_) * 0.19;
    } else {
      double decr = 0;
      if (i > trend_window_ * 2) {
        double sum = 0;
        size_t count = 0;
        for (double d : sim_diff_window_)
          if (d > 0.05) sum += std::min(0.37, d), ++count;
        if (count > 0) decr = sum / static_cast<double>(count);
      }
      decr = std::max(0.01, decr);
      new_lb = rho_lb_ - decr / 2;
      if (anomaly_sims_ > 0)
        new_lb = std::max((anomaly_sim_sum_ + anomaly_sim_last_) / static_cast<double>(anomaly_sims_), new_lb);
    }
    rho_lb_ = std::min(new_ub, new_lb);
    rho_ub_ = new_ub;
    last_rho_update_i_ = i;
    mask_after_cat_ = true;
  }
  if (i > trend_window_) last_familiar_ = resonated;
  return score;
}

void Artime::EndProbation() {
  if (!(o_.fixed_min && o_.fixed_max) && o_.range == ArtimeRange::kProbation) {
    lo_ = *std::min_element(probation_raw_.begin(), probation_raw_.end());
    hi_ = *std::max_element(probation_raw_.begin(), probation_raw_.end());
    have_range_ = true;
  }
  std::vector<Features> features;
  for (double raw : probation_raw_) {
    if (o_.range == ArtimeRange::kLearnt) {
      if (!have_range_) lo_ = hi_ = raw, have_range_ = true;
      lo_ = std::min(lo_, raw);
      hi_ = std::max(hi_, raw);
    }
    features.push_back(Featurise(Normalise(raw)));
  }
  std::vector<Features> full(features.begin() + static_cast<ptrdiff_t>(o_.window - 1), features.end());
  rho_lb_ = rho_ub_ = InitialRho(full);
  for (size_t fi = 1; fi <= features.size(); ++fi) Detect(features[fi - 1], fi);
  probation_raw_.clear();
  probation_raw_.shrink_to_fit();
}

double Artime::Observe(double value) {
  ++rows_;
  Shift(ds_window_, value);
  if (rows_ % sstep_ != 0) return 0;
  double raw = Downsample();
  size_t i = dsi_++;
  if (i <= trend_window_) {
    // The probation is learnt in one batch at its end, from the values kept until then.
    probation_raw_.push_back(raw);
    if (i == trend_window_) EndProbation();
    return 0;
  }
  if (o_.range == ArtimeRange::kLearnt && !(o_.fixed_min && o_.fixed_max)) {
    lo_ = std::min(lo_, raw);
    hi_ = std::max(hi_, raw);
  }
  return Detect(Featurise(Normalise(raw)), i);
}

size_t Artime::MemoryBytes() const {
  size_t b = sizeof(*this);
  b += (ds_window_.size() + probation_raw_.capacity() + f_window_.size() + sim_window_.size() +
        sim_diff_window_.size()) * sizeof(double);
  b += medbin_.size() * sizeof(uint32_t);
  for (const auto& w : weights_) b += w.size() * sizeof(double);
  return b;
}

}  // namespace dw::observe::metrics
