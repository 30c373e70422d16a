// CAD OSE, the Contextual Anomaly Detector (Open Source Edition, M. Smirnov 2016; NAB's
// `context_ose` detector), re-implemented from its published description as a scorer of its own.
//
// Each value is quantised into 2^bits - 1 steps of a value range and written as `bits` binary
// facts. A context is a pair of semi-contexts: a left one (the facts of the previous step: the
// previous value's facts plus the "neurons", the contexts that were fully active then) and a right
// one (the facts of this value). Each step it learns the zero-level context (all of the previous
// step's facts, this value's facts) and the crossings of it with the contexts that partly
// matched. The score of a point is, when the value was not predicted (some of its facts were not
// among the right facts of the best-predicting contexts), half of (1 - the fraction of the
// selected contexts that matched fully + the fraction of the potentially new contexts that really
// were new); after a score of `base_threshold` or more the next `rest_period` scores are 0.
//
// Judged with only the points before it, except when a fixed range is given (NAB's detector is
// given the whole file's minimum and maximum: that is look-ahead, offered only to check this
// implementation against NAB's published figures). Without one, the range is the one the series
// has covered so far, the current value included.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

namespace dw::observe::metrics {

struct CadOseOptions {
  double base_threshold = 0.75;     // a score this high starts a rest period
  size_t rest_period = 150;         // NAB: its probation (at most 750 rows) / 5
  size_t max_left_semi_context_facts = 7;  // crossings with more matched left facts are not learnt
  size_t max_active_neurons = 15;   // fully active contexts carried into the next left facts
  int value_bits = 3;               // facts per value (so 2^bits - 1 quantisation steps)
  std::optional<double> fixed_min;  // both set: quantise over [fixed_min, fixed_max] (look-ahead)
  std::optional<double> fixed_max;
  // Without a fixed range: the learnt range is widened by this fraction of its width on each
  // side, so that values beyond what was seen so far land on levels of their own, as the
  // anomalies of a file do under the whole file's range; and it stops growing after this many
  // points (0: never), so that the levels keep their meaning (values beyond it are clamped).
  double range_margin = 0;
  size_t freeze_after = 0;
  // Values beyond the range take more bits instead of being clamped to its ends.
  bool extend_levels = false;
};

class CadOse {
 public:
  // REQUIRES: 1 <= value_bits <= 8, rest_period >= 1 (values outside are clamped to them).
  explicit CadOse(CadOseOptions options);

  // The anomaly score of `value` in [0, 1] against the contexts learnt from the values before
  // it; then learns the contexts of this step.
  double Observe(double value);

  // The score of the last point before the rest rule, and whether its value was predicted (all of
  // its facts among the predicted ones: the context is familiar).
  double last_raw_score() const { return last_raw_; }
  bool last_predicted() const { return last_predicted_; }
  size_t contexts() const { return contexts_.size(); }
  size_t MemoryBytes() const;

 private:
  using Facts = std::vector<uint64_t>;  // sorted, distinct
  struct LeftSemi {
    size_t size = 0;
    Facts matched;                          // facts of the last crossing found in it
    std::map<uint32_t, uint32_t> contexts;  // right semi-context id -> context id
  };
  struct RightSemi {
    size_t size = 0;
    Facts matched;
  };
  struct Context {
    uint64_t offered = 0;  // right facts offered while its left side was fully matched
    uint64_t hit = 0;      // of them, the ones that came
    uint64_t active = 0;   // times it matched fully
    Facts right;
    bool zero_level = false;
    int64_t left_hash = 0;
    int64_t right_hash = 0;
  };
  struct Active {
    uint32_t id;
    uint64_t count;
    int64_t left_hash, right_hash;
  };
  using Pair = std::pair<Facts, Facts>;

  // Finds or creates each context; for a zero-level one returns 1 when it was new (and remembers
  // its id), else 0; otherwise the number really created.
  size_t ContextByFacts(const std::vector<Pair>& pairs, bool zero_level);
  // Records, for the semi-contexts of `side`, which of `facts` each holds.
  void Cross(int side, const Facts& facts);
  // The right facts of the best-predicting contexts whose left side `facts` matched fully.
  Facts Predictions() const;
  // Updates the contexts of the fully matched left semi-contexts; the active ones, the number
  // selected, and the crossings that may be new contexts.
  void UpdateContexts(bool new_context, std::vector<Active>* active, size_t* selected,
                      std::vector<Pair>* potential);
  // One step of the context operator; the predicted facts, the fraction of selected contexts
  // active, the fraction of potentially new contexts that were new.
  void Step(const Facts& facts, double* active_fraction, double* added_fraction);

  CadOseOptions o_;
  double max_bin_ = 7;
  bool have_range_ = false;
  size_t points_ = 0;
  double lo_ = 0, hi_ = 0;
  Facts left_facts_;
  Facts predicted_;
  std::deque<double> history_;  // the last rest_period scores before the rest rule
  std::unordered_map<int64_t, uint32_t> semi_by_hash_[2];
  std::unordered_map<uint64_t, std::vector<uint32_t>> semi_by_fact_[2];
  std::vector<LeftSemi> lefts_;
  std::vector<RightSemi> rights_;
  std::vector<Context> contexts_;
  std::vector<uint32_t> crossed_[2];  // semi-contexts the last crossing of each side touched
  // The zero-level context created in this step. 0 also means none, as in the original (where
  // False == 0): context 0 never takes part in an update.
  uint32_t new_context_id_ = 0;
  double last_raw_ = 0;
  bool last_predicted_ = false;
};

}  // namespace dw::observe::metrics
