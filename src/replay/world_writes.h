// The world's own writes into a scenario's warehouse (setup SQL and events' `sql`). Only the
// replay writes to a warehouse, and only to the scratch copy; the product itself never does.
#pragma once

#include <string>

#include "base/status.h"
#include "config/workspace.h"
#include "replay/replay.h"

namespace dw::replay {

// Runs `step` (its file or inline text, any number of statements) against `step.warehouse` of
// `ws`, in one transaction. kInvalidArgument for an unknown warehouse or a statement that fails
// (the SQLite message and the file), kFailedPrecondition for a warehouse type the replay cannot
// write to yet (PostgreSQL).
Status RunWorldSql(const config::Workspace& ws, const SqlStep& step);

}  // namespace dw::replay
