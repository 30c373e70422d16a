// The action stage's tables on both store backends: proposal versions never change, nonces are
// single use, the log keeps its order.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "store/state_store.h"
#include "tests/store/store_test_support.h"

namespace dw::store {
namespace {


class ActionStoreTest : public test_support::StoreOnEachBackend {};

TEST_P(ActionStoreTest, ProposalVersionsAreImmutable) {
  ProposalRecord p{"P-1", 1, "INC-1", "hold", {{"a", 1}}, {}};
  ASSERT_TRUE(store_->AddProposal(p).ok());
  p.body = {{"a", 2}};
  EXPECT_EQ(store_->AddProposal(p).code(), StatusCode::kAlreadyExists);
  p.version = 2;
  ASSERT_TRUE(store_->AddProposal(p).ok());
  auto versions = store_->ProposalVersions("P-1");
  ASSERT_TRUE(versions.ok());
  ASSERT_EQ(versions->size(), 2u);
  EXPECT_EQ((*versions)[0].body["a"], 1);
  EXPECT_EQ((*versions)[1].body["a"], 2);
  EXPECT_EQ(store_->ProposalsOfIncident("INC-1")->size(), 2u);
  EXPECT_EQ(store_->AddProposal({"", 1, "", "hold", {}, {}}).code(), StatusCode::kInvalidArgument);
}

TEST_P(ActionStoreTest, ANonceIsUsedOnceAndTheLogKeepsItsOrder) {
  ActionEventRecord e{0, clock_.Now(), "approved", "proposal:P-1", "ana@example.com", "n-1", {}};
  Result<int64_t> first = store_->AppendActionEvent(e);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(store_->AppendActionEvent(e).status().code(), StatusCode::kAlreadyExists);
  e.nonce = "";
  e.kind = "refused";
  ASSERT_TRUE(store_->AppendActionEvent(e).ok());
  ASSERT_TRUE(store_->AppendActionEvent(e).ok());  // many events without a nonce
  auto events = store_->ActionEvents("proposal:P-1");
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 3u);
  EXPECT_EQ((*events)[0].nonce, "n-1");
  EXPECT_EQ((*events)[1].nonce, "");
  EXPECT_LT((*events)[0].seq, (*events)[1].seq);
  EXPECT_TRUE(store_->ActionEvents("proposal:other")->empty());
}

TEST_P(ActionStoreTest, PersonKeysAreReplacedNotAdded) {
  ASSERT_TRUE(store_->PutPersonKey({"ana@example.com", "pem-1", clock_.Now()}).ok());
  ASSERT_TRUE(store_->PutPersonKey({"ana@example.com", "pem-2", clock_.Now()}).ok());
  auto k = store_->GetPersonKey("ana@example.com");
  ASSERT_TRUE(k.ok() && k->has_value());
  EXPECT_EQ((*k)->public_key_pem, "pem-2");
  EXPECT_FALSE(store_->GetPersonKey("bo@example.com")->has_value());
}

// The approval sweep's read: over seeded random logs (proposals and other subjects interleaved,
// decisions refused, notices and other kinds after a request), exactly the proposals whose newest
// request is later than their newest draft or close come back, each with all of its events in
// order. The expected set is computed here from the log as written.
TEST_P(ActionStoreTest, OpenRequestsAreTheProposalsWhoseNewestRequestIsNotClosed) {
  const std::vector<std::string> kinds = {"drafted", "sent", "escalated", "expired", "lapsed",
                                          "approved", "denied", "refused", "executed", "noted"};
  for (unsigned seed = 1; seed <= 3; ++seed) {
    ASSERT_NO_FATAL_FAILURE(SetUp());
    std::mt19937 rng(seed);
    std::map<std::string, std::vector<std::string>> written;  // subject -> kinds in order
    for (int i = 0; i < 150; ++i) {
      const int who = static_cast<int>(rng() % 25);
      std::string subject = who < 20 ? "proposal:P-" + std::to_string(who)
                                     : (who < 23 ? "incident:INC-" : "schema:s-") + std::to_string(who);
      const std::string kind = kinds[rng() % kinds.size()];
      ASSERT_TRUE(store_->AppendActionEvent({0, clock_.Now(), kind, subject, "dw", "", {{"i", i}}}).ok());
      written[subject].push_back(kind);
    }
    std::set<std::string> expected;
    for (const auto& [subject, ks] : written) {
      if (subject.rfind("proposal:", 0) != 0) continue;
      int last_request = -1, last_close = -1;
      for (int i = 0; i < static_cast<int>(ks.size()); ++i) {
        if (ks[i] == "sent" || ks[i] == "escalated") last_request = i;
        if (ks[i] == "drafted" || ks[i] == "expired" || ks[i] == "lapsed" || ks[i] == "approved" ||
            ks[i] == "denied")
          last_close = i;
      }
      if (last_request > last_close) expected.insert(subject);
    }
    ASSERT_FALSE(expected.empty());
    ASSERT_LT(expected.size(), 20u);
    auto events = store_->ActionEventsOfOpenRequests();
    ASSERT_TRUE(events.ok()) << events.status().ToString();
    std::map<std::string, std::vector<std::string>> got;
    int64_t previous = 0;
    for (const auto& e : *events) {
      EXPECT_GT(e.seq, previous);
      previous = e.seq;
      got[e.subject].push_back(e.kind);
    }
    std::set<std::string> got_subjects;
    for (const auto& [subject, ks] : got) {
      got_subjects.insert(subject);
      EXPECT_EQ(ks, written[subject]) << subject;
    }
    EXPECT_EQ(got_subjects, expected) << "seed " << seed;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, ActionStoreTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace dw::store
