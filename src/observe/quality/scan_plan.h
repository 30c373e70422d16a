// Compiles the aggregate checks on one table into one SELECT that reads only the columns they need
// (plus one GROUP BY query per unique key set), and the narrow queries that fetch failed-row
// samples. Every name comes from the warehouse's catalog and is quoted by the dialect; every value
// (accepted values, bounds, times) is a bound parameter. Nothing here runs SQL.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "observe/quality/check_spec.h"
#include "observe/quality/time_column.h"
#include "warehouse/warehouse.h"

namespace dw::observe::quality {

// A statement and its parameters ($1..$N).
struct BoundQuery {
  std::string sql;
  std::vector<warehouse::SqlValue> params;
};

// Where each check's measurement lands in the aggregate scan's single result row.
struct AggregateScan {
  BoundQuery query;
  int row_count = 0;                                   // count(*)
  std::vector<std::pair<std::string, int>> nulls;      // not_null column -> null count
  std::optional<int> max_time;                         // freshness
  std::optional<int> rows_in_window;                   // volume.window
  std::vector<std::pair<std::string, int>> invalid;    // accepted_values column -> invalid count
  // range column -> (min, max): each computed only when the check declares that bound (-1 when
  // not), so a scan reads no more than the declared checks need.
  std::vector<std::pair<std::string, std::pair<int, int>>> min_max;
  std::vector<std::pair<std::string, int>> out_of_range;  // range column -> rows outside the range
  // An imported dbt test's two cells: the rows its `where` keeps, and what it measures (rows
  // failing its condition; duplicated keys; non-NULL rows for at_least_one; the newest time).
  struct Imported {
    std::string name;
    int rows = -1;
    int measure = -1;
  };
  std::vector<Imported> imported;
  // The statement holds subqueries (duplicated keys, relationships): it reads the table as a
  // whole and cannot be split into rowid ranges.
  bool whole_table = false;
};

// The filter every query of a run shares: "" or "WHERE <time column> >= $1" for an incremental
// run, with its parameter.
struct RowFilter {
  std::string where;
  std::vector<warehouse::SqlValue> params;
};

// The incremental filter `time >= since_ms`, or no filter when since_ms is empty.
RowFilter MakeRowFilter(const warehouse::Dialect& d, const std::optional<TimeColumn>& time,
                        std::optional<int64_t> since_ms);

// The one aggregate SELECT over `table` for the aggregate checks of `spec` (not_null, freshness,
// volume, accepted_values, range; row count always). Column names in `spec` must exist in `table`
// (the caller validated them). `window_start_ms` is bound when spec.volume has a window.
AggregateScan CompileAggregateScan(const warehouse::Dialect& d, const warehouse::TableSchema& table,
                                   const TableCheckSpec& spec, const std::optional<TimeColumn>& time,
                                   const RowFilter& filter, std::optional<int64_t> window_start_ms,
                                   const std::map<std::string, TimeColumn>& recency = {});

// The condition a row of `table` fails imported test `t` on ("" for tests that count no failing
// rows: unique keys, at_least_one, recency), its values bound into `params`.
std::string ImportedFailingCondition(const warehouse::Dialect& d, const warehouse::TableId& table,
                                     const ImportedTest& t, std::vector<warehouse::SqlValue>& params);

// A SQL literal for `v` a person can paste: numbers as written, text quoted with '' doubled,
// NULL for null.
std::string SqlLiteral(const warehouse::SqlValue& v);

// The statement with its placeholders ($N in the dialect's spelling) replaced by literals, for
// printing: "the query that lists the failing rows" a person runs by hand.
std::string InlineParams(const warehouse::Dialect& d, const BoundQuery& q);

// SELECT count(*) of the keys of `key` that occur more than once (rows with a NULL key part are
// not keys, as in dbt's unique test).
BoundQuery CompileDuplicateKeyCount(const warehouse::Dialect& d, const warehouse::TableId& table,
                                    const std::vector<std::string>& key, const RowFilter& filter);

// What a failed check's sample selects: the identifying key columns and the offending rows.
struct SampleRequest {
  std::vector<std::string> key;  // identifying columns (may be empty)
  std::string column;            // the offending column ("" for unique)
  enum class Kind { kNull, kNotAccepted, kOutOfRange, kDuplicateKey } kind = Kind::kNull;
  std::vector<Json> accepted;    // kNotAccepted
  RangeSpec range;               // kOutOfRange
};

// At most `limit` failed rows, selecting only the key and the offending column (kDuplicateKey: the
// key and its count).
BoundQuery CompileSample(const warehouse::Dialect& d, const warehouse::TableId& table,
                         const SampleRequest& request, const RowFilter& filter, int limit);

// "SELECT <every column of table, pii ones as '***'> FROM table WHERE [filter AND] condition": the
// rows behind a failure, personal columns masked in the query itself so whoever runs it sees no
// more than the check's sample did.
std::string FailingRowsSelect(const warehouse::Dialect& d, const warehouse::TableSchema& table,
                              const std::vector<std::string>& pii, const RowFilter& filter,
                              const std::string& condition);

// The rows of `table` failing check `request` (kDuplicateKey: every row of a duplicated key), as
// a statement with literals (InlineParams), for a person to run.
std::string FailingRowsQuery(const warehouse::Dialect& d, const warehouse::TableSchema& table,
                             const std::vector<std::string>& pii, const RowFilter& filter,
                             const SampleRequest& request);

// The same for imported test `t`: its failing rows under its where, or, for a test that fails on
// no particular row (at_least_one, recency), the query that shows what it measured.
std::string ImportedFailingRowsQuery(const warehouse::Dialect& d, const warehouse::TableSchema& table,
                                     const std::vector<std::string>& pii, const RowFilter& filter,
                                     const ImportedTest& t);

// The parameter for a value from accepted_values: numbers and booleans as numbers, strings as text.
warehouse::SqlValue ValueParam(const Json& v);

}  // namespace dw::observe::quality
