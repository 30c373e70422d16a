#include "observe/metrics/series_csv.h"

#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>

namespace dw::observe::metrics {
namespace {

bool Digits(std::string_view s, size_t pos, size_t n, int* out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  return s;
}

std::vector<std::string_view> SplitCsv(std::string_view line) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= line.size(); ++i)
    if (i == line.size() || line[i] == ',') {
      out.push_back(Trim(line.substr(start, i - start)));
      start = i + 1;
    }
  return out;
}

}  // namespace

Result<int64_t> SeriesMillisFromJson(const Json& ts) {
  // The last millisecond a TimePoint (system_clock, int64 nanoseconds in libstdc++) can hold:
  // 2262-04-11T23:47:16.854Z. A later value would overflow when it becomes a TimePoint.
  constexpr int64_t kMaxMillis = 9223372036854LL;
  const bool in_range = (ts.is_number_unsigned() && ts.get<uint64_t>() <= static_cast<uint64_t>(kMaxMillis)) ||
                        (ts.is_number_integer() && !ts.is_number_unsigned() && ts.get<int64_t>() >= 0 &&
                         ts.get<int64_t>() <= kMaxMillis);
  if (!in_range)
    return InvalidArgument(ts.dump() + " is out of range: Unix milliseconds from 0 (1970-01-01) to " +
                           std::to_string(kMaxMillis) + " (2262-04-11), or an RFC 3339 string");
  return ts.get<int64_t>();
}

Result<int64_t> ParseSeriesTimestamp(std::string_view text) {
  std::string_view s = Trim(text);
  auto bad = [&] {
    return InvalidArgument("\"" + std::string(s) +
                           "\" is not a timestamp: use YYYY-MM-DD, YYYY-MM-DD HH:MM:SS or RFC 3339 "
                           "(2026-01-05T10:00:00Z, 2026-01-05T11:00:00+01:00, or PostgreSQL's "
                           "2026-01-05 11:00:00+01)");
  };
  int y, mo, d, h = 0, mi = 0, se = 0;
  if (!Digits(s, 0, 4, &y) || s.size() < 10 || s[4] != '-' || !Digits(s, 5, 2, &mo) || s[7] != '-' ||
      !Digits(s, 8, 2, &d))
    return bad();
  std::chrono::year_month_day ymd{std::chrono::year{y}, std::chrono::month{static_cast<unsigned>(mo)},
                                  std::chrono::day{static_cast<unsigned>(d)}};
  if (!ymd.ok()) return bad();
  size_t pos = 10;
  double frac_ms = 0;
  int64_t offset_ms = 0;
  if (pos < s.size()) {
    if ((s[pos] != ' ' && s[pos] != 'T') || !Digits(s, pos + 1, 2, &h) || pos + 3 >= s.size() ||
        s[pos + 3] != ':' || !Digits(s, pos + 4, 2, &mi))
      return bad();
    pos += 6;
    if (pos < s.size() && s[pos] == ':') {
      if (!Digits(s, pos + 1, 2, &se)) return bad();
      pos += 3;
    }
    if (pos < s.size() && s[pos] == '.') {
      size_t start = ++pos;
      double scale = 100;
      while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
        frac_ms += (s[pos] - '0') * scale;
        scale /= 10;
        ++pos;
      }
      if (pos == start) return bad();
    }
    if (pos < s.size() && (s[pos] == 'Z' || s[pos] == 'z')) {
      ++pos;
    } else if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) {
      // The zone as RFC 3339 writes it (+01:00) and as the warehouses print their own time types:
      // PostgreSQL's timestamptz text gives whole hours as +00 and other offsets as +05:30 (or
      // +05:53:28 for a historical local mean time); ISO 8601's basic form is +0530.
      const int sign = s[pos] == '+' ? 1 : -1;
      int oh = 0, om = 0, os = 0;
      if (!Digits(s, pos + 1, 2, &oh)) return bad();
      pos += 3;
      if (pos < s.size() && s[pos] == ':') {
        if (!Digits(s, pos + 1, 2, &om)) return bad();
        pos += 3;
        if (pos < s.size() && s[pos] == ':') {
          if (!Digits(s, pos + 1, 2, &os)) return bad();
          pos += 3;
        }
      } else if (Digits(s, pos, 2, &om)) {
        pos += 2;
      }
      if (oh > 23 || om > 59 || os > 59) return bad();
      offset_ms = sign * (oh * 3600000LL + om * 60000LL + os * 1000LL);
    }
    if (pos != s.size() || h > 23 || mi > 59 || se > 60) return bad();
  }
  int64_t days = std::chrono::sys_days{ymd}.time_since_epoch().count();
  return days * 86400000LL + h * 3600000LL + mi * 60000LL + se * 1000LL +
         static_cast<int64_t>(std::llround(frac_ms)) - offset_ms;
}

