// Time comes from a Clock, never from the system clock directly, so that a scenario of ten hours
// replays in seconds and every test is deterministic.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace dw {

using TimePoint = std::chrono::system_clock::time_point;

class Clock {
 public:
  virtual ~Clock() = default;
  // The current wall-clock time (UTC).
  virtual TimePoint Now() const = 0;
};

// The machine's real clock.
class SystemClock final : public Clock {
 public:
  TimePoint Now() const override { return std::chrono::system_clock::now(); }
};

// A clock that only moves when told to; thread-safe.
class SimulatedClock final : public Clock {
 public:
  explicit SimulatedClock(TimePoint start) : now_(start) {}
  TimePoint Now() const override;
  // Moves time forward by `d` (a negative duration is ignored: time never runs backwards).
  void Advance(std::chrono::milliseconds d);
  // Sets the time; REQUIRES: t >= Now().
  void Set(TimePoint t);

 private:
  mutable std::mutex mu_;
  TimePoint now_;
};

// Returns the process-wide real clock.
const Clock& RealClock();

// Formats `t` as RFC 3339 UTC with milliseconds, e.g. "2026-11-30T14:02:00.000Z".
std::string FormatRfc3339(TimePoint t);

// Milliseconds since the Unix epoch.
int64_t ToUnixMillis(TimePoint t);
TimePoint FromUnixMillis(int64_t ms);

}  // namespace dw
