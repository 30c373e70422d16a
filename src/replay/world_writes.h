// The world's own writes into a scenario's warehouse (setup SQL and events' `sql`). Only the
// replay writes to a warehouse, and only to the scratch copy; the product itself never does.
#pragma once

#include <string>

#include "base/clock.h"
#include "base/status.h"
#include "net/http_client.h"
#include "config/workspace.h"
#include "replay/replay.h"

namespace dw::replay {

// Runs `step` (its file or inline text, any number of statements) against `step.warehouse` of
// `ws`: a SQLite warehouse in one transaction; a simulated Snowflake through its simulator's
// world-write endpoint, which records each statement in the account's history as `step.user`'s,
// started at `at`. kInvalidArgument for an unknown warehouse or a statement that fails (the
// engine's message and the file), kFailedPrecondition for a warehouse type the replay cannot write
// to yet (PostgreSQL, BigQuery).
Status RunWorldSql(const config::Workspace& ws, const SqlStep& step, TimePoint at, net::HttpClient& http);

}  // namespace dw::replay
