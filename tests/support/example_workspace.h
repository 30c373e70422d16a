// Test support: a scratch copy of one of the example workspaces (examples/NAME), with its SQLite
// warehouse built from the warehouse.sql beside it, for the tests that run `dw` on a real
// workspace without touching the checked-in one.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <string>

#include "tests/support/build_paths.h"
#include "tests/support/subprocess.h"

namespace dw::testing {

// Copies examples/`name` to tmp/`name`, runs its warehouse.sql into warehouse.db there (a
// failure is reported as a test failure naming SQLite's message) and returns the copy's path.
inline std::filesystem::path CopyExample(const TempDir& tmp, const std::string& name) {
  namespace fs = std::filesystem;
  fs::path dst = tmp.path() / name;
  fs::copy(fs::path(DW_SOURCE_DIR) / "examples" / name, dst, fs::copy_options::recursive);
  sqlite3* db = nullptr;
  sqlite3_open((dst / "warehouse.db").c_str(), &db);
  const std::string sql = ReadWholeFile(dst / "warehouse.sql");
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << name << ": " << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
  return dst;
}

}  // namespace dw::testing
