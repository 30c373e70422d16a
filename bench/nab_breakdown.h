// nab_bench's per-file breakdown (`breakdown=1`): where NAB's points go, file by file and by the
// kind of alarm behind each detection, for the score at a profile's chosen threshold and for the
// product's verdicts (new alarms), and why each window the score misses falls short (the best
// point inside it, with the detector's own sentence). A bench diagnostic only: the product never
// sees it, and it reads the labels, which the detector never does.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "observe/metrics/detector.h"
#include "observe/metrics/nab_score.h"

namespace nab_breakdown {

using dw::observe::metrics::NabFile;
using dw::observe::metrics::NabProfile;
using dw::observe::metrics::NabRowWeights;
using dw::observe::metrics::Verdict;
using dw::observe::metrics::VerdictKind;

// What lifted a point's score (or made its verdict an alarm), so that a false positive can be
// charged to the rule that produced it.
enum class Cause { kNone, kDeviation, kShift, kDrift, kStuck, kBounds, kRepeat, kNovelty, kQuiet };
inline const char* CauseName(Cause c) {
  switch (c) {
    case Cause::kNone: return "none";
    case Cause::kDeviation: return "deviation";
    case Cause::kShift: return "shift";
    case Cause::kDrift: return "drift";
    case Cause::kStuck: return "stuck";
    case Cause::kBounds: return "bounds";
    case Cause::kRepeat: return "repeat";
    case Cause::kNovelty: return "novelty";
    case Cause::kQuiet: return "not_raised";
  }
  return "none";
}
constexpr int kCauses = 9;

// The cause of `v` (judged with `sensitivity`): the alarm's kind for an alarm (a repeat apart);
// for a point judged normal, "novelty" when the novelty lifted its score above the deviation's
// own, else "not_raised" (a move the busy-series rule kept quiet, or one just under the line).
inline Cause CauseOf(const Verdict& v, double sensitivity) {
  if (dw::observe::metrics::IsAlarm(v.kind)) {
    if (v.repeat) return Cause::kRepeat;
    if (v.kind == VerdictKind::kStuck) return Cause::kStuck;
    if (v.kind == VerdictKind::kOutOfBounds) return Cause::kBounds;
    if (v.drift) return Cause::kDrift;
    if (v.sustained || v.kind == VerdictKind::kLevelShift) return Cause::kShift;
    return Cause::kDeviation;
  }
  double d = std::fabs(v.deviation);
  double own = d / (d + sensitivity);
  if (v.novelty > 0 && v.score > own + 1e-9) return Cause::kNovelty;
  return v.score > 0 ? Cause::kQuiet : Cause::kNone;
}

// One file's detections under one profile and threshold: windows found, false positives and
// their cost by cause.
struct FileTally {
  size_t windows = 0, found = 0;
  size_t fps[kCauses] = {};
  double fp_cost[kCauses] = {};
  size_t fp_total() const {
    size_t n = 0;
    for (size_t x : fps) n += x;
    return n;
  }
  double cost_total() const {
    double c = 0;
    for (double x : fp_cost) c += x;
    return c;
  }
};

// Tallies `f` (scores already in f.scores) at `threshold`, charging each false positive to
// causes[row]. REQUIRES: causes.size() == f.scores.size().
inline FileTally Tally(const NabFile& f, const std::vector<Cause>& causes, const NabProfile& p,
                       double threshold) {
  FileTally t;
  auto rows = NabRowWeights(f, p, 0);
  size_t first = f.scores.size() - rows.size();  // rows after probation
  std::map<long, bool> found;
  for (size_t k = 0; k < rows.size(); ++k) {
    const auto& r = rows[k];
    if (r.window >= 0) found.emplace(r.window, false);
    if (r.score < threshold) continue;
    if (r.window >= 0) {
      found[r.window] = true;
    } else {
      int c = static_cast<int>(causes[first + k]);
      ++t.fps[c];
      t.fp_cost[c] += -r.weight;
    }
  }
  t.windows = found.size();
  for (const auto& [id, hit] : found) t.found += hit ? 1 : 0;
  return t;
}

// Prints, for every file, windows found and false positives (count and cost under `p`) by
// cause, for the score at `threshold` and for the verdict (`verdict_files`: 0/1 scores), then the
// totals by cause, then each window the score misses with its best point's score and sentence.
inline void Print(const std::vector<NabFile>& score_files, const std::vector<NabFile>& verdict_files,
                  const std::vector<std::vector<Cause>>& causes,
                  const std::vector<std::vector<std::string>>& sentences, const NabProfile& p,
                  double threshold) {
  std::printf("breakdown (%s profile; score at threshold %.6f, verdict = new alarms)\n", p.name.c_str(),
              threshold);
  std::printf("%-52s %3s | %5s %4s %7s | %5s %4s %7s | score FPs by cause | verdict FPs by cause\n", "file", "win", "s.found",
              "s.FP", "s.cost", "v.fnd", "v.FP", "v.cost");
  FileTally all_s, all_v;
  for (size_t k = 0; k < score_files.size(); ++k) {
    FileTally s = Tally(score_files[k], causes[k], p, threshold);
    FileTally v = Tally(verdict_files[k], causes[k], p, 1.0);
    std::string by, by_v;
    for (int c = 0; c < kCauses; ++c) {
      if (v.fps[c] > 0) by_v += std::string(" ") + CauseName(static_cast<Cause>(c)) + "=" + std::to_string(v.fps[c]);
      all_s.fps[c] += s.fps[c];
      all_s.fp_cost[c] += s.fp_cost[c];
      all_v.fps[c] += v.fps[c];
      all_v.fp_cost[c] += v.fp_cost[c];
      if (s.fps[c] > 0) by += std::string(" ") + CauseName(static_cast<Cause>(c)) + "=" + std::to_string(s.fps[c]);
    }
    all_s.windows += s.windows;
    all_s.found += s.found;
    all_v.found += v.found;
    std::printf("%-52s %3zu | %7zu %4zu %7.3f | %5zu %4zu %7.3f |%s |%s\n", score_files[k].name.c_str(),
                s.windows, s.found, s.fp_total(), s.cost_total(), v.found, v.fp_total(), v.cost_total(),
                by.c_str(), by_v.c_str());
  }
  std::printf("totals: %zu windows; score finds %zu, %zu FPs costing %.3f; verdict finds %zu, %zu FPs "
              "costing %.3f\n",
              all_s.windows, all_s.found, all_s.fp_total(), all_s.cost_total(), all_v.found,
              all_v.fp_total(), all_v.cost_total());
  for (int c = 0; c < kCauses; ++c)
    if (all_s.fps[c] + all_v.fps[c] > 0)
      std::printf("  %-10s score %4zu FPs (%.3f)   verdict %4zu FPs (%.3f)\n", CauseName(static_cast<Cause>(c)),
                  all_s.fps[c], all_s.fp_cost[c], all_v.fps[c], all_v.fp_cost[c]);
  // The verdict's false positives one by one (the sentence says why each was raised).
  std::printf("verdict false positives (file, row, cause, sentence):\n");
  for (size_t k = 0; k < verdict_files.size(); ++k) {
    auto rows = NabRowWeights(verdict_files[k], p, 0);
    size_t first = verdict_files[k].scores.size() - rows.size();
    for (size_t j = 0; j < rows.size(); ++j)
      if (rows[j].window < 0 && rows[j].score >= 1.0)
        std::printf("  %s %zu %s: %s\n", verdict_files[k].name.c_str(), first + j,
                    CauseName(causes[k][first + j]), sentences[k][first + j].c_str());
  }
  // Why each window the score misses falls short: the best-scoring point inside it.
  std::printf("windows the score misses (best point inside; score, cause, sentence):\n");
  for (size_t k = 0; k < score_files.size(); ++k) {
    const NabFile& f = score_files[k];
    size_t probation = dw::observe::metrics::NabProbationRows(f.scores.size());
    for (const auto& w : f.windows) {
      if (w.last < probation) continue;
      size_t best = std::max(w.first, probation);
      for (size_t i = best; i <= w.last; ++i)
        if (f.scores[i] > f.scores[best]) best = i;
      bool verdict_hit = false;
      for (size_t i = std::max(w.first, probation); i <= w.last; ++i) verdict_hit |= verdict_files[k].scores[i] > 0;
      if (f.scores[best] >= threshold && verdict_hit) continue;
      std::printf("  %s rows %zu-%zu: %s; best %.3f at row %zu (%s): %s\n", f.name.c_str(), w.first, w.last,
                  f.scores[best] >= threshold ? "score finds it, verdict misses" : "missed", f.scores[best], best,
                  CauseName(causes[k][best]), sentences[k][best].c_str());
    }
  }
}

}  // namespace nab_breakdown
