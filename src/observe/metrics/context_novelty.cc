#include "observe/metrics/context_novelty.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace dw::observe::metrics {

ContextNovelty::ContextNovelty(int levels, size_t depth)
    : levels_(std::clamp(levels, 2, 16)), depth_(std::clamp<size_t>(depth, 1, 3)) {
  size_t contexts = 1;
  for (size_t i = 0; i < depth_; ++i) contexts *= static_cast<size_t>(levels_);
  seen_.assign(contexts, 0);
}

double ContextNovelty::Observe(double value, size_t warmup) {
  ++points_;
  bool outside = false;
  if (!have_range_) {
    lo_ = hi_ = value;
    have_range_ = true;
  } else if (value < lo_ || value > hi_) {
    double width = hi_ - lo_;
    // Leaving the range by more than a level's width is news by itself.
    double margin = width / levels_;
    outside = value < lo_ - margin || value > hi_ + margin;
    lo_ = std::min(lo_, value);
    hi_ = std::max(hi_, value);
  }
  double width = hi_ - lo_;
  int level = width > 0 ? static_cast<int>((value - lo_) / width * levels_) : 0;
  level = std::clamp(level, 0, levels_ - 1);
  size_t key = static_cast<size_t>(level);
  for (int l : recent_) key = key * static_cast<size_t>(levels_) + static_cast<size_t>(l);
  double novelty = 0;
  bool full = recent_.size() + 1 >= depth_;
  if (full) {
    uint32_t& count = seen_[key];
    novelty = 1.0 / (1.0 + count);
    if (count < UINT32_MAX) ++count;
  }
  recent_.push_front(level);
  if (recent_.size() + 1 > depth_) recent_.pop_back();
  if (points_ <= warmup) return 0;
  if (outside) novelty = 1;
  return novelty;
}

size_t ContextNovelty::MemoryBytes() const {
  return sizeof(*this) + recent_.size() * sizeof(int) + seen_.capacity() * sizeof(uint32_t);
}

}  // namespace dw::observe::metrics
