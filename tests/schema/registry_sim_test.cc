// The Schema Registry simulator behaves as the registry does: registrations, ids and versions,
// soft deletes, the compatibility endpoint (the version in its path honoured), levels with times,
// and the registry's error codes.
#include <gtest/gtest.h>

#include "net/http_client.h"
#include "tests/platforms/platform_test_support.h"

namespace dw::schema {
namespace {
namespace registry_sim_test {

struct Answer {
  long status = 0;
  Json body;
};

class RegistrySimTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Json script = {{"now", "2026-11-24T12:00:00Z"},
                   {"global_compatibility", Json::array({{{"level", "BACKWARD"}}, {{"at", "2026-11-24T13:00:00Z"}, {"level", "FULL"}}})},
                   {"subjects", Json::array()}};
    sim_ = dw::testing::StartSim(sim::Platform::kSchemaRegistry, script);
    ASSERT_NE(sim_, nullptr);
  }
  Answer Send(const std::string& method, const std::string& path, const Json& body = nullptr) {
    net::HttpRequest req;
    req.method = method;
    req.url = sim_->url() + path;
    if (!body.is_null()) {
      req.body = body.dump();
      req.headers.push_back({"Content-Type", "application/vnd.schemaregistry.v1+json"});
    }
    auto r = http_->Send(req);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return {};
    return {r->status, Json::parse(r->body, nullptr, false)};
  }
  static Json Avro(const std::vector<std::pair<std::string, Json>>& fields) {
    Json f = Json::array();
    for (const auto& [n, t] : fields) f.push_back({{"name", n}, {"type", t}});
    return {{"schema", Json{{"type", "record"}, {"name", "Order"}, {"fields", f}}.dump()}};
  }

