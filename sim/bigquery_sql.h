// The GoogleSQL subset dw-sim bigquery evaluates, translated to SQLite (docs/bigquery.md, "The
// simulator's SQL subset"). A statement outside the subset is refused with the error BigQuery
// itself gives (invalidQuery, notFound or accessDenied), never answered approximately.
//
// What is translated:
//   - names: `project`.`dataset`.`table`, `dataset`.`table` and the one-token `project.dataset.table`
//     become the SQLite table "dataset.table" (the project must be the simulator's; the table must
//     be in its catalog); any other `name` becomes "name"
//   - `X`.INFORMATION_SCHEMA.TABLES / .COLUMNS: with X = region-<location> the whole catalog, with
//     X = a dataset that dataset's rows (X may be preceded by the project); `region-<location>`.
//     INFORMATION_SCHEMA.JOBS: the jobs the simulator ran and those the script adds (labels held as
//     the JSON text TO_JSON_STRING gives of them)
//   - @name parameters are kept (SQLite binds @name); "text" is a string literal as in GoogleSQL
//   - CAST(x AS T) becomes bq_cast(x, 'T'); countif, UNIX_MILLIS, UNIX_SECONDS, DATE, DATETIME,
//     TIMESTAMP, SUBSTR and TO_JSON_STRING become the simulator's functions of the same meaning; count, sum, min, max, avg,
//     coalesce, ifnull, abs, lower, upper, length and round are SQLite's
//   - a two-part name whose first part is not a dataset of the catalog is alias.column
//   - MOD, FORMAT and TIMESTAMP_SECONDS become functions of the same meaning, and
//     UNNEST(GENERATE_ARRAY(a, b)) AS x (integer literals a and b) a subquery of the integers
//     a..b as the column x, so that a replay's world can write rows at scale in GoogleSQL
// What is refused: anything but one SELECT/WITH statement (with `allow_writes`, the world's own
// statements in a replay, never the API's: one INSERT, UPDATE or DELETE too), another function,
// FILTER (not GoogleSQL), $N and :name placeholders, backslash escapes in literals, r/b-prefixed
// literals.
#pragma once

#include <set>
#include <string>
#include <utility>

namespace dw::sim {

struct BigQueryCatalog {
  std::string project;
  std::string location = "US";
  std::set<std::string> datasets;
  std::set<std::pair<std::string, std::string>> tables;  // (dataset, table)
  std::set<std::string> denied_datasets;                 // answered accessDenied
};

struct SqlTranslation {
  bool ok = false;
  std::string sql;      // SQLite, when ok
  int http_status = 0;  // otherwise: 400, 403 or 404
  std::string reason;   // invalidQuery, accessDenied, notFound
  std::string message;  // BigQuery's wording
  // What the statement reads, for the simulator's billing: the catalog tables it names, and every
  // other name in it (a column is read if its name is among them).
  std::set<std::pair<std::string, std::string>> tables;
  std::set<std::string> names;
  std::string statement;  // its first keyword, upper case (SELECT, WITH, INSERT, UPDATE, DELETE)
  std::pair<std::string, std::string> first_table;  // the first catalog table it names (a write's target)
};

// Translates `sql` for SQLite against `catalog`; with `allow_writes`, one INSERT, UPDATE or
// DELETE is accepted too.
SqlTranslation TranslateGoogleSql(const std::string& sql, const BigQueryCatalog& catalog, bool allow_writes = false);

// The SQLite name of a catalog table: "dataset.table" in double quotes.
std::string SqliteTableName(const std::string& dataset, const std::string& table);

}  // namespace dw::sim
