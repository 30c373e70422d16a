#include "warehouse/snowflake_rows.h"

#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "base/civil_date.h"

namespace dw::warehouse {
namespace {

using store::SqlRow;
using store::SqlValue;

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

std::optional<int64_t> Int64(std::string_view s) {
  int64_t n = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return n;
}

// A decimal "[-]digits[.digits]" as the SQL API writes NUMBER and FLOAT cells.
bool PlainDecimal(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  const size_t dot = s.find('.');
  if (dot == std::string_view::npos) return AllDigits(s);
  return AllDigits(s.substr(0, dot)) && (dot + 1 == s.size() || AllDigits(s.substr(dot + 1)));
}

std::optional<SqlValue> Fixed(const std::string& v, int scale) {
  if (!PlainDecimal(v)) return std::nullopt;
  if (scale == 0 && v.find('.') == std::string::npos) {
    if (std::optional<int64_t> n = Int64(v)) return SqlValue(*n);
    return SqlValue(v);  // NUMBER(38) beyond int64: exact text
  }
  size_t significant = 0;
  bool leading = true;
  for (char c : v) {
    if (c < '0' || c > '9') continue;
    if (leading && c == '0') continue;
    leading = false;
    ++significant;
  }
  if (significant <= 15) return SqlValue(std::strtod(v.c_str(), nullptr));
  return SqlValue(v);
}

std::optional<SqlValue> Real(const std::string& v) {
  static const std::set<std::string> kSpecial = {"nan", "inf", "-inf", "infinity", "-infinity"};
  if (kSpecial.count(Lower(v))) return SqlValue(std::strtod(v.c_str(), nullptr));
  char* end = nullptr;
  double d = std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size() || std::isspace(static_cast<unsigned char>(v[0]))) return std::nullopt;
  return SqlValue(d);
}

std::optional<SqlValue> Time(const std::string& v) {
  std::optional<int64_t> micros = SnowflakeEpochMicros(v);
  if (!micros || *micros < 0 || *micros >= 86400LL * 1000000) return std::nullopt;
  const int64_t s = *micros / 1000000;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%02lld:%02lld:%02lld.%06lld", static_cast<long long>(s / 3600),
                static_cast<long long>(s / 60 % 60), static_cast<long long>(s % 60),
                static_cast<long long>(*micros % 1000000));
  return SqlValue(std::string(buf));
}

std::optional<SqlValue> DecodeCell(const SnowflakeColumn& c, const std::string& v) {
  const std::string& t = c.type;
  if (t == "fixed") return Fixed(v, c.scale);
  if (t == "real") return Real(v);
  if (t == "boolean") {
    if (v == "true") return SqlValue(int64_t{1});
    if (v == "false") return SqlValue(int64_t{0});
    return std::nullopt;
  }
  if (t == "date") {
    std::optional<int64_t> days = Int64(v);
    if (!days || *days < -719162 || *days > 2932896) return std::nullopt;  // years 1..9999
    return SqlValue(FormatEpochMicros(*days * 86400LL * 1000000, /*date_only=*/true, ""));
  }
  if (t == "timestamp_ntz" || t == "timestamp_ltz" || t == "timestamp_tz") {
    std::string seconds = v;
    if (t == "timestamp_tz") {
      const size_t space = v.find(' ');
      if (space == std::string::npos) return std::nullopt;
      std::optional<int64_t> offset = Int64(std::string_view(v).substr(space + 1));
      if (!offset || *offset < 0 || *offset > 2880) return std::nullopt;
      seconds = v.substr(0, space);  // the seconds are UTC already; the offset is the zone shown
    }
    std::optional<int64_t> micros = SnowflakeEpochMicros(seconds);
    if (!micros || *micros < -62135596800LL * 1000000 || *micros > 253402300799LL * 1000000) return std::nullopt;
    return SqlValue(FormatEpochMicros(*micros, /*date_only=*/false, "Z"));
  }
  if (t == "time") return Time(v);
  static const std::set<std::string> kText = {"text", "variant", "object", "array", "binary", "geography", "geometry"};
  if (kText.count(t)) return SqlValue(v);
  return std::nullopt;
}

