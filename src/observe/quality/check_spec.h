// The checks declared on one table, in the workspace's vocabulary (docs/workspace.md, `checks`),
// parsed into plain values. The same parser reads a workspace block and an inline check sent
// through MCP, so both speak exactly one language; only the workspace may carry SQL.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/json.h"
#include "base/status.h"

namespace dw::observe::quality {

struct VolumeSpec {
  std::optional<int64_t> min_rows;
  std::optional<int64_t> max_rows;
  std::optional<std::chrono::milliseconds> window;  // thresholds apply to rows in the last window
};

struct RangeSpec {
  std::optional<double> min;
  std::optional<double> max;
};

struct RowCountChangeSpec {
  std::optional<double> max_drop_pct;
  std::optional<double> max_growth_pct;
};

// What a failed check does (docs/quality.md, "Levels and allowed rates"): `fail` fails the run
// and may open an incident; `warn` is shown and recorded but fails nothing and opens no incident.
enum class CheckLevel { kFail, kWarn };

// How one check (or every check of one type on the table) is judged beyond its own settings.
struct CheckTuning {
  CheckLevel level = CheckLevel::kFail;
  // The fraction of rows allowed to fail (not_null, accepted_values, range): 0.01 lets 1% be NULL.
  // dbt's `mostly` is 1 - max_fraction.
  std::optional<double> max_fraction;
};

// A team-written query returning one number (trusted: it comes from the workspace file).
struct CustomSpec {
  std::string name;
  std::string sql;
  std::optional<double> must_be;
  std::optional<std::pair<double, double>> between;
  CheckLevel level = CheckLevel::kFail;
  std::string failing_rows;  // the query listing the rows behind a failure ("" : derived when it can be)
};

// A test the team wrote in dbt, imported from the manifest (observe/quality/dbt_tests.h). Every
// one is measured inside the table's one aggregate statement: a count of the rows failing a
// condition (or, for unique keys, a scalar subquery counting duplicated keys), restricted by the
// test's `where`. SQL text here (where, expression) comes from the manifest the workspace names,
// trusted as a workspace's custom SQL is.
struct ImportedTest {
  enum class Kind {
    kNotNull,          // not_null, dbt_utils.not_null_proportion (max_fraction = 1 - at_least)
    kAcceptedValues,   // accepted_values
    kRelationships,    // relationships: column's non-NULL values exist in to_table.to_field
    kExpression,       // dbt_utils.expression_is_true: rows where NOT (expression)
    kUniqueKey,        // unique, dbt_utils.unique_combination_of_columns
    kAtLeastOne,       // dbt_utils.at_least_one: some non-NULL value
    kRecency,          // dbt_utils.recency: newest value of column within max_age
  };
  std::string name;     // the test's dbt name: the check's name
  std::string test;     // dbt's macro as written: "not_null", "dbt_utils.recency"
  std::string model;    // the dbt unique id of the model it tests
  Kind kind = Kind::kNotNull;
  std::string column;
  std::vector<std::string> key;  // kUniqueKey
  std::vector<Json> values;      // kAcceptedValues
  std::string expression;        // kExpression
  std::string to_schema, to_table, to_field;  // kRelationships (to_schema "" on SQLite)
  std::chrono::milliseconds max_age{0};       // kRecency
  std::string where;             // dbt's config.where ("" for none)
  CheckTuning tuning;            // severity warn -> kWarn; mostly / at_least -> max_fraction
};

struct TableCheckSpec {
  std::optional<std::string> time_column;
  std::vector<std::string> not_null;
  std::vector<std::vector<std::string>> unique;  // each a key set of one or more columns
  std::optional<std::chrono::milliseconds> freshness_max_age;
  std::optional<VolumeSpec> volume;
  std::vector<std::pair<std::string, std::vector<Json>>> accepted_values;  // column -> values
  std::vector<std::pair<std::string, RangeSpec>> range;
  bool schema = false;
  std::optional<RowCountChangeSpec> row_count_change;
  std::vector<CustomSpec> custom;
  std::vector<std::string> pii;
  // Levels and allowed rates by check name ("not_null:email") or type ("not_null"); a name wins.
  std::vector<std::pair<std::string, CheckTuning>> tune;
  std::vector<ImportedTest> imported;  // tests from the dbt manifest, never from the workspace text
  // The columns that identify a row in failed-row samples: the first declared unique key (kept
  // when a run selects other checks), else none.
  std::vector<std::string> sample_key;

  // True when the block declares no check at all.
  bool Empty() const;
  // The tuning of check `name` of type `type`: its own entry, else its type's, else the default.
  CheckTuning TuningOf(const std::string& name, const std::string& type) const;
};

// Where a spec came from decides what it may hold.
enum class SpecSource { kWorkspace, kInline };

// Parses a check block (the keys of one `checks:` item; `table` is ignored). Unknown keys, wrong
// types and inconsistent values fail with kInvalidArgument naming `path` and the key, e.g.
// "check.range.balance.min: expected a number". An inline spec may not hold `custom` (SQL is never
// taken from a caller).
Result<TableCheckSpec> ParseCheckSpec(const Json& block, const std::string& path, SpecSource source);

}  // namespace dw::observe::quality
