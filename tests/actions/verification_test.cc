// Verification after the owner's fix and the receipt on resolve, against a real SQLite warehouse,
// the real quality stage and detector, on both store backends: a failed verification keeps the
// incident open and asks a person; a passing one resolves it by verification and writes exactly
// one receipt that verifies; verifying an unknown or resolved incident is refused and recorded;
// autonomous verification runs only where the domain's autonomy allows and never under `dw stop`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "net/http_client.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "actions/actions.h"
#include "observe/quality/quality_run.h"
#include "replay/world_writes.h"
#include "tests/incidents/incidents_test_support.h"
#include "tests/platforms/notify/notify_test_support.h"

namespace dw::actions {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

class VerificationTest : public incidents::test_support::DeskTest {
 protected:
  void SetUp() override {
    DeskTest::SetUp();
    if (IsSkipped()) return;
    dir_ = fs::temp_directory_path() / ("dw-verification-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    WriteWorkspace("L2");
    World("CREATE TABLE balances (member_id INTEGER, balance INTEGER, updated_at TEXT);"
          "INSERT INTO balances VALUES (1, 640, '2026-11-24T12:00:00Z'), (2, -12, '2026-11-24T12:00:00Z'),"
          " (3, 90, '2026-11-24T12:00:00Z');");
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  void WriteWorkspace(const std::string& autonomy) {
    std::ofstream(dir_ / "dataworkers.yaml") << "version: 1\nname: t\n"
        "warehouses:\n  main: {type: sqlite, path: warehouse.db}\n"
        "domains:\n  loyalty: {autonomy: " << autonomy << ", owners: [ana@example.com], approvers: [ana@example.com]}\n"
        "assets:\n  - {id: table://main/balances, domain: loyalty, owner: ana@example.com}\n"
        "checks:\n  - table: main.balances\n    not_null: [member_id]\n    range: {balance: {min: 0}}\n";
    auto loaded = config::LoadWorkspace(dir_);
    ASSERT_TRUE(loaded.ok()) << loaded.ErrorText();
    ws_ = *loaded.workspace;
    auto applied = graph_->Apply(graph::NotesBatch(ws_.assets));
    ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  }

  void World(const std::string& sql) {
    replay::SqlStep step;
    step.warehouse = "main";
    step.sql_inline = sql;
    auto http = net::MakeCurlHttpClient();  // unused for a SQLite warehouse
    Status s = replay::RunWorldSql(ws_, step, RealClock().Now(), *http);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }

  // Opens an incident from the check that really fails on the warehouse now; returns its id.
  std::string OpenFromFailingCheck() {
    observe::quality::QualityRequest req;
    req.tables = {"main.balances"};
    auto report = observe::quality::RunQuality(ws_, store_.get(), clock_, req);
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    std::string failing;
    if (report.ok())
      for (const auto& o : report->tables.at(0).outcomes)
        if (o.verdict == observe::quality::Verdict::kFail) failing = o.name;
    EXPECT_FALSE(failing.empty());
    check_ = failing;
    auto r = Evaluate({CheckSignal("table://main/balances", failing, "2026-11-24T13:00:00Z")});
    EXPECT_EQ(r.opened.size(), 1u);
    return r.opened.empty() ? "" : r.opened.front();
  }

  int Events(const std::string& subject, const std::string& kind) {
    auto events = store_->ActionEvents(subject);
    EXPECT_TRUE(events.ok());
    int n = 0;
    if (events.ok())
      for (const auto& e : *events) n += e.kind == kind;
    return n;
  }

  fs::path dir_;
  std::string check_;
};

TEST_P(VerificationTest, AFailedVerificationKeepsTheIncidentOpenAndAsksAPerson) {
  std::string id = OpenFromFailingCheck();
  ASSERT_FALSE(id.empty());
  auto v = VerifyIncident(*store_, ws_, Desk(), id, {.actor = "ana@example.com"}, clock_);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_TRUE(v->ran);
  EXPECT_FALSE(v->passed);
  EXPECT_FALSE(v->resolved);
  EXPECT_FALSE(v->receipt.has_value());
  ASSERT_EQ(v->items.size(), 1u);
  EXPECT_EQ(v->items[0].item.check, check_);
  EXPECT_THAT(v->items[0].sentence, HasSubstr("fail"));
  EXPECT_EQ(v->plan_source, "the signals that opened " + id);
  EXPECT_EQ(Get(id).status, incidents::IncidentStatus::kOpen);
  EXPECT_EQ(Events("incident:" + id, "verification_failed"), 1);
  EXPECT_EQ(Events("incident:" + id, "attention_requested"), 1);
  auto head = CurrentReceiptHead(*store_);
  ASSERT_TRUE(head.ok());
  EXPECT_EQ(head->seq, 0);
}

TEST_P(VerificationTest, AFailedVerificationIsNotifiedToTheDomainsOwnersWithItsApproversCopied) {
  auto slack = dw::testing::StartReceiver(sim::Platform::kSlack);
  ASSERT_NE(slack, nullptr);
  ws_.domains["loyalty"].owners = {"ana@example.com", "data-owner@example.com"};
  ws_.domains["loyalty"].approvers = {"bo@example.com"};
  // Opsgenie is routed too but has nothing to say for it (the alert is already open).
  ws_.notify = Json{{"slack", {{"webhook", slack->url() + "/services/T0/B0/loyalty"}}},
                    {"opsgenie", {{"api_key", "k"}, {"url", "http://127.0.0.1:9"}}},
                    {"routes", {{{"channels", {"slack", "opsgenie"}}, {"events", {"attention_requested"}}}}}};
  std::string id = OpenFromFailingCheck();
  ASSERT_FALSE(id.empty());
  auto v = VerifyIncident(*store_, ws_, Desk(), id, {.actor = "ana@example.com"}, clock_);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  ASSERT_FALSE(v->passed);
  auto outbox = store_->OutboxFor(id);
  ASSERT_TRUE(outbox.ok());
  ASSERT_EQ(outbox->size(), 1u);
  const store::OutboxMessage& m = outbox->front();
  EXPECT_EQ(m.channel, "slack");
  EXPECT_EQ(m.event, "attention_requested:" + std::to_string(v->event_seq));
  EXPECT_EQ(m.payload["to"], Json({"ana@example.com", "data-owner@example.com"}));
  EXPECT_EQ(m.payload["cc"], Json({"bo@example.com"}));

  auto http = net::MakeCurlHttpClient();
  auto mail = net::MakeCurlMailClient();
  auto sent = platforms::notify::DeliverDue(ws_, *store_, *http, *mail, clock_);
  ASSERT_TRUE(sent.ok()) << sent.status().ToString();
  EXPECT_EQ(sent->sent, 1);
  Json posts = dw::testing::State(*slack)["posts"];
  ASSERT_EQ(posts.size(), 1u);
  std::string text = posts[0].dump();
  EXPECT_THAT(text, HasSubstr("Attention requested"));
  EXPECT_THAT(text, HasSubstr("verification of " + id + " failed"));
  EXPECT_THAT(text, HasSubstr("For ana@example.com, data-owner@example.com; copied: bo@example.com"));

  // A second failed verification asks again: a message of its own.
  clock_.Advance(std::chrono::minutes(10));
  auto again = VerifyIncident(*store_, ws_, Desk(), id, {.actor = "ana@example.com"}, clock_);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  outbox = store_->OutboxFor(id);
  ASSERT_TRUE(outbox.ok());
  ASSERT_EQ(outbox->size(), 2u);
  EXPECT_EQ(outbox->back().event, "attention_requested:" + std::to_string(again->event_seq));
}

TEST_P(VerificationTest, TheAttentionRequestAndItsNotificationAreWrittenTogetherOrNotAtAll) {
  ws_.notify = Json{{"slack", {{"webhook", "http://127.0.0.1:9/services/T0/B0/loyalty"}}}};
  std::string id = OpenFromFailingCheck();
  ASSERT_FALSE(id.empty());
  // The outbox cannot be written (its table gone behind the store's back): nothing is recorded.
  auto raw = scratch_->Connect();
  ASSERT_TRUE(raw.ok()) << raw.status().ToString();
  ASSERT_TRUE((*raw)->ExecScript("ALTER TABLE notify_outbox RENAME TO notify_outbox_away").ok());
  auto v = VerifyIncident(*store_, ws_, Desk(), id, {.actor = "ana@example.com"}, clock_);
  EXPECT_FALSE(v.ok());
  EXPECT_EQ(Events("incident:" + id, "verification_failed"), 0);
  EXPECT_EQ(Events("incident:" + id, "attention_requested"), 0);
  ASSERT_TRUE((*raw)->ExecScript("ALTER TABLE notify_outbox_away RENAME TO notify_outbox").ok());
  v = VerifyIncident(*store_, ws_, Desk(), id, {.actor = "ana@example.com"}, clock_);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(Events("incident:" + id, "verification_failed"), 1);
  EXPECT_EQ(Events("incident:" + id, "attention_requested"), 1);
  auto outbox = store_->OutboxFor(id);
  ASSERT_TRUE(outbox.ok());
  int asked = 0;
  for (const auto& m : *outbox) asked += m.event.rfind("attention_requested:", 0) == 0;
  EXPECT_EQ(asked, 1);
}

TEST_P(VerificationTest, AfterTheFixItResolvesByVerificationWithOneReceiptThatVerifies) {
  std::string id = OpenFromFailingCheck();
  ASSERT_FALSE(id.empty());
  clock_.Advance(std::chrono::minutes(40));
  World("UPDATE balances SET balance = 12 WHERE member_id = 2;");  // the owner's fix
  auto v = VerifyIncident(*store_, ws_, Desk(), id, {.actor = "ana@example.com"}, clock_);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_TRUE(v->passed) << v->summary;
  EXPECT_TRUE(v->resolved);
  ASSERT_TRUE(v->receipt.has_value());
  incidents::Incident inc = Get(id);
  EXPECT_EQ(inc.status, incidents::IncidentStatus::kResolved);
  EXPECT_EQ(inc.transitions.back().actor, "dw");
  EXPECT_THAT(inc.transitions.back().reason, HasSubstr("verified"));

  // The receipt: what was checked with its observed value and threshold, bound into the chain.
  Json body = Json::parse(v->receipt->body);
  const Json& content = body["content"];
  EXPECT_EQ(content["kind"], "incident_resolved");
  EXPECT_EQ(content["incident"]["id"], id);
  EXPECT_EQ(content["incident"]["how"], "verification");
  EXPECT_EQ(content["checks"]["passed"], true);
  ASSERT_EQ(content["checks"]["items"].size(), 1u);
  EXPECT_TRUE(content["checks"]["items"][0]["observed"].contains(check_));
  EXPECT_TRUE(content["checks"]["items"][0]["threshold"].contains(check_));
  auto chain = VerifyReceiptChain(*store_, v->receipt->hash);
  ASSERT_TRUE(chain.ok());
  EXPECT_TRUE(chain->ok) << chain->problem;

  // Exactly one receipt per incident, however often the sweep runs.
  auto again = WriteResolutionReceipts(*store_, ws_, Desk(), clock_);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->empty());
  EXPECT_EQ(CurrentReceiptHead(*store_)->seq, 1);
  auto of = ReceiptOfIncident(*store_, id);
  ASSERT_TRUE(of.ok());
  ASSERT_TRUE(of->has_value());
  EXPECT_EQ((*of)->hash, v->receipt->hash);

  // Verifying it again is refused, and the refusal recorded.
  auto twice = VerifyIncident(*store_, ws_, Desk(), id, {.actor = "ana@example.com"}, clock_);
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(twice.status().message(), HasSubstr("already resolved"));
  EXPECT_EQ(Events("incident:" + id, "refused"), 1);
}

// A passed verification is recorded with the resolution it causes, in one transaction: when the
// resolution cannot be written, no `verified` event is left behind on the still-open incident (the
// "verify" job would take such an event for a verified mitigation and never verify it again).
// Found by the `dw incidents verify` crash writer (tests/crash/crash_decision_writers_test.cc).
TEST_P(VerificationTest, APassedVerificationIsRecordedOnlyTogetherWithTheResolution) {
  std::string id = OpenFromFailingCheck();
  ASSERT_FALSE(id.empty());
  clock_.Advance(std::chrono::minutes(40));
  World("UPDATE balances SET balance = 12 WHERE member_id = 2;");  // the owner's fix
  // The resolution cannot be written (a trigger behind the store's back refuses it).
  auto raw = scratch_->Connect();
  ASSERT_TRUE(raw.ok()) << raw.status().ToString();
  const bool pg = GetParam() == "postgresql";
  ASSERT_TRUE((*raw)->ExecScript(pg ? "CREATE FUNCTION dw_refuse_resolution() RETURNS trigger AS $$ BEGIN "
                                      "RAISE EXCEPTION 'injected: no resolution'; END $$ LANGUAGE plpgsql; "
                                      "CREATE TRIGGER refuse_resolution BEFORE UPDATE ON incidents FOR EACH ROW "
                                      "WHEN (NEW.status = 'resolved') EXECUTE FUNCTION dw_refuse_resolution();"
                                    : "CREATE TRIGGER refuse_resolution BEFORE UPDATE ON incidents "
                                      "WHEN NEW.status = 'resolved' BEGIN SELECT RAISE(ABORT, 'injected: no resolution'); END;")
                  .ok());
  auto v = VerifyIncident(*store_, ws_, Desk(), id, {.actor = "ana@example.com"}, clock_);
  ASSERT_FALSE(v.ok());
  EXPECT_THAT(v.status().message(), HasSubstr("injected"));
  EXPECT_EQ(Get(id).status, incidents::IncidentStatus::kOpen);
  EXPECT_EQ(Events("incident:" + id, "verified"), 0) << "a verified event without its resolution";
  ASSERT_TRUE((*raw)->ExecScript("DROP TRIGGER refuse_resolution" + std::string(pg ? " ON incidents" : "")).ok());
  // Run again, it finishes the job: one verified event, the resolution, one receipt.
  v = VerifyIncident(*store_, ws_, Desk(), id, {.actor = "ana@example.com"}, clock_);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_TRUE(v->resolved);
  ASSERT_TRUE(v->receipt.has_value());
  EXPECT_EQ(Get(id).status, incidents::IncidentStatus::kResolved);
  EXPECT_EQ(Events("incident:" + id, "verified"), 1);
  EXPECT_EQ(CurrentReceiptHead(*store_)->seq, 1);
}

TEST_P(VerificationTest, AnUnknownIncidentIsRefusedAndRecorded) {
  auto v = VerifyIncident(*store_, ws_, Desk(), "inc-nope", {.actor = "ana@example.com"}, clock_);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(Events("incident:inc-nope", "refused"), 1);
}

// An id abbreviated to a prefix one incident alone has (as `dw incidents verify`, the replay's
// person and an agent may give it) is verified as that incident, and everything recorded names
// the full id: the failure, the request for attention, the resolution and the later refusal.
TEST_P(VerificationTest, AnAbbreviatedIdIsRecordedUnderTheIncidentsFullId) {
  std::string id = OpenFromFailingCheck();
  ASSERT_GE(id.size(), 10u);
  for (size_t len : {id.size() - 1, size_t{8}}) {
    const std::string prefix = id.substr(0, len);
    auto v = VerifyIncident(*store_, ws_, Desk(), prefix, {.actor = "ana@example.com"}, clock_);
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    EXPECT_EQ(v->incident_id, id);
    EXPECT_EQ(Events("incident:" + prefix, "verification_failed"), 0);
  }
  EXPECT_EQ(Events("incident:" + id, "verification_failed"), 2);
  clock_.Advance(std::chrono::minutes(40));
  World("UPDATE balances SET balance = 12 WHERE member_id = 2;");  // the owner's fix
  auto v = VerifyIncident(*store_, ws_, Desk(), id.substr(0, 9), {.actor = "ana@example.com"}, clock_);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_TRUE(v->resolved);
  EXPECT_EQ(Get(id).status, incidents::IncidentStatus::kResolved);
  for (size_t len : {size_t{7}, id.size() - 2}) {
    const std::string prefix = id.substr(0, len);
    auto twice = VerifyIncident(*store_, ws_, Desk(), prefix, {.actor = "ana@example.com"}, clock_);
    ASSERT_FALSE(twice.ok());
    EXPECT_THAT(twice.status().message(), HasSubstr("incident " + id + " is already resolved"));
    EXPECT_EQ(Events("incident:" + prefix, "refused"), 0) << "a refusal recorded under the prefix " << prefix;
  }
  EXPECT_EQ(Events("incident:" + id, "refused"), 2);
}

TEST_P(VerificationTest, APersonsResolutionGetsAReceiptToo) {
  std::string id = OpenFromFailingCheck();
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(Desk().Resolve(id, "ana@example.com", "fixed by hand, spot-checked").ok());
  auto written = WriteResolutionReceipts(*store_, ws_, Desk(), clock_);
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  ASSERT_EQ(written->size(), 1u);
  auto of = ReceiptOfIncident(*store_, id);
  ASSERT_TRUE(of.ok() && of->has_value());
  Json content = Json::parse((*of)->body)["content"];
  EXPECT_EQ(content["incident"]["how"], "person");
  EXPECT_EQ(content["incident"]["resolved_by"], "ana@example.com");
  EXPECT_TRUE(VerifyReceiptChain(*store_)->ok);
}

TEST_P(VerificationTest, AutonomousVerificationRunsOnlyAtL3AndNeverUnderTheStopSwitch) {
  std::string id = OpenFromFailingCheck();
  ASSERT_FALSE(id.empty());
  World("UPDATE balances SET balance = 12 WHERE member_id = 2;");
  auto results_before = store_->CheckResultsFor("table://main/balances", 1000);
  ASSERT_TRUE(results_before.ok());

  // L2: Data Workers does not re-run checks by itself.
  auto at_l2 = VerifyIncident(*store_, ws_, Desk(), id, {.actor = "dw (autonomy)", .autonomous = true}, clock_);
  ASSERT_TRUE(at_l2.ok()) << at_l2.status().ToString();
  EXPECT_FALSE(at_l2->ran);
  EXPECT_THAT(at_l2->summary, HasSubstr("at autonomy L2"));

  // L3 under the stop switch: nothing runs either.
  WriteWorkspace("L3");
  ASSERT_TRUE(SetStopSwitch(*store_, true, "ana@example.com", "incident review", clock_).ok());
  auto stopped = VerifyIncident(*store_, ws_, Desk(), id, {.actor = "dw (autonomy)", .autonomous = true}, clock_);
  ASSERT_TRUE(stopped.ok());
  EXPECT_FALSE(stopped->ran);
  EXPECT_THAT(stopped->summary, HasSubstr("stop switch"));
  auto results_after = store_->CheckResultsFor("table://main/balances", 1000);
  ASSERT_TRUE(results_after.ok());
  EXPECT_EQ(results_after->size(), results_before->size()) << "a check ran while dispatch was not allowed";
  EXPECT_EQ(Get(id).status, incidents::IncidentStatus::kOpen);

  // Lifted: it re-runs the check itself, resolves and writes the receipt, the step on record.
  ASSERT_TRUE(SetStopSwitch(*store_, false, "ana@example.com", "", clock_).ok());
  auto ran = VerifyIncident(*store_, ws_, Desk(), id, {.actor = "dw (autonomy)", .autonomous = true}, clock_);
  ASSERT_TRUE(ran.ok());
  EXPECT_TRUE(ran->ran);
  EXPECT_TRUE(ran->passed) << ran->summary;
  ASSERT_TRUE(ran->receipt.has_value());
  Json content = Json::parse(ran->receipt->body)["content"];
  ASSERT_GE(content["runs"]["steps"].size(), 1u);
  EXPECT_EQ(content["runs"]["steps"][0]["detail"]["step"], "rerun_check");
}

TEST_P(VerificationTest, AtL4TheApprovedRunPlanIsQueuedToItsOwnersInOrderAndTheReceiptPosted) {
  WriteWorkspace("L4");
  std::string id = OpenFromFailingCheck();
  ASSERT_FALSE(id.empty());
  Json plan = {{"steps", Json::array({{{"order", 2}, {"asset", "dbt://loyalty/fct_member_tier"}, {"owner", "ana@example.com"},
                                       {"action", "run nightly_tiers"}},
                                      {{"order", 1}, {"asset", "kestra://kestra/pricing.tariff_sync"}, {"owner", "ana@example.com"},
                                       {"action", "run tariff_sync"}}})}};
  ASSERT_TRUE(StoreProposal(*store_, {id + "-run_plan", id, "loyalty", "run_plan", "agent:dw-incidents", plan}, clock_).ok());
  ASSERT_TRUE(SendForApproval(*store_, ws_, id + "-run_plan", clock_, "agent:dw-incidents").ok());
  auto key = IssuePersonKey(*store_, "ana@example.com", clock_, "test");
  ASSERT_TRUE(key.ok());
  ws_.people["ana@example.com"].keys.push_back(KeyFingerprint(key->public_key_pem));
  DecisionStatement st = NewStatement("ana@example.com", id + "-run_plan", 1, Verdict::kApprove, "", clock_);
  auto sig = SignStatement(st, key->private_key_pem);
  ASSERT_TRUE(sig.ok());
  auto decided = Decide(*store_, TrustOf(ws_, ""), {st, "cli", *sig}, clock_);
  ASSERT_TRUE(decided.ok() && decided->accepted) << (decided.ok() ? decided->reason : decided.status().ToString());

  World("UPDATE balances SET balance = 12 WHERE member_id = 2;");
  auto v = VerifyIncident(*store_, ws_, Desk(), id, {.actor = "dw (autonomy)", .autonomous = true}, clock_);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  ASSERT_TRUE(v->passed) << v->summary;
  auto events = store_->ActionEvents("incident:" + id);
  ASSERT_TRUE(events.ok());
  std::vector<std::string> queued;
  for (const auto& e : *events)
    if (e.kind == "run_queued") queued.push_back(e.body.value("asset", ""));
  EXPECT_EQ(queued, (std::vector<std::string>{"kestra://kestra/pricing.tariff_sync", "dbt://loyalty/fct_member_tier"}));
  ASSERT_TRUE(v->receipt.has_value());
  Json content = Json::parse(v->receipt->body)["content"];
  int queued_in_receipt = 0;
  for (const auto& r : content["runs"]["steps"]) queued_in_receipt += r["kind"] == "run_queued";
  EXPECT_EQ(queued_in_receipt, 2);
  ASSERT_EQ(content["proposals"].size(), 1u);
  EXPECT_EQ(content["proposals"][0]["decision"]["by"], "ana@example.com");
  EXPECT_EQ(content["proposals"][0]["decision"]["surface"], "cli");
  auto domain = store_->ActionEvents("domain:loyalty");
  ASSERT_TRUE(domain.ok());
  bool posted = std::any_of(domain->begin(), domain->end(), [](const store::ActionEventRecord& e) {
    return e.kind == "dispatched" && e.body.value("step", "") == "post_receipt";
  });
  EXPECT_TRUE(posted);
}

INSTANTIATE_TEST_SUITE_P(Backends, VerificationTest, ::testing::Values("sqlite", "postgresql"),
                         incidents::test_support::BackendName);

}  // namespace
}  // namespace dw::actions
