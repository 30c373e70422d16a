// What the automatic monitors keep per table between passes (store/table_watch_states.h holds it as
// JSON text): its first sighting, the catalog's last counters and columns, the passes that saw it
// change, and its last verdict. Internal to observe/auto_monitor.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace dw::observe::auto_monitor {

// The most change times kept per table (a month of hourly loads would be more; the cadence reads
// the last 31).
inline constexpr size_t kKeptChanges = 64;

struct TableState {
  int64_t first_seen_ms = 0;
  int64_t last_pass_ms = 0;
  bool view = false;
  bool gone = false;
  std::string token;  // CatalogTable::change_token at the last pass
  std::optional<int64_t> row_count;
  bool row_count_exact = false;
  std::optional<int64_t> inserted, updated, deleted;
  std::optional<std::vector<std::pair<std::string, std::string>>> columns;  // name, type
  std::vector<int64_t> changes;  // the passes that saw a change, ascending
  std::optional<int64_t> rows_last_load;
  std::optional<double> lateness;
  std::string verdict;
  std::string sentence;
  int64_t verdict_at_ms = 0;
};

std::string EncodeTableState(const TableState& s);
// DataLoss naming `asset_id` for a text that is not a state this version wrote.
Result<TableState> DecodeTableState(const std::string& text, const std::string& asset_id);

}  // namespace dw::observe::auto_monitor