  std::unique_ptr<net::HttpClient> http_ = net::MakeCurlHttpClient();
  std::unique_ptr<sim::RunningSim> sim_;
};

TEST_F(RegistrySimTest, RegistrationsKeepIdsAndVersionsAsTheRegistryDoes) {
  auto v1 = Send("POST", "/subjects/orders-value/versions", Avro({{"id", "long"}}));
  ASSERT_EQ(v1.status, 200) << v1.body.dump();
  int64_t id1 = v1.body["id"];
  auto again = Send("POST", "/subjects/orders-value/versions", Avro({{"id", "long"}}));
  EXPECT_EQ(again.body["id"], id1);  // the same schema again: its id, no new version
  EXPECT_EQ(Send("GET", "/subjects/orders-value/versions").body, Json::array({1}));
  auto other = Send("POST", "/subjects/archive-value/versions", Avro({{"id", "long"}}));
  EXPECT_EQ(other.body["id"], id1);  // one id per schema across subjects
  Json with_default = {{"schema", R"({"type":"record","name":"Order","fields":[{"name":"id","type":"long"},{"name":"note","type":["null","string"],"default":null}]})"}};
  auto v2 = Send("POST", "/subjects/orders-value/versions", with_default);
  ASSERT_EQ(v2.status, 200);
  EXPECT_NE(v2.body["id"], id1);
  auto latest = Send("GET", "/subjects/orders-value/versions/latest");
  EXPECT_EQ(latest.body["version"], 2);
  EXPECT_EQ(latest.body["id"], v2.body["id"]);
  EXPECT_EQ(Send("GET", "/schemas/ids/" + std::to_string(id1)).status, 200);
}

TEST_F(RegistrySimTest, IncompatibleInvalidAndUnknownAreTheRegistrysCodes) {
  ASSERT_EQ(Send("POST", "/subjects/orders-value/versions", Avro({{"id", "long"}})).status, 200);
  auto incompatible = Send("POST", "/subjects/orders-value/versions", Avro({{"id", "long"}, {"email", "string"}}));
  EXPECT_EQ(incompatible.status, 409);
  EXPECT_EQ(incompatible.body["error_code"], 409);
  EXPECT_NE(incompatible.body["message"].get<std::string>().find("READER_FIELD_MISSING_DEFAULT_VALUE"), std::string::npos);
  auto invalid = Send("POST", "/subjects/orders-value/versions", Json{{"schema", R"({"type":"record","name":"r","fields":[{"name":"a","type":"int"},{"name":"a","type":"int"}]})"}});
  EXPECT_EQ(invalid.status, 422);
  EXPECT_EQ(invalid.body["error_code"], 42201);
  EXPECT_NE(invalid.body["message"].get<std::string>().find("/fields/1/name"), std::string::npos);
  EXPECT_EQ(Send("GET", "/subjects/nope-value/versions").body["error_code"], 40401);
  EXPECT_EQ(Send("GET", "/subjects/orders-value/versions/9").body["error_code"], 40402);
  auto level = Send("PUT", "/config/orders-value", Json{{"compatibility", "SIDEWAYS"}});
  EXPECT_EQ(level.status, 422);
  EXPECT_EQ(level.body["error_code"], 42203);
  EXPECT_EQ(Send("GET", "/subjects/orders-value/versions").body, Json::array({1}));  // nothing written by the refusals
}

TEST_F(RegistrySimTest, ASoftDeletedVersionKeepsItsId) {
  int64_t id1 = Send("POST", "/subjects/orders-value/versions", Avro({{"id", "long"}})).body["id"];
  Json v2 = {{"schema", R"({"type":"record","name":"Order","fields":[{"name":"id","type":"long"},{"name":"n","type":"int","default":0}]})"}};
  Send("POST", "/subjects/orders-value/versions", v2);
  auto deleted = Send("DELETE", "/subjects/orders-value/versions/1");
  EXPECT_EQ(deleted.body, 1);
  EXPECT_EQ(Send("GET", "/subjects/orders-value/versions").body, Json::array({2}));
  EXPECT_EQ(Send("GET", "/subjects/orders-value/versions?deleted=true").body, Json::array({1, 2}));
  auto soft = Send("GET", "/subjects/orders-value/versions/1?deleted=true");
  EXPECT_EQ(soft.body["id"], id1);
  auto back = Send("POST", "/subjects/orders-value/versions", Avro({{"id", "long"}}));
  EXPECT_EQ(back.body["id"], id1);  // registered again: the same id, a new version
  EXPECT_EQ(Send("GET", "/subjects/orders-value/versions").body, Json::array({2, 3}));
  EXPECT_EQ(Send("DELETE", "/subjects/orders-value/versions/2?permanent=true").body["error_code"], 40407);
}

TEST_F(RegistrySimTest, TheCompatibilityEndpointHonoursTheVersionAndTheLevelsTimes) {
  Send("PUT", "/config/orders-value", Json{{"compatibility", "NONE"}});
  Send("POST", "/subjects/orders-value/versions", Avro({{"a", "string"}}));
  Send("POST", "/subjects/orders-value/versions", Avro({{"a", "int"}}));
  Send("PUT", "/config/orders-value", Json{{"compatibility", "BACKWARD"}});
  Json candidate = Avro({{"a", "int"}});
  auto latest = Send("POST", "/compatibility/subjects/orders-value/versions/latest?verbose=true", candidate);
  EXPECT_TRUE(latest.body["is_compatible"]) << latest.body.dump();
  auto first = Send("POST", "/compatibility/subjects/orders-value/versions/1?verbose=true", candidate);
  EXPECT_FALSE(first.body["is_compatible"]);
  ASSERT_FALSE(first.body["messages"].empty());
  EXPECT_NE(first.body["messages"][0].get<std::string>().find("reader type: INT not compatible with writer type: STRING"), std::string::npos);
  EXPECT_EQ(Send("POST", "/compatibility/subjects/orders-value/versions/5", candidate).body["error_code"], 40402);
  // The global level is BACKWARD until 13:00 and FULL after.
  EXPECT_EQ(Send("GET", "/config").body["compatibilityLevel"], "BACKWARD");
  net::HttpRequest tick;
  tick.method = "POST";
  tick.url = sim_->url() + "/_sim/clock";
  tick.body = R"({"now":"2026-11-24T13:30:00Z"})";
  ASSERT_TRUE(http_->Send(tick).ok());
  EXPECT_EQ(Send("GET", "/config").body["compatibilityLevel"], "FULL");
  EXPECT_EQ(Send("GET", "/config/orders-value").body["compatibilityLevel"], "BACKWARD");
}

}  // namespace registry_sim_test
}  // namespace
}  // namespace dw::schema
