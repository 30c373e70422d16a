// The aggregate scan split across cores. SQLite runs each statement on one thread, so a scan of a
// large table uses one core however many the machine has; every aggregate the checks use is
// decomposable (sums, minima, maxima), so the table can be cut into rowid ranges, each scanned on
// its own read-only connection in its own thread, and the partial rows merged into exactly the row
// one statement would return. PostgreSQL parallelises a scan itself and is not split here.
#pragma once

#include <cstdint>
#include <optional>

#include "observe/quality/scan_plan.h"
#include "warehouse/warehouse.h"

namespace dw::observe::quality {

struct PartitionOptions {
  int partitions = 2;             // connections (and threads) to use; 1 or less: do not split
  int64_t min_rows = 1'000'000;   // smaller tables are scanned in one statement
  std::chrono::milliseconds timeout{60000};
};

// Runs `scan` over `table` in rowid ranges on connections opened with Warehouse::Reopen, and
// returns the merged result row with the wall time. Returns nullopt when splitting does not apply
// (not SQLite, no rowid, a small table, or a connection that cannot be opened): the caller then runs
// the single statement. A failing partition fails the whole scan with its message.
std::optional<Result<warehouse::QueryOutcome>> RunPartitionedScan(warehouse::Warehouse& wh,
                                                                  const warehouse::TableId& table,
                                                                  const AggregateScan& scan,
                                                                  const PartitionOptions& options);

}  // namespace dw::observe::quality
