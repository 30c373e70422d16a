// The StateStore contract, run against every backend: SQLite on a temporary file, PostgreSQL on
// its own schema in $DW_TEST_PG_URL (skipped when unset; see scripts/with-postgres.sh).
#include "store/state_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <set>
#include <thread>

#include "store/clock_kind.h"
#include "store/location.h"
#include "store/migrations.h"
#include "store_test_support.h"

namespace dw::store {
namespace {
namespace state_store_test {

using test_support::ScratchLocation;
using ::testing::HasSubstr;

constexpr int64_t kStartMs = 1'800'000'000'000;  // 2027-01-15T08:00:00Z

TimePoint At(int64_t minutes) { return FromUnixMillis(kStartMs + minutes * 60'000); }

CheckResultRow Check(const std::string& run, const std::string& table, const std::string& name,
                     int64_t minute) {
  CheckResultRow c;
  c.run_id = run;
  c.table_ref = table;
  c.check_name = name;
  c.status = CheckStatus::kFail;
  c.observed = Json{{"null_rows", 12}, {"sample", {1, 2.5, "x"}}};
  c.threshold = Json{{"max", 0}};
  c.rows_scanned = 100'000;
  c.duration_ms = 42;
  c.message = "12 rows have a null member_id";
  c.observed_at = At(minute);
  return c;
}

ChangeEvent Event(const std::string& key, const std::string& asset, int64_t minute) {
  ChangeEvent e;
  e.dedup_key = key;
  e.asset_id = asset;
  e.kind = "restore";
  e.happened_at = At(minute);
  e.observed_at = At(minute + 1);
  e.evidence = Json{{"savepoint", "s3://sp/savepoint-7"}, {"allowNonRestoredState", true}};
  e.risk = 0.9;
  e.reason = "restore allowed non-restored state";
  return e;
}

// Unsets DW_SIMULATED_CLOCK_STORE for the scope: a store created meanwhile is a real-clock store
// (this binary creates simulated-clock stores otherwise: simulated_clock_store_test below).
struct RealClockStores {
  RealClockStores() { ::unsetenv(kSimulatedClockEnv); }
  ~RealClockStores() { ::setenv(kSimulatedClockEnv, "1", 1); }
};

// The stores here are real-clock stores, as a user's: what they hold is only what the test wrote.
class StoreBackendTest : public ::testing::TestWithParam<std::string> {
 protected:
  RealClockStores real_clock_;

  void SetUp() override {
    if (GetParam() == "postgresql" && test_support::PostgresTestUrl().empty()) {
      GTEST_SKIP() << test_support::kPgSkipMessage;
    }
    Result<std::unique_ptr<ScratchLocation>> scratch = ScratchLocation::Create(GetParam());
    ASSERT_TRUE(scratch.ok()) << scratch.status().ToString();
    scratch_ = std::move(scratch).value();
  }

  std::unique_ptr<StateStore> Open() {
    Result<std::unique_ptr<StateStore>> store = OpenStateStore(location(), clock_);
    EXPECT_TRUE(store.ok()) << store.status().ToString();
    return store.ok() ? std::move(store).value() : nullptr;
  }

  // Runs `sql` on a raw connection and returns its rows (test-only SQL behind the store's back).
  std::vector<SqlRow> Raw(const std::string& sql, const std::vector<SqlValue>& params = {}) {
    Result<std::unique_ptr<SqlConnection>> conn = scratch_->Connect();
    EXPECT_TRUE(conn.ok()) << conn.status().ToString();
    if (!conn.ok()) return {};
    Result<std::vector<SqlRow>> rows = (*conn)->Query(sql, params);
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    return rows.ok() ? std::move(rows).value() : std::vector<SqlRow>{};
  }

  int64_t Count(const std::string& table) {
    std::vector<SqlRow> rows = Raw("SELECT COUNT(*) FROM " + table);
    return rows.size() == 1 ? std::get<int64_t>(rows[0][0]) : -1;
  }

  const std::string& location() const { return scratch_->location(); }

  SimulatedClock clock_{At(0)};
  std::unique_ptr<ScratchLocation> scratch_;
};

TEST_P(StoreBackendTest, AppliesMigrationsOnceAndRecordsThem) {
  std::unique_ptr<StateStore> store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->backend(), GetParam());
  EXPECT_EQ(store->schema_version(), CurrentSchemaVersion());
  std::vector<SqlRow> rows =
      Raw("SELECT version, applied_at, description FROM schema_migrations ORDER BY version");
  ASSERT_EQ(rows.size(), AllMigrations().size());
  for (size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(std::get<int64_t>(rows[i][0]), AllMigrations()[i].version);
    EXPECT_EQ(std::get<int64_t>(rows[i][1]), kStartMs);
    EXPECT_EQ(std::get<std::string>(rows[i][2]), AllMigrations()[i].description);
  }
  for (const char* table : {"check_results", "metric_points", "change_events", "kv_cursors",
                            "graph_assets", "graph_edges", "incidents", "receipts"}) {
    EXPECT_EQ(Count(table), 0) << table;
  }
}

TEST_P(StoreBackendTest, ReopenIsIdempotentAndKeepsData) {
  {
    std::unique_ptr<StateStore> store = Open();
    ASSERT_NE(store, nullptr);
    ASSERT_TRUE(store->SetCursor("kestra.executions", "2027-01-15T07:59:00Z").ok());
  }
  clock_.Advance(std::chrono::hours(1));
  std::unique_ptr<StateStore> again = Open();
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->schema_version(), CurrentSchemaVersion());
  EXPECT_EQ(Count("schema_migrations"), static_cast<int64_t>(AllMigrations().size()));
  // The applied_at of the first open is kept: nothing was re-applied.
  EXPECT_EQ(std::get<int64_t>(Raw("SELECT MAX(applied_at) FROM schema_migrations")[0][0]),
            kStartMs);
  Result<std::optional<std::string>> cursor = again->GetCursor("kestra.executions");
  ASSERT_TRUE(cursor.ok());
  EXPECT_EQ(cursor->value_or(""), "2027-01-15T07:59:00Z");
}

TEST_P(StoreBackendTest, RefusesAStoreWrittenByANewerVersion) {
  ASSERT_NE(Open(), nullptr);
  int newer = CurrentSchemaVersion() + 1;
  Raw("INSERT INTO schema_migrations (version, applied_at, description) VALUES ($1, $2, $3)",
      {SqlValue{int64_t{newer}}, SqlValue{kStartMs}, SqlValue{std::string("from the future")}});
  Result<std::unique_ptr<StateStore>> store = OpenStateStore(location(), clock_);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), StatusCode::kFailedPrecondition);
  std::string message = store.status().message();
  EXPECT_THAT(message, HasSubstr("was written by a newer Data Workers (schema version " +
                                 std::to_string(newer) + "; this build supports up to " +
                                 std::to_string(CurrentSchemaVersion()) + ")"));
  EXPECT_THAT(message, HasSubstr("upgrade dw or point state: elsewhere"));
  EXPECT_THAT(message, HasSubstr("state store at " + RedactLocation(location())));
  // Refusing changed nothing.
  EXPECT_EQ(Count("schema_migrations"), static_cast<int64_t>(AllMigrations().size()) + 1);
}

TEST_P(StoreBackendTest, ConcurrentOpensOfAFreshStoreMigrateOnce) {
  constexpr int kThreads = 4;
  std::vector<Status> results(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] { results[t] = OpenStateStore(location(), clock_).status(); });
  }
  for (std::thread& th : threads) th.join();
  for (const Status& s : results) EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(Count("schema_migrations"), static_cast<int64_t>(AllMigrations().size()));
}

