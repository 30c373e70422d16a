// `dw keys issue`, `dw approve`, `dw deny`, `dw stop` and `dw receipts ...` through the real binary.
#include <gtest/gtest.h>

#include <chrono>
#include <map>

#include "actions/actions.h"
#include "store/sql_connection.h"
#include "store/sqlite_connection.h"
#include "store/clock_kind.h"
#include "store/state_store.h"
#include "tests/support/build_paths.h"
#include "tests/support/subprocess.h"

namespace dw {
namespace {

using testing::RunCommand;
using testing::TempDir;

constexpr const char* kWorkspace =
    "version: 1\nname: w\ndomains:\n  loyalty: {autonomy: L2, owners: [ana@example.com], "
    "approvers: [ana@example.com], escalate_to: [lead@example.com], approval_ttl: 2h}\n";

class ActionsCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    tmp_.Write("dataworkers.yaml", kWorkspace);
    dw_ = std::string(DW_BINARY) + " --workspace '" + tmp_.path().string() +
          "' --now 2027-01-15T08:00:00Z";
  }
  std::string StorePath() const { return (tmp_.path() / ".dw" / "state.db").string(); }
  std::string KeyPath(const std::string& who) const { return (tmp_.path() / (who + ".pem")).string(); }
  // Declares in the workspace file the key `dw keys issue` printed (its output `issued`), as the
  // person's team does after reviewing the change; returns the fingerprint ("" when none printed).
  std::string Declare(const std::string& email, const std::string& issued) {
    const size_t at = issued.find("public key sha256:");
    if (at == std::string::npos) return "";
    declared_[email] = issued.substr(at + 11, 71);
    std::string yaml = std::string(kWorkspace) + "people:\n";
    for (const auto& [who, fingerprint] : declared_) yaml += "  " + who + ": {keys: [\"" + fingerprint + "\"]}\n";
    tmp_.Write("dataworkers.yaml", yaml);
    return declared_[email];
  }
  std::map<std::string, std::string> declared_;
  // P-1, a hold an agent drafted, pending ana's approval in the store (closed again after).
  void StorePendingProposal() {
    auto store = store::OpenStateStore(StorePath(), clock_);
    ASSERT_TRUE(store.ok());
    config::Workspace ws;
    ws.domains["loyalty"] = {"loyalty", "L2", {"ana@example.com"}, {"ana@example.com"}, {}, "2h"};
    actions::ProposalDraft d{"P-1", "INC-1", "loyalty", "hold", "agent:dw-incidents", {}};
    ASSERT_TRUE(actions::StoreProposal(**store, d, clock_).ok());
    ASSERT_TRUE(actions::SendForApproval(**store, ws, "P-1", clock_, "agent:dw-incidents").ok());
  }

  TempDir tmp_;
  std::string dw_;
  SimulatedClock clock_{FromUnixMillis(1'800'000'000'000)};  // the --now above
};

