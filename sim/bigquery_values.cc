#include "sim/bigquery_values.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "base/civil_date.h"

namespace dw::sim {
namespace {

// ---- time ----

std::string FormatMicros(int64_t micros, bool date_only) { return FormatEpochMicros(micros, date_only, ""); }

}  // namespace

std::optional<int64_t> ParseTimeText(const std::string& t) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, n = 0;
  if (std::sscanf(t.c_str(), "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10) return std::nullopt;
  int64_t micros = 0;
  size_t i = 10;
  if (i < t.size() && (t[i] == 'T' || t[i] == ' ')) {
    int m2 = 0;
    if (std::sscanf(t.c_str() + i + 1, "%2d:%2d:%2d%n", &h, &mi, &s, &m2) != 3 || m2 != 8) return std::nullopt;
    i += 9;
    if (i < t.size() && t[i] == '.') {
      int64_t scale = 100000;
      for (++i; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); ++i, scale /= 10)
        micros += (t[i] - '0') * scale;
    }
    if (i < t.size() && t[i] == 'Z') ++i;
    else if (t.compare(i, 6, "+00:00") == 0) i += 6;
  }
  if (i != t.size() || mo < 1 || mo > 12 || d < 1 || d > 31) return std::nullopt;
  return (DaysFromCivil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * 86400 + h * 3600 + mi * 60 + s) *
             1000000 + micros;
}

std::string ScientificSeconds(int64_t micros) {
  if (micros == 0) return "0.0";
  std::string sign = micros < 0 ? "-" : "";
  uint64_t v = micros < 0 ? static_cast<uint64_t>(-(micros + 1)) + 1 : static_cast<uint64_t>(micros);
  std::string digits = std::to_string(v);
  int exponent = static_cast<int>(digits.size()) - 1 - 6;  // of the first digit, in seconds
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string mantissa = digits.substr(0, 1) + "." + (digits.size() > 1 ? digits.substr(1) : "0");
  return sign + mantissa + "E" + std::to_string(exponent);
}

namespace {

// ---- SQLite functions (the translation's bq_*) ----

std::optional<int64_t> ToMicros(sqlite3_value* v) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER: return sqlite3_value_int64(v);
    case SQLITE_FLOAT: return static_cast<int64_t>(std::llround(sqlite3_value_double(v)));
    case SQLITE_TEXT: return ParseTimeText(reinterpret_cast<const char*>(sqlite3_value_text(v)));
    default: return std::nullopt;
  }
}

void CastTo(sqlite3_context* ctx, sqlite3_value* v, const std::string& type) {
  if (sqlite3_value_type(v) == SQLITE_NULL) return sqlite3_result_null(ctx);
  const std::string text = sqlite3_value_type(v) == SQLITE_TEXT ? reinterpret_cast<const char*>(sqlite3_value_text(v)) : "";
  if (type == "TIMESTAMP" || type == "DATE" || type == "DATETIME") {
    std::optional<int64_t> micros = ToMicros(v);
    if (!micros) return sqlite3_result_error(ctx, ("Invalid " + type + " string \"" + text + "\"").c_str(), -1);
    if (type == "TIMESTAMP") return sqlite3_result_int64(ctx, *micros);
    std::string out = FormatMicros(*micros, type == "DATE");
    return sqlite3_result_text(ctx, out.c_str(), -1, SQLITE_TRANSIENT);
  }
  if (type == "INT64" || type == "BOOL") {
    if (sqlite3_value_type(v) == SQLITE_TEXT) {
      char* end = nullptr;
      long long n = std::strtoll(text.c_str(), &end, 10);
      if (text.empty() || *end != '\0') return sqlite3_result_error(ctx, ("Bad int64 value: " + text).c_str(), -1);
      return sqlite3_result_int64(ctx, n);
    }
    return sqlite3_result_int64(ctx, static_cast<int64_t>(std::llround(sqlite3_value_double(v))));
  }
  if (type == "FLOAT64") return sqlite3_result_double(ctx, sqlite3_value_double(v));
  sqlite3_result_text(ctx, reinterpret_cast<const char*>(sqlite3_value_text(v)), -1, SQLITE_TRANSIENT);
}