TEST_P(StoreBackendTest, CheckResultsRoundTripNewestFirst) {
  std::unique_ptr<StateStore> store = Open();
  ASSERT_NE(store, nullptr);
  CheckResultRow passed = Check("run-2", "main.loyalty.member_balances", "volume", 10);
  passed.status = CheckStatus::kPass;
  passed.observed = 5000;
  ASSERT_TRUE(
      store
          ->RecordCheckResults({Check("run-1", "main.loyalty.member_balances", "not_null", 0),
                                Check("run-1", "main.other.t", "not_null", 0), passed})
          .ok());
  Result<std::vector<CheckResultRow>> rows =
      store->CheckResultsFor("main.loyalty.member_balances", 10);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].check_name, "volume");
  EXPECT_EQ((*rows)[0].status, CheckStatus::kPass);
  EXPECT_EQ((*rows)[0].observed, Json(5000));
  const CheckResultRow& old = (*rows)[1];
  CheckResultRow want = Check("run-1", "main.loyalty.member_balances", "not_null", 0);
  EXPECT_GT(old.id, 0);
  EXPECT_EQ(old.run_id, want.run_id);
  EXPECT_EQ(old.status, CheckStatus::kFail);
  EXPECT_EQ(old.observed, want.observed);
  EXPECT_EQ(old.threshold, want.threshold);
  EXPECT_EQ(old.rows_scanned, want.rows_scanned);
  EXPECT_EQ(old.duration_ms, want.duration_ms);
  EXPECT_EQ(old.message, want.message);
  EXPECT_EQ(old.observed_at, want.observed_at);

  Result<std::vector<CheckResultRow>> newest =
      store->CheckResultsFor("main.loyalty.member_balances", 1);
  ASSERT_TRUE(newest.ok());
  ASSERT_EQ(newest->size(), 1u);
  EXPECT_EQ((*newest)[0].check_name, "volume");

  Result<std::vector<CheckResultRow>> run = store->CheckResultsOfRun("run-1");
  ASSERT_TRUE(run.ok());
  ASSERT_EQ(run->size(), 2u);
  EXPECT_EQ((*run)[1].table_ref, "main.other.t");

  EXPECT_EQ(store->CheckResultsFor("main.loyalty.member_balances", 0).status().code(),
            StatusCode::kInvalidArgument);

  Result<std::optional<CheckResultRow>> latest =
      store->LatestCheckResult("main.loyalty.member_balances", "not_null");
  ASSERT_TRUE(latest.ok()) << latest.status().ToString();
  ASSERT_TRUE(latest->has_value());
  EXPECT_EQ((*latest)->run_id, "run-1");
  Result<std::optional<CheckResultRow>> never =
      store->LatestCheckResult("main.other.t", "volume");
  ASSERT_TRUE(never.ok());
  EXPECT_FALSE(never->has_value());
}

