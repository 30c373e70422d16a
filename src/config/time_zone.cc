#include "config/time_zone.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iterator>
#include <sstream>

namespace dw::config {
namespace {

using namespace std::chrono;

// Reads a big-endian signed integer of `n` bytes at `p`.
int64_t ReadBigEndian(const unsigned char* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | p[i];
  if (n < 8 && (v >> (n * 8 - 1)) & 1) v |= ~uint64_t{0} << (n * 8);  // sign-extend
  return static_cast<int64_t>(v);
}

bool IsZoneNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '+' || c == '/';
}

std::string ZoneInfoDir() {
  const char* dir = std::getenv("TZDIR");
  return dir != nullptr && *dir != '\0' ? dir : "/usr/share/zoneinfo";
}

// Parses "[+-]hh[:mm[:ss]]" at text[*i] into seconds; returns false when malformed.
bool ParseHms(const std::string& text, size_t* i, int64_t* out) {
  int sign = 1;
  if (*i < text.size() && (text[*i] == '+' || text[*i] == '-')) sign = text[(*i)++] == '-' ? -1 : 1;
  int64_t parts[3] = {0, 0, 0};
  for (int k = 0; k < 3; ++k) {
    if (k > 0) {
      if (*i >= text.size() || text[*i] != ':') break;
      ++*i;
    }
    size_t start = *i;
    while (*i < text.size() && std::isdigit(static_cast<unsigned char>(text[*i]))) ++*i;
    if (*i == start) return false;
    parts[k] = std::atoll(text.substr(start, *i - start).c_str());
  }
  *out = sign * (parts[0] * 3600 + parts[1] * 60 + parts[2]);
  return true;
}

// Parses a zone abbreviation ("CET" or "<+03>"); returns false when missing.
bool SkipAbbreviation(const std::string& text, size_t* i) {
  size_t start = *i;
  if (*i < text.size() && text[*i] == '<') {
    size_t close = text.find('>', *i);
    if (close == std::string::npos) return false;
    *i = close + 1;
    return true;
  }
  while (*i < text.size() && std::isalpha(static_cast<unsigned char>(text[*i]))) ++*i;
  return *i - start >= 3;
}

// Parses ",Mm.w.d[/time]" at text[*i].
bool ParseMonthRule(const std::string& text, size_t* i, int* month, int* week, int* wday,
                    int64_t* time) {
  if (*i >= text.size() || text[*i] != ',') return false;
  ++*i;
  if (*i >= text.size() || text[*i] != 'M') return false;  // Jn and n forms are not supported
  ++*i;
  int values[3];
  for (int k = 0; k < 3; ++k) {
    if (k > 0) {
      if (*i >= text.size() || text[*i] != '.') return false;
      ++*i;
    }
    size_t start = *i;
    while (*i < text.size() && std::isdigit(static_cast<unsigned char>(text[*i]))) ++*i;
    if (*i == start) return false;
    values[k] = std::atoi(text.substr(start, *i - start).c_str());
  }
  *month = values[0];
  *week = values[1];
  *wday = values[2];
  if (*month < 1 || *month > 12 || *week < 1 || *week > 5 || *wday < 0 || *wday > 6) return false;
  if (*i < text.size() && text[*i] == '/') {
    ++*i;
    return ParseHms(text, i, time);
  }
  return true;
}

// Local seconds since the epoch of day `wday` of week `week` (5 = last) of `month` in `year`.
int64_t RuleDaySeconds(int year, int month, int week, int wday) {
  year_month ym{std::chrono::year{year}, std::chrono::month{static_cast<unsigned>(month)}};
  sys_days first{ym / 1};
  int first_wday = static_cast<int>(weekday{first}.c_encoding());
  int day = 1 + (wday - first_wday + 7) % 7 + (week - 1) * 7;
  int last_day = static_cast<int>(static_cast<unsigned>(year_month_day_last{ym / std::chrono::last}.day()));
  while (day > last_day) day -= 7;
  return duration_cast<seconds>((first + days{day - 1}).time_since_epoch()).count();
}

}  // namespace

TimeZone TimeZone::Utc() { return TimeZone(); }

