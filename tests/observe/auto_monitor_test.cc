// The automatic monitors driven through simulated weeks: a seeded generator loads a scratch
// warehouse's tables (SQLite, and PostgreSQL under scripts/with-postgres.sh) hourly, daily,
// weekdays only and irregularly; a metadata pass runs every 15 simulated minutes. A load that stops
// is late within 1.5 times the learnt cadence, a dropped or retyped column is seen at the next pass,
// the benign tables are never called late after learning, the first week only learns, and a late
// table is an incident signal the way a declared monitor's anomaly is.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "base/clock.h"
#include "incidents/incidents.h"
#include "observe/auto_monitor/auto_monitor.h"
#include "observe/auto_monitor/auto_series.h"
#include "store/state_store.h"
#include "tests/observe/table_load_generator.h"
#include "tests/warehouse/scratch_warehouse.h"

namespace dw::observe::auto_monitor {
namespace {

using test_support::GenerateLoads;
using test_support::kDayMs;
using test_support::kHourMs;
using test_support::kMinuteMs;
using test_support::Load;
using test_support::LoadPattern;
using warehouse::test_support::ScratchWarehouse;

constexpr int64_t kStartMs = 1793577600000;  // 2026-11-02T00:00:00Z, a Monday
constexpr int64_t kPassMs = 15 * kMinuteMs;

// A scratch warehouse the automatic monitors may read, a SQLite state store, and a workspace
// naming the one warehouse "wh". On PostgreSQL the product connects as a role of its own that sees
// only the scratch schema (the shared test database holds other tests' schemas).
class AutoMonitorSim : public ::testing::TestWithParam<std::string> {
 protected:
  AutoMonitorSim() : clock_(FromUnixMillis(kStartMs)) {}

  void SetUp() override {
    if (GetParam() == "postgres" && store::test_support::PostgresTestUrl().empty())
      GTEST_SKIP() << "needs scripts/with-postgres.sh (DW_TEST_PG_URL)";
    auto wh = ScratchWarehouse::Create(GetParam());
    ASSERT_TRUE(wh.ok()) << wh.status().ToString();
    wh_ = std::move(wh).value();
    if (wh_->postgres()) {
      role_ = "dw_am_" + store::test_support::UniqueSuffix();
      ASSERT_TRUE(wh_->Exec("CREATE ROLE " + role_ + " LOGIN; GRANT USAGE ON SCHEMA " + wh_->schema() + " TO " + role_ +
                            "; ALTER DEFAULT PRIVILEGES IN SCHEMA " + wh_->schema() + " GRANT SELECT ON TABLES TO " + role_)
                      .ok());
      const std::string url = store::test_support::PostgresTestUrl();
      wh_->mutable_config().dsn = "postgresql://" + role_ + url.substr(url.find('@'));
    }
    dir_ = std::filesystem::temp_directory_path() / ("dw-automon-" + store::test_support::UniqueSuffix());
    std::filesystem::create_directories(dir_);
    auto st = store::OpenStateStore((dir_ / "state.db").string(), clock_);
    ASSERT_TRUE(st.ok()) << st.status().ToString();
    store_ = std::move(st).value();
    ws_.name = "sim";
    ws_.warehouses["wh"] = wh_->config();
    ws_.auto_monitor.exclude = {"*.dw_scratch_marker"};  // the scratch warehouse's own table
  }

  void TearDown() override {
    if (wh_ && !role_.empty()) (void)wh_->Exec("DROP OWNED BY " + role_ + "; DROP ROLE " + role_);
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }

  // Appends `rows` rows to `table` (and makes PostgreSQL's statistics visible at once).
  void LoadRows(const std::string& table, int rows) {
    ASSERT_TRUE(wh_->Exec("INSERT INTO " + wh_->Sql(table) +
                          " (v) SELECT x FROM (WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < " +
                          std::to_string(rows) + ") SELECT i AS x FROM s) q" +
                          (wh_->postgres() ? "; SELECT pg_stat_force_next_flush()" : ""))
                    .ok());
  }

  PassReport Pass() {
    PassOptions options;
    auto r = RunAutoMonitorPass(ws_, *store_, clock_, options);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *std::move(r) : PassReport{};
  }

  std::string NameOf(const std::string& table) const { return wh_->Ref(table); }

