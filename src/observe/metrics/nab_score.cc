#include "observe/metrics/nab_score.h"

#include <algorithm>
#include <cmath>

namespace dw::observe::metrics {
namespace {

double ScaledSigmoid(double x) {
  if (x > 3.0) return -1.0;
  return 2.0 / (1.0 + std::exp(5.0 * x)) - 1.0;
}

}  // namespace

std::vector<NabProfile> NabProfiles() {
  return {{"standard", 1.0, 0.11, 1.0},
          {"reward_low_FP_rate", 1.0, 0.22, 1.0},
          {"reward_low_FN_rate", 1.0, 0.11, 2.0}};
}

size_t NabProbationRows(size_t rows) {
  double p = std::min(std::floor(0.15 * static_cast<double>(rows)), 0.15 * 5000);
  return static_cast<size_t>(p);
}

std::vector<NabRowWeight> NabRowWeights(const NabFile& file, const NabProfile& profile,
                                        long first_window_id) {
  std::vector<NabRowWeight> rows;
  size_t n = file.scores.size();
  size_t probation = NabProbationRows(n);
  const double max_tp = ScaledSigmoid(-1.0);
  size_t next_window = 0;
  long window_id = first_window_id - 1;
  bool in_window = false;
  size_t cur_last = 0;
  double cur_width = 0;
  bool have_prev = false;
  size_t prev_last = 0;
  double prev_width = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!in_window && next_window < file.windows.size() && file.windows[next_window].first == i) {
      const NabWindow& w = file.windows[next_window++];
      in_window = true;
      cur_last = w.last;
      cur_width = static_cast<double>(w.last - w.first + 1);
      // Ids are given only to windows that have a scorable row, so the count stays exact.
      if (w.last >= probation) ++window_id;
    }
    NabRowWeight r;
    r.score = file.scores[i];
    if (in_window) {
      double position = -(static_cast<double>(cur_last) - static_cast<double>(i) + 1) / cur_width;
      r.weight = profile.tp * ScaledSigmoid(position) / max_tp;
      r.window = window_id;
    } else if (!have_prev) {
      r.weight = -profile.fp;
    } else {
      double past = (static_cast<double>(i) - static_cast<double>(prev_last)) /
                    std::max(1.0, prev_width - 1);
      r.weight = profile.fp * ScaledSigmoid(past);
    }
    if (i >= probation) rows.push_back(r);
    if (in_window && i == cur_last) {
      in_window = false;
      have_prev = true;
      prev_last = cur_last;
      prev_width = cur_width;
    }
  }
  return rows;
}

NabResult ScoreNab(const std::vector<NabFile>& files, const NabProfile& profile) {
  std::vector<NabRowWeight> rows;
  long windows = 0;
  for (const NabFile& f : files) {
    auto part = NabRowWeights(f, profile, windows);
    for (const auto& r : part) windows = std::max(windows, r.window + 1);
    rows.insert(rows.end(), part.begin(), part.end());
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const NabRowWeight& a, const NabRowWeight& b) { return a.score > b.score; });
  std::vector<double> best(static_cast<size_t>(windows), -profile.fn);
  double total = -profile.fn * static_cast<double>(windows);
  NabResult result;
  result.windows = static_cast<size_t>(windows);
  result.raw = total;
  size_t detected = 0, fps = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const NabRowWeight& r = rows[i];
    if (r.window < 0) {
      total += r.weight;
      ++fps;
    } else {
      double& b = best[static_cast<size_t>(r.window)];
      if (b == -profile.fn) ++detected;
      if (r.weight > b) {
        total += r.weight - b;
        b = r.weight;
      }
    }
    // A threshold sits between distinct scores: evaluate once the whole group of ties is in.
    bool group_ends = i + 1 == rows.size() || rows[i + 1].score != r.score;
    if (group_ends && total > result.raw) {
      result.raw = total;
      result.threshold = r.score;
      result.detected_windows = detected;
      result.false_positives = fps;
    }
  }
  double null_score = -profile.fn * static_cast<double>(windows);
  double perfect = profile.tp * static_cast<double>(windows);
  result.normalized =
      windows == 0 ? 0 : 100.0 * (result.raw - null_score) / (perfect - null_score);
  return result;
}

}  // namespace dw::observe::metrics
