#include "config/duration.h"

#include <cstdint>
#include <limits>

#include "base/time_text.h"

namespace dw::config {
namespace {

// Unit suffixes, longest first so "ms" is not read as "m" followed by garbage.
struct Unit {
  std::string_view suffix;
  int64_t millis;
};
constexpr Unit kUnits[] = {
    {"ms", 1}, {"s", 1000}, {"m", 60'000}, {"h", 3'600'000}, {"d", 86'400'000}, {"w", 604'800'000},
};

Status Bad(std::string_view text, std::string_view why) {
  return InvalidArgument("'" + std::string(text) + "' is not a duration: " + std::string(why) +
                         " (write a whole number and a unit: ms, s, m, h, d or w, e.g. 90s, 30m, "
                         "2h, 1d)");
}

}  // namespace

Result<std::chrono::milliseconds> ParseDuration(std::string_view text) {
  if (text.empty()) return Bad(text, "it is empty");
  int64_t total = 0;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] < '0' || text[i] > '9')
      return Bad(text, text[i] == '-' ? "it is negative" : "expected a digit");
    int64_t n = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      if (n > (std::numeric_limits<int64_t>::max() - 9) / 10) return Bad(text, "it is too large");
      n = n * 10 + (text[i] - '0');
      ++i;
    }
    const Unit* unit = nullptr;
    for (const auto& u : kUnits) {
      if (text.substr(i, u.suffix.size()) == u.suffix) {
        unit = &u;
        break;
      }
    }
    if (unit == nullptr)
      return Bad(text, i == text.size() ? "the unit is missing" : "unknown unit");
    i += unit->suffix.size();
    if (n > (std::numeric_limits<int64_t>::max() - total) / unit->millis)
      return Bad(text, "it is too large");
    total += n * unit->millis;
  }
  if (total == 0) return Bad(text, "it must be longer than zero");
  return std::chrono::milliseconds(total);
}

std::string FormatDuration(std::chrono::milliseconds d) {
  int64_t ms = d.count();
  if (ms == 0) return "0s";
  // Largest unit first; "ms" is last so it always divides.
  for (auto it = std::rbegin(kUnits); it != std::rend(kUnits); ++it)
    if (ms % it->millis == 0) return std::to_string(ms / it->millis) + std::string(it->suffix);
  return std::to_string(ms) + "ms";
}

Result<TimePoint> ParseTimeOrAgo(const std::string& name, const std::string& text, TimePoint now) {
  if (std::optional<int64_t> ms = ParseTimestampMillis(text)) return FromUnixMillis(*ms);
  Result<std::chrono::milliseconds> d = ParseDuration(text);
  if (d.ok()) return now - *d;
  return InvalidArgument(name + ": '" + text +
                         "' is neither a timestamp (2026-11-24T14:00:00Z) nor a duration back from "
                         "now (90m, 2h, 1d)");
}

}  // namespace dw::config