TEST_F(ActionsCliTest, AnApproverSignsAnApprovalAndAnImpostorIsRefused) {
  auto issue = RunCommand(dw_ + " keys issue ana@example.com --out '" + KeyPath("ana") + "'");
  ASSERT_EQ(issue.exit_code, 0) << issue.err;
  // Until the workspace declares the key, the command says how to, and the key decides nothing.
  EXPECT_NE(issue.out.find("declare it in dataworkers.yaml"), std::string::npos) << issue.out;
  ASSERT_NO_FATAL_FAILURE(StorePendingProposal());
  auto undeclared = RunCommand(dw_ + " approve P-1 --as ana@example.com --key '" + KeyPath("ana") + "'");
  EXPECT_EQ(undeclared.exit_code, 1);
  EXPECT_NE(undeclared.err.find("is not declared under people.ana@example.com.keys"), std::string::npos) << undeclared.err;
  ASSERT_EQ(Declare("ana@example.com", issue.out).size(), 71u) << issue.out;
  auto eve = RunCommand(dw_ + " keys issue eve@example.com --out '" + KeyPath("eve") + "'");
  ASSERT_EQ(eve.exit_code, 0) << eve.err;
  Declare("eve@example.com", eve.out);
  // Eve's key does not make her ana, and eve herself is no approver.
  auto forged = RunCommand(dw_ + " approve P-1 --as ana@example.com --key '" + KeyPath("eve") + "'");
  EXPECT_EQ(forged.exit_code, 1);
  EXPECT_NE(forged.err.find("does not verify"), std::string::npos) << forged.err;
  auto outsider = RunCommand(dw_ + " approve P-1 --as eve@example.com --key '" + KeyPath("eve") + "'");
  EXPECT_EQ(outsider.exit_code, 1);
  EXPECT_NE(outsider.err.find("not an approver"), std::string::npos) << outsider.err;
  auto ok = RunCommand(dw_ + " approve P-1 --as ana@example.com --key '" + KeyPath("ana") +
                       "' --reason 'savepoint checked'");
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("approved P-1 v1 by ana@example.com"), std::string::npos) << ok.out;
  auto twice = RunCommand(dw_ + " deny P-1 --as ana@example.com --key '" + KeyPath("ana") +
                          "' --reason changed");
  EXPECT_EQ(twice.exit_code, 1);
  EXPECT_NE(twice.err.find("already approved"), std::string::npos) << twice.err;
  auto no_reason = RunCommand(dw_ + " deny P-1 --as ana@example.com --key '" + KeyPath("ana") + "'");
  EXPECT_EQ(no_reason.exit_code, 2);
  // The key file is the person's only, and only the public key is stored.
  EXPECT_EQ(std::filesystem::status(KeyPath("ana")).permissions() & std::filesystem::perms::all,
            std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  auto store = store::OpenStateStore(StorePath(), clock_);
  ASSERT_TRUE(store.ok());
  auto refusals = (*store)->ActionEvents("proposal:P-1");
  ASSERT_TRUE(refusals.ok());
  int refused = 0;
  for (const auto& e : *refusals) refused += e.kind == "refused";
  EXPECT_EQ(refused, 4);  // undeclared, forged, outsider, twice: every refusal recorded
}

// The chain verifies by itself, but a decision row written into the store by hand does not:
// `dw receipts verify` fails and names it.
TEST_F(ActionsCliTest, ReceiptsVerifyFailsOnADecisionRowWrittenByHand) {
  ASSERT_NO_FATAL_FAILURE(StorePendingProposal());
  auto clean = RunCommand(dw_ + " receipts verify");
  ASSERT_EQ(clean.exit_code, 0) << clean.out << clean.err;
  {
    auto store = store::OpenStateStore(StorePath(), clock_);
    ASSERT_TRUE(store.ok());
    store::ActionEventRecord e;
    e.at = clock_.Now();
    e.kind = "approved";
    e.subject = "proposal:P-1";
    e.actor = "ana@example.com";
    e.nonce = std::string(32, 'b');
    e.body = {{"version", 1}, {"person", "ana@example.com"}, {"decision", "approve"}, {"surface", "cli"}};
    ASSERT_TRUE((*store)->AppendActionEvent(e).ok());
  }
  auto forged = RunCommand(dw_ + " receipts verify");
  EXPECT_EQ(forged.exit_code, 1) << forged.out << forged.err;
  EXPECT_NE(forged.out.find("decision without a valid signature"), std::string::npos) << forged.out;
  EXPECT_NE(forged.out.find("P-1 v1 by ana@example.com"), std::string::npos) << forged.out;
}