  SimulatedClock clock_;
  std::unique_ptr<ScratchWarehouse> wh_;
  std::string role_;
  std::filesystem::path dir_;
  std::unique_ptr<store::StateStore> store_;
  config::Workspace ws_;
};

struct SimTable {
  std::string table;
  LoadPattern pattern;
  int64_t stop_ms = INT64_MAX;  // loads stop here (a fault)
  std::vector<Load> loads;
  size_t next = 0;
  int64_t last_loaded_ms = 0;   // the latest load applied
  int64_t last_seen_ms = 0;     // the pass that first saw it
  std::optional<int64_t> late_at_ms;
};

TEST_P(AutoMonitorSim, StoppedLoadsAreLateWithinOneAndAHalfCadencesAndBenignOnesNever) {
  std::mt19937_64 rng(20261102);
  const int64_t end = kStartMs + 16 * kDayMs;
  const int64_t learning_end = kStartMs + 7 * kDayMs;
  // Every pattern twice: once benign, once stopping after learning (a Tuesday and a Wednesday, so
  // the missing load is due on a weekday).
  std::vector<SimTable> tables = {
      {"hourly_ok", LoadPattern::kHourly},
      {"daily_ok", LoadPattern::kDaily},
      {"weekdays_ok", LoadPattern::kWeekdays},
      {"irregular_ok", LoadPattern::kIrregular},
      {"hourly_stop", LoadPattern::kHourly, kStartMs + 8 * kDayMs + 13 * kHourMs},
      {"daily_stop", LoadPattern::kDaily, kStartMs + 9 * kDayMs},
      {"weekdays_stop", LoadPattern::kWeekdays, kStartMs + 9 * kDayMs},
      {"irregular_stop", LoadPattern::kIrregular, kStartMs + 9 * kDayMs + 7 * kHourMs},
  };
  for (auto& t : tables) {
    ASSERT_TRUE(wh_->Exec("CREATE TABLE " + wh_->Sql(t.table) + " (v INTEGER, note TEXT)").ok());
    t.loads = GenerateLoads(t.pattern, kStartMs, end, t.stop_ms, 60, rng);
  }
  // A table whose columns change after learning: one removed on day 8, one retyped on day 9.
  ASSERT_TRUE(wh_->Exec("CREATE TABLE " + wh_->Sql("shaped") + " (v INTEGER, region TEXT, amount INTEGER)").ok());
  bool dropped = false, retyped = false;
  std::optional<int64_t> drop_seen, retype_seen;

  std::set<std::string> learning_violations, benign_alarms;
  for (int64_t now = kStartMs; now < end; now += kPassMs) {
    for (auto& t : tables)
      for (; t.next < t.loads.size() && t.loads[t.next].at_ms <= now; ++t.next) {
        LoadRows(t.table, t.loads[t.next].rows);
        t.last_loaded_ms = t.loads[t.next].at_ms;
      }
    if (!dropped && now >= kStartMs + 8 * kDayMs) {
      ASSERT_TRUE(wh_->Exec("ALTER TABLE " + wh_->Sql("shaped") + " DROP COLUMN region").ok());
      dropped = true;
    } else if (!retyped && now >= kStartMs + 9 * kDayMs) {
      // SQLite cannot retype a column in place: the table is rebuilt, as a migration tool would.
      ASSERT_TRUE(wh_->Exec(wh_->postgres()
                                ? "ALTER TABLE " + wh_->Sql("shaped") + " ALTER COLUMN amount TYPE numeric"
                                : "CREATE TABLE shaped_new (v INTEGER, amount NUMERIC); INSERT INTO shaped_new "
                                  "SELECT v, amount FROM shaped; DROP TABLE shaped; ALTER TABLE shaped_new RENAME TO shaped")
                      .ok());
      retyped = true;
    }
    clock_.Set(FromUnixMillis(now));
    PassReport report = Pass();
    if (HasFailure()) return;
    ASSERT_EQ(report.warehouses.size(), 1u);
    ASSERT_TRUE(report.warehouses[0].status.ok()) << report.warehouses[0].status.ToString();
    for (const WatchedTable& w : report.tables) {
      if (now < learning_end && w.verdict != "learning") learning_violations.insert(w.name + ": " + w.sentence);
      if (w.name == NameOf("shaped")) {
        if (dropped && !drop_seen && w.verdict == "schema_changed") drop_seen = now;
        if (retyped && !retype_seen && w.verdict == "schema_changed" && w.sentence.find("retyped") != std::string::npos)
          retype_seen = now;
        continue;
      }
      for (auto& t : tables) {
        if (w.name != NameOf(t.table)) continue;
        if (w.last_load_ms && *w.last_load_ms == now) t.last_seen_ms = now;
        const bool alarm = w.verdict == "late" || w.verdict == "volume_anomaly" || w.verdict == "schema_changed";
        if (t.stop_ms == INT64_MAX && alarm) benign_alarms.insert(w.name + " at " + FormatRfc3339(FromUnixMillis(now)) + ": " + w.sentence);
        if (t.stop_ms != INT64_MAX && w.verdict == "late" && !t.late_at_ms) {
          t.late_at_ms = now;
          // Late within 1.5 times the learnt cadence after the last load was seen (plus the pass
          // that notices, and for a time of day learnt from passes, the pass it may lie after the
          // load seen last), and not before the next load was even due.
          EXPECT_LE(now - t.last_seen_ms, w.cadence.interval_ms * 3 / 2 + 2 * kPassMs)
              << w.name << " (" << w.cadence.text << ") late at " << FormatRfc3339(FromUnixMillis(now));
          EXPECT_GT(now - t.last_loaded_ms, w.cadence.interval_ms) << w.name << ": " << w.sentence;
          if (t.pattern == LoadPattern::kHourly) {
            EXPECT_EQ(w.cadence.text, "hourly");
            EXPECT_LE(now - t.last_seen_ms, 90 * kMinuteMs + kPassMs);
          }
          if (t.pattern == LoadPattern::kDaily) {
            EXPECT_EQ(w.cadence.kind, CadenceKind::kDaily) << w.cadence.text;
            EXPECT_LE(now - t.last_seen_ms, 36 * kHourMs + 2 * kPassMs);
          }
          if (t.pattern == LoadPattern::kWeekdays) {
            EXPECT_EQ(w.cadence.kind, CadenceKind::kWeekdays) << w.cadence.text;
          }
          if (t.pattern == LoadPattern::kIrregular) {
            EXPECT_EQ(w.cadence.kind, CadenceKind::kIrregular) << w.cadence.text;
          }
        }
      }
    }
  }
  EXPECT_TRUE(learning_violations.empty()) << *learning_violations.begin();
  EXPECT_TRUE(benign_alarms.empty()) << benign_alarms.size() << " alarm(s) on benign tables, first: " << *benign_alarms.begin();
  for (const auto& t : tables) {
    if (t.stop_ms != INT64_MAX) {
      EXPECT_TRUE(t.late_at_ms.has_value()) << t.table << " never became late";
    }
  }
  // The column changes were seen at the very next pass.
  ASSERT_TRUE(drop_seen.has_value());
  EXPECT_EQ(*drop_seen, kStartMs + 8 * kDayMs);
  ASSERT_TRUE(retype_seen.has_value());
  EXPECT_EQ(*retype_seen, kStartMs + 9 * kDayMs);

  // The learnt cadences, as dw tables lists them.
  auto listed = ListWatchedTables(ws_, *store_, clock_, "*_ok");
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  std::map<std::string, WatchedTable> by_name;
  for (const auto& w : *listed) by_name[w.name] = w;
  ASSERT_EQ(by_name.size(), 4u);
  EXPECT_EQ(by_name[NameOf("hourly_ok")].cadence.text, "hourly");
  EXPECT_EQ(by_name[NameOf("daily_ok")].cadence.kind, CadenceKind::kDaily);
  EXPECT_EQ(by_name[NameOf("weekdays_ok")].cadence.text.rfind("weekdays at 06:", 0), 0u)
      << by_name[NameOf("weekdays_ok")].cadence.text;
  EXPECT_EQ(by_name[NameOf("irregular_ok")].cadence.kind, CadenceKind::kIrregular);
  for (const auto& [name, w] : by_name) {
    EXPECT_FALSE(w.learning) << name;
    EXPECT_EQ(w.monitors, (std::vector<std::string>{"volume", "freshness", "schema"})) << name;
  }

  // A late table is an incident signal, as a declared monitor's anomaly is; the benign ones are not.
  incidents::GatherOptions gather;
  gather.since = FromUnixMillis(end - kDayMs);
  auto signals = incidents::GatherSignals(ws_, *store_, clock_, gather);
  ASSERT_TRUE(signals.ok()) << signals.status().ToString();
  std::set<std::string> bad;
  for (const auto& s : signals->signals)
    if (s.bad) bad.insert(s.key);
  for (const auto& t : tables) {
    const std::string key = "metric:" + AutoSeriesName(wh_->AssetId(t.table), kLateness);
    EXPECT_EQ(bad.count(key), t.stop_ms != INT64_MAX ? 1u : 0u) << key;
  }
}

TEST_P(AutoMonitorSim, TheFirstWeekIsLearningAndNeverASignal) {
  ASSERT_TRUE(wh_->Exec("CREATE TABLE " + wh_->Sql("fresh") + " (v INTEGER)").ok());
  // Hourly loads for two days, then nothing for a day: late by any cadence, but still learning.
  for (int64_t now = kStartMs; now < kStartMs + 3 * kDayMs; now += kPassMs) {
    if (now < kStartMs + 2 * kDayMs && now % kHourMs == 0) LoadRows("fresh", 40);
    clock_.Set(FromUnixMillis(now));
    PassReport report = Pass();
    if (HasFailure()) return;
    ASSERT_EQ(report.tables.size(), 1u);
    EXPECT_EQ(report.tables[0].verdict, "learning") << report.tables[0].sentence;
    EXPECT_NE(report.tables[0].sentence.find("learning until 2026-11-09T00:00:00Z"), std::string::npos)
        << report.tables[0].sentence;
  }
  auto listed = ListWatchedTables(ws_, *store_, clock_);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].cadence.text, "hourly");
  EXPECT_TRUE((*listed)[0].learning);
  incidents::GatherOptions gather;
  gather.since = FromUnixMillis(kStartMs);
  auto signals = incidents::GatherSignals(ws_, *store_, clock_, gather);
  ASSERT_TRUE(signals.ok()) << signals.status().ToString();
  EXPECT_TRUE(signals->signals.empty()) << signals->signals.front().summary;
  // The points were recorded all the same: learning is the detector's history.
  auto names = store_->MetricNames();
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(std::count(names->begin(), names->end(), AutoSeriesName(wh_->AssetId("fresh"), kRowsWritten)), 1);
}

