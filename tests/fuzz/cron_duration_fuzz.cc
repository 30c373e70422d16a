// Cron expressions and durations of the workspace file (config/cron.h, config/duration.h). The
// input is one text; the first byte picks which reader gets the rest. Properties: a parsed
// duration is positive and formats to a text that parses back to the same value; NextRun of a
// parsed schedule is strictly later than its start.
#include <chrono>

#include "config/cron.h"
#include "config/duration.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text = dw::fuzz::AsText(data + 1, size - 1);
  if (data[0] & 1) {
    auto d = dw::config::ParseDuration(text);
    if (!d.ok()) return 0;
    if (d->count() <= 0) dw::fuzz::Broken("ParseDuration accepted a duration that is not positive");
    auto again = dw::config::ParseDuration(dw::config::FormatDuration(*d));
    if (!again.ok() || *again != *d) dw::fuzz::Broken("FormatDuration does not parse back to the same duration");
    return 0;
  }
  auto cron = dw::config::ParseCron(text);
  if (!cron.ok()) return 0;
  static const dw::config::TimeZone utc = dw::config::TimeZone::Utc();
  const dw::TimePoint start{std::chrono::milliseconds(1764547200000)};  // 2025-12-01T00:00:00Z
  auto next = dw::config::NextRun(*cron, start, utc);
  if (next.ok() && *next <= start) dw::fuzz::Broken("NextRun is not after its start");
  return 0;
}
