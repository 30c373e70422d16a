// ARTime (M. Hampton 2021; NAB's `ARTime` detector, its best published score), re-implemented from
// the published description and from reading its source, as a scorer of its own (bench only).
//
// Every `sstep` values are downsampled into one: their mean, or the one of their max and min that
// lies furthest from a running average when it is at least 10% away from the mean. That value is
// normalised over a range, put on one of 81 levels (0..80), and pulled onto the running median
// level when it is within `chomp` of it. The last 8 such values and the Haar wavelet transform of
// them (each rescaled to [0, 1]) make a 16-dimensional feature vector, which a dual-vigilance fuzzy
// ART clusters: match = (|min(x, w)| / |w|)^3 * energy^2, where energy is the fuzzy match of the
// newest value alone. A match of at least rho_ub refines the category; at least rho_lb (and
// nothing above rho_ub) makes a new category of an existing cluster; below rho_lb a new cluster,
// which is what an anomaly is. Such a point scores (unless masked after a recent anomaly or a new
// cluster) a confidence from how far its best match is under both vigilances and from its energy.
// The vigilances start at a value learnt on the probation (the features ordered from least to
// most typical through a trial ART) and then adapt to the similarities seen.
//
// NAB hands it the whole file's minimum, maximum and length before the first point: the range
// normalises every value and the length sets the probation (min(15% of the rows, 750)), hence
// sstep and every window. Both are look-ahead, offered here only to check this implementation
// against NAB's published figures (`fixed_min`/`fixed_max`, `file_length`). Without them the
// probation is `probation_rows` rows and the range one of `ArtimeRange`'s streaming choices.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

namespace dw::observe::metrics {

enum class ArtimeRange {
  kProbation,  // the range of the probation's downsampled values, widened by range_margin, frozen
  kLearnt,     // the range of the downsampled values seen so far, the current one included
};

struct ArtimeOptions {
  size_t window = 8;           // values per feature window (a power of two: the Haar transform)
  size_t windows_per_pb = 13;  // sstep = probation / (window * windows_per_pb)
  double chomp = 0.075;        // a value this close to the running median is the median
  int levels = 80;             // quantisation steps of the normalised range
  double initial_rho = 0.80;   // vigilance of the trial ART that sets the first vigilances
  // Look-ahead (NAB's inputs): the whole file's range, and its length (which sets the probation).
  std::optional<double> fixed_min, fixed_max;
  std::optional<size_t> file_length;
  // Without look-ahead: the probation in rows (NAB's for files of 5,000 rows or more) and range.
  size_t probation_rows = 750;
  ArtimeRange range = ArtimeRange::kProbation;
  double range_margin = 0;  // kProbation: this fraction of the width added on each side
};

class Artime {
 public:
  static constexpr size_t kMaxWindow = 16;

  // REQUIRES: window a power of two in [2, 16], levels >= 1 (otherwise they are brought to the
  // nearest valid value).
  explicit Artime(ArtimeOptions options);

  // The anomaly score of `value` in [0, 1], judged with the values up to it (and, with the
  // look-ahead options, the file's range and length). Only every sstep-th value can score; the
  // probation scores 0.
  double Observe(double value);

  // Whether the last judged (downsampled) value resonated with a learnt category: a familiar
  // window. False before the first judgement and during the probation.
  bool last_familiar() const { return last_familiar_; }
  size_t sstep() const { return sstep_; }
  size_t categories() const { return weights_.size(); }
  double rho_lb() const { return rho_lb_; }
  double rho_ub() const { return rho_ub_; }
  size_t MemoryBytes() const;

 private:
  using Features = std::vector<double>;  // 2 * window values in [0, 1]
  struct Match {
    bool resonated = false;  // some category matched at least rho_lb (cat != -1)
    double best = 0;         // the best match (A)
    double energy = 0;       // that category's energy similarity (Ae)
  };
  // One downsampled, raw value.
  double Downsample();
  // Level and median-chomp a normalised value; the feature vector of the window ending at it.
  Features Featurise(double normalised);
  double Normalise(double raw) const;
  // The dual-vigilance fuzzy ART step on complement-coded x; learns unless `learning` is false.
  static Match Train(std::vector<std::vector<double>>& w, double rho_lb, double rho_ub,
                     const Features& f, bool learning);
  // The first vigilance: the mean best match of the second half of the probation's features,
  // ordered from least to most typical, through a trial ART at initial_rho.
  double InitialRho(const std::vector<Features>& probation) const;
  // Judges a feature vector at downsampled index i (1-based, as the original).
  double Detect(const Features& f, size_t i);
  void EndProbation();

  ArtimeOptions o_;
  size_t probation_ = 0, sstep_ = 1, trend_window_ = 0, mask_ = 12;
  size_t rows_ = 0, dsi_ = 1;  // rows seen; the next downsampled index (1-based)
  std::deque<double> ds_window_;
  double moving_average_ = 0;
  // Range (kProbation after the probation, kLearnt always).
  bool have_range_ = false;
  double lo_ = 0, hi_ = 0;
  std::vector<double> probation_raw_;  // downsampled raw values until the probation ends
  // Running median of the levels.
  std::vector<uint32_t> medbin_;
  int medlevel_ = 0;
  int64_t below_med_ = 0, above_med_ = 0;
  size_t level_index_ = 0;  // values levelled so far
  std::deque<double> f_window_;
  // The ART and what adapts its vigilances.
  std::vector<std::vector<double>> weights_;  // complement-coded categories, the first all ones
  double rho_lb_ = 0, rho_ub_ = 0;
  double a_mean_ = 0;  // running mean of every best match
  size_t a_count_ = 0;
  std::deque<double> sim_window_, sim_diff_window_;
  size_t last_anomaly_i_ = 0, last_rho_update_i_ = 0;
  double last_anomaly_sim_ = 0;
  bool mask_after_cat_ = false;
  size_t no_new_cat_count_ = 0;
  double anomaly_sim_sum_ = 0, anomaly_sim_last_ = 0;  // the history: sum before the last, last
  size_t anomaly_sims_ = 0;
  bool last_familiar_ = false;
};

}  // namespace dw::observe::metrics