// `dw approval-link` says what its setup lacks (exit 2: no key, a guessable key) and how to fix
// it, and points the link at the workspace's desk.url, warning when it has to assume an address.
TEST_F(ActionsCliTest, ApprovalLinkSaysWhatItsSetupLacksAndUsesTheDesksUrl) {
  ASSERT_NO_FATAL_FAILURE(StorePendingProposal());
  const std::string link = " approval-link P-1 --as ana@example.com";
  auto no_key = RunCommand("env -u DW_APPROVAL_LINK_KEY " + dw_ + link);
  EXPECT_EQ(no_key.exit_code, 2) << no_key.err;
  EXPECT_NE(no_key.err.find("openssl rand -hex 32"), std::string::npos) << no_key.err;
  auto weak = RunCommand("DW_APPROVAL_LINK_KEY=" + std::string(32, 'q') + " " + dw_ + link);
  EXPECT_EQ(weak.exit_code, 2) << weak.err;
  EXPECT_NE(weak.err.find("too easy to guess"), std::string::npos) << weak.err;
  EXPECT_EQ(weak.err.find("qqqqqqqq"), std::string::npos) << "the key in the output";
  const std::string key = "DW_APPROVAL_LINK_KEY=9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 ";
  auto assumed = RunCommand(key + dw_ + link);
  ASSERT_EQ(assumed.exit_code, 0) << assumed.err;
  EXPECT_EQ(assumed.out.rfind("http://127.0.0.1:8808/approve/v1.", 0), 0u) << assumed.out;
  EXPECT_NE(assumed.err.find("sets no desk.url"), std::string::npos) << assumed.err;
  tmp_.Write("dataworkers.yaml", std::string(kWorkspace) + "desk: {url: \"https://desk.example.com/\"}\n");
  auto configured = RunCommand(key + dw_ + link);
  ASSERT_EQ(configured.exit_code, 0) << configured.err;
  EXPECT_EQ(configured.out.rfind("https://desk.example.com/approve/v1.", 0), 0u) << configured.out;
  EXPECT_EQ(configured.err.find("desk.url"), std::string::npos) << configured.err;
}

TEST_F(ActionsCliTest, StopAndLiftAreRecorded) {
  ASSERT_EQ(RunCommand(dw_ + " stop --as ana@example.com --reason drill").exit_code, 0);
  auto again = RunCommand(dw_ + " stop");
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("already holds"), std::string::npos) << again.err;
  ASSERT_EQ(RunCommand(dw_ + " stop --lift --as ana@example.com").exit_code, 0);
  auto store = store::OpenStateStore(StorePath(), clock_);
  ASSERT_TRUE(store.ok());
  auto events = (*store)->ActionEvents("stop-switch");
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 3u);
  EXPECT_EQ((*events)[0].kind, "stop");
  EXPECT_EQ((*events)[0].actor, "ana@example.com");
  EXPECT_EQ((*events)[1].kind, "refused");
  EXPECT_EQ((*events)[2].kind, "lift");
  EXPECT_FALSE(*actions::StopSwitchHolds(**store));
}

