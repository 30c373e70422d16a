// Our implementation of the Numenta Anomaly Benchmark's scoring (NAB 1.x "sweeper"), so that the
// detector's accuracy is measured with the benchmark's own rules, not ours:
//  - the first 15% of each file (at most 750 points) is probation and not scored;
//  - inside a labelled window, a detection at relative position x (-1 at the window's start, just
//    below 0 at its end) earns tp * sigmoid_scaled(x) / sigmoid_scaled(-1), where
//    sigmoid_scaled(x) = 2 / (1 + exp(5x)) - 1; only the best (earliest) detection of a window
//    counts, and a window with none costs -fn;
//  - a detection outside every window costs fp * sigmoid_scaled(d), d = points past the end of
//    the previous window / (that window's width - 1) (so up to -fp, less just after a window), and
//    the full -fp when no window precedes it or d > 3;
//  - one threshold on the anomaly score per profile, for the whole corpus, is chosen to maximise
//    the total; the total is normalised so that detecting nothing scores 0 and detecting every
//    window at its first point with no false positive scores 100.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace dw::observe::metrics {

struct NabProfile {
  std::string name;
  double tp = 1.0;
  double fp = 0.11;
  double fn = 1.0;
};
// standard (1, 0.11, 1), reward_low_FP_rate (1, 0.22, 1), reward_low_FN_rate (1, 0.11, 2).
std::vector<NabProfile> NabProfiles();

// One window as inclusive row indexes into its file.
struct NabWindow {
  size_t first = 0;
  size_t last = 0;
};

struct NabFile {
  std::string name;
  std::vector<double> scores;      // one anomaly score per row, in [0, 1]
  std::vector<NabWindow> windows;  // sorted, disjoint
};

// One scorable row: what a detection there would add (positive in a window, negative outside).
struct NabRowWeight {
  double score = 0;     // the detector's anomaly score
  double weight = 0;    // the row's contribution if detected
  long window = -1;     // global window id, or -1 outside every window
};

// Rows of `file` after probation with their weights under `profile`; windows are numbered from
// `first_window_id`. Rows inside probation are left out; so are windows wholly inside it.
std::vector<NabRowWeight> NabRowWeights(const NabFile& file, const NabProfile& profile,
                                        long first_window_id);
// The probation length NAB uses for a file of `rows` rows: min(floor(0.15 rows), 750).
size_t NabProbationRows(size_t rows);

struct NabResult {
  double threshold = 1.1;  // rows with score >= threshold are detections (1.1: none)
  double raw = 0;          // the best total
  double normalized = 0;   // 100 (raw - null) / (perfect - null)
  size_t windows = 0;      // windows scored
  size_t detected_windows = 0;
  size_t false_positives = 0;
};

// Chooses the threshold maximising the corpus total for `profile` and returns the score there.
NabResult ScoreNab(const std::vector<NabFile>& files, const NabProfile& profile);

}  // namespace dw::observe::metrics