void BqCast(sqlite3_context* ctx, int, sqlite3_value** argv) {
  CastTo(ctx, argv[0], reinterpret_cast<const char*>(sqlite3_value_text(argv[1])));
}
void BqTimestamp(sqlite3_context* ctx, int, sqlite3_value** argv) { CastTo(ctx, argv[0], "TIMESTAMP"); }
void BqDate(sqlite3_context* ctx, int, sqlite3_value** argv) { CastTo(ctx, argv[0], "DATE"); }
void BqDatetime(sqlite3_context* ctx, int, sqlite3_value** argv) { CastTo(ctx, argv[0], "DATETIME"); }
void BqUnixMillis(sqlite3_context* ctx, int, sqlite3_value** argv) {
  std::optional<int64_t> micros = ToMicros(argv[0]);
  if (!micros) return sqlite3_result_null(ctx);
  sqlite3_result_int64(ctx, *micros >= 0 ? *micros / 1000 : -((-*micros + 999) / 1000));
}
void BqUnixSeconds(sqlite3_context* ctx, int, sqlite3_value** argv) {
  std::optional<int64_t> micros = ToMicros(argv[0]);
  if (!micros) return sqlite3_result_null(ctx);
  sqlite3_result_int64(ctx, *micros >= 0 ? *micros / 1000000 : -((-*micros + 999999) / 1000000));
}
// MOD(x, y): the remainder with x's sign, as GoogleSQL's (and C's) %; NULL for NULL, an error for
// a zero divisor.
void BqMod(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL) return sqlite3_result_null(ctx);
  const int64_t y = sqlite3_value_int64(argv[1]);
  if (y == 0) return sqlite3_result_error(ctx, "division by zero: MOD", -1);
  sqlite3_result_int64(ctx, sqlite3_value_int64(argv[0]) % y);
}
// TIMESTAMP_SECONDS(n): the TIMESTAMP n seconds after the epoch (microseconds here).
void BqTimestampSeconds(sqlite3_context* ctx, int, sqlite3_value** argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return sqlite3_result_null(ctx);
  sqlite3_result_int64(ctx, sqlite3_value_int64(argv[0]) * 1000000);
}
void CountIfStep(sqlite3_context* ctx, int, sqlite3_value** argv) {
  auto* n = static_cast<int64_t*>(sqlite3_aggregate_context(ctx, sizeof(int64_t)));
  if (n != nullptr && sqlite3_value_type(argv[0]) != SQLITE_NULL && sqlite3_value_double(argv[0]) != 0) ++*n;
}
void CountIfFinal(sqlite3_context* ctx) {
  auto* n = static_cast<int64_t*>(sqlite3_aggregate_context(ctx, 0));
  sqlite3_result_int64(ctx, n == nullptr ? 0 : *n);
}

}  // namespace

void RegisterBigQueryFunctions(sqlite3* db) {
  const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC;
  sqlite3_create_function(db, "bq_cast", 2, flags, nullptr, BqCast, nullptr, nullptr);
  sqlite3_create_function(db, "bq_timestamp", 1, flags, nullptr, BqTimestamp, nullptr, nullptr);
  sqlite3_create_function(db, "bq_date", 1, flags, nullptr, BqDate, nullptr, nullptr);
  sqlite3_create_function(db, "bq_datetime", 1, flags, nullptr, BqDatetime, nullptr, nullptr);
  sqlite3_create_function(db, "bq_unix_millis", 1, flags, nullptr, BqUnixMillis, nullptr, nullptr);
  sqlite3_create_function(db, "bq_unix_seconds", 1, flags, nullptr, BqUnixSeconds, nullptr, nullptr);
  sqlite3_create_function(db, "bq_mod", 2, flags, nullptr, BqMod, nullptr, nullptr);
  sqlite3_create_function(db, "bq_timestamp_seconds", 1, flags, nullptr, BqTimestampSeconds, nullptr, nullptr);
  sqlite3_create_function(db, "bq_countif", 1, flags, nullptr, nullptr, CountIfStep, CountIfFinal);
  // The simulator holds a job's labels as the JSON text TO_JSON_STRING gives of them.
  sqlite3_create_function(
      db, "bq_to_json_string", 1, flags, nullptr,
      [](sqlite3_context* ctx, int, sqlite3_value** argv) { sqlite3_result_value(ctx, argv[0]); }, nullptr, nullptr);
}

}  // namespace dw::sim
