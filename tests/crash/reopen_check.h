// What holds after every kill, for every writer: the store reopens as a new process would open it
// (recovery needs no manual step), every migration is applied, the SQLite file passes
// integrity_check, and the receipt chain verifies.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <memory>
#include <string>

#include "actions/actions.h"
#include "base/clock.h"
#include "store/migrations.h"
#include "store/state_store.h"

namespace dw::crash {

// Opens the store at `location` on `backend` ("sqlite" or "postgresql") and checks the above,
// reporting each failure with `where`; nullptr when it does not open.
inline std::unique_ptr<store::StateStore> ReopenAndCheck(const std::string& location, const std::string& backend,
                                                         const Clock& clock, const std::string& where) {
  auto opened = store::OpenStateStore(location, clock);
  EXPECT_TRUE(opened.ok()) << where << ": " << opened.status().ToString();
  if (!opened.ok()) return nullptr;
  EXPECT_EQ((*opened)->schema_version(), store::AllMigrations().back().version) << where;
  if (backend == "sqlite") {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open_v2(location.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* q = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &q, nullptr), SQLITE_OK);
    EXPECT_EQ(sqlite3_step(q), SQLITE_ROW);
    EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(q, 0)), "ok") << where;
    sqlite3_finalize(q);
    sqlite3_close(db);
  }
  auto verdict = actions::VerifyReceiptChain(**opened);
  EXPECT_TRUE(verdict.ok()) << where << ": " << verdict.status().ToString();
  if (verdict.ok()) {
    EXPECT_TRUE(verdict->ok) << where << ": " << verdict->problem;
  }
  return std::move(opened).value();
}

}  // namespace dw::crash