TEST_F(ActionsCliTest, ReceiptsVerifyHeadShowExportAndCatchTampering) {
  std::string head_hash;
  {
    auto store = store::OpenStateStore(StorePath(), clock_);
    ASSERT_TRUE(store.ok());
    for (int i = 1; i <= 3; ++i)
      ASSERT_TRUE(actions::WriteReceipt(**store, {{"incident", "INC-" + std::to_string(i)}}, clock_).ok());
    head_hash = actions::CurrentReceiptHead(**store)->hash;
  }
  auto head = RunCommand(dw_ + " receipts head");
  ASSERT_EQ(head.exit_code, 0) << head.err;
  EXPECT_EQ(head.out, "3 " + head_hash + "\n");
  auto verify = RunCommand(dw_ + " receipts verify --head " + head_hash);
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  EXPECT_NE(verify.out.find("3 receipt(s) verify"), std::string::npos) << verify.out;
  auto show = RunCommand(dw_ + " receipts show 2 --format json");
  ASSERT_EQ(show.exit_code, 0);
  EXPECT_EQ(Json::parse(show.out)["body"]["content"]["incident"], "INC-2");
  auto page = RunCommand(dw_ + " receipts show 2");
  ASSERT_EQ(page.exit_code, 0);
  EXPECT_EQ(page.out.rfind("Receipt 2", 0), 0u) << page.out;
  EXPECT_NE(page.out.find("incident: INC-2"), std::string::npos) << page.out;
  EXPECT_EQ(page.out.find('{'), std::string::npos) << "no JSON on the page: " << page.out;
  auto md = RunCommand(dw_ + " receipts export --format md");
  EXPECT_NE(md.out.find("## Receipt 3"), std::string::npos);
  auto json = RunCommand(dw_ + " receipts export --format json");
  EXPECT_EQ(Json::parse(json.out).size(), 3u);
  // Cut the newest receipt off: it verifies alone, not against the recorded head.
  {
    auto conn = store::OpenSqliteConnection(StorePath());
    ASSERT_TRUE(conn.ok()) << conn.status().ToString();
    ASSERT_TRUE((*conn)->Query("DELETE FROM receipts WHERE seq = 3", {}).ok());
  }
  EXPECT_EQ(RunCommand(dw_ + " receipts verify").exit_code, 0);
  auto cut = RunCommand(dw_ + " receipts verify --head " + head_hash);
  EXPECT_EQ(cut.exit_code, 1);
  EXPECT_NE(cut.out.find("receipt 3 does not verify"), std::string::npos) << cut.out;
  {
    auto conn = store::OpenSqliteConnection(StorePath());
    ASSERT_TRUE(conn.ok());
    ASSERT_TRUE((*conn)->Query("UPDATE receipts SET body = replace(body, 'INC-1', 'INC-7')", {}).ok());
  }
  auto edited = RunCommand(dw_ + " receipts verify");
  EXPECT_EQ(edited.exit_code, 1);
  EXPECT_NE(edited.out.find("receipt 1 does not verify"), std::string::npos) << edited.out;
}

