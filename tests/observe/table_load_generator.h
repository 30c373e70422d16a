// Test support: a seeded generator of table load patterns (hourly, daily, weekdays only,
// irregular), each a list of (time, rows) loads over a stretch of time, to drive a scratch
// warehouse's tables through the automatic monitors' passes on a simulated clock.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace dw::observe::auto_monitor::test_support {

enum class LoadPattern { kHourly, kDaily, kWeekdays, kIrregular };

inline const char* PatternName(LoadPattern p) {
  switch (p) {
    case LoadPattern::kHourly: return "hourly";
    case LoadPattern::kDaily: return "daily";
    case LoadPattern::kWeekdays: return "weekdays";
    case LoadPattern::kIrregular: return "irregular";
  }
  return "?";
}

struct Load {
  int64_t at_ms = 0;
  int rows = 0;
};

inline constexpr int64_t kMinuteMs = 60 * 1000;
inline constexpr int64_t kHourMs = 60 * kMinuteMs;
inline constexpr int64_t kDayMs = 24 * kHourMs;

// 0 = Monday .. 6 = Sunday (UTC).
inline int WeekdayUtc(int64_t ms) { return static_cast<int>(((ms / kDayMs) + 3) % 7); }

// The loads of `pattern` in [from_ms, until_ms) (and none at or after stop_ms), jittered and sized
// by `rng`: hourly at :05 +-3 min, daily at 02:10 +-10 min, weekdays at 06:00 +-10 min,
// irregular with gaps of 1 to 5 hours; rows about `rows` +-10%.
inline std::vector<Load> GenerateLoads(LoadPattern pattern, int64_t from_ms, int64_t until_ms, int64_t stop_ms,
                                       int rows, std::mt19937_64& rng) {
  std::uniform_int_distribution<int64_t> jitter3(-3 * kMinuteMs, 3 * kMinuteMs);
  std::uniform_int_distribution<int64_t> jitter10(-10 * kMinuteMs, 10 * kMinuteMs);
  std::uniform_int_distribution<int64_t> gap(1 * kHourMs, 5 * kHourMs);
  std::uniform_int_distribution<int> size(rows * 9 / 10, rows * 11 / 10);
  std::vector<Load> out;
  auto add = [&](int64_t t) {
    if (t >= from_ms && t < until_ms && t < stop_ms) out.push_back({t, size(rng)});
  };
  switch (pattern) {
    case LoadPattern::kHourly:
      for (int64_t h = from_ms - from_ms % kHourMs; h < until_ms; h += kHourMs) add(h + 5 * kMinuteMs + jitter3(rng));
      break;
    case LoadPattern::kDaily:
    case LoadPattern::kWeekdays:
      for (int64_t d = from_ms - from_ms % kDayMs; d < until_ms; d += kDayMs) {
        if (pattern == LoadPattern::kWeekdays && WeekdayUtc(d) >= 5) continue;
        add(d + (pattern == LoadPattern::kDaily ? 2 * kHourMs + 10 * kMinuteMs : 6 * kHourMs) + jitter10(rng));
      }
      break;
    case LoadPattern::kIrregular:
      for (int64_t t = from_ms + gap(rng); t < until_ms; t += gap(rng)) add(t);
      break;
  }
  return out;
}

}  // namespace dw::observe::auto_monitor::test_support
