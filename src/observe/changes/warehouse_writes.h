// The warehouse's own history as a change timeline: each write a warehouse records (who, which
// statement, which table, rows affected; warehouse/history.h) becomes a `warehouse_write` event
// on that table, so diagnosis can rank "the 06:41 MERGE by AIRFLOW_SVC that inserted 3,000 rows"
// when no platform API says what changed.
#pragma once

#include "base/clock.h"
#include "config/workspace.h"
#include "observe/changes/collector.h"
#include "store/state_store.h"
#include "warehouse/history.h"

namespace dw::observe::changes {

// One pass over `warehouse`'s history: the writes since the last pass, read again as far back as
// the history's latency so a row recorded late is not lost (duplicates are dropped by their
// dedup key), and on the first pass `lookback` back. Events and the cursor are written in one
// transaction. A table a workspace check names gets that check's asset id; any other the id
// table://<warehouse>/<schema>.<table> as the workspace would write it. The pass reports an
// unreadable history as an error of its own, never as a failure of the whole collection. The
// history is read at most every 10 minutes (it is itself behind, and reading it is billed).
Result<PlatformPass> CollectWarehouseWrites(const config::Workspace& workspace, const config::WarehouseConfig& warehouse,
                                            warehouse::WarehouseHistory& history, store::StateStore& store,
                                            const Clock& clock, std::chrono::milliseconds lookback);

// The risk of a write and why: what a statement of that type with those row counts can do to
// the numbers a table holds (deletes and replacements most, an append least).
std::pair<double, std::string> WriteRisk(const warehouse::TableWrite& write);

}  // namespace dw::observe::changes
