#include "base/iso_time.h"

#include <cctype>
#include <chrono>

namespace dw {

std::optional<int64_t> ParseIsoTimeMillis(std::string_view s) {
  auto dig = [&](size_t p, size_t n) {
    if (p + n > s.size()) return -1;
    int v = 0;
    for (size_t i = p; i < p + n; ++i) {
      if (!std::isdigit(static_cast<unsigned char>(s[i]))) return -1;
      v = v * 10 + (s[i] - '0');
    }
    return v;
  };
  int y = dig(0, 4), mo = dig(5, 2), d = dig(8, 2), h = dig(11, 2), mi = dig(14, 2), se = dig(17, 2);
  if (y < 0 || mo < 0 || d < 0 || h < 0 || mi < 0 || se < 0 || s[4] != '-' || s[7] != '-' ||
      (s[10] != 'T' && s[10] != ' ') || s[13] != ':' || s[16] != ':')
    return std::nullopt;
  size_t p = 19;
  int64_t frac_ms = 0;
  if (p < s.size() && s[p] == '.') {
    ++p;
    int digits = 0;
    while (p < s.size() && std::isdigit(static_cast<unsigned char>(s[p]))) {
      if (digits < 3) frac_ms = frac_ms * 10 + (s[p] - '0');
      ++digits;
      ++p;
    }
    if (digits == 0) return std::nullopt;
    for (int i = digits; i < 3; ++i) frac_ms *= 10;
  }
  int64_t offset_min = 0;
  if (p < s.size() && (s[p] == 'Z' || s[p] == 'z')) {
    ++p;
  } else if (p < s.size() && (s[p] == '+' || s[p] == '-')) {
    int sign = s[p] == '-' ? -1 : 1;
    int oh = dig(p + 1, 2), om = dig(p + 4, 2);
    if (oh < 0 || om < 0 || s[p + 3] != ':') return std::nullopt;
    offset_min = sign * (oh * 60 + om);
    p += 6;
  } else {
    return std::nullopt;
  }
  if (p != s.size()) return std::nullopt;
  using namespace std::chrono;
  year_month_day ymd{year{y}, month{static_cast<unsigned>(mo)}, day{static_cast<unsigned>(d)}};
  if (!ymd.ok() || h > 23 || mi > 59 || se > 60) return std::nullopt;
  int64_t days_ms = duration_cast<milliseconds>(sys_days(ymd).time_since_epoch()).count();
  return days_ms + ((h * 60 + mi) * 60 + se) * 1000LL + frac_ms - offset_min * 60000;
}

}  // namespace dw
