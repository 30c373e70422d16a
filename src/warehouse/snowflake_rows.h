// The SQL API's result encoding (ResultSet `resultSetMetaData.rowType` and `data`, format jsonv2),
// decoded into typed cells. Every cell is a JSON string or null:
//   fixed (NUMBER)          scale 0: read exactly into int64 (kept as exact text beyond it);
//                           scale > 0: a double when 15 significant digits hold it, else exact text
//   real (FLOAT)            double ("NaN", "inf", "-inf" too)
//   boolean                 "true"/"false", read as 1/0 (as the other drivers give them here)
//   date                    days since 1970-01-01 -> "YYYY-MM-DD"
//   timestamp_ntz/_ltz      seconds since the epoch with 9 decimals (or whole nanoseconds, which
//                           the reference's own example shows) -> RFC 3339 UTC to the microsecond
//   timestamp_tz            the same followed by " <offset minutes + 1440>" -> RFC 3339 UTC
//   time                    seconds since midnight -> "HH:MM:SS.ffffff"
//   text, variant, object, array, binary (hex), geography, geometry: the text as it came
// Types are compared case-insensitively (live answers say "fixed", the reference's examples
// "FIXED"). Anything else is an encoding this client does not know, refused by name.
#pragma once

#include <string>
#include <vector>

#include "base/json.h"
#include "base/status.h"
#include "store/sql_connection.h"

namespace dw::warehouse {

// One column of rowType: its name, lower-case type and scale.
struct SnowflakeColumn {
  std::string name;
  std::string type;
  int scale = 0;
};

// The columns of `row_type`. kDataLoss naming the column for a type this client cannot read or a
// rowType that is not the documented shape.
Result<std::vector<SnowflakeColumn>> SnowflakeRowType(const Json& row_type);

// Appends the rows of `data` (null: none) decoded by `columns` to `out`. kDataLoss naming the row
// and column for a cell that does not match its type; never throws on untrusted input.
Status DecodeSnowflakeRows(const std::vector<SnowflakeColumn>& columns, const Json& data,
                           std::vector<store::SqlRow>& out);

// Microseconds since the epoch of a timestamp cell's seconds ("1700000000.123456789", "-1.5",
// or whole nanoseconds "1700000000123456789"), rounded down to the microsecond; nullopt when it
// is not such a number.
std::optional<int64_t> SnowflakeEpochMicros(const std::string& cell);

}  // namespace dw::warehouse