TEST_P(StoreBackendTest, AFailureMidBatchWritesNothing) {
  std::unique_ptr<StateStore> store = Open();
  ASSERT_NE(store, nullptr);
  // The third row breaks a table constraint: the first two must not survive.
  std::vector<CheckResultRow> batch = {Check("r", "t.a", "c1", 0), Check("r", "t.a", "c2", 0),
                                       Check("r", "", "c3", 0), Check("r", "t.a", "c4", 0)};
  Status s = store->RecordCheckResults(batch);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
  EXPECT_EQ(Count("check_results"), 0);
  // The store is still usable afterwards.
  EXPECT_TRUE(store->RecordCheckResults({Check("r", "t.a", "c1", 0)}).ok());
  EXPECT_EQ(Count("check_results"), 1);
}

TEST_P(StoreBackendTest, TransactionCommitsEverythingTogether) {
  std::unique_ptr<StateStore> store = Open();
  ASSERT_NE(store, nullptr);
  Status s = store->InTransaction([&](StateStore& tx) -> Status {
    DW_RETURN_IF_ERROR(tx.RecordCheckResults({Check("r", "t.a", "c1", 0)}));
    DW_RETURN_IF_ERROR(tx.UpsertMetricPoints("m", {{At(0), 1.0}}));
    Result<bool> added = tx.AddChangeEvent(Event("k1", "flink://flink/job", 0));
    DW_RETURN_IF_ERROR(added.status());
    // Nested transactions join the outer one.
    return tx.InTransaction([](StateStore& inner) { return inner.SetCursor("c", "v"); });
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(Count("check_results"), 1);
  EXPECT_EQ(Count("metric_points"), 1);
  EXPECT_EQ(Count("change_events"), 1);
  EXPECT_EQ(Count("kv_cursors"), 1);
}

TEST_P(StoreBackendTest, TransactionRollsBackEntirelyWhenTheBodyFails) {
  std::unique_ptr<StateStore> store = Open();
  ASSERT_NE(store, nullptr);
  Status s = store->InTransaction([&](StateStore& tx) -> Status {
    DW_RETURN_IF_ERROR(tx.RecordCheckResults({Check("r", "t.a", "c1", 0)}));
    DW_RETURN_IF_ERROR(tx.UpsertMetricPoints("m", {{At(0), 1.0}, {At(1), 2.0}}));
    DW_RETURN_IF_ERROR(tx.SetCursor("c", "v"));
    return Cancelled("the caller changed its mind");
  });
  EXPECT_EQ(s.code(), StatusCode::kCancelled);
  EXPECT_EQ(Count("check_results"), 0);
  EXPECT_EQ(Count("metric_points"), 0);
  EXPECT_EQ(Count("kv_cursors"), 0);
}

TEST_P(StoreBackendTest, AFailedStatementDoomsTheTransactionEvenIfIgnored) {
  std::unique_ptr<StateStore> store = Open();
  ASSERT_NE(store, nullptr);
  Status s = store->InTransaction([&](StateStore& tx) -> Status {
    DW_RETURN_IF_ERROR(tx.SetCursor("c", "v"));
    DW_RETURN_IF_ERROR(tx.AppendReceipt("", "h1", "{}").status());
    // A second receipt with the same hash violates a constraint in the database itself.
    Status dup = tx.AppendReceipt("h1", "h1", "{}").status();
    EXPECT_EQ(dup.code(), StatusCode::kAlreadyExists) << dup.ToString();
    return Status::Ok();  // ignores the failure
  });
  EXPECT_EQ(s.code(), StatusCode::kAlreadyExists) << s.ToString();
  EXPECT_EQ(Count("kv_cursors"), 0);
  EXPECT_EQ(Count("receipts"), 0);
}

TEST_P(StoreBackendTest, FourConcurrentWritersLoseNothing) {
  std::unique_ptr<StateStore> store = Open();
  ASSERT_NE(store, nullptr);
  constexpr int kThreads = 4;
  constexpr int kRounds = 25;
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::string who = std::to_string(t);
      for (int i = 0; i < kRounds && failures[t].empty(); ++i) {
        std::string n = who + "-" + std::to_string(i);
        Status s = store->RecordCheckResults({Check("run-" + who, "t.a", "c" + n, i)});
        if (s.ok()) s = store->UpsertMetricPoints("m" + who, {{At(i), i * 1.5}});
        if (s.ok()) s = store->AddChangeEvent(Event("k" + n, "a", i)).status();
        if (s.ok()) s = store->SetCursor("cursor" + who, n);
        if (s.ok()) {
          s = store->InTransaction([&](StateStore& tx) -> Status {
            DW_RETURN_IF_ERROR(tx.UpsertMetricPoints("shared", {{At(t * kRounds + i), 1.0}}));
            return tx.RecordCheckResults({Check("tx-" + who, "t.b", "c" + n, i)});
          });
        }
        if (!s.ok()) failures[t] = s.ToString();
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (const std::string& f : failures) EXPECT_EQ(f, "");
  EXPECT_EQ(Count("check_results"), 2 * kThreads * kRounds);
  EXPECT_EQ(Count("metric_points"), 2 * kThreads * kRounds);
  EXPECT_EQ(Count("change_events"), kThreads * kRounds);
  EXPECT_EQ(Count("kv_cursors"), kThreads);
}

TEST_P(StoreBackendTest, ChangeEventsAreDeduplicatedByKey) {
  std::unique_ptr<StateStore> store = Open();
  ASSERT_NE(store, nullptr);
  ChangeEvent first = Event("flink:points-balance:restore:7", "flink://flink/points-balance", 5);
  Result<bool> added = store->AddChangeEvent(first);
  ASSERT_TRUE(added.ok()) << added.status().ToString();
  EXPECT_TRUE(*added);
  ChangeEvent again = first;
  again.reason = "seen again by the next poll";
  added = store->AddChangeEvent(again);
  ASSERT_TRUE(added.ok());
  EXPECT_FALSE(*added);
  ASSERT_TRUE(store->AddChangeEvent(Event("other", "kestra://kestra/pricing.tariff_sync", 6)).ok());

  Result<std::vector<ChangeEvent>> events =
      store->ChangeEventsFor("flink://flink/points-balance", At(0), At(60));
  ASSERT_TRUE(events.ok()) << events.status().ToString();
  ASSERT_EQ(events->size(), 1u);
  const ChangeEvent& e = (*events)[0];
  EXPECT_EQ(e.reason, first.reason);  // the first sighting is kept
  EXPECT_EQ(e.kind, "restore");
  EXPECT_EQ(e.happened_at, first.happened_at);
  EXPECT_EQ(e.observed_at, first.observed_at);
  EXPECT_EQ(e.evidence, first.evidence);
  EXPECT_DOUBLE_EQ(e.risk, 0.9);

  Result<std::vector<ChangeEvent>> all = store->ChangeEventsBetween(At(0), At(60));
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 2u);
  // The window is half-open: an event at `to` is outside it.
  Result<std::vector<ChangeEvent>> before = store->ChangeEventsBetween(At(0), At(5));
  ASSERT_TRUE(before.ok());
  EXPECT_TRUE(before->empty());
  EXPECT_EQ(store->AddChangeEvent(Event("", "a", 0)).status().code(), StatusCode::kInvalidArgument);
}

TEST_P(StoreBackendTest, MetricUpsertReplacesAPointAtTheSameTime) {
  std::unique_ptr<StateStore> store = Open();
  ASSERT_NE(store, nullptr);
  const double kThird = 1.0 / 3.0;
  ASSERT_TRUE(store
                  ->UpsertMetricPoints("avg_active_balance",
                                       {{At(0), 100.0}, {At(60), kThird}, {At(120), 300.0}})
                  .ok());
  // Replaces 60 and, within one batch, the last point at 120 wins.
  ASSERT_TRUE(store
                  ->UpsertMetricPoints("avg_active_balance",
                                       {{At(60), -2.5}, {At(120), 1.0}, {At(120), 7.0}})
                  .ok());
  ASSERT_TRUE(store->UpsertMetricPoints("other", {{At(60), 9.0}}).ok());
  Result<std::vector<MetricPoint>> points =
      store->MetricPoints("avg_active_balance", At(0), At(180));
  ASSERT_TRUE(points.ok()) << points.status().ToString();
  ASSERT_EQ(points->size(), 3u);
  EXPECT_EQ((*points)[0].ts, At(0));
  EXPECT_EQ((*points)[0].value, 100.0);
  EXPECT_EQ((*points)[1].value, -2.5);
  EXPECT_EQ((*points)[2].value, 7.0);
  // Values round-trip exactly, and the window is half-open.
  ASSERT_TRUE(store->UpsertMetricPoints("exact", {{At(0), kThird}, {At(1), 1e-300}}).ok());
  points = store->MetricPoints("exact", At(0), At(1));
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), 1u);
  EXPECT_EQ((*points)[0].value, kThird);
}

