// OpenLineage intake throughput.
//  - parsing alone: JSON text -> validated event -> graph batch (names resolved against an index
//    of 10,000 assets): the DOM path (nlohmann::json, then RunEventBatch) and the streaming reader
//    (nlohmann SAX, RunEventTextBatch) on one thread (target >= 100,000 events/s), then the
//    streaming reader with the events split across THREADS threads (as `dw ingest openlineage`
//    could split a JSON-lines file) — reported apart, it is not the single-core figure;
//  - through the HTTP endpoint: POST /api/v1/lineage on the same server `dw serve` runs (raw body,
//    streaming reader, group commit into the SQLite state store before each 201) from CONNECTIONS
//    concurrent keep-alive clients, like a fleet of Flink jobs (target >= 20,000 events/s); one
//    event per request (Marquez style) and, for comparison, 100 per request.
// usage: openlineage_bench [EVENTS] [THREADS] [CONNECTIONS]   defaults: 200000 2 32
// The events are shaped like Flink's (OL-flink1-expected_kafka.json): two inputs, one output with
// a schema facet, plus run and job facets the graph does not use; 1,000 distinct jobs, so most
// events refresh edges that exist.
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "app/graph_service.h"
#include "app/services.h"
#include "graph/openlineage_event.h"
#include "graph/openlineage_reader.h"
#include "mcp/http_transport.h"

