// Test support: a fresh warehouse on either backend, writable from the test's side, with a
// WarehouseConfig the product opens read-only. SQLite gets a file in a temporary folder;
// PostgreSQL gets its own schema in $DW_TEST_PG_URL's database. Both are removed at destruction.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <memory>
#include <string>

#include "config/workspace.h"
#include "store/postgres_connection.h"
#include "tests/store/store_test_support.h"

namespace dw::warehouse::test_support {

class ScratchWarehouse {
 public:
  // REQUIRES for "postgres": store::test_support::PostgresTestUrl() is not empty.
  static Result<std::unique_ptr<ScratchWarehouse>> Create(const std::string& backend) {
    auto w = std::unique_ptr<ScratchWarehouse>(new ScratchWarehouse());
    w->backend_ = backend;
    w->config_.name = "wh";
    w->config_.type = backend;
    if (backend == "sqlite") {
      w->dir_ = std::filesystem::temp_directory_path() /
                ("dw-wh-test-" + store::test_support::UniqueSuffix());
      std::filesystem::create_directories(w->dir_);
      w->config_.path = (w->dir_ / "warehouse.db").string();
      DW_RETURN_IF_ERROR(w->Exec("CREATE TABLE dw_scratch_marker (x INTEGER)"));
      return w;
    }
    std::string url = store::test_support::PostgresTestUrl();
    w->schema_ = "dw_wh_" + store::test_support::UniqueSuffix();
    Result<std::unique_ptr<store::SqlConnection>> admin = store::OpenPostgresConnection(url);
    if (!admin.ok()) return admin.status();
    w->admin_ = std::move(admin).value();
    DW_RETURN_IF_ERROR(w->admin_->ExecScript("CREATE SCHEMA " + w->schema_));
    w->config_.dsn = url;
    return w;
  }

  ~ScratchWarehouse() {
    if (admin_) admin_->ExecScript("DROP SCHEMA IF EXISTS " + schema_ + " CASCADE");
    if (!dir_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
    }
  }

  // Runs test-written SQL with write access (the product never gets it).
  Status Exec(const std::string& sql) {
    if (admin_) return admin_->ExecScript(sql);
    sqlite3* db = nullptr;
    int rc = sqlite3_open_v2(config_.path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                             nullptr);
    char* err = nullptr;
    if (rc == SQLITE_OK) rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
    std::string message = err != nullptr ? err : "";
    sqlite3_free(err);
    sqlite3_close_v2(db);
    return rc == SQLITE_OK ? Status::Ok() : Internal("sqlite: " + message + " in: " + sql);
  }

  // A single number from test-written SQL (row counts behind the product's back).
  int64_t Scalar(const std::string& sql) {
    if (admin_) {
      auto rows = admin_->Query(sql, {});
      if (!rows.ok() || rows->empty()) return -1;
      const auto& v = (*rows)[0][0];
      if (const auto* n = std::get_if<int64_t>(&v)) return *n;
      return -1;
    }
    sqlite3* db = nullptr;
    sqlite3_open_v2(config_.path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt* stmt = nullptr;
    int64_t out = -1;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW)
      out = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    sqlite3_close_v2(db);
    return out;
  }

  bool postgres() const { return backend_ == "postgres"; }
  const config::WarehouseConfig& config() const { return config_; }
  config::WarehouseConfig& mutable_config() { return config_; }
  // The schema tables live in ("main" on SQLite).
  std::string schema() const { return postgres() ? schema_ : "main"; }
  // How test SQL names `table` (qualified on PostgreSQL; the schema name is generated, safe).
  std::string Sql(const std::string& table) const {
    return postgres() ? schema_ + "." + table : table;
  }
  // The table as a workspace names it: wh.schema.table or wh.table.
  std::string Ref(const std::string& table) const {
    return postgres() ? "wh." + schema_ + "." + table : "wh." + table;
  }
  // The canonical asset id of `table`.
  std::string AssetId(const std::string& table) const {
    return postgres() ? "table://wh/" + schema_ + "." + table : "table://wh/" + table;
  }
  // The column type for a timestamp in test DDL.
  std::string TimestampType() const { return postgres() ? "timestamptz" : "TEXT"; }
  std::string DoubleType() const { return postgres() ? "double precision" : "REAL"; }

 private:
  ScratchWarehouse() = default;

  std::string backend_;
  config::WarehouseConfig config_;
  std::filesystem::path dir_;
  std::string schema_;
  std::unique_ptr<store::SqlConnection> admin_;
};

// gtest parameter names for the two backends.
inline std::string BackendName(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

}  // namespace dw::warehouse::test_support
