// The persistence point of redaction: an error, a note or a document that quotes a secret (a
// registered one of any length, or the password of a connection string in URL or libpq
// keyword/value form, quoted or not) is stored as "***" in every row the state store writes, so
// no check result, change event, incident, proposal, action event, outbox row or receipt keeps a
// secret in clear, whichever stage made the text.
//
// The test writes such text through every write of the store and then reads every cell of every
// table of the SQLite file behind the store's back. A table that is neither written here nor named
// as holding only identifiers fails the test, so a table added later cannot escape the check.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "actions/actions.h"
#include "base/redaction.h"
#include "store/metric_snapshots.h"
#include "store/state_store.h"
#include "store/table_watch_states.h"
#include "store_test_support.h"

namespace dw::store {
namespace {

using test_support::ScratchLocation;

// Registered once for the whole test binary (the registry only grows): a long secret and one of
// two characters, which is hidden where it stands as a whole token.
constexpr const char* kLongSecret = "LeakMe1234";
constexpr const char* kShortSecret = "Zq";

// What a driver or a platform might say, quoting all four kinds of secret.
std::string Leaky(const std::string& what) {
  return what + ": could not connect to host=db.internal port=5432 password='p@ss w0rd!' user=dw; " +
         "retried postgresql://bob:UrlPass99@db.internal/analytics with token " + kShortSecret +
         " and key " + kLongSecret + " (password=plainsecret1)";
}

Json LeakyDoc(const std::string& what) {
  return Json{{"error", Leaky(what)}, {"nested", {{"list", Json::array({Leaky(what + " in a list")})}}}};
}

// The substrings that would mean a secret was stored in clear.
const std::vector<std::string>& Forbidden() {
  static const std::vector<std::string> kForbidden = {
      "p@ss w0rd!", "UrlPass99", kLongSecret, std::string("token ") + kShortSecret + " ", "plainsecret1"};
  return kForbidden;
}

// Tables whose text is identifiers, names, times, positions or public keys, bound as they are
// (metric_snapshots: a metric name and the detector's numeric state in base64, no text of anyone's).
const std::set<std::string>& VerbatimTables() {
  static const std::set<std::string> kVerbatim = {"schema_migrations", "metric_points",  "kv_cursors",
                                                  "graph_assets",      "graph_edges",    "person_keys",
                                                  "metric_history",    "metric_snapshots"};
  return kVerbatim;
}

// Tables only the PostgreSQL backend writes (store/watch_leases.h: several `dw watch` replicas);
// on SQLite they exist, empty. Their prose (a run's failure, a refusal) is bound through
// ProseCell: tests/store/watch_leases_test.cc checks it on PostgreSQL.
const std::set<std::string>& PostgresOnlyTables() {
  static const std::set<std::string> kPostgresOnly = {"watch_replicas", "watch_leases", "watch_runs"};
  return kPostgresOnly;
}

class RedactedRowsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RegisterSecret(kLongSecret);
    RegisterSecret(kShortSecret);
    auto scratch = ScratchLocation::Create("sqlite");
    ASSERT_TRUE(scratch.ok()) << scratch.status().ToString();
    scratch_ = std::move(scratch).value();
    auto store = OpenStateStore(scratch_->location(), clock_);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
  }

  // Every text cell of every table, as "table: cell"; the names of the tables holding a row.
  void ReadEveryCell(std::vector<std::string>* cells, std::set<std::string>* written, std::set<std::string>* tables) {
    auto conn = scratch_->Connect();
    ASSERT_TRUE(conn.ok()) << conn.status().ToString();
    auto names = (*conn)->Query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
    ASSERT_TRUE(names.ok()) << names.status().ToString();
    for (const SqlRow& row : *names) {
      const std::string table = std::get<std::string>(row.at(0));
      tables->insert(table);
      // The name comes from the file's own catalog, not from input; quoted all the same.
      auto rows = (*conn)->Query("SELECT * FROM \"" + table + "\"");
      ASSERT_TRUE(rows.ok()) << table << ": " << rows.status().ToString();
      if (!rows->empty()) written->insert(table);
      for (const SqlRow& r : *rows)
        for (const SqlValue& v : r)
          if (const auto* s = std::get_if<std::string>(&v)) cells->push_back(table + ": " + *s);
    }
  }

  SimulatedClock clock_{FromUnixMillis(1'800'000'000'000)};
  std::unique_ptr<ScratchLocation> scratch_;
  std::unique_ptr<StateStore> store_;
};