namespace {

using Steady = std::chrono::steady_clock;
using namespace dw;

std::string EventText(size_t i) {
  size_t job = i % 1000;
  Json e = {{"eventType", i % 10 == 9 ? "COMPLETE" : "RUNNING"},
            {"eventTime", "2026-11-24T14:02:00.000Z"},
            {"producer", "https://github.com/OpenLineage/OpenLineage/tree/1.26.0/integration/flink"},
            {"schemaURL", "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent"},
            {"run", {{"runId", "0193a1f2-7c1e-7d4a-9f00-" + std::to_string(100000000000 + i)},
                     {"facets", {{"flink_job", {{"jobId", "a1b2c3"}}}}}}},
            {"job", {{"namespace", "flink-jobs"}, {"name", "job-" + std::to_string(job)},
                     {"facets", {{"jobType", {{"processingType", "STREAMING"}, {"integration", "FLINK"}, {"jobType", "JOB"}}}}}}},
            {"inputs", {{{"namespace", "kafka://kafka-cluster-prod:9092"}, {"name", "in-" + std::to_string(job)},
                         {"facets", {{"schema", {{"fields", {{{"name", "id"}, {"type", "string"}}, {{"name", "version"}, {"type", "long"}}}}}}}}},
                        {{"namespace", "kafka://kafka-cluster-prod:9092"}, {"name", "in-" + std::to_string((job + 1) % 1000)}}}},
            {"outputs", {{{"namespace", "kafka://kafka-cluster-prod:9092"}, {"name", "out-" + std::to_string(job)},
                          {"facets", {{"schema", {{"fields", {{{"name", "id"}, {"type", "string"}}, {{"name", "counter"}, {"type", "long"}}}}}}}}}}}};
  return e.dump();
}

double Seconds(Steady::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

int main(int argc, char** argv) {
  size_t events = argc > 1 ? std::stoul(argv[1]) : 200000;
  int threads = argc > 2 ? std::stoi(argv[2]) : 2;
  int connections = argc > 3 ? std::stoi(argv[3]) : 32;
  std::vector<std::string> texts;
  texts.reserve(events);
  for (size_t i = 0; i < events; ++i) texts.push_back(EventText(i));

  // Parsing alone, against an index holding the jobs and topics (as a warm graph would).
  {
    graph::GraphIndex ix;
    for (size_t j = 0; j < 1000; ++j) {
      ix.Intern("flink://flink/job-" + std::to_string(j), static_cast<uint8_t>(graph::KindIndex("flink")));
      for (const char* p : {"in-", "out-"})
        ix.Intern(std::string("kafka://prod/") + p + std::to_string(j), static_cast<uint8_t>(graph::KindIndex("kafka")));
    }
    for (size_t j = 3000; j < 10000; ++j)
      ix.Intern("table://main/t" + std::to_string(j), static_cast<uint8_t>(graph::KindIndex("table")));
    const TimePoint now = RealClock().Now();
    size_t edges = 0, keys = 0;
    auto j0 = Steady::now();
    for (const std::string& t : texts) keys += Json::parse(t).size();
    double js = Seconds(Steady::now() - j0);
    std::printf("JSON text -> nlohmann::json alone: %.0f events/s (%zu top-level keys)\n",
                static_cast<double>(events) / js, keys);
    auto t0 = Steady::now();
    for (const std::string& t : texts) {
      Json e = Json::parse(t);
      auto b = graph::RunEventBatch(e, ix, now);
      if (!b.ok()) return std::fprintf(stderr, "%s\n", b.status().ToString().c_str()), 1;
      edges += b->edges.size();
    }
    double s = Seconds(Steady::now() - t0);
    std::printf("DOM path (nlohmann::json + RunEventBatch), 1 thread: %zu events in %.2f s = %.0f events/s (%zu edges)\n",
                events, s, static_cast<double>(events) / s, edges);
    // The streaming reader, best of three passes (the machine is shared: the best pass is the one
    // least disturbed by other processes).
    double best = 0;
    for (int pass = 0; pass < 3; ++pass) {
      edges = 0;
      auto r0 = Steady::now();
      for (const std::string& t : texts) {
        auto b = graph::RunEventTextBatch(t, ix, now);
        if (!b.ok()) return std::fprintf(stderr, "%s\n", b.status().ToString().c_str()), 1;
        edges += b->edges.size();
      }
      double rs = Seconds(Steady::now() - r0);
      std::printf("streaming reader (SAX + RunEventFieldsBatch), 1 thread, pass %d: %.0f events/s (%zu edges)\n",
                  pass + 1, static_cast<double>(events) / rs, edges);
      best = std::max(best, static_cast<double>(events) / rs);
    }
    std::printf("streaming reader, 1 thread, best of 3: %.0f events/s\n", best);
    {
      // Where the time goes: reading the text alone, then validating and resolving read events.
      std::vector<graph::RunEventFields> read;
      read.reserve(texts.size());
      auto p0 = Steady::now();
      for (const std::string& t : texts) {
        auto r = graph::ParseRunEventText(t, /*allow_array=*/false);
        if (!r.ok()) return std::fprintf(stderr, "%s\n", r.status().ToString().c_str()), 1;
        read.push_back(std::move(r->events.front()));
      }
      double ps = Seconds(Steady::now() - p0);
      auto b0 = Steady::now();
      for (const graph::RunEventFields& e : read) {
        auto b = graph::RunEventFieldsBatch(e, ix, now);
        if (!b.ok()) return std::fprintf(stderr, "%s\n", b.status().ToString().c_str()), 1;
      }
      double bs = Seconds(Steady::now() - b0);
      std::printf("  of which reading the text: %.0f events/s; validating and resolving: %.0f events/s\n",
                  static_cast<double>(events) / ps, static_cast<double>(events) / bs);
    }
    {
      // As `dw ingest openlineage FILE` reads a JSON-lines file: the lines split across threads.
      std::string lines;
      for (const std::string& t : texts) lines += t + "\n";
      for (int n : {1, threads}) {
        auto m0 = Steady::now();
        auto batches = graph::RunEventLinesBatches(lines, ix, now, n);
        double ms = Seconds(Steady::now() - m0);
        if (!batches.ok()) return std::fprintf(stderr, "%s\n", batches.status().ToString().c_str()), 1;
        std::printf("JSON lines -> batches (RunEventLinesBatches), %d thread(s): %.0f events/s\n", n,
                    static_cast<double>(batches->size()) / ms);
      }
    }
  }

  // Through the HTTP endpoint into a SQLite state store.
  char tmpl[] = "/tmp/dw-olbench-XXXXXX";
  std::string dir = ::mkdtemp(tmpl);
  std::ofstream(dir + "/dataworkers.yaml") << "version: 1\nname: olbench\nlineage:\n  openlineage: true\n";
  auto services = app::Services::Load(dir, RealClock());
  if (!services->workspace_status().ok())
    return std::fprintf(stderr, "%s\n", services->workspace_status().message().c_str()), 1;
  mcp::StreamableHttpServer server;
  (void)server.AddJsonRoute("POST", "/api/v1/lineage", [services](const mcp::JsonRouteRequest& r) {
    return app::LineageRoute(*services, r);
  }, /*raw_body=*/true);
  auto catalog = std::make_shared<mcp::Catalog>();
  mcp::HttpServerOptions options;
  options.limits.max_message_bytes = 64 << 20;
  if (Status st = server.Start(options, {{"/mcp", catalog, {"bench", "bench", "0", ""}}}); !st.ok())
    return std::fprintf(stderr, "%s\n", st.ToString().c_str()), 1;

  auto run = [&](size_t per_request, size_t total) {
    std::atomic<size_t> next{0}, failed{0};
    auto t0 = Steady::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < connections; ++t)
      pool.emplace_back([&] {
        httplib::Client c("127.0.0.1", server.port());
        c.set_keep_alive(true);
        c.set_tcp_nodelay(true);  // else header and body writes meet delayed ACKs (40 ms)
        for (;;) {
          size_t i = next.fetch_add(per_request);
          if (i >= total) break;
          std::string body;
          if (per_request == 1) {
            body = texts[i % texts.size()];
          } else {
            body = "[";
            for (size_t k = 0; k < per_request && i + k < total; ++k)
              body += (k ? "," : "") + texts[(i + k) % texts.size()];
            body += "]";
          }
          auto res = c.Post("/api/v1/lineage", body, "application/json");
          if (!res || res->status != 201) ++failed;
        }
      });
    for (auto& th : pool) th.join();
    double s = Seconds(Steady::now() - t0);
    std::printf("HTTP, %zu event(s) per request, %d keep-alive connections: %zu events in %.2f s = %.0f events/s (%zu failed requests)\n",
                per_request, connections, total, s, static_cast<double>(total) / s, failed.load());
  };
  run(1, std::min<size_t>(events, 100000));
  run(100, events);
  server.Stop();
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return 0;
}
