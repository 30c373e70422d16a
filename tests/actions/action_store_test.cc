// The action stage's tables on both store backends: proposal versions never change, nonces are
// single use, the log keeps its order.
#include <gtest/gtest.h>

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

INSTANTIATE_TEST_SUITE_P(Backends, ActionStoreTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace dw::store