TEST_F(RedactedRowsTest, NoSecretQuotedInAnErrorIsStoredInClearInAnyTable) {
  StateStore& s = *store_;
  CheckResultRow c;
  c.run_id = "run-1";
  c.table_ref = "pg.public.orders";
  c.check_name = "custom(orders_total)";
  c.status = CheckStatus::kError;
  c.observed = LeakyDoc("observed");
  c.threshold = LeakyDoc("threshold");
  c.message = Leaky("check failed");
  c.observed_at = clock_.Now();
  ASSERT_TRUE(s.RecordCheckResults({c}).ok());

  ASSERT_TRUE(s.UpsertMetricPoints("orders_total", {{clock_.Now(), 1.0}}).ok());
  MetricMark mark;
  mark.metric = "orders_total";
  mark.from = mark.to = clock_.Now();
  mark.note = Leaky("metric error");
  mark.author = "ana@example.com";
  ASSERT_TRUE(s.AddMetricMark(mark).ok());
  // A rewrite of the point bumps its history revision; a detector snapshot is saved under it.
  ASSERT_TRUE(s.UpsertMetricPoints("orders_total", {{clock_.Now(), 2.0}}).ok());
  MetricSnapshotRecord snap;
  snap.metric = "orders_total";
  snap.revision = 1;
  snap.from = snap.through = clock_.Now();
  snap.state = std::string("\x00\x01 binary state", 15);
  ASSERT_NE(MetricSnapshotsOf(s), nullptr);
  auto saved = MetricSnapshotsOf(s)->SaveMetricSnapshot(snap);
  ASSERT_TRUE(saved.ok()) << saved.status().ToString();
  EXPECT_TRUE(*saved);

  ChangeEvent e;
  e.dedup_key = "deploy-1";
  e.asset_id = "flink://flink/orders";
  e.kind = "deploy";
  e.happened_at = e.observed_at = clock_.Now();
  e.evidence = LeakyDoc("evidence");
  e.reason = Leaky("platform answered");
  ASSERT_TRUE(s.AddChangeEvent(e).ok());
  ASSERT_TRUE(s.SetCursor("flink:jobs", "1800000000000").ok());
  GraphAsset asset;
  asset.id = "table://pg/public.orders";
  asset.kind = "table";
  ASSERT_TRUE(s.UpsertAssets({asset}).ok());
  GraphEdge edge{"flink://flink/orders", "table://pg/public.orders", "feeds", "notes"};
  ASSERT_TRUE(s.UpsertEdges({edge}).ok());

  IncidentRecord inc;
  inc.id = "INC-1";
  inc.status = "open";
  inc.title = Leaky("incident");
  inc.asset_id = "table://pg/public.orders";
  inc.opened_at = inc.updated_at = clock_.Now();
  inc.body = LeakyDoc("incident body");
  ASSERT_TRUE(s.PutIncident(inc).ok());

  ProposalRecord p;
  p.id = "INC-1-hold";
  p.version = 1;
  p.incident_id = "INC-1";
  p.kind = "hold";
  p.body = LeakyDoc("proposal");
  ASSERT_TRUE(s.AddProposal(p).ok());
  ActionEventRecord ev;
  ev.at = clock_.Now();
  ev.kind = "refused";
  ev.subject = "proposal:INC-1-hold";
  ev.actor = "agent:dw-incidents";
  ev.body = LeakyDoc("action event");
  ASSERT_TRUE(s.AppendActionEvent(ev).ok());
  ASSERT_TRUE(actions::IssuePersonKey(s, "ana@example.com", clock_, "test").ok());

  OutboxMessage m;
  m.incident_id = "INC-1";
  m.channel = "slack";
  m.event = "open";
  m.payload = LeakyDoc("payload");
  m.last_error = Leaky("first attempt");
  m.answer = LeakyDoc("answer");
  auto queued = s.EnqueueOutbox(m);
  ASSERT_TRUE(queued.ok() && *queued);
  auto due = s.OutboxFor("INC-1");
  ASSERT_TRUE(due.ok() && due->size() == 1u);
  OutboxMessage sent = (*due)[0];
  sent.state = "failed";
  sent.last_error = Leaky("second attempt");
  ASSERT_TRUE(s.UpdateOutbox(sent).ok());

  ASSERT_NE(TableWatchStatesOf(s), nullptr);
  ASSERT_TRUE(TableWatchStatesOf(s)
                  ->SaveTableWatchStates({{"table://pg/public.orders", "pg", LeakyDoc("table state").dump(), {}}})
                  .ok());

  // A receipt is hashed as written: its writer redacts before hashing, and the chain verifies.
  auto receipt = actions::WriteReceipt(s, LeakyDoc("receipt"), clock_);
  ASSERT_TRUE(receipt.ok()) << receipt.status().ToString();
  auto verdict = actions::VerifyReceiptChain(s);
  ASSERT_TRUE(verdict.ok()) << verdict.status().ToString();
  EXPECT_TRUE(verdict->ok) << verdict->problem;

  std::vector<std::string> cells;
  std::set<std::string> written, tables;
  ReadEveryCell(&cells, &written, &tables);
  for (const std::string& t : tables)
    EXPECT_TRUE(written.count(t) || VerbatimTables().count(t) || PostgresOnlyTables().count(t))
        << "table " << t << " is neither written by this test nor named as holding only identifiers: "
        << "write a secret-quoting text through its store call above";
  for (const std::string& t : VerbatimTables()) EXPECT_TRUE(written.count(t)) << t << " was not written";
  bool masked = false;
  for (const std::string& cell : cells) {
    for (const std::string& secret : Forbidden()) EXPECT_EQ(cell.find(secret), std::string::npos) << secret << " in " << cell;
    masked = masked || cell.find("***") != std::string::npos;
  }
  EXPECT_TRUE(masked) << "nothing was masked: the text did not reach the store";
  // What is not a secret is kept: the message still says what failed.
  auto stored = s.CheckResultsOfRun("run-1");
  ASSERT_TRUE(stored.ok() && stored->size() == 1u);
  EXPECT_THAT((*stored)[0].message, ::testing::HasSubstr("check failed: could not connect to host=db.internal"));
  EXPECT_THAT((*stored)[0].message, ::testing::HasSubstr("password='***'"));
}

TEST_F(RedactedRowsTest, AReceiptBodyHoldingASecretIsRefusedNotStored) {
  // The store keeps a receipt byte for byte (it is hashed), so it cannot mask one: it refuses it.
  const std::string body = "{\"content\":{\"error\":\"" + Leaky("x") + "\"}}";
  auto appended = store_->AppendReceipt("", "0000", body);
  ASSERT_FALSE(appended.ok());
  EXPECT_EQ(appended.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(appended.status().message(), ::testing::HasSubstr("holds a secret"));
  auto all = store_->Receipts();
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->empty());
}

}  // namespace
}  // namespace dw::store
