#include "observe/metrics/context_novelty.h"

#include <algorithm>
#include <cmath>

namespace dw::metrics {

ContextNovelty::ContextNovelty(int levels, size_t depth)
    : levels_(std::max(2, levels)), depth_(std::clamp<size_t>(depth, 1, 8)) {}

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
  uint64_t key = static_cast<uint64_t>(level);
  for (int l : recent_) key = key * 64 + static_cast<uint64_t>(l);
  double novelty = 0;
  bool full = recent_.size() + 1 >= depth_;
  if (full) {
    auto it = seen_.find(key);
    uint32_t count = it == seen_.end() ? 0 : it->second;
    novelty = 1.0 / (1.0 + count);
    seen_[key] = count + 1;
  }
  recent_.push_front(level);
  if (recent_.size() + 1 > depth_) recent_.pop_back();
  if (points_ <= warmup) return 0;
  if (outside) novelty = 1;
  return novelty;
}

size_t ContextNovelty::MemoryBytes() const {
  return sizeof(*this) + recent_.size() * sizeof(int) + seen_.size() * (sizeof(uint64_t) + 24);
}

}  // namespace dw::metrics
