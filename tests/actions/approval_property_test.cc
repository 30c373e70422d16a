// Property: over 2,000 random interleavings (four seeded shards) of propose, approve, deny,
// expire, escalate and stop, no proposal is ever approved by its author, by an agent, by a
// non-approver, after expiry, or twice. The invariant is checked from the stored event log and
// proposal records by rules written here, not by asking the code under test.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "tests/actions/actions_test_support.h"

namespace dw::actions {
namespace {

using test_support::ActionsFixture;

// The 2,000 interleavings run as four shards of 500, each from its own seed: one test of 2,000
// took over CTest's 120 s under ASan on a loaded CI host, and shards also run side by side.
class ApprovalPropertyTest : public ActionsFixture, public ::testing::WithParamInterface<int> {};

const std::vector<std::string> kPeople = {"ana@example.com", "bo@example.com", "lead@example.com",
                                          "eve@example.com"};
const std::vector<std::string> kAuthors = {"agent:dw-incidents", "ana@example.com",
                                           "bo@example.com"};

// Checks every decision recorded about `id` against the rules; returns the violations.
std::vector<std::string> Violations(store::StateStore& store, const std::string& id) {
  std::vector<std::string> out;
  auto versions = store.ProposalVersions(id);
  auto events = store.ActionEvents("proposal:" + id);
  if (!versions.ok() || !events.ok()) return {"cannot read " + id};
  std::map<int64_t, std::string> author;
  for (const auto& v : *versions) author[v.version] = v.body.value("author", "");
  int64_t newest_drafted = 0;
  std::map<int64_t, const store::ActionEventRecord*> open_request;  // version -> sent/escalated
  std::map<int64_t, bool> request_expired;
  std::map<int64_t, int> decisions;
  for (const auto& e : *events) {
    int64_t v = e.body.value("version", int64_t{0});
    if (e.kind == "drafted") newest_drafted = std::max(newest_drafted, v);
    if (e.kind == "sent" || e.kind == "escalated") {
      open_request[v] = &e;
      request_expired[v] = false;
    }
    if (e.kind == "expired") request_expired[v] = true;
    if (e.kind != "approved" && e.kind != "denied") continue;
    std::string at = " (" + id + " v" + std::to_string(v) + " by " + e.actor + ")";
    if (++decisions[v] > 1) out.push_back("decided twice" + at);
    if (e.actor == author[v]) out.push_back("decided by its author" + at);
    if (e.actor.rfind("agent:", 0) == 0) out.push_back("decided by an agent" + at);
    if (e.body.value("surface", "") == "mcp") out.push_back("decided over MCP" + at);
    if (v != newest_drafted) out.push_back("decided a superseded version" + at);
    const store::ActionEventRecord* req = open_request.count(v) ? open_request[v] : nullptr;
    if (req == nullptr) {
      out.push_back("decided without a request" + at);
      continue;
    }
    auto approvers = req->body.value("approvers", std::vector<std::string>{});
    if (std::find(approvers.begin(), approvers.end(), e.actor) == approvers.end())
      out.push_back("decided by a non-approver" + at);
    if (request_expired[v] || ToUnixMillis(e.at) >= req->body.value("expires_at_ms", int64_t{0}))
      out.push_back("decided after expiry" + at);
  }
  return out;
}

TEST_P(ApprovalPropertyTest, NoInterleavingEverGrantsWhatTheRulesForbid) {
  std::mt19937 rng(20261201 + static_cast<unsigned>(GetParam()));
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  for (const auto& p : kPeople) KeyOf(p);
  int accepted = 0, refused = 0, expiries = 0;
  constexpr int kInterleavings = 500;
  for (int round = 0; round < kInterleavings; ++round) {
    if (round > 0 && round % 100 == 0) {
      // A fresh store now and then, so each expiry sweep reads a log of realistic size.
      ASSERT_NO_FATAL_FAILURE(SetUp());
      keys_.clear();
      for (const auto& p : kPeople) KeyOf(p);
    }
    const std::string id = "R" + std::to_string(GetParam()) + "-" + std::to_string(round);
    const std::string author = kAuthors[pick(3)];
    ProposalDraft d{id, "INC-1", "loyalty", "hold", author, {{"round", round}}};
    ASSERT_TRUE(StoreProposal(*store_, d, clock_).ok());
    ASSERT_TRUE(SendForApproval(*store_, ws_, id, clock_, author).ok());
    int64_t newest = 1;
    const int steps = 3 + pick(8);
    for (int s = 0; s < steps; ++s) {
      switch (pick(7)) {
        case 0:
        case 1:
        case 2: {  // someone decides, through some surface, some version
          const std::string person = kPeople[pick(4)];
          int64_t version = pick(4) == 0 ? std::max<int64_t>(1, newest - 1) : newest;
          Verdict verdict = pick(3) == 0 ? Verdict::kDeny : Verdict::kApprove;
          const char* surface = pick(6) == 0 ? "mcp" : (pick(2) ? "cli" : "scenario");
          DecisionOutcome out = DecideAs(person, id, version, verdict, "r", surface);
          (out.accepted ? accepted : refused)++;
          break;
        }
        case 3:  // time passes, sometimes past the TTL
          clock_.Advance(std::chrono::minutes(pick(100)));
          break;
        case 4: {  // the expiry sweep (expire and escalate)
          auto said = ExpireApprovalRequests(*store_, ws_, clock_);
          ASSERT_TRUE(said.ok());
          expiries += static_cast<int>(said->size());
          break;
        }
        case 5: {  // a new version is drafted and sent
          ASSERT_TRUE(StoreProposal(*store_, d, clock_).ok());
          ++newest;
          (void)SendForApproval(*store_, ws_, id, clock_, author);
          break;
        }
        case 6: {  // the stop switch is thrown or lifted
          (void)SetStopSwitch(*store_, pick(2) == 0, "ana@example.com", "drill", clock_);
          break;
        }
      }
    }
    std::vector<std::string> bad = Violations(*store_, id);
    ASSERT_TRUE(bad.empty()) << bad.front();
  }
  // The property is not vacuous: decisions were both accepted and refused, and requests expired.
  EXPECT_GT(accepted, kInterleavings / 10);
  EXPECT_GT(refused, kInterleavings);
  EXPECT_GT(expiries, kInterleavings / 20);
}

INSTANTIATE_TEST_SUITE_P(Shards, ApprovalPropertyTest, ::testing::Range(0, 4),
                         [](const auto& info) { return "shard" + std::to_string(info.param); });

}  // namespace
}  // namespace dw::actions
