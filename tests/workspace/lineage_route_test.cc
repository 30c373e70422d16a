// POST /api/v1/lineage as `dw serve` registers it (raw body, streaming reader, group commit): many
// concurrent keep-alive clients all get 201 after their events are stored; a JSON array is one
// all-or-nothing body whose errors name "$[i]..."; broken JSON is a 400.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <fstream>
#include <thread>

#include "workspace/graph_answers.h"
#include "base/rfc3339.h"
#include "mcp/http_transport.h"
#include "tests/support/subprocess.h"

namespace dw::workspace {
namespace {
namespace lineage_route_test {

Json Event(int job, const std::string& type = "RUNNING") {
  return {{"eventType", type},
          {"eventTime", "2026-11-24T15:00:00Z"},
          {"run", {{"runId", "r-" + std::to_string(job)}}},
          {"job", {{"namespace", "flink-jobs"}, {"name", "job-" + std::to_string(job)},
                   {"facets", {{"jobType", {{"integration", "FLINK"}}}}}}},
          {"inputs", {{{"namespace", "kafka://broker:9092"}, {"name", "in-" + std::to_string(job)}}}},
          {"outputs", {{{"namespace", "kafka://broker:9092"}, {"name", "out-" + std::to_string(job)}}}}};
}

class LineageRouteTest : public ::testing::Test {
 protected:
  LineageRouteTest() : clock_(*ParseRfc3339("2026-11-24T15:00:00Z")) {
    std::ofstream(dir_.path() / "dataworkers.yaml") << "version: 1\nname: t\nlineage:\n  openlineage: true\n";
    services_ = Services::Load(dir_.path(), clock_);
    auto services = services_;
    EXPECT_TRUE(server_.AddJsonRoute("POST", "/api/v1/lineage", [services](const net::JsonRouteRequest& r) {
      return LineageRoute(*services, r);
    }, /*raw_body=*/true).ok());
    EXPECT_TRUE(server_.Start({}, {{"/mcp", std::make_shared<mcp::Catalog>(), {"t", "t", "0", ""}}}).ok());
  }
  ~LineageRouteTest() override { server_.Stop(); }

  size_t Edges() {
    auto g = services_->graph();
    return g.ok() ? (*g)->Read([](const graph::GraphIndex& ix) { return ix.edge_count(); }) : 0;
  }

  dw::testing::TempDir dir_;
  SimulatedClock clock_;
  std::shared_ptr<Services> services_;
  mcp::StreamableHttpServer server_;
};

TEST_F(LineageRouteTest, ConcurrentKeepAliveClientsAreAllStored) {
  constexpr int kClients = 8, kEach = 25;
  std::atomic<int> created{0};
  std::vector<std::thread> pool;
  for (int c = 0; c < kClients; ++c)
    pool.emplace_back([&, c] {
      httplib::Client client("127.0.0.1", server_.port());
      client.set_keep_alive(true);
      for (int i = 0; i < kEach; ++i) {
        auto res = client.Post("/api/v1/lineage", Event(c * kEach + i).dump(), "application/json");
        if (res && res->status == 201 && Json::parse(res->body).value("events", 0) == 1) ++created;
      }
    });
  for (auto& t : pool) t.join();
  EXPECT_EQ(created.load(), kClients * kEach);
  EXPECT_EQ(Edges(), static_cast<size_t>(2 * kClients * kEach));
  // Stored, not only indexed: a fresh graph from the same store sees them.
  auto store = store::OpenStateStore((dir_.path() / ".dw/state.db").string(), clock_);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto g = graph::ContextGraph::Load(store->get(), clock_);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ((*g)->Read([](const graph::GraphIndex& ix) { return ix.edge_count(); }),
            static_cast<size_t>(2 * kClients * kEach));
}

TEST_F(LineageRouteTest, AnArrayIsAllOrNothingAndNamesTheElement) {
  httplib::Client client("127.0.0.1", server_.port());
  Json bad = Json::array({Event(1), Event(2)});
  bad[1]["run"].erase("runId");
  auto res = client.Post("/api/v1/lineage", bad.dump(), "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_EQ(Json::parse(res->body)["error"], "$[1].run.runId: required");
  EXPECT_EQ(Edges(), 0u);
  res = client.Post("/api/v1/lineage", Json::array({Event(1), Event(2, "COMPLETE")}).dump(), "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 201) << res->body;
  EXPECT_EQ(Json::parse(res->body)["events"], 2);
  EXPECT_EQ(Edges(), 4u);
  res = client.Post("/api/v1/lineage", "{not json", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_EQ(Json::parse(res->body)["error"], "the body is not valid JSON");
  res = client.Post("/api/v1/lineage", "", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  res = client.Post("/api/v1/lineage", "null", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
  EXPECT_EQ(Json::parse(res->body)["error"].get<std::string>().rfind("$: the body is empty", 0), 0u);
}

TEST_F(LineageRouteTest, AnEventOfAnyIntegrationIsStoredAsAGenericJob) {
  // What Airflow, Spark or a custom client sends: a spec-valid event with no jobType facet.
  Json e = Event(7);
  e["job"] = {{"namespace", "airflow-prod"}, {"name", "daily_revenue.load"}};
  httplib::Client client("127.0.0.1", server_.port());
  auto res = client.Post("/api/v1/lineage", e.dump(), "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 201) << res->body;
  EXPECT_EQ(Edges(), 2u);
  // The job is an asset like any other, with its inputs and outputs resolved by the usual aliases.
  auto answer = LineageAnswer(*services_, "job://airflow-prod/daily_revenue.load", graph::LineageOptions{});
  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  EXPECT_EQ((*answer)["edges"].size(), 2u) << answer->dump();
  std::string text = answer->dump();
  EXPECT_NE(text.find("/in-7\""), std::string::npos) << text;
  EXPECT_NE(text.find("/out-7\""), std::string::npos) << text;
}

}  // namespace lineage_route_test
}  // namespace
}  // namespace dw::workspace
