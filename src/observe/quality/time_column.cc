#include "observe/quality/time_column.h"

#include <cmath>

namespace dw::observe::quality {
namespace {

using warehouse::SqlValue;
using warehouse::TimeEncoding;

// Epoch values at or above this are milliseconds: 1e11 seconds is the year 5138, 1e11 ms is 1973.
constexpr double kMillisThreshold = 1e11;

bool IsNumericType(const std::string& type) {
  static const char* kNumeric[] = {"integer",  "bigint", "smallint", "numeric",
                                   "real",     "double precision", "decimal", "int"};
  for (const char* t : kNumeric)
    if (type == t) return true;
  return type.find("int") != std::string::npos || type.find("real") != std::string::npos ||
         type.find("floa") != std::string::npos || type.find("doub") != std::string::npos;
}

std::optional<double> AsNumber(const SqlValue& v) {
  if (const auto* n = std::get_if<int64_t>(&v)) return static_cast<double>(*n);
  if (const auto* d = std::get_if<double>(&v)) return *d;
  return std::nullopt;
}

}  // namespace

std::optional<int64_t> TimeColumn::ToMillis(const SqlValue& cell) const {
  if (std::holds_alternative<std::monostate>(cell)) return std::nullopt;
  if (const auto* s = std::get_if<std::string>(&cell)) {
    if (std::optional<int64_t> ms = ParseTimestampMillis(*s)) return ms;
    // A number the driver returned as text (PostgreSQL numeric).
    char* end = nullptr;
    double d = std::strtod(s->c_str(), &end);
    if (end == s->c_str() || *end != '\0') return std::nullopt;
    return ToMillis(SqlValue(d));
  }
  std::optional<double> n = AsNumber(cell);
  if (!n || !std::isfinite(*n)) return std::nullopt;
  switch (encoding) {
    case TimeEncoding::kNative:  // PostgreSQL: MaxTime already gives milliseconds
    case TimeEncoding::kEpochMillis:
      return static_cast<int64_t>(std::llround(*n));
    case TimeEncoding::kEpochSeconds:
      return static_cast<int64_t>(std::llround(*n * 1000.0));
    case TimeEncoding::kText:
      return static_cast<int64_t>(std::llround(std::fabs(*n) >= kMillisThreshold ? *n : *n * 1000));
  }
  return std::nullopt;
}

SqlValue TimeColumn::Param(int64_t unix_ms) const {
  switch (encoding) {
    case TimeEncoding::kNative:
      return FormatTimestamp(unix_ms, TextTimeStyle{false, 'T', 3, "Z"});
    case TimeEncoding::kEpochMillis:
      return unix_ms;
    case TimeEncoding::kEpochSeconds:
      // Whole seconds, so an integer column compares without a cast (the row at the same second
      // is included, which errs towards checking more, never fewer, rows).
      return unix_ms >= 0 ? unix_ms / 1000 : -((-unix_ms + 999) / 1000);
    case TimeEncoding::kText:
      return FormatTimestamp(unix_ms, text_style);
  }
  return std::monostate{};
}

Result<TimeColumn> ResolveTimeColumn(warehouse::Warehouse& wh, const warehouse::TableSchema& table,
                                     const std::string& column) {
  const warehouse::Column* c = table.Find(column);
  if (c == nullptr) return NotFound("time column '" + column + "' not found");
  TimeColumn tc;
  tc.name = c->name;
  tc.type = c->type;
  const warehouse::Dialect& d = wh.dialect();
  if (d.IsNativeTimeType(c->type)) {
    tc.encoding = TimeEncoding::kNative;
    return tc;
  }
  if (d.EnforcesColumnTypes() && !IsNumericType(c->type) && c->type != "text" &&
      c->type != "character varying" && c->type != "character") {
    return InvalidArgument("time column '" + column + "' has type " + c->type +
                           ", which does not hold a time (use a timestamp, ISO 8601 text or epoch "
                           "seconds/milliseconds)");
  }
  Result<warehouse::QueryOutcome> sample =
      wh.Query("SELECT " + d.Quote(c->name) + " FROM " + d.Table(table.id) + " WHERE " +
                   d.Quote(c->name) + " IS NOT NULL LIMIT 1",
               {}, {});
  if (!sample.ok()) return sample.status();
  if (sample->rows.empty()) {
    // An empty column: compare as the ISO text this product writes; nothing to mis-compare yet.
    tc.encoding = IsNumericType(c->type) ? TimeEncoding::kEpochSeconds : TimeEncoding::kText;
    tc.text_style = TextTimeStyle{false, 'T', 3, "Z"};
    return tc;
  }
  const SqlValue& v = sample->rows[0][0];
  if (std::optional<double> n = AsNumber(v)) {
    tc.encoding = std::fabs(*n) >= kMillisThreshold ? TimeEncoding::kEpochMillis
                                                    : TimeEncoding::kEpochSeconds;
    return tc;
  }
  const std::string& text = std::get<std::string>(v);
  std::optional<TextTimeStyle> style = LearnTextTimeStyle(text);
  if (!style) {
    return InvalidArgument("time column '" + column + "' holds '" + text.substr(0, 40) +
                           "', which is not an ISO 8601 timestamp");
  }
  tc.encoding = TimeEncoding::kText;
  tc.text_style = *style;
  return tc;
}

}  // namespace dw::observe::quality