const std::set<std::string>& KnownTypes() {
  static const std::set<std::string> k = {"fixed", "real", "boolean", "date", "timestamp_ntz", "timestamp_ltz",
                                          "timestamp_tz", "time", "text", "variant", "object", "array",
                                          "binary", "geography", "geometry"};
  return k;
}

}  // namespace

std::optional<int64_t> SnowflakeEpochMicros(const std::string& cell) {
  std::string_view s = cell;
  bool negative = false;
  if (!s.empty() && s[0] == '-') {
    negative = true;
    s.remove_prefix(1);
  }
  const size_t dot = s.find('.');
  std::string_view whole = s.substr(0, dot), fraction = dot == std::string_view::npos ? "" : s.substr(dot + 1);
  if (!AllDigits(whole) || (dot != std::string_view::npos && !AllDigits(fraction)) || fraction.size() > 9)
    return std::nullopt;
  // Whole nanoseconds (no point, more digits than any seconds value up to year 9999 has).
  if (dot == std::string_view::npos && whole.size() > 12) {
    std::optional<int64_t> nanos = Int64(whole);  // refuses more than int64 holds
    if (!nanos) return std::nullopt;
    const int64_t n = negative ? -*nanos : *nanos;
    return n >= 0 ? n / 1000 : -((-n + 999) / 1000);
  }
  if (whole.size() > 12) return std::nullopt;
  std::optional<int64_t> secs = Int64(whole);
  if (!secs) return std::nullopt;
  std::string nine(fraction);
  nine.append(9 - nine.size(), '0');
  const int64_t nanos = *secs * 1000000000LL + *Int64(nine);
  const int64_t n = negative ? -nanos : nanos;
  return n >= 0 ? n / 1000 : -((-n + 999) / 1000);
}

Result<std::vector<SnowflakeColumn>> SnowflakeRowType(const Json& row_type) {
  if (!row_type.is_array()) return DataLoss("Snowflake's answer has no resultSetMetaData.rowType array");
  std::vector<SnowflakeColumn> out;
  for (size_t i = 0; i < row_type.size(); ++i) {
    const Json& c = row_type[i];
    if (!c.is_object()) return DataLoss("Snowflake's rowType entry " + std::to_string(i + 1) + " is not an object");
    SnowflakeColumn col;
    auto name = c.find("name");
    col.name = name != c.end() && name->is_string() ? name->get<std::string>() : "column " + std::to_string(i + 1);
    auto type = c.find("type");
    if (type == c.end() || !type->is_string()) return DataLoss("Snowflake's rowType gives column '" + col.name + "' no type");
    col.type = Lower(type->get<std::string>());
    if (!KnownTypes().count(col.type))
      return DataLoss("column '" + col.name + "' is of Snowflake type " + type->get<std::string>() +
                      ", which this client cannot read; cast it in a view (e.g. to VARCHAR)");
    auto scale = c.find("scale");
    if (scale != c.end() && scale->is_number_integer()) col.scale = scale->get<int>();
    if (col.scale < 0 || col.scale > 37) return DataLoss("Snowflake's rowType gives column '" + col.name + "' scale " + scale->dump());
    out.push_back(std::move(col));
  }
  return out;
}

Status DecodeSnowflakeRows(const std::vector<SnowflakeColumn>& columns, const Json& data, std::vector<SqlRow>& out) {
  if (data.is_null()) return Status::Ok();
  if (!data.is_array()) return DataLoss("Snowflake's answer has `data` that is not an array");
  for (size_t r = 0; r < data.size(); ++r) {
    const Json& row = data[r];
    if (!row.is_array() || row.size() != columns.size())
      return DataLoss("Snowflake's row " + std::to_string(r) + " does not have " + std::to_string(columns.size()) + " cells");
    SqlRow cells;
    for (size_t c = 0; c < columns.size(); ++c) {
      const Json& cell = row[c];
      if (cell.is_null()) {
        cells.emplace_back(std::monostate{});
        continue;
      }
      std::optional<SqlValue> value = cell.is_string() ? DecodeCell(columns[c], cell.get<std::string>()) : std::nullopt;
      if (!value)
        return DataLoss("Snowflake's row " + std::to_string(r) + " column '" + columns[c].name + "' (" + columns[c].type +
                        ") holds a value this client cannot read as that type");
      cells.push_back(std::move(*value));
    }
    out.push_back(std::move(cells));
  }
  return Status::Ok();
}

}  // namespace dw::warehouse