TEST_P(StoreBackendTest, MetricPointsMustBeFinite) {
  std::unique_ptr<StateStore> store = Open();
  ASSERT_NE(store, nullptr);
  Status s = store->UpsertMetricPoints(
      "m", {{At(0), 1.0}, {At(1), std::numeric_limits<double>::quiet_NaN()}});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("not a finite number"));
  EXPECT_EQ(store->UpsertMetricPoints("m", {{At(0), INFINITY}}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(store->UpsertMetricPoints("", {{At(0), 1.0}}).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Count("metric_points"), 0);
}

TEST_P(StoreBackendTest, CursorsAreReadBackAndReplaced) {
  std::unique_ptr<StateStore> store = Open();
  ASSERT_NE(store, nullptr);
  Result<std::optional<std::string>> missing = store->GetCursor("flink.jobs");
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
  ASSERT_TRUE(store->SetCursor("flink.jobs", "a").ok());
  clock_.Advance(std::chrono::minutes(5));
  ASSERT_TRUE(store->SetCursor("flink.jobs", "b").ok());
  Result<std::optional<std::string>> cursor = store->GetCursor("flink.jobs");
  ASSERT_TRUE(cursor.ok());
  EXPECT_EQ(cursor->value_or(""), "b");
  std::vector<SqlRow> rows = Raw("SELECT updated_at FROM kv_cursors");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(std::get<int64_t>(rows[0][0]), ToUnixMillis(At(5)));
}

TEST_P(StoreBackendTest, GraphAssetsAndEdgesAreUpserted) {
  std::unique_ptr<StateStore> store = Open();
  ASSERT_NE(store, nullptr);
  GraphAsset job{"flink://flink/points-balance", "flink", "loyalty", "ana@example.com",
                 Json{{"parallelism", 4}},       {}};
  GraphAsset sync{"sync://hightouch/tier-changes-to-braze",
                  "sync",
                  "loyalty",
                  "",
                  Json{{"schedule", "0 22 * * *"}, {"customer_facing", true}},
                  {}};
  ASSERT_TRUE(store->UpsertAssets({job, sync}).ok());
  job.owner = "bo@example.com";
  ASSERT_TRUE(store->UpsertAssets({job}).ok());
  ASSERT_TRUE(
      store
          ->UpsertEdges({{"kafka://prod/points-events", job.id, "feeds", "notes", {}, {}},
                         {job.id, "kafka://prod/member-balances", "feeds", "notes", {}, {}}})
          .ok());
  ASSERT_TRUE(
      store->UpsertEdges({{job.id, "kafka://prod/member-balances", "feeds", "openlineage", {}, {}}})
          .ok());

  Result<std::optional<GraphAsset>> got = store->GetAsset(job.id);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ((*got)->owner, "bo@example.com");
  EXPECT_EQ((*got)->attrs, job.attrs);
  EXPECT_EQ((*got)->updated_at, At(0));
  Result<std::optional<GraphAsset>> none = store->GetAsset("table://main/none");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  Result<std::vector<GraphAsset>> assets = store->Assets();
  ASSERT_TRUE(assets.ok());
  ASSERT_EQ(assets->size(), 2u);
  EXPECT_EQ((*assets)[1].attrs["customer_facing"], true);
  Result<std::vector<GraphEdge>> edges = store->Edges();
  ASSERT_TRUE(edges.ok()) << edges.status().ToString();
  ASSERT_EQ(edges->size(), 2u);
  EXPECT_EQ((*edges)[0].src, job.id);
  EXPECT_EQ((*edges)[0].origin, "openlineage");
  EXPECT_EQ((*edges)[1].src, "kafka://prod/points-events");
  // The row-at-a-time scans give the same rows in the same order, attrs as JSON text.
  std::vector<std::string> scanned;
  ASSERT_TRUE(store->ScanAssets([&](const GraphAssetView& a) {
    scanned.push_back(std::string(a.id) + " " + std::string(a.owner) + " " + Json::parse(a.attrs).dump());
    return Status::Ok();
  }).ok());
  ASSERT_EQ(scanned.size(), 2u);
  EXPECT_EQ(scanned[0], (*assets)[0].id + " " + (*assets)[0].owner + " " + (*assets)[0].attrs.dump());
  scanned.clear();
  ASSERT_TRUE(store->ScanEdges([&](const GraphEdgeView& e) {
    scanned.push_back(std::string(e.src) + ">" + std::string(e.dst) + " " + std::string(e.relation));
    return Status::Ok();
  }).ok());
  EXPECT_EQ(scanned, (std::vector<std::string>{job.id + ">kafka://prod/member-balances feeds",
                                               "kafka://prod/points-events>" + job.id + " feeds"}));
  // An error from the callback stops the scan and comes back.
  int calls = 0;
  Status stopped = store->ScanEdges([&](const GraphEdgeView&) {
    ++calls;
    return DataLoss("stop");
  });
  EXPECT_EQ(stopped.code(), StatusCode::kDataLoss);
  EXPECT_EQ(calls, 1);
}

TEST_P(StoreBackendTest, IncidentsArePutAndListedNewestFirst) {
  std::unique_ptr<StateStore> store = Open();
  ASSERT_NE(store, nullptr);
  IncidentRecord a{"inc-1", "open", "balances zeroed", "table://main/loyalty.member_balances",
                   At(0),   At(0),  std::nullopt,      Json{{"severity", "high"}}};
  IncidentRecord b{"inc-2", "open", "stale tariffs", "kestra://kestra/pricing.tariff_sync",
                   At(30),  At(30), std::nullopt,    Json::object()};
  ASSERT_TRUE(store->PutIncident(a).ok());
  ASSERT_TRUE(store->PutIncident(b).ok());
  a.status = "resolved";
  a.closed_at = At(90);
  a.updated_at = At(90);
  ASSERT_TRUE(store->PutIncident(a).ok());

  Result<std::optional<IncidentRecord>> got = store->GetIncident("inc-1");
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ((*got)->status, "resolved");
  EXPECT_EQ((*got)->closed_at, std::optional<TimePoint>(At(90)));
  EXPECT_EQ((*got)->body, a.body);
  Result<std::vector<IncidentRecord>> all = store->Incidents("", 10);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].id, "inc-2");
  EXPECT_FALSE((*all)[0].closed_at.has_value());
  Result<std::vector<IncidentRecord>> open = store->Incidents("open", 10);
  ASSERT_TRUE(open.ok());
  ASSERT_EQ(open->size(), 1u);
  EXPECT_EQ((*open)[0].id, "inc-2");
}

