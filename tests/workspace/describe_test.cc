// describe_workspace's service: what it reports, and that every probe tells the truth.
#include "workspace/describe.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <thread>

#include "mcp/json_schema.h"
#include "tests/support/loopback_http_server.h"
#include "tests/support/subprocess.h"

namespace dw::workspace {
namespace {
namespace describe_test {

using testing::TempDir;

// A loopback HTTP server answering the probe endpoints of the platforms it plays.
class FakePlatform {
 public:
  FakePlatform() {
    auto& server_ = http_.server();
    server_.Get("/overview", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(R"({"taskmanagers":1,"flink-version":"2.2.0"})", "application/json");
    });
    server_.Get("/api/v1/main/flows/search", [](const httplib::Request& req, httplib::Response& res) {
      // Kestra with basic auth: dw:pw
      if (req.get_header_value("Authorization") != "Basic ZHc6cHcwcmQ=") {
        res.status = 401;
        return;
      }
      res.set_content(R"({"results":[],"total":0})", "application/json");
    });
    http_.Start();
  }
  std::string url() const { return http_.url(); }

 private:
  testing::LoopbackHttpServer http_;
};

void MakeSqliteDb(const std::filesystem::path& p) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(p.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE member_balances(member_id INTEGER, balance INTEGER)",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
}

const Json* Find(const Json& arr, const std::string& name) {
  for (const auto& x : arr)
    if (x["name"] == name) return &x;
  return nullptr;
}

class AppDescribeTest : public ::testing::Test {
 protected:
  std::shared_ptr<Services> Load(const std::string& platforms_yaml, const std::string& password) {
    tmp_.Write("dataworkers.yaml",
               "version: 1\n"
               "name: probe-test\n"
               "warehouses:\n"
               "  main: {type: sqlite, path: warehouse.db}\n"
               "  missing: {type: sqlite, path: nothing-here.db}\n"
               "  notadb: {type: sqlite, path: notes.txt}\n"
               "platforms:\n" +
                   platforms_yaml);
    tmp_.Write("notes.txt", "this is not a database, just text that is long enough to matter\n");
    MakeSqliteDb(tmp_.path() / "warehouse.db");
    setenv("DW_TEST_KESTRA_PASSWORD", password.c_str(), 1);
    return Services::Load(tmp_.path(), RealClock());
  }
  TempDir tmp_;
};

// The state store's backend as the store stage reads `state:`: a libpq keyword/value string is
// PostgreSQL like a URL, and neither prints its password.
TEST(DescribeConfigurationTest, NamesTheStoresBackendInEveryFormAndHidesItsPassword) {
  struct Case {
    const char* state;
    const char* backend;
  };
  for (const Case& c : {Case{"host=db.internal port=5432 dbname=dw user=dw password=Kw9SecretPass", "postgresql"},
                        Case{"postgresql://dw:Kw9SecretPass@db.internal/dw", "postgresql"},
                        Case{"postgres://dw:Kw9SecretPass@db.internal/dw?sslmode=require", "postgresql"},
                        Case{".dw/state.db", "sqlite"}}) {
    config::Workspace ws;
    ws.name = "w";
    ws.state = c.state;
    Json d = DescribeConfiguration(ws);
    EXPECT_EQ(d["state"]["backend"], c.backend) << c.state;
    EXPECT_EQ(d.dump().find("Kw9SecretPass"), std::string::npos) << d.dump();
    if (std::string(c.backend) == "postgresql") {
      EXPECT_NE(d["state"]["location"].get<std::string>().find("db.internal"), std::string::npos) << d.dump();
    }
  }
}

TEST_F(AppDescribeTest, ProbesTellReachableFromUnreachable) {
  FakePlatform fake;
  auto services = Load("  flink: {type: flink, url: \"" + fake.url() + "\"}\n"
                       "  kestra: {type: kestra, url: \"" + fake.url() +
                           "\", username: dw, password: \"${DW_TEST_KESTRA_PASSWORD}\"}\n"
                           "  connect: {type: kafka-connect, url: \"http://127.0.0.1:1\"}\n",
                       "pw0rd");
  ASSERT_TRUE(services->workspace_status().ok()) << services->workspace_status().message();
  auto d = DescribeWorkspace(*services, {});
  ASSERT_TRUE(d.ok()) << d.status().ToString();

  const Json& wh = (*d)["warehouses"];
  EXPECT_TRUE((*Find(wh, "main"))["reachable"].get<bool>());
  EXPECT_FALSE((*Find(wh, "missing"))["reachable"].get<bool>());
  EXPECT_NE((*Find(wh, "missing"))["detail"].get<std::string>().find("not found"), std::string::npos);
  EXPECT_FALSE((*Find(wh, "notadb"))["reachable"].get<bool>());
  // A probe never creates a warehouse file.
  EXPECT_FALSE(std::filesystem::exists(tmp_.path() / "nothing-here.db"));

  const Json& pf = (*d)["platforms"];
  EXPECT_TRUE((*Find(pf, "flink"))["healthy"].get<bool>());
  EXPECT_EQ((*Find(pf, "flink"))["http_status"], 200);
  EXPECT_TRUE((*Find(pf, "kestra"))["healthy"].get<bool>()) << Find(pf, "kestra")->dump();
  EXPECT_FALSE((*Find(pf, "connect"))["reachable"].get<bool>());

  EXPECT_TRUE((*d)["state"]["reachable"].get<bool>());
  EXPECT_TRUE(std::filesystem::exists(tmp_.path() / ".dw" / "state.db"));

  // The result matches the schema the tool advertises.
  auto valid = mcp::ValidateJson(DescribeOutputSchema(), *d, "structuredContent");
  EXPECT_TRUE(valid.ok()) << valid.message();
}

TEST_F(AppDescribeTest, WrongCredentialsAreReportedAndTheSecretNeverAppears) {
  FakePlatform fake;
  auto services = Load("  kestra: {type: kestra, url: \"" + fake.url() +
                           "\", username: dw, password: \"${DW_TEST_KESTRA_PASSWORD}\"}\n",
                       "wrong-secret-value");
  ASSERT_TRUE(services->workspace_status().ok());
  auto d = DescribeWorkspace(*services, {});
  ASSERT_TRUE(d.ok());
  const Json& k = (*d)["platforms"][0];
  EXPECT_TRUE(k["reachable"].get<bool>());
  EXPECT_FALSE(k["healthy"].get<bool>());
  EXPECT_EQ(k["http_status"], 401);
  EXPECT_EQ(d->dump().find("wrong-secret-value"), std::string::npos);
}

TEST_F(AppDescribeTest, AnInvalidWorkspaceIsAnErrorNotADescription) {
  tmp_.Write("dataworkers.yaml", "version: 1\nname: x\nbogus: 1\n");
  auto services = Services::Load(tmp_.path(), RealClock());
  auto d = DescribeWorkspace(*services, {});
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("bogus"), std::string::npos) << d.status().message();
}

}  // namespace describe_test
}  // namespace
}  // namespace dw::workspace
