// Turns one table's declared checks into what will run against it: each name validated against
// the warehouse's catalog (unknown ones become errors that name the closest existing columns), the
// time column resolved, the incremental filter built, and the number of passes over the table
// counted so a scan budget can be enforced before anything runs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "observe/quality/check_spec.h"
#include "observe/quality/scan_plan.h"
#include "observe/quality/time_column.h"
#include "warehouse/warehouse.h"

namespace dw::observe::quality {

struct TablePlan {
  warehouse::TableSchema table;
  TableCheckSpec declared;  // every selected check, as declared
  TableCheckSpec runnable;  // the selected checks whose names exist (what the queries measure)
  std::map<std::string, std::string> refused;  // check name -> why it cannot run
  std::optional<TimeColumn> time;
  std::optional<int64_t> since_ms;
  RowFilter filter;
  std::map<std::string, TimeColumn> recency;  // imported recency test name -> its time column
  int scans = 0;  // passes over the table's (filtered) rows: the aggregate scan and one per key set
};

// The names of the checks `spec` declares, in the order results are reported.
std::vector<std::pair<std::string, std::string>> CheckNames(const TableCheckSpec& spec);  // name, type

// Keeps the checks of `spec` that `selection` names (by full name such as "not_null:balance" or by
// type such as "not_null"); an empty selection keeps all. Fails with kInvalidArgument naming a
// selection entry that matches nothing, with the names that exist.
Result<TableCheckSpec> SelectChecks(const TableCheckSpec& spec, const std::vector<std::string>& selection);

// Plans `spec` on `table`. Fails only when the run as a whole cannot proceed: an incremental run
// (`since_ms` set) without a usable time column.
Result<TablePlan> PlanTable(warehouse::Warehouse& wh, const warehouse::TableSchema& table,
                            const TableCheckSpec& spec, std::optional<int64_t> since_ms);

}  // namespace dw::observe::quality