// The receipt sweep's candidates: random incidents (statuses, opening and closing times, ties in
// opened_at), compared with the rule computed here from the records the test wrote.
TEST_P(StoreBackendTest, IncidentIdsToSweepAreTheNewestOfAStatusAndTheRecentlyClosed) {
  std::unique_ptr<StateStore> store = Open();
  ASSERT_NE(store, nullptr);
  std::mt19937_64 rng(20261207);
  const char* statuses[] = {"open", "mitigated", "resolved"};
  std::vector<IncidentRecord> written;
  // Distinct opening times in random order: ties would be broken by the id's collation, which is
  // the PostgreSQL server's locale and not this test's business.
  std::vector<int64_t> opened(60);
  for (size_t i = 0; i < opened.size(); ++i) opened[i] = static_cast<int64_t>(i) * 3;
  std::shuffle(opened.begin(), opened.end(), rng);
  for (int i = 0; i < 60; ++i) {
    IncidentRecord r{"inc-" + std::to_string(i), statuses[rng() % 3], "t", "table://main/t", At(opened[static_cast<size_t>(i)]),
                     At(0), std::nullopt, Json::object()};
    if (r.status != "open" || rng() % 4 == 0) r.closed_at = r.opened_at + std::chrono::minutes(rng() % 200);
    r.updated_at = r.closed_at.value_or(r.opened_at);
    ASSERT_TRUE(store->PutIncident(r).ok());
    written.push_back(r);
  }
  for (int round = 0; round < 20; ++round) {
    const std::string status = statuses[rng() % 3];
    const int limit = 1 + static_cast<int>(rng() % 25);
    const TimePoint closed_after = At(static_cast<int64_t>(rng() % 380));
    std::vector<IncidentRecord> of_status;
    for (const auto& r : written)
      if (r.status == status) of_status.push_back(r);
    std::sort(of_status.begin(), of_status.end(),
              [](const IncidentRecord& a, const IncidentRecord& b) { return a.opened_at > b.opened_at; });
    std::vector<std::string> want;
    for (size_t i = 0; i < of_status.size(); ++i)
      if (i < static_cast<size_t>(limit) || (of_status[i].closed_at && *of_status[i].closed_at > closed_after))
        want.push_back(of_status[i].id);
    Result<std::vector<std::string>> got = store->IncidentIdsToSweep(status, limit, closed_after);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(*got, want) << "round " << round << ": " << status << ", limit " << limit;
  }
  EXPECT_EQ(store->IncidentIdsToSweep("resolved", 0, At(0)).status().code(), StatusCode::kInvalidArgument);
}