// Issue 34: the time of a decision is the real time. A command that records a decision, a
// resolution or a receipt refuses --now on a real store, naming the option; reading commands keep
// it; and an expired request cannot be approved by moving the clock back, in any store.
namespace now_recording_cli_test {



constexpr const char* kNowWorkspace =
    "version: 1\nname: w\ndomains:\n  loyalty: {autonomy: L2, owners: [ana@example.com], "
    "approvers: [ana@example.com], approval_ttl: 2h}\n";

std::string StorePath(const TempDir& t) { return (t.path() / ".dw" / "state.db").string(); }

// P-1, drafted by an agent and sent for ana's approval at `clock`'s time (a 2 h request).
void SendProposal(const TempDir& t, const Clock& clock) {
  auto store = store::OpenStateStore(StorePath(t), clock);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  config::Workspace ws;
  ws.domains["loyalty"] = {"loyalty", "L2", {"ana@example.com"}, {"ana@example.com"}, {}, "2h"};
  actions::ProposalDraft d{"P-1", "INC-1", "loyalty", "hold", "agent:dw-incidents", {}};
  ASSERT_TRUE(actions::StoreProposal(**store, d, clock).ok());
  ASSERT_TRUE(actions::SendForApproval(**store, ws, "P-1", clock, "agent:dw-incidents").ok());
}

// Issues ana's key through dw and declares it in the workspace file; returns the key file.
std::string IssueAndDeclare(const TempDir& t, const std::string& dw) {
  const std::string key = (t.path() / "ana.pem").string();
  auto issue = RunCommand(dw + " keys issue ana@example.com --out '" + key + "'");
  EXPECT_EQ(issue.exit_code, 0) << issue.err;
  const size_t at = issue.out.find("public key sha256:");
  EXPECT_NE(at, std::string::npos) << issue.out;
  if (at == std::string::npos) return key;
  t.Write("dataworkers.yaml", std::string(kNowWorkspace) + "people:\n  ana@example.com: {keys: [\"" +
                                  issue.out.substr(at + 11, 71) + "\"]}\n");
  return key;
}

std::string ProposalStatus(const TempDir& t) {
  auto store = store::OpenStateStore(StorePath(t));
  if (!store.ok()) return store.status().ToString();
  auto st = actions::GetProposalState(**store, actions::DecisionTrust{}, "P-1", 0, RealClock());
  return st.ok() ? actions::ProposalStatusName(st->status) : st.status().ToString();
}

// A real store (made by a dw run without the simulated-clock variable): every recording command
// refuses --now before it does anything, naming the option; the reading ones keep it.
TEST(NowRecordingCliTest, ARealStoreRefusesNowOnEveryCommandThatRecords) {
  TempDir t;
  t.Write("dataworkers.yaml", kNowWorkspace);
  const std::string real = "env -u DW_SIMULATED_CLOCK_STORE " + std::string(DW_BINARY) + " --workspace '" +
                           t.path().string() + "'";
  const std::string at = real + " --now 2026-11-24T15:00:00Z ";
  auto made = RunCommand(real + " incidents list");
  ASSERT_EQ(made.exit_code, 0) << made.err;
  t.Write("x.avsc", "{\"type\": \"string\"}");
  const std::string key = (t.path() / "none.pem").string();
  for (const std::string& cmd : std::vector<std::string>{"approve P-1 --as ana@example.com --key " + key, "deny P-1 --as ana@example.com --key " + key + " --reason no",
        std::string("stop --as ana@example.com --reason test"), std::string("incidents scan"),
        std::string("incidents ack INC-1 --as ana@example.com"), std::string("incidents resolve INC-1 --as ana@example.com"),
        std::string("incidents verify INC-1 --as ana@example.com"),
        std::string("incidents close INC-1 --as ana@example.com --expected"), std::string("incidents propose INC-1"),
        "monitor mark orders --from 2026-11-24T10:00:00Z --to 2026-11-24T11:00:00Z --as ana@example.com",
        "schema register some-subject " + (t.path() / "x.avsc").string(), "watch --once", "mcp dw-incidents"}) {
    auto r = RunCommand(at + cmd);
    EXPECT_EQ(r.exit_code, 2) << cmd << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find("--now is refused"), std::string::npos) << cmd << "\n" << r.err;
    EXPECT_NE(r.err.find("dw " + cmd.substr(0, cmd.find(' '))), std::string::npos)
        << "names the command: " << cmd << "\n" << r.err;
  }
  // Nothing was recorded by the refused commands.
  auto store = store::OpenStateStore(StorePath(t));
  ASSERT_TRUE(store.ok());
  EXPECT_TRUE((*store)->ActionEvents("stop-switch")->empty());
  EXPECT_TRUE((*store)->MetricMarks("orders", FromUnixMillis(0), FromUnixMillis(4'000'000'000'000))->empty());
  EXPECT_FALSE(*store::IsSimulatedClockStore(**store));
  // Reading at an instant stays what --now is for.
  for (const char* cmd : {"incidents list", "receipts verify", "receipts head", "changes"}) {
    auto r = RunCommand(at + cmd);
    EXPECT_EQ(r.exit_code, 0) << cmd << "\n" << r.err;
  }
}

