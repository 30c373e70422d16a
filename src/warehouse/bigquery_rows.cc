#include "warehouse/bigquery_rows.h"

#include <cerrno>
#include <charconv>
#include <cstdlib>

#include "base/civil_date.h"

namespace dw::warehouse {
namespace {

using store::SqlRow;
using store::SqlValue;

// Exact microseconds of a decimal number of seconds ("1.7E9", "-0.5", "1700000000.123456"); digits
// below the microsecond are refused (BigQuery's TIMESTAMP has none).
std::optional<int64_t> ExactMicros(const std::string& text) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
  std::string digits;
  int scale = 0;  // value = digits * 10^scale
  bool seen_digit = false, seen_point = false;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c >= '0' && c <= '9') {
      digits += c;
      seen_digit = true;
      if (seen_point) --scale;
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  if (!seen_digit) return std::nullopt;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    int exponent = 0;
    const char* begin = text.data() + i + 1;
    if (begin < text.data() + text.size() && *begin == '+') ++begin;
    auto [end, ec] = std::from_chars(begin, text.data() + text.size(), exponent);
    if (ec != std::errc() || end != text.data() + text.size() || exponent > 40 || exponent < -40)
      return std::nullopt;
    scale += exponent;
    i = text.size();
  }
  if (i != text.size()) return std::nullopt;
  scale += 6;  // to microseconds
  while (scale < 0) {
    if (digits.empty() || digits.back() != '0') return std::nullopt;  // below a microsecond
    digits.pop_back();
    ++scale;
  }
  digits.append(static_cast<size_t>(scale), '0');
  size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) return int64_t{0};
  digits = digits.substr(first);
  if (digits.size() > 18) return std::nullopt;  // beyond year 9999 anyway
  int64_t v = std::stoll(digits);
  return negative ? -v : v;
}

std::optional<SqlValue> DecodeCell(const std::string& type, const std::string& v) {
  if (type == "INT64" || type == "INTEGER") {
    int64_t n = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || end != v.data() + v.size()) return std::nullopt;
    return SqlValue(n);
  }
  if (type == "FLOAT64" || type == "FLOAT") {
    errno = 0;
    char* end = nullptr;
    double d = std::strtod(v.c_str(), &end);  // accepts NaN, Infinity, -Infinity
    if (v.empty() || end != v.c_str() + v.size()) return std::nullopt;
    return SqlValue(d);
  }
  if (type == "BOOL" || type == "BOOLEAN") {
    if (v == "true") return SqlValue(int64_t{1});
    if (v == "false") return SqlValue(int64_t{0});
    return std::nullopt;
  }
  if (type == "TIMESTAMP") {
    std::optional<std::string> text = TimestampCellText(v);
    if (!text) return std::nullopt;
    return SqlValue(*text);
  }
  static const char* kText[] = {"STRING", "BYTES", "DATE", "DATETIME", "TIME", "GEOGRAPHY", "JSON",
                                "NUMERIC", "BIGNUMERIC", "INTERVAL"};
  for (const char* t : kText)
    if (type == t) return SqlValue(v);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> TimestampCellText(const std::string& seconds) {
  std::optional<int64_t> micros = ExactMicros(seconds);
  if (!micros) return std::nullopt;
  return FormatEpochMicros(*micros, /*date_only=*/false, "Z");
}

Result<std::vector<std::string>> ScalarColumnTypes(const Json& schema) {
  auto fields = schema.is_object() ? schema.find("fields") : schema.end();
  if (!schema.is_object() || fields == schema.end() || !fields->is_array())
    return InvalidArgument("BigQuery's answer has no schema.fields");
  std::vector<std::string> types;
  for (const Json& f : *fields) {
    if (!f.is_object()) return InvalidArgument("BigQuery's answer has a schema field that is not an object");
    auto name = f.find("name");
    auto type = f.find("type");
    auto mode = f.find("mode");
    const std::string n = name != f.end() && name->is_string() ? name->get<std::string>() : "?";
    if (type == f.end() || !type->is_string())
      return InvalidArgument("BigQuery's answer gives column '" + n + "' no type");
    const std::string t = type->get<std::string>();
    if (mode != f.end() && mode->is_string() && mode->get<std::string>() == "REPEATED")
      return InvalidArgument("column '" + n + "' is REPEATED (an array); checks read scalar columns only: "
                             "select an element or UNNEST it in a view");
    if (t == "RECORD" || t == "STRUCT")
      return InvalidArgument("column '" + n + "' is a " + t + "; checks read scalar columns only: "
                             "select its fields (" + n + ".field) in a view");
    types.push_back(t);
  }
  return types;
}

Status DecodeBigQueryRows(const std::vector<std::string>& types, const Json& rows, std::vector<SqlRow>& out) {
  if (rows.is_null()) return Status::Ok();  // an empty result has no `rows`
  if (!rows.is_array()) return DataLoss("BigQuery's answer has `rows` that is not an array");
  for (size_t r = 0; r < rows.size(); ++r) {
    const Json& row = rows[r];
    auto f = row.is_object() ? row.find("f") : row.end();
    if (!row.is_object() || f == row.end() || !f->is_array() || f->size() != types.size())
      return DataLoss("BigQuery's row " + std::to_string(r) + " does not have " + std::to_string(types.size()) +
                      " cells under `f`");
    SqlRow cells;
    for (size_t c = 0; c < types.size(); ++c) {
      const Json& cell = (*f)[c];
      auto v = cell.is_object() ? cell.find("v") : cell.end();
      if (!cell.is_object() || v == cell.end() || v->is_null()) {
        cells.emplace_back(std::monostate{});
        continue;
      }
      std::optional<SqlValue> value = v->is_string() ? DecodeCell(types[c], v->get<std::string>()) : std::nullopt;
      if (!value)
        return DataLoss("BigQuery's row " + std::to_string(r) + " column " + std::to_string(c + 1) + " (" +
                        types[c] + ") holds a value this client cannot read as that type");
      cells.push_back(std::move(*value));
    }
    out.push_back(std::move(cells));
  }
  return Status::Ok();
}

}  // namespace dw::warehouse