Result<TimeZone> TimeZone::Load(const std::string& name) {
  if (name == "UTC" || name == "Etc/UTC" || name == "GMT" || name == "Etc/GMT") {
    TimeZone utc;
    utc.name_ = name;
    return utc;
  }
  if (name.empty() || name.front() == '/' || name.find("..") != std::string::npos ||
      !std::all_of(name.begin(), name.end(), IsZoneNameChar))
    return InvalidArgument("'" + name + "' is not an IANA time zone name (e.g. Europe/Berlin, UTC)");
  std::string path = ZoneInfoDir() + "/" + name;
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("unknown time zone '" + name + "' (not in " + ZoneInfoDir() + ")");
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  auto corrupt = [&] { return DataLoss("time zone file " + path + " is not a valid TZif file"); };
  if (data.size() < 44 || data.compare(0, 4, "TZif") != 0) return corrupt();

  // The header's six counts, in file order: isutcnt isstdcnt leapcnt timecnt typecnt charcnt.
  auto counts = [&](size_t at, int64_t c[6]) {
    for (int k = 0; k < 6; ++k) c[k] = ReadBigEndian(p + at + 20 + 4 * k, 4);
  };
  int64_t c[6];
  counts(0, c);
  size_t at = 44;
  int time_size = 4;
  if (data[4] >= '2') {
    // Skip the 32-bit block; the 64-bit block after it covers the full range.
    at += c[3] * 5 + c[4] * 6 + c[5] + c[2] * 8 + c[1] + c[0];
    if (data.size() < at + 44) return corrupt();
    counts(at, c);
    at += 44;
    time_size = 8;
  }
  const int64_t timecnt = c[3], typecnt = c[4];
  size_t need = at + timecnt * (time_size + 1) + typecnt * 6;
  if (typecnt < 1 || data.size() < need) return corrupt();
  std::vector<int64_t> type_offsets(typecnt);
  const size_t types_at = at + timecnt * (time_size + 1);
  for (int64_t t = 0; t < typecnt; ++t) type_offsets[t] = ReadBigEndian(p + types_at + 6 * t, 4);

  TimeZone zone;
  zone.name_ = name;
  zone.initial_offset_ = type_offsets[0];
  for (int64_t t = 0; t < timecnt; ++t) {
    size_t type = p[at + timecnt * time_size + t];
    if (type >= type_offsets.size()) return corrupt();
    zone.transitions_.push_back(ReadBigEndian(p + at + t * time_size, time_size));
    zone.offsets_.push_back(type_offsets[type]);
  }
  if (time_size == 8) {
    size_t footer_at = need + c[5] + c[2] * 12 + c[1] + c[0];
    if (footer_at < data.size() && data[footer_at] == '\n') {
      size_t end = data.find('\n', footer_at + 1);
      if (end != std::string::npos)
        zone.rule_ = ParsePosixRule(data.substr(footer_at + 1, end - footer_at - 1));
    }
  }
  return zone;
}

int64_t TimeZone::OffsetAt(int64_t utc_seconds) const {
  if (transitions_.empty() || utc_seconds < transitions_.front())
    return transitions_.empty() && rule_ ? RuleOffsetAt(utc_seconds) : initial_offset_;
  if (utc_seconds >= transitions_.back() && rule_) return RuleOffsetAt(utc_seconds);
  auto it = std::upper_bound(transitions_.begin(), transitions_.end(), utc_seconds);
  return offsets_[(it - transitions_.begin()) - 1];
}

std::optional<TimeZone::PosixRule> TimeZone::ParsePosixRule(const std::string& text) {
  PosixRule rule;
  size_t i = 0;
  int64_t posix_offset = 0;
  if (!SkipAbbreviation(text, &i) || !ParseHms(text, &i, &posix_offset)) return std::nullopt;
  rule.std_offset = -posix_offset;  // POSIX counts west of UTC as positive
  if (i == text.size()) return rule;
  if (!SkipAbbreviation(text, &i)) return std::nullopt;
  rule.has_dst = true;
  rule.dst_offset = rule.std_offset + 3600;
  if (i < text.size() && text[i] != ',') {
    if (!ParseHms(text, &i, &posix_offset)) return std::nullopt;
    rule.dst_offset = -posix_offset;
  }
  if (!ParseMonthRule(text, &i, &rule.start_month, &rule.start_week, &rule.start_wday,
                      &rule.start_time) ||
      !ParseMonthRule(text, &i, &rule.end_month, &rule.end_week, &rule.end_wday, &rule.end_time) ||
      i != text.size())
    return std::nullopt;
  return rule;
}

int64_t TimeZone::RuleOffsetAt(int64_t utc_seconds) const {
  const PosixRule& r = *rule_;
  if (!r.has_dst) return r.std_offset;
  sys_days local_day = floor<days>(sys_seconds{seconds{utc_seconds + r.std_offset}});
  int year = static_cast<int>(year_month_day{local_day}.year());
  int64_t start = RuleDaySeconds(year, r.start_month, r.start_week, r.start_wday) + r.start_time -
                  r.std_offset;
  int64_t end =
      RuleDaySeconds(year, r.end_month, r.end_week, r.end_wday) + r.end_time - r.dst_offset;
  bool dst = start < end ? (utc_seconds >= start && utc_seconds < end)
                         : !(utc_seconds >= end && utc_seconds < start);  // southern hemisphere
  return dst ? r.dst_offset : r.std_offset;
}

TimeZone ZoneOrUtc(const std::string& name) {
  auto zone = TimeZone::Load(name);
  return zone.ok() ? *zone : TimeZone::Utc();
}

std::string FormatWithOffset(TimePoint t, const TimeZone& zone) {
  const int64_t utc_s = static_cast<int64_t>(std::floor(static_cast<double>(ToUnixMillis(t)) / 1000.0));
  const int64_t offset = zone.OffsetAt(utc_s);
  const std::time_t local = static_cast<std::time_t>(utc_s + offset);
  std::tm parts{};
  gmtime_r(&local, &parts);
  char text[40];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &parts);
  std::string out = text;
  if (offset == 0) return out + "Z";
  const int64_t a = offset < 0 ? -offset : offset;
  char suffix[8];
  std::snprintf(suffix, sizeof suffix, "%c%02d:%02d", offset < 0 ? '-' : '+', static_cast<int>(a / 3600),
                static_cast<int>((a % 3600) / 60));
  return out + suffix;
}

}  // namespace dw::config