std::string FormatSeriesTimestamp(int64_t ts_ms) {
  int64_t days = ts_ms / 86400000LL - ((ts_ms % 86400000LL) < 0 ? 1 : 0);
  int64_t rest = ts_ms - days * 86400000LL;
  std::chrono::year_month_day ymd{std::chrono::sys_days{std::chrono::days{days}}};
  char buf[48];
  int ms = static_cast<int>(rest % 1000);
  int64_t secs = rest / 1000;
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02u %02d:%02d:%02d", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<int>(secs / 3600), static_cast<int>(secs / 60 % 60),
                static_cast<int>(secs % 60));
  std::string out = buf;
  if (ms != 0) {
    std::snprintf(buf, sizeof buf, ".%03d", ms);
    out += buf;
  }
  return out;
}

Result<std::vector<SeriesRow>> ReadSeriesCsv(const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFound("cannot open " + path);
  std::string line;
  if (!std::getline(in, line)) return InvalidArgument(path + ": empty file, expected a header timestamp,value");
  if (!line.empty() && line.back() == '\r') line.pop_back();
  auto header = SplitCsv(line);
  long ts_col = -1, value_col = -1;
  for (size_t i = 0; i < header.size(); ++i) {
    if (header[i] == "timestamp") ts_col = static_cast<long>(i);
    if (header[i] == "value") value_col = static_cast<long>(i);
  }
  if (ts_col < 0 || value_col < 0)
    return InvalidArgument(path + ":1: header must name the columns timestamp and value");
  std::vector<SeriesRow> rows;
  size_t lineno = 1;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (Trim(line).empty()) continue;
    auto cells = SplitCsv(line);
    size_t need = static_cast<size_t>(std::max(ts_col, value_col));
    if (cells.size() <= need)
      return InvalidArgument(path + ":" + std::to_string(lineno) + ": too few columns");
    auto ts = ParseSeriesTimestamp(cells[static_cast<size_t>(ts_col)]);
    if (!ts.ok()) return InvalidArgument(path + ":" + std::to_string(lineno) + ": " + ts.status().message());
    std::string_view cell = cells[static_cast<size_t>(value_col)];
    SeriesRow r;
    r.ts_ms = *ts;
    std::string lower;
    for (char c : cell) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower.empty() || lower == "nan" || lower == "null") {
      r.value = std::numeric_limits<double>::quiet_NaN();
    } else if (lower == "inf" || lower == "+inf" || lower == "infinity") {
      r.value = std::numeric_limits<double>::infinity();
    } else if (lower == "-inf" || lower == "-infinity") {
      r.value = -std::numeric_limits<double>::infinity();
    } else {
      auto [p, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), r.value);
      if (ec != std::errc() || p != cell.data() + cell.size())
        return InvalidArgument(path + ":" + std::to_string(lineno) + ": value \"" + std::string(cell) +
                               "\" is not a number");
    }
    rows.push_back(r);
  }
  return rows;
}

}  // namespace dw::observe::metrics