TEST_P(StoreBackendTest, ReceiptsFormAnAppendOnlyChain) {
  std::unique_ptr<StateStore> store = Open();
  ASSERT_NE(store, nullptr);
  Result<int64_t> first = store->AppendReceipt("", "h1", R"({"cause":"restore"})");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(*first, 1);
  Result<int64_t> stale = store->AppendReceipt("", "h2", "{}");
  EXPECT_EQ(stale.status().code(), StatusCode::kFailedPrecondition);
  Result<int64_t> second = store->AppendReceipt("h1", "h2", "{}");
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(*second, 2);
  Result<std::vector<ReceiptRecord>> receipts = store->Receipts();
  ASSERT_TRUE(receipts.ok());
  ASSERT_EQ(receipts->size(), 2u);
  EXPECT_EQ((*receipts)[0].body, R"({"cause":"restore"})");
  EXPECT_EQ((*receipts)[1].prev_hash, "h1");
  EXPECT_EQ((*receipts)[1].written_at, At(0));
}

TEST_P(StoreBackendTest, CorruptJsonInARowIsReportedAsDataLoss) {
  std::unique_ptr<StateStore> store = Open();
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->UpsertAssets({{"table://main/t", "table", "", "", Json::object(), {}}}).ok());
  Raw("UPDATE graph_assets SET attrs = $1", {SqlValue{std::string("{not json")}});
  Result<std::vector<GraphAsset>> assets = store->Assets();
  EXPECT_EQ(assets.status().code(), StatusCode::kDataLoss) << assets.status().ToString();
}

