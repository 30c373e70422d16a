// Shared set-up of the action-stage tests: a SQLite store on a scratch file, a simulated clock, a
// workspace with one domain, and people with issued keys who sign statements.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "actions/actions.h"
#include "tests/store/store_test_support.h"

namespace dw::actions::test_support {

inline const TimePoint kStart = FromUnixMillis(1'800'000'000'000);  // 2027-01-15T08:00:00Z

inline config::Workspace OneDomainWorkspace(const std::string& autonomy = "L2") {
  config::Workspace ws;
  ws.name = "loyalty";
  config::DomainConfig d;
  d.name = "loyalty";
  d.autonomy = autonomy;
  d.owners = {"ana@example.com"};
  d.approvers = {"ana@example.com", "bo@example.com"};
  d.escalate_to = {"lead@example.com"};
  d.approval_ttl = "2h";
  ws.domains["loyalty"] = d;
  return ws;
}

// One L2 domain "loyalty" (owner and only approver ana, approvals valid 2 h) whose notices go to a
// Teams webhook at `webhook`, which the tests never deliver to: every notice stays in the outbox,
// where it is counted. The workspace of the receipt-sweep and crash-writer tests.
inline config::Workspace TeamsNotifiedWorkspace(const std::string& name, const std::string& webhook) {
  config::Workspace ws;
  ws.name = name;
  config::DomainConfig d;
  d.name = "loyalty";
  d.autonomy = "L2";
  d.owners = {"ana@example.com"};
  d.approvers = {"ana@example.com"};
  d.approval_ttl = "2h";
  ws.domains["loyalty"] = d;
  ws.notify = Json{{"teams", {{"webhook", webhook}}}};
  return ws;
}

class ActionsFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    auto scratch = store::test_support::ScratchLocation::Create("sqlite");
    ASSERT_TRUE(scratch.ok()) << scratch.status().ToString();
    scratch_ = std::move(scratch).value();
    auto opened = store::OpenStateStore(scratch_->location(), clock_);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(opened).value();
  }

  // Issues (once) and returns the private key of `email`, declared in the workspace under
  // people.<email>.keys as a team declares it in its file.
  const std::string& KeyOf(const std::string& email) {
    auto it = keys_.find(email);
    if (it != keys_.end()) return it->second;
    Result<IssuedKey> k = IssuePersonKey(*store_, email, clock_, "test");
    EXPECT_TRUE(k.ok()) << k.status().ToString();
    if (k.ok()) ws_.people[email].keys.push_back(KeyFingerprint(k->public_key_pem));
    return keys_[email] = k.ok() ? k->private_key_pem : "";
  }

  // What the fixture's decisions are checked against: its workspace's declared keys, no desk key.
  DecisionTrust Trust() const { return TrustOf(ws_, ""); }

  // Stores a proposal drafted by `author` and sends it; returns its id.
  std::string Propose(const std::string& id, const std::string& author = "agent:dw-incidents") {
    ProposalDraft d{id, "INC-1", "loyalty", "hold", author, {{"step", "pause the sync"}}};
    EXPECT_TRUE(StoreProposal(*store_, d, clock_).ok());
    Result<ApprovalRequestView> sent = SendForApproval(*store_, ws_, id, clock_, author);
    EXPECT_TRUE(sent.ok()) << sent.status().ToString();
    return id;
  }

  // `person` signs a decision with their own key and submits it through `surface`.
  DecisionOutcome DecideAs(const std::string& person, const std::string& id, int64_t version,
                           Verdict verdict, const std::string& reason = "",
                           const std::string& surface = "cli") {
    DecisionStatement s = NewStatement(person, id, version, verdict, reason, clock_);
    Result<std::string> sig = SignStatement(s, KeyOf(person));
    EXPECT_TRUE(sig.ok()) << sig.status().ToString();
    Result<DecisionOutcome> out = Decide(*store_, Trust(), {s, surface, sig.ok() ? *sig : ""}, clock_);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out.ok() ? *out : DecisionOutcome{};
  }

  ProposalStatus StatusOf(const std::string& id, int64_t version = 0) {
    Result<ProposalState> st = GetProposalState(*store_, Trust(), id, version, clock_);
    EXPECT_TRUE(st.ok()) << st.status().ToString();
    return st.ok() ? st->status : ProposalStatus::kDrafted;
  }

  int CountEvents(const std::string& kind) {
    auto events = store_->ActionEvents("");
    EXPECT_TRUE(events.ok());
    int n = 0;
    if (events.ok())
      for (const auto& e : *events) n += e.kind == kind;
    return n;
  }

  SimulatedClock clock_{kStart};
  config::Workspace ws_ = OneDomainWorkspace();
  std::unique_ptr<store::test_support::ScratchLocation> scratch_;
  std::unique_ptr<store::StateStore> store_;
  std::map<std::string, std::string> keys_;
};

}  // namespace dw::actions::test_support