// Issue 34: "an expired request is approved with --now in the past". On a real store the clock
// cannot be moved; in a simulated one it cannot be moved back past what the log already holds.
TEST(NowRecordingCliTest, AnExpiredRequestIsNotApprovedByMovingTheClock) {
  {
    TempDir t;
    t.Write("dataworkers.yaml", kNowWorkspace);
    const std::string real = "env -u DW_SIMULATED_CLOCK_STORE " + std::string(DW_BINARY) + " --workspace '" +
                             t.path().string() + "'";
    const std::string key = IssueAndDeclare(t, real);  // creates the store: a real one
    const TimePoint sent = RealClock().Now() - std::chrono::hours(3);
    SimulatedClock then(sent);
    ASSERT_NO_FATAL_FAILURE(SendProposal(t, then));
    auto back = RunCommand(real + " --now " + FormatRfc3339(sent + std::chrono::minutes(30)) +
                           " approve P-1 --as ana@example.com --key '" + key + "'");
    EXPECT_EQ(back.exit_code, 2) << back.out << back.err;
    EXPECT_NE(back.err.find("--now is refused"), std::string::npos) << back.err;
    auto now = RunCommand(real + " approve P-1 --as ana@example.com --key '" + key + "'");
    EXPECT_EQ(now.exit_code, 1) << now.out << now.err;
    EXPECT_NE(now.err.find("expired"), std::string::npos) << now.err;
    EXPECT_EQ(ProposalStatus(t), "expired");
  }
  {
    TempDir t;
    t.Write("dataworkers.yaml", kNowWorkspace);
    const std::string dw = std::string(DW_BINARY) + " --workspace '" + t.path().string() + "'";
    const std::string key = IssueAndDeclare(t, dw);  // a simulated-clock store (this binary's default)
    SimulatedClock clock(FromUnixMillis(1'800'000'000'000));  // 2027-01-15T08:00:00Z
    ASSERT_NO_FATAL_FAILURE(SendProposal(t, clock));
    const std::string approve = " approve P-1 --as ana@example.com --key '" + key + "'";
    auto late = RunCommand(dw + " --now 2027-01-15T10:30:00Z" + approve);
    EXPECT_EQ(late.exit_code, 1) << late.out << late.err;
    EXPECT_NE(late.err.find("expired"), std::string::npos) << late.err;
    // The refusal is on record at 10:30: a clock set back to 09:00 decides nothing.
    auto back = RunCommand(dw + " --now 2027-01-15T09:00:00Z" + approve);
    EXPECT_EQ(back.exit_code, 1) << back.out << back.err;
    EXPECT_NE(back.err.find("never dated before the record"), std::string::npos) << back.err;
    EXPECT_NE(ProposalStatus(t), "approved");
  }
}

// In a simulated-clock store --now is honoured, and what it dates says so: the receipt's content
// and `dw receipts verify`.
TEST(NowRecordingCliTest, WhatASimulatedClockDatesSaysSo) {
  TempDir t;
  t.Write("dataworkers.yaml", kNowWorkspace);
  const std::string dw = std::string(DW_BINARY) + " --workspace '" + t.path().string() + "' --now 2027-01-15T08:00:00Z";
  auto stop = RunCommand(dw + " stop --as ana@example.com --reason drill");
  ASSERT_EQ(stop.exit_code, 0) << stop.err;
  auto store = store::OpenStateStore(StorePath(t));
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE(*store::IsSimulatedClockStore(**store));
  SimulatedClock clock(FromUnixMillis(1'800'000'000'000));
  auto r = actions::WriteReceipt(**store, {{"kind", "drill"}}, clock);
  ASSERT_TRUE(r.ok());
  EXPECT_NE(r->body.find("\"clock\":\"simulated\""), std::string::npos) << r->body;
  EXPECT_NE(actions::ReceiptText(*r).find("simulated clock"), std::string::npos);
  auto real = actions::WriteReceipt(**store, {{"kind", "drill"}}, RealClock());
  ASSERT_TRUE(real.ok());
  EXPECT_EQ(real->body.find("simulated"), std::string::npos) << real->body;
  auto verify = RunCommand(dw + " receipts verify");
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  EXPECT_NE(verify.out.find("simulated-clock store"), std::string::npos) << verify.out;
  EXPECT_NE(verify.out.find("1 receipt(s) say they were dated by a simulated clock"), std::string::npos) << verify.out;
}

}  // namespace now_recording_cli_test

}  // namespace
}  // namespace dw
