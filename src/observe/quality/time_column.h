// How a table's time column is read and compared. Warehouses store "when a row landed" as native
// timestamps (PostgreSQL), ISO text (SQLite's usual choice) or epoch numbers; freshness, windows
// and incremental runs need the newest value in Unix milliseconds and a parameter that compares
// correctly against the stored values (and can use an index on them).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/status.h"
#include "base/time_text.h"
#include "warehouse/warehouse.h"

namespace dw::observe::quality {

struct TimeColumn {
  std::string name;
  std::string type;  // catalog type
  warehouse::TimeEncoding encoding = warehouse::TimeEncoding::kText;
  TextTimeStyle text_style;  // for kText

  // The Unix milliseconds of a value read with Dialect::MaxTime, or nullopt for NULL or a value
  // that is not a time.
  std::optional<int64_t> ToMillis(const warehouse::SqlValue& cell) const;
  // The value to bind so that `column >= param` selects rows at or after `unix_ms`.
  warehouse::SqlValue Param(int64_t unix_ms) const;
};

// Decides how `column` of `table` stores time, from its catalog type and (for text and numbers)
// one non-NULL sample. Fails with kInvalidArgument when the column's type cannot hold a time or
// the sample is not a timestamp the reader understands.
Result<TimeColumn> ResolveTimeColumn(warehouse::Warehouse& wh, const warehouse::TableSchema& table,
                                     const std::string& column);

}  // namespace dw::observe::quality
