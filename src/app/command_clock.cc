#include <memory>
#include <mutex>
#include <vector>

#include "app/commands.h"
#include "base/time_text.h"

namespace dw::app {

Result<const Clock*> CommandClock(const GlobalOptions& g) {
  if (g.now.empty()) return &RealClock();
  std::optional<int64_t> ms = ParseTimestampMillis(g.now);
  if (!ms) {
    return InvalidArgument("--now: '" + g.now + "' is not a timestamp (e.g. 2026-11-24T14:00:00Z)");
  }
  // One process, one command: the fixed clock lives as long as the process.
  static std::mutex mu;
  static std::vector<std::unique_ptr<SimulatedClock>> clocks;
  std::lock_guard<std::mutex> lock(mu);
  clocks.push_back(std::make_unique<SimulatedClock>(FromUnixMillis(*ms)));
  return clocks.back().get();
}

namespace {

// Real time shifted so that it reads `start` when constructed.
class ShiftedClock final : public Clock {
 public:
  explicit ShiftedClock(TimePoint start) : offset_(start - RealClock().Now()) {}
  TimePoint Now() const override { return RealClock().Now() + offset_; }

 private:
  std::chrono::nanoseconds offset_;
};

}  // namespace

Result<const Clock*> RunningCommandClock(const GlobalOptions& g) {
  if (g.now.empty()) return &RealClock();
  std::optional<int64_t> ms = ParseTimestampMillis(g.now);
  if (!ms) {
    return InvalidArgument("--now: '" + g.now + "' is not a timestamp (e.g. 2026-11-24T14:00:00Z)");
  }
  static ShiftedClock clock(FromUnixMillis(*ms));
  return &clock;
}

}  // namespace dw::app
