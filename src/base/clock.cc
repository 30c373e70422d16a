#include "base/clock.h"

#include <ctime>
#include <cstdio>

namespace dw {

TimePoint SimulatedClock::Now() const {
  std::lock_guard<std::mutex> lock(mu_);
  return now_;
}

void SimulatedClock::Advance(std::chrono::milliseconds d) {
  if (d.count() <= 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  now_ += d;
}

void SimulatedClock::Set(TimePoint t) {
  std::lock_guard<std::mutex> lock(mu_);
  if (t > now_) now_ = t;
}

const Clock& RealClock() {
  static const SystemClock clock;
  return clock;
}

int64_t ToUnixMillis(TimePoint t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

TimePoint FromUnixMillis(int64_t ms) { return TimePoint(std::chrono::milliseconds(ms)); }

std::string FormatRfc3339(TimePoint t) {
  int64_t ms = ToUnixMillis(t);
  int64_t secs = ms / 1000;
  int64_t rem = ms % 1000;
  if (rem < 0) { rem += 1000; secs -= 1; }
  std::time_t tt = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(rem));
  return buf;
}

}  // namespace dw
