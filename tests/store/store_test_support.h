// Test support for the state store: a fresh, private place to open a store on either backend.
// SQLite gets a temporary folder; PostgreSQL gets its own schema in $DW_TEST_PG_URL's database, so
// tests never see each other's rows. Both are removed when the ScratchLocation is destroyed.
#pragma once

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "base/clock.h"
#include "base/status.h"
#include "store/postgres_connection.h"
#include "store/sql_connection.h"
#include "store/sqlite_connection.h"
#include "store/state_store.h"

namespace dw::store::test_support {

inline constexpr const char* kPgUrlVariable = "DW_TEST_PG_URL";
inline constexpr const char* kPgSkipMessage =
    "DW_TEST_PG_URL is unset: run under scripts/with-postgres.sh to test the PostgreSQL backend";

// The PostgreSQL server to test against, or "" when none was provided.
inline std::string PostgresTestUrl() {
  const char* url = std::getenv(kPgUrlVariable);
  return url != nullptr ? url : "";
}

// A short name unique within this machine's test runs.
inline std::string UniqueSuffix() {
  static std::atomic<int> counter{0};
  static const unsigned seed = std::random_device{}();
  return std::to_string(::getpid()) + "_" + std::to_string(seed % 100000) + "_" +
         std::to_string(counter++);
}

class ScratchLocation {
 public:
  // A fresh location for `backend` ("sqlite" or "postgresql"). REQUIRES for postgresql:
  // PostgresTestUrl() is not empty.
  static Result<std::unique_ptr<ScratchLocation>> Create(const std::string& backend) {
    auto scratch = std::unique_ptr<ScratchLocation>(new ScratchLocation());
    if (backend == "sqlite") {
      scratch->dir_ = std::filesystem::temp_directory_path() / ("dw-store-test-" + UniqueSuffix());
      // The store must create the missing parent folders itself.
      scratch->location_ = (scratch->dir_ / "nested" / ".dw" / "state.db").string();
      return scratch;
    }
    std::string base = PostgresTestUrl();
    scratch->schema_ = "dw_test_" + UniqueSuffix();
    Result<std::unique_ptr<SqlConnection>> admin = OpenPostgresConnection(base);
    if (!admin.ok()) return admin.status();
    // The schema name is generated above from digits and underscores: safe to splice.
    Status created = (*admin)->ExecScript("CREATE SCHEMA " + scratch->schema_);
    if (!created.ok()) return created;
    scratch->admin_ = std::move(admin).value();
    scratch->location_ = base + (base.find('?') == std::string::npos ? "?" : "&") +
                         "options=-csearch_path%3D" + scratch->schema_;
    return scratch;
  }

  ~ScratchLocation() {
    if (admin_) admin_->ExecScript("DROP SCHEMA IF EXISTS " + schema_ + " CASCADE");
    if (!dir_.empty()) {
      std::error_code ec;
      std::filesystem::remove_all(dir_, ec);
    }
  }

  // What to pass to OpenStateStore.
  const std::string& location() const { return location_; }

  // A second, raw connection to the same store, for SQL a test must run behind the store's back.
  Result<std::unique_ptr<SqlConnection>> Connect() const {
    return schema_.empty() ? OpenSqliteConnection(location_) : OpenPostgresConnection(location_);
  }

 private:
  ScratchLocation() = default;

  std::string location_;
  std::filesystem::path dir_;             // sqlite
  std::string schema_;                    // postgresql
  std::unique_ptr<SqlConnection> admin_;  // postgresql: creates and drops the schema
};

// The fixture of a test run once per state-store backend (INSTANTIATE_TEST_SUITE_P with "sqlite"
// and "postgresql") that opens its stores itself: SetUp skips the postgresql run when no server is
// given and makes a fresh scratch location, scratch_. A test that adds its own SetUp calls this one
// first and returns when IsSkipped() or HasFatalFailure().
class ScratchOnEachBackend : public ::testing::TestWithParam<std::string> {
 protected:
  explicit ScratchOnEachBackend(TimePoint now = FromUnixMillis(1'800'000'000'000)) : clock_(now) {}

  void SetUp() override {
    if (Backend() == "postgresql" && PostgresTestUrl().empty()) GTEST_SKIP() << kPgSkipMessage;
    Result<std::unique_ptr<ScratchLocation>> scratch = ScratchLocation::Create(Backend());
    ASSERT_TRUE(scratch.ok()) << scratch.status().ToString();
    scratch_ = std::move(scratch).value();
  }

  // The backend of the parameter: all of it, or what comes before a ':' (a suite whose parameter
  // also says something else, "sqlite:16").
  std::string Backend() const { return GetParam().substr(0, GetParam().find(':')); }

  // A new store on the scratch location with clock_ (a fresh process's view), or nullptr with the
  // failure reported.
  std::unique_ptr<StateStore> Open() {
    Result<std::unique_ptr<StateStore>> store = OpenStateStore(scratch_->location(), clock_);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(store).value() : nullptr;
  }

  SimulatedClock clock_;
  std::unique_ptr<ScratchLocation> scratch_;
};

// ScratchOnEachBackend that also opens store_ on the scratch location with clock_.
class StoreOnEachBackend : public ScratchOnEachBackend {
 protected:
  explicit StoreOnEachBackend(TimePoint now = FromUnixMillis(1'800'000'000'000))
      : ScratchOnEachBackend(now) {}

  void SetUp() override {
    ScratchOnEachBackend::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    Reopen();
  }

  // Closes store_ and opens it again on the same location (what a restarted process sees).
  void Reopen() {
    store_.reset();
    Result<std::unique_ptr<StateStore>> opened = OpenStateStore(scratch_->location(), clock_);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(opened).value();
  }

  std::unique_ptr<StateStore> store_;
};

}  // namespace dw::store::test_support
