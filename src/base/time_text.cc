#include "base/time_text.h"

#include <cctype>
#include <chrono>
#include <cstdio>

#include "base/civil_date.h"

namespace dw {
namespace {

bool IsLeap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

unsigned DaysInMonth(int64_t y, unsigned m) {
  static constexpr unsigned kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && IsLeap(y) ? 29 : kDays[m - 1];
}

// Reads exactly `n` digits at `pos`; advances pos.
bool Digits(std::string_view s, size_t& pos, int n, int& out) {
  if (pos + static_cast<size_t>(n) > s.size()) return false;
  out = 0;
  for (int i = 0; i < n; ++i) {
    char c = s[pos + static_cast<size_t>(i)];
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    out = out * 10 + (c - '0');
  }
  pos += static_cast<size_t>(n);
  return true;
}

struct Parsed {
  int64_t millis = 0;
  TextTimeStyle style;
};

std::optional<Parsed> Parse(std::string_view s) {
  Parsed p;
  size_t pos = 0;
  int year = 0, month = 0, day = 0;
  if (!Digits(s, pos, 4, year) || pos >= s.size() || s[pos++] != '-' ||
      !Digits(s, pos, 2, month) || pos >= s.size() || s[pos++] != '-' || !Digits(s, pos, 2, day))
    return std::nullopt;
  if (month < 1 || month > 12 || day < 1 ||
      static_cast<unsigned>(day) > DaysInMonth(year, static_cast<unsigned>(month)))
    return std::nullopt;
  int64_t ms = DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day)) *
               86400000LL;
  if (pos == s.size()) {
    p.style.date_only = true;
    p.millis = ms;
    return p;
  }
  if (s[pos] != 'T' && s[pos] != ' ' && s[pos] != 't') return std::nullopt;
  p.style.separator = s[pos] == ' ' ? ' ' : 'T';
  ++pos;
  int hour = 0, minute = 0, second = 0;
  if (!Digits(s, pos, 2, hour) || pos >= s.size() || s[pos++] != ':' || !Digits(s, pos, 2, minute))
    return std::nullopt;
  if (pos < s.size() && s[pos] == ':') {
    ++pos;
    if (!Digits(s, pos, 2, second)) return std::nullopt;
  }
  if (hour > 23 || minute > 59 || second > 60) return std::nullopt;  // 60: a leap second
  int64_t frac_ms = 0;
  if (pos < s.size() && (s[pos] == '.' || s[pos] == ',')) {
    ++pos;
    int digits = 0;
    int64_t scaled = 0;
    while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
      if (digits < 3) scaled = scaled * 10 + (s[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return std::nullopt;
    for (int i = digits; i < 3; ++i) scaled *= 10;
    frac_ms = scaled;
    p.style.fraction_digits = digits <= 3 ? 3 : 6;
  }
  int64_t offset_min = 0;
  if (pos < s.size()) {
    char z = s[pos];
    if (z == 'Z' || z == 'z') {
      p.style.zone_suffix = "Z";
      ++pos;
    } else if (z == '+' || z == '-') {
      size_t start = pos++;
      int oh = 0, om = 0;
      if (!Digits(s, pos, 2, oh)) return std::nullopt;
      if (pos < s.size() && s[pos] == ':') ++pos;
      if (pos < s.size() && !Digits(s, pos, 2, om)) return std::nullopt;
      if (oh > 23 || om > 59) return std::nullopt;
      offset_min = (oh * 60 + om) * (z == '-' ? -1 : 1);
      std::string_view suffix = s.substr(start, pos - start);
      p.style.zone_suffix = suffix.size() == 3 ? "+00" : "+00:00";
    }
  }
  if (pos != s.size()) return std::nullopt;
  ms += ((hour * 60LL + minute) * 60LL + second) * 1000LL + frac_ms - offset_min * 60000LL;
  p.millis = ms;
  return p;
}

}  // namespace

std::optional<int64_t> ParseTimestampMillis(std::string_view text) {
  std::optional<Parsed> p = Parse(text);
  if (!p) return std::nullopt;
  // Every reader turns these milliseconds into a TimePoint (nanoseconds in an int64_t): a year
  // past 2262 would overflow there (undefined behaviour, found by the openlineage fuzz target on
  // an eventTime in the year 4725), so such a time is not one this program can hold.
  constexpr int64_t kLimit =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::duration::max()).count();
  if (p->millis > kLimit || p->millis < -kLimit) return std::nullopt;
  return p->millis;
}

std::optional<TextTimeStyle> LearnTextTimeStyle(std::string_view sample) {
  std::optional<Parsed> p = Parse(sample);
  if (!p) return std::nullopt;
  return p->style;
}

std::string FormatTimestamp(int64_t unix_ms, const TextTimeStyle& style) {
  int64_t days = unix_ms >= 0 ? unix_ms / 86400000LL : -((-unix_ms + 86399999LL) / 86400000LL);
  int64_t in_day = unix_ms - days * 86400000LL;
  int64_t y = 0;
  unsigned m = 0, d = 0;
  CivilFromDays(days, y, m, d);
  char buf[64];
  if (style.date_only) {
    std::snprintf(buf, sizeof buf, "%04lld-%02u-%02u", static_cast<long long>(y), m, d);
    return buf;
  }
  int64_t secs = in_day / 1000;
  int64_t frac = in_day % 1000;
  std::snprintf(buf, sizeof buf, "%04lld-%02u-%02u%c%02lld:%02lld:%02lld",
                static_cast<long long>(y), m, d, style.separator,
                static_cast<long long>(secs / 3600), static_cast<long long>(secs / 60 % 60),
                static_cast<long long>(secs % 60));
  std::string out = buf;
  if (style.fraction_digits == 3) {
    std::snprintf(buf, sizeof buf, ".%03lld", static_cast<long long>(frac));
    out += buf;
  } else if (style.fraction_digits == 6) {
    std::snprintf(buf, sizeof buf, ".%03lld000", static_cast<long long>(frac));
    out += buf;
  }
  return out + style.zone_suffix;
}

}  // namespace dw
