// BigQuery's result encoding (QueryResponse and GetQueryResultsResponse: `schema.fields` and
// `rows[].f[].v`), decoded into typed cells. Every value arrives as a JSON string or null: INT64 as
// a decimal string (read exactly into int64), FLOAT64 as a number string (NaN, Infinity too), BOOL
// as "true"/"false" (read as 1/0, as SQLite and PostgreSQL's drivers give them here), TIMESTAMP
// as float seconds since the epoch, possibly in scientific notation ("1.7E9"), read exactly to
// the microsecond and given as RFC 3339 text; NUMERIC and BIGNUMERIC kept as their exact decimal
// text; STRING, BYTES (base64), DATE, DATETIME, TIME, GEOGRAPHY and JSON as text.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/status.h"
#include "store/sql_connection.h"

namespace dw::warehouse {

// The column types of `schema` (a TableSchema JSON: {"fields": [{name, type, mode}]}), upper case.
// kInvalidArgument naming the column for a REPEATED or RECORD/STRUCT column
// (checks read scalar columns), or for a schema that is not the documented shape.
Result<std::vector<std::string>> ScalarColumnTypes(const Json& schema);

// Appends the rows of `rows` (the response's `rows` array, possibly absent: pass null) decoded by
// `types` to `out`. kDataLoss naming the row and column for a cell that does not match its type,
// or an encoding this client does not know; never throws on untrusted input.
Status DecodeBigQueryRows(const std::vector<std::string>& types, const Json& rows,
                          std::vector<store::SqlRow>& out);

// The RFC 3339 UTC text ("2023-11-14T22:13:20.000000Z") of a TIMESTAMP cell's float seconds,
// read exactly (decimal digits, not through a double); nullopt when it is not a decimal number.
std::optional<std::string> TimestampCellText(const std::string& seconds);

}  // namespace dw::warehouse