TEST_P(AutoMonitorSim, OffAndExcludedTablesAreNotWatched) {
  ASSERT_TRUE(wh_->Exec("CREATE TABLE " + wh_->Sql("orders") + " (v INTEGER); CREATE TABLE " + wh_->Sql("stg_orders") +
                        " (v INTEGER); CREATE TABLE " + wh_->Sql("stg_items") + " (v INTEGER)")
                  .ok());
  ws_.auto_monitor.exclude.push_back("wh.*stg_*");
  PassReport report = Pass();
  ASSERT_EQ(report.tables.size(), 1u);
  EXPECT_EQ(report.tables[0].name, NameOf("orders"));
  EXPECT_EQ(report.warehouses.at(0).excluded, wh_->postgres() ? 2u : 3u);  // SQLite: the marker too
  ws_.auto_monitor.enabled = false;
  report = Pass();
  EXPECT_TRUE(report.warehouses.empty());
  EXPECT_TRUE(report.tables.empty());
}

TEST_P(AutoMonitorSim, AnEngineWithoutACatalogReaderSaysSoAndTheOthersAreWatched) {
  ASSERT_TRUE(wh_->Exec("CREATE TABLE " + wh_->Sql("orders") + " (v INTEGER)").ok());
  config::WarehouseConfig sf;
  sf.name = "sf";
  sf.type = "snowflake";
  ws_.warehouses["sf"] = sf;
  PassReport report = Pass();
  ASSERT_EQ(report.warehouses.size(), 2u);
  std::map<std::string, Status> by;
  for (const auto& w : report.warehouses) by[w.warehouse] = w.status;
  EXPECT_EQ(by["sf"].code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(by["sf"].message().find("not built for snowflake yet"), std::string::npos) << by["sf"].message();
  EXPECT_TRUE(by["wh"].ok());
  EXPECT_EQ(report.tables.size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Warehouses, AutoMonitorSim, ::testing::Values("sqlite", "postgres"),
                         warehouse::test_support::BackendName);

}  // namespace
}  // namespace dw::observe::auto_monitor
