#include "base/rfc3339.h"

#include <chrono>
#include <string>

namespace dw {
namespace {

// Reads exactly `n` digits at `*pos`; false if they are not there.
bool Digits(std::string_view s, size_t* pos, int n, int* out) {
  if (*pos + n > s.size()) return false;
  int v = 0;
  for (int i = 0; i < n; ++i) {
    char c = s[*pos + i];
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *pos += n;
  *out = v;
  return true;
}

bool Expect(std::string_view s, size_t* pos, char c) {
  if (*pos >= s.size() || s[*pos] != c) return false;
  ++*pos;
  return true;
}

}  // namespace

Result<TimePoint> ParseRfc3339(std::string_view text) {
  auto bad = [&] {
    return InvalidArgument("'" + std::string(text.substr(0, 64)) +
                           "' is not an RFC 3339 time such as 2026-11-24T14:02:00Z");
  };
  size_t p = 0;
  int y, mo, d, h, mi, sec;
  if (!Digits(text, &p, 4, &y) || !Expect(text, &p, '-') || !Digits(text, &p, 2, &mo) ||
      !Expect(text, &p, '-') || !Digits(text, &p, 2, &d))
    return bad();
  if (p >= text.size() || (text[p] != 'T' && text[p] != 't' && text[p] != ' ')) return bad();
  ++p;
  if (!Digits(text, &p, 2, &h) || !Expect(text, &p, ':') || !Digits(text, &p, 2, &mi) ||
      !Expect(text, &p, ':') || !Digits(text, &p, 2, &sec))
    return bad();
  int64_t millis = 0;
  if (p < text.size() && text[p] == '.') {
    ++p;
    int scale = 100, n = 0;
    while (p < text.size() && text[p] >= '0' && text[p] <= '9') {
      millis += (text[p] - '0') * scale;
      scale /= 10;
      ++p;
      ++n;
    }
    if (n == 0) return bad();
  }
  int offset_minutes = 0;
  if (p < text.size() && (text[p] == 'Z' || text[p] == 'z')) {
    ++p;
  } else if (p < text.size() && (text[p] == '+' || text[p] == '-')) {
    int sign = text[p] == '+' ? 1 : -1, oh, om;
    ++p;
    if (!Digits(text, &p, 2, &oh) || !Expect(text, &p, ':') || !Digits(text, &p, 2, &om)) return bad();
    if (oh > 23 || om > 59) return bad();
    offset_minutes = sign * (oh * 60 + om);
  } else {
    return bad();
  }
  if (p != text.size()) return bad();
  if (mo < 1 || mo > 12 || h > 23 || mi > 59 || sec > 60) return bad();
  std::chrono::year_month_day ymd{std::chrono::year(y), std::chrono::month(mo), std::chrono::day(d)};
  if (!ymd.ok()) return bad();
  auto days = std::chrono::sys_days(ymd);
  auto t = std::chrono::time_point_cast<std::chrono::milliseconds>(days) + std::chrono::hours(h) +
           std::chrono::minutes(mi) + std::chrono::seconds(sec) + std::chrono::milliseconds(millis) -
           std::chrono::minutes(offset_minutes);
  return TimePoint(std::chrono::duration_cast<TimePoint::duration>(t.time_since_epoch()));
}

}  // namespace dw
