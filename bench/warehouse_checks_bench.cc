// A pass of every check on many tables of a REST warehouse, through its simulator with a fixed
// latency added to every API call (issue 36's target: 1,000 tables at 50 ms a call in under 30 s).
// The same pass runs twice in one process against one simulator: with the warehouse's own bound on
// statements in flight, and one table at a time (the baseline), so the ratio is measured on the
// same host in the same run. Each table: 20 rows, not_null on two columns, unique on the key,
// freshness and volume on the time column (one aggregate scan and one duplicate count).
// usage: warehouse_checks_bench [bigquery|snowflake] [TABLES] [LATENCY_MS]
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "base/clock.h"
#include "base/json.h"
#include "config/workspace.h"
#include "net/http_client.h"
#include "observe/quality/quality_run.h"
#include "sim/sim_support.h"

namespace {

namespace fs = std::filesystem;
using Steady = std::chrono::steady_clock;
using dw::Json;

std::string RsaKeyPem(std::string* public_pem) {
  EVP_PKEY* key = EVP_RSA_gen(2048);
  auto pem = [&](bool priv) {
    BIO* bio = BIO_new(BIO_s_mem());
    if (priv) PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
    else PEM_write_bio_PUBKEY(bio, key);
    char* data = nullptr;
    long n = BIO_get_mem_data(bio, &data);
    std::string out(data, static_cast<size_t>(n));
    BIO_free(bio);
    return out;
  };
  std::string out = pem(true);
  *public_pem = pem(false);
  EVP_PKEY_free(key);
  return out;
}

void Write(const fs::path& p, const std::string& text) {
  std::ofstream f(p);
  f << text;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string engine = argc > 1 ? argv[1] : "bigquery";
  const int tables = argc > 2 ? std::atoi(argv[2]) : 1000;
  const int latency = argc > 3 ? std::atoi(argv[3]) : 50;
  if (engine != "bigquery" && engine != "snowflake") {
    std::fprintf(stderr, "usage: warehouse_checks_bench [bigquery|snowflake] [TABLES] [LATENCY_MS]\n");
    return 2;
  }
  const fs::path dir = fs::temp_directory_path() / ("dw-warehouse-checks-bench-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string public_pem;
  const std::string private_pem = RsaKeyPem(&public_pem);
  const dw::TimePoint now = dw::FromUnixMillis(1796608800000);  // 2026-12-07T02:00:00Z

  Json script = {{"latency_ms", latency}, {"tables", Json::array()}};
  dw::config::Workspace ws;
  dw::config::WarehouseConfig wh;
  wh.name = "wh";
  wh.type = engine;
  const bool bq = engine == "bigquery";
  for (int t = 0; t < tables; ++t) {
    Json rows = Json::array();
    for (int r = 0; r < 20; ++r)
      rows.push_back({r, r % 7 == 0 ? Json() : Json("c" + std::to_string(r)), dw::FormatRfc3339(now - std::chrono::minutes(5 * r))});
    const std::string name = "t" + std::to_string(t);
    Json columns = bq ? Json::parse(R"([{"name": "id", "type": "INT64"}, {"name": "customer", "type": "STRING"},
                                        {"name": "placed_at", "type": "TIMESTAMP"}])")
                      : Json::parse(R"J([{"name": "ID", "type": "NUMBER(38,0)"}, {"name": "CUSTOMER", "type": "VARCHAR"},
                                        {"name": "PLACED_AT", "type": "TIMESTAMP_NTZ"}])J");
    Json table = {{"columns", columns}, {"rows", rows}};
    if (bq) table["dataset"] = "shop", table["table"] = name;
    else table["schema"] = "SHOP", table["table"] = name;
    script["tables"].push_back(table);
    dw::config::CheckConfig c;
    c.table = "wh.shop." + name;
    c.warehouse = "wh";
    c.asset_id = "table://wh/shop." + name;
    c.spec = {{"table", c.table}, {"time_column", "placed_at"}, {"not_null", {"id", "customer"}}, {"unique", {"id"}},
              {"freshness", {{"max_age", "1h"}}}, {"volume", {{"min_rows", 5}, {"window", "1h"}}}};
    ws.checks.push_back(c);
  }
  if (bq) {
    const fs::path key = dir / "sa.json";
    Write(key, Json{{"type", "service_account"}, {"private_key", private_pem},
                    {"client_email", "bench@dw-bench.iam.gserviceaccount.com"}, {"token_uri", "https://oauth2.googleapis.com/token"}}
                   .dump());
    script["project"] = "dw-bench";
    script["credentials"] = key.string();
    wh.project = "dw-bench";
    wh.location = "US";
    wh.credentials = key.string();
  } else {
    const fs::path key = dir / "rsa_key.p8";
    Write(key, private_pem);
    script["account"] = "bench";
    script["database"] = "ANALYTICS";
    script["users"] = Json::array({{{"name", "DW_BENCH"}, {"public_key_pem", public_pem}}});
    wh.account = "bench";
    wh.user = "DW_BENCH";
    wh.private_key = key.string();
    wh.database = "ANALYTICS";
    wh.default_schema = "PUBLIC";
  }
  auto sim = dw::sim::RunningSim::Start(bq ? dw::sim::Platform::kBigQuery : dw::sim::Platform::kSnowflake, script);
  if (!sim.ok()) {
    std::fprintf(stderr, "simulator: %s\n", sim.status().ToString().c_str());
    return 2;
  }
  wh.api_url = (*sim)->url();
  if (bq) wh.token_url = (*sim)->url() + "/token";
  ws.warehouses["wh"] = wh;

  dw::SimulatedClock clock(now);
  const std::unique_ptr<dw::net::HttpClient> http = dw::net::MakeCurlHttpClient();
  auto pass = [&](std::optional<int> max_parallel) {
    dw::observe::quality::QualityRequest req;
    req.http = http.get();
    req.record = false;
    req.max_parallel = max_parallel;
    const auto start = Steady::now();
    auto report = dw::observe::quality::RunQuality(ws, nullptr, clock, req);
    const double seconds = std::chrono::duration<double>(Steady::now() - start).count();
    int statements = 0, failed = 0, errors = 0;
    if (report.ok()) {
      for (const auto& t : report->tables) statements += t.queries;
      failed = report->Count(dw::observe::quality::Verdict::kFail);
      errors = report->Count(dw::observe::quality::Verdict::kError);
    }
    std::printf("%-9s %d tables, %d ms a call, %s: %.1f s, %d statements, %d failed checks, %d errors%s\n", engine.c_str(),
                tables, latency, max_parallel ? "one table at a time" : "the warehouse's bound", seconds, statements, failed,
                errors, report.ok() ? "" : (" (" + report.status().ToString() + ")").c_str());
    return seconds;
  };
  const double bounded = pass(std::nullopt);
  const double sequential = pass(1);
  std::printf("%-9s speedup %.1fx; target (under 30 s for 1,000 tables at 50 ms a call): %s\n", engine.c_str(),
              sequential / bounded,
              tables < 1000 || latency < 50 ? "not measured by this size" : bounded < 30.0 ? "met" : "NOT met");
  fs::remove_all(dir);
  return 0;
}
