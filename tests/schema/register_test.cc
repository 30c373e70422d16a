// register_stream_schema writes to the registry only through an approved, unexpired proposal of
// the actions stage: without one it drafts the proposal and names the approval it waits for; a
// pending, expired or MCP-decided proposal registers nothing; an approved one registers and the
// registry's answer is in a receipt whose chain verifies.
#include <gtest/gtest.h>

#include "actions/actions.h"
#include "agents/agents.h"
#include "mcp/json_schema.h"
#include "net/http_client.h"
#include "tests/schema/crm_workspace.h"

namespace dw::agents {
namespace {
namespace register_test {

std::string Fixture(const std::string& name) { return dw::testing::CrmFixture(name); }

class RegisterStreamSchemaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Ana's key, declared in the workspace file as a team declares it.
    auto k = actions::NewPersonKey("ana@example.com");
    ASSERT_TRUE(k.ok());
    key_ = *k;
    ASSERT_TRUE(dw::testing::WriteCrmWorkspace(
        ws_, "\npeople:\n  ana@example.com:\n    keys: [\"" + actions::KeyFingerprint(key_.public_key_pem) + "\"]\n"));
    ASSERT_TRUE(ws_.Load("dw-connectors"));
    auto store = ws_.services()->state();
    ASSERT_TRUE(store.ok());
    store_ = *store;
  }
  mcp::ToolResult Call(const Json& args) {
    return ws_.Call("register_stream_schema", args, dw::testing::AgentWorkspace::Args::kValid);
  }
  Json Versions() {
    net::HttpRequest req;
    req.url = ws_.sim_url() + "/subjects/orders-value/versions";
    auto r = http_->Send(req);
    return r.ok() ? Json::parse(r->body) : Json();
  }
  actions::DecisionOutcome Approve(const std::string& id, int64_t version, const std::string& surface = "cli") {
    if (!key_stored_) {
      EXPECT_TRUE(actions::StorePersonKey(*store_, key_, ws_.clock(), "test").ok());
      key_stored_ = true;
    }
    auto s = actions::NewStatement("ana@example.com", id, version, actions::Verdict::kApprove, "", ws_.clock());
    auto sig = actions::SignStatement(s, key_.private_key_pem);
    auto out = actions::Decide(*store_, actions::TrustOf(ws_.services()->workspace(), ""),
                               {s, surface, sig.ok() ? *sig : ""}, ws_.clock());
    EXPECT_TRUE(out.ok());
    return out.ok() ? *out : actions::DecisionOutcome{};
  }
  std::string Draft(const std::string& schema) {
    auto r = Call({{"subject", "orders-value"}, {"schema", schema}});
    EXPECT_FALSE(r.is_error) << r.content.dump();
    if (r.is_error) return "";
    EXPECT_FALSE((*r.structured)["registered"]);
    return (*r.structured)["proposal"]["id"];
  }

  dw::testing::AgentWorkspace ws_{FromUnixMillis(1795532400000)};  // 2026-11-24T15:00:00Z
  std::unique_ptr<net::HttpClient> http_ = net::MakeCurlHttpClient();
  store::StateStore* store_ = nullptr;
  actions::IssuedKey key_;
  bool key_stored_ = false;
};

TEST_F(RegisterStreamSchemaTest, IsDestructiveAndNotReadOnly) {
  const auto* t = ws_.catalog().FindTool("register_stream_schema");
  ASSERT_NE(t, nullptr);
  EXPECT_FALSE(t->annotations.read_only);
  EXPECT_TRUE(t->annotations.destructive);
}

TEST_F(RegisterStreamSchemaTest, WithoutApprovalItDraftsAndWritesNothing) {
  auto r = Call({{"subject", "orders-value"}, {"schema", Fixture("orders-v2-renamed.avsc")}});
  ASSERT_FALSE(r.is_error) << r.content.dump();
  const Json& b = *r.structured;
  EXPECT_FALSE(b["registered"]);
  EXPECT_EQ(b["status"], "awaiting_approval");
  EXPECT_EQ(b["proposal"]["status"], "pending");
  EXPECT_EQ(b["proposal"]["domain"], "shop");
  EXPECT_EQ(b["proposal"]["approval"]["approvers"], Json::array({"ana@example.com"}));
  EXPECT_NE(b["summary"].get<std::string>().find("waits for the approval of ana@example.com"), std::string::npos);
  EXPECT_TRUE(b["impact"]["fields_followed"] == Json::array({"customer_email"}));
  EXPECT_EQ(Versions(), Json::array({1}));
  // Carrying out a pending proposal registers nothing.
  auto pending = Call({{"proposal_id", b["proposal"]["id"]}});
  ASSERT_TRUE(pending.is_error);
  EXPECT_NE(pending.content.dump().find("not approved"), std::string::npos);
  EXPECT_EQ(Versions(), Json::array({1}));
  // The same draft again is the same proposal, not a new version.
  auto again = Call({{"subject", "orders-value"}, {"schema", Fixture("orders-v2-renamed.avsc")}});
  ASSERT_FALSE(again.is_error);
  EXPECT_EQ((*again.structured)["proposal"]["version"], 1);
}

TEST_F(RegisterStreamSchemaTest, AnApprovedProposalIsRegisteredWithTheAnswerInAReceipt) {
  std::string id = Draft(Fixture("orders-v2-renamed.avsc"));
  ASSERT_FALSE(id.empty());
  EXPECT_FALSE(Approve(id, 1, "mcp").accepted);  // no decision arrives over MCP
  EXPECT_TRUE(Call({{"proposal_id", id}}).is_error);
  EXPECT_TRUE(Approve(id, 1).accepted);
  auto r = Call({{"proposal_id", id}});
  ASSERT_FALSE(r.is_error) << r.content.dump();
  const Json& b = *r.structured;
  EXPECT_TRUE(b["registered"]);
  EXPECT_EQ(b["id"], 22);
  EXPECT_EQ(b["version"], 2);
  EXPECT_EQ(Versions(), Json::array({1, 2}));
  auto receipt = actions::ShowReceipt(*store_, b["receipt"]["seq"].get<int64_t>());
  ASSERT_TRUE(receipt.ok());
  Json body = Json::parse(receipt->body);
  EXPECT_EQ(body["content"]["registry_answer"]["id"], 22);
  EXPECT_EQ(body["content"]["approved_by"], "ana@example.com");
  auto chain = actions::VerifyReceiptChain(*store_);
  ASSERT_TRUE(chain.ok());
  EXPECT_TRUE(chain->ok) << chain->problem;
}

TEST_F(RegisterStreamSchemaTest, AnExpiredApprovalRegistersNothing) {
  std::string id = Draft(Fixture("orders-v2-renamed.avsc"));
  ASSERT_TRUE(Approve(id, 1).accepted);
  ws_.clock().Advance(std::chrono::hours(3));  // past the 2h approval_ttl
  auto r = Call({{"proposal_id", id}});
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.content.dump().find("expired"), std::string::npos) << r.content.dump();
  EXPECT_EQ(Versions(), Json::array({1}));
}

TEST_F(RegisterStreamSchemaTest, ASchemaTheRegistryWouldRefuseIsNotProposed) {
  auto bad = Call({{"subject", "orders-value"}, {"schema", R"({"type":"record","name":"Order","fields":[{"name":"x","type":"decimal"}]})"}});
  ASSERT_TRUE(bad.is_error);
  EXPECT_NE(bad.content.dump().find("42201"), std::string::npos);
  EXPECT_EQ(Versions(), Json::array({1}));
}

}  // namespace register_test
}  // namespace
}  // namespace dw::agents
