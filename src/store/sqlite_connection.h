// SqlConnection over a SQLite file: WAL journal, foreign keys on, synchronous=NORMAL, a 5 s busy
// timeout so several processes can share one state file, and WAL checkpoints on a thread of their
// own (WalCheckpointer) rather than inside a commit.
#pragma once

#include <memory>
#include <string>

#include "base/status.h"
#include "store/sql_connection.h"

namespace dw::store {

// How long a statement waits for another connection's lock before failing with kUnavailable.
inline constexpr int kSqliteBusyTimeoutMs = 5000;

// Opens (creating it and its missing parent folders if needed, readable by their owner only: 0600
// and 0700) the SQLite database at `path`.
// kDataLoss if the file exists but is not a SQLite database; kUnavailable if it cannot be opened.
Result<std::unique_ptr<SqlConnection>> OpenSqliteConnection(const std::string& path);

}  // namespace dw::store
