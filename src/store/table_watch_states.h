// What the automatic monitors learnt per table (observe/auto_monitor), kept in the state store: one
// row per table, its state an opaque text the observe stage writes and reads back.
//
// A capability beside StateStore, like metric_snapshots.h: a store that does not offer it (a test
// double, a fault-injecting wrapper) cannot keep automatic monitors, and the pass says so.
#pragma once

#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "store/state_store.h"

namespace dw::store {

struct TableWatchStateRecord {
  std::string asset_id;   // table://<warehouse>/<schema>.<table>
  std::string warehouse;  // the workspace's warehouse name
  std::string state;      // opaque to the store
  TimePoint updated_at;   // set by the store on save
};

// Thread-safe like StateStore.
class TableWatchStates {
 public:
  virtual ~TableWatchStates() = default;
  // Every table's state of `warehouse` ("" for every warehouse), by asset id, in one statement.
  virtual Result<std::vector<TableWatchStateRecord>> LoadTableWatchStates(const std::string& warehouse) = 0;
  // Stores every record (replacing the table's previous state) in one transaction; nothing is
  // stored when one fails. InvalidArgument for an empty asset id.
  virtual Status SaveTableWatchStates(const std::vector<TableWatchStateRecord>& records) = 0;
};

// The table states of `store`, or nullptr when it keeps none.
inline TableWatchStates* TableWatchStatesOf(StateStore& store) { return dynamic_cast<TableWatchStates*>(&store); }

}  // namespace dw::store