INSTANTIATE_TEST_SUITE_P(Store, StoreBackendTest, ::testing::Values("sqlite", "postgresql"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace state_store_test

namespace simulated_clock_store_test {

// A simulated-clock store is made so only when it is created, and never becomes one later: the one
// kind of store in which a command may record a decision, a resolution or a receipt at --now
// (docs/cli.md, "--now", store/clock_kind.h).
//
// The tests' own stores are scratch stores whose times are made up (a SimulatedClock, `dw --now`),
// so this test binary creates every store as a simulated-clock store, for itself and for the dw
// processes it starts; a test that needs a real store unsets the variable (RealClockStores).
// Set before main: every store this binary (and each dw it starts) creates is a scratch store.
[[maybe_unused]] const bool kTestStoresAreSimulated = [] {
  ::setenv(kSimulatedClockEnv, "1", 1);
  return true;
}();

class SimulatedClockStoreTest : public test_support::ScratchOnEachBackend {};

using state_store_test::RealClockStores;

TEST_P(SimulatedClockStoreTest, OnlyAStoreCreatedSoIsSimulatedAndNoneBecomesOneLater) {
  {
    RealClockStores real;
    std::unique_ptr<StateStore> st = Open();
    ASSERT_NE(st, nullptr);
    Result<bool> simulated = IsSimulatedClockStore(*st);
    ASSERT_TRUE(simulated.ok()) << simulated.status().ToString();
    EXPECT_FALSE(*simulated) << "created without the variable: a real store";
  }
  // Reopened with the variable set, an existing store stays what it was made.
  std::unique_ptr<StateStore> again = Open();
  ASSERT_NE(again, nullptr);
  EXPECT_FALSE(*IsSimulatedClockStore(*again));
  // Nor can a command make it one through the cursors.
  Status set = again->SetCursor(kStoreClockCursor, kSimulatedClock);
  EXPECT_EQ(set.code(), StatusCode::kPermissionDenied) << set.ToString();
  EXPECT_FALSE(*IsSimulatedClockStore(*again));
  EXPECT_TRUE(again->SetCursor("other", "x").ok()) << "other cursors are unaffected";
}

TEST_P(SimulatedClockStoreTest, AStoreCreatedWithTheVariableIsSimulatedForGood) {
  {
    std::unique_ptr<StateStore> st = Open();
    ASSERT_NE(st, nullptr);
    EXPECT_TRUE(*IsSimulatedClockStore(*st));
  }
  RealClockStores real;
  std::unique_ptr<StateStore> reopened = Open();
  ASSERT_NE(reopened, nullptr);
  EXPECT_TRUE(*IsSimulatedClockStore(*reopened)) << "what it was made stays with it";
}

INSTANTIATE_TEST_SUITE_P(Backends, SimulatedClockStoreTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace simulated_clock_store_test
}  // namespace
}  // namespace dw::store
