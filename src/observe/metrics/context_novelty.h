// How unseen the recent shape of a series is: a streaming novelty measure in the spirit of
// CAD OSE (NAB's "contextual anomaly detector, open source edition").
//
// Each value is quantised into a few levels of the range the series has covered so far; the last
// few levels form the current context. The novelty of a point is high when that context has never
// (or rarely) been seen before, or when the value leaves the range seen so far. Judged with only
// the points before it: the context is looked up before it is counted.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace dw::observe::metrics {

class ContextNovelty {
 public:
  // levels: quantisation levels of the running range (2..16); depth: values per context (1..3).
  ContextNovelty(int levels, size_t depth);

  // Judges `value` against the contexts seen so far and then counts its context. Returns a
  // novelty in [0, 1]: 0 for a familiar context, 1 for a never-seen one; 0 while fewer than
  // `warmup` points have been seen.
  double Observe(double value, size_t warmup);

  size_t MemoryBytes() const;

 private:
  friend struct DetectorStateCodec;  // detector_state.cc
  int levels_;
  size_t depth_;
  bool have_range_ = false;
  double lo_ = 0, hi_ = 0;
  std::deque<int> recent_;  // the last depth-1 levels
  std::vector<uint32_t> seen_;  // times each context was seen, indexed by its levels
  size_t points_ = 0;
};

}  // namespace dw::observe::metrics
