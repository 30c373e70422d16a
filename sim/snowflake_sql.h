// The Snowflake SQL subset dw-sim snowflake evaluates, translated to SQLite (docs/snowflake.md,
// "The simulator's SQL subset"). A statement outside the subset is refused with the error
// Snowflake itself gives (422 with code and sqlState), never answered approximately.
//
// What is translated:
//   - names: an unquoted identifier is folded to upper case, a "quoted" one kept exactly, as
//     Snowflake resolves them; DATABASE.SCHEMA.TABLE and SCHEMA.TABLE (in the session's database)
//     become the SQLite table "SCHEMA.TABLE" when the catalog has it (else 002003, "does not exist
//     or not authorized"); any other two-part name is alias.column
//   - [DATABASE.]INFORMATION_SCHEMA.TABLES / .COLUMNS: the catalog's rows
//   - SNOWFLAKE.ACCOUNT_USAGE.QUERY_HISTORY / .ACCESS_HISTORY / .QUERY_ATTRIBUTION_HISTORY: what
//     the simulator ran and what the script says others ran ("ACCOUNT_USAGE.<VIEW>")
//   - `?` bind variables are kept (SQLite binds them by position); '...' literals are kept
//   - CAST(x AS T) becomes bq_cast(x, 'T') with Snowflake's types mapped to the simulator's
//     storage (NUMBER, INTEGER, FLOAT, VARCHAR, TEXT, BOOLEAN, DATE, TIMESTAMP_NTZ/LTZ/TZ);
//     COUNT_IF, DATE_PART(EPOCH_MILLISECOND | EPOCH_SECOND, x), TO_TIMESTAMP(_NTZ/_LTZ/_TZ),
//     TO_DATE, CONVERT_TIMEZONE('UTC', x), NVL, IFF, SUBSTR and ARRAY_SIZE become functions of
//     the same meaning;
//     count, sum, min, max, avg, coalesce, ifnull, abs, lower, upper, length and round are SQLite's
// What is refused: anything but one SELECT/WITH statement, another function, FILTER, `::`
// casts, :name and :N variables, backslash escapes and $$ strings.
#pragma once

#include <set>
#include <string>
#include <utility>

namespace dw::sim {

struct SnowflakeCatalog {
  std::string database;                                   // as stored (upper case, usually)
  std::set<std::string> schemas;
  std::set<std::pair<std::string, std::string>> tables;   // (schema, table)
  std::set<std::string> denied_schemas;                   // the role may not read them (003001)
  bool account_usage = true;  // the role may read SNOWFLAKE.ACCOUNT_USAGE (GOVERNANCE_VIEWER)
};

struct SnowflakeTranslation {
  bool ok = false;
  std::string sql;        // SQLite, when ok
  std::string statement;  // its first keyword, upper case (SELECT, WITH, INSERT, UPDATE, DELETE)
  std::pair<std::string, std::string> first_table;  // the first catalog table it names (a write's target)
  std::string code;       // otherwise Snowflake's error code ("001003", "002003", "003001")
  std::string sql_state;  // "42000", "42S02", "42501"
  std::string message;    // Snowflake's wording
};

// Translates `sql` for SQLite against `catalog`, `database` being the session's. With
// `allow_writes` (the world's own statements in a replay, never the API's), one INSERT, UPDATE or
// DELETE is accepted too.
SnowflakeTranslation TranslateSnowflakeSql(const std::string& sql, const SnowflakeCatalog& catalog,
                                           bool allow_writes = false);

// The SQLite name of a catalog table: "SCHEMA.TABLE" in double quotes.
std::string SnowflakeSqliteTable(const std::string& schema, const std::string& table);

}  // namespace dw::sim
