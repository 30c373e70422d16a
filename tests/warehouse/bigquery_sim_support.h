// Test support for the BigQuery warehouse: a generated service-account key (RSA 2048, PKCS#8 PEM)
// written as Google's JSON key file, and `dw-sim bigquery` started on loopback with that key's
// public half, the tables a test seeds, and the client's configuration pointing at it.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "base/json.h"
#include "config/workspace.h"
#include "net/http_client.h"
#include "sim/sim_support.h"
#include "tests/support/rsa_test_key.h"
#include "tests/support/subprocess.h"

namespace dw::warehouse::test_support {

using ::dw::testing::GenerateRsaKeyPem;
using ::dw::testing::TestKeyPem;

// Writes a service-account key file holding `pem` and returns its path.
inline std::string WriteKeyFile(const ::dw::testing::TempDir& dir, const std::string& name, const std::string& pem) {
  Json key = {{"type", "service_account"},
              {"project_id", "dw-test"},
              {"private_key_id", "k1"},
              {"private_key", pem},
              {"client_email", "dw-checks@dw-test.iam.gserviceaccount.com"},
              {"token_uri", "https://oauth2.googleapis.com/token"}};
  return dir.Write(name, key.dump()).string();
}

// `dw-sim bigquery` for project dw-test, trusting the test key, and a warehouse config for it.
class BigQuerySimFixture {
 public:
  // `script` gets project, location and credentials added; its tables and options are kept.
  void Start(Json script) {
    key_path_ = WriteKeyFile(dir_, "key.json", TestKeyPem());
    script["project"] = "dw-test";
    script["location"] = "US";
    script["credentials"] = key_path_;
    auto sim = sim::RunningSim::Start(sim::Platform::kBigQuery, script);
    ASSERT_TRUE(sim.ok()) << sim.status().ToString();
    sim_ = std::move(*sim);
    config_.name = "bq";
    config_.type = "bigquery";
    config_.project = "dw-test";
    config_.location = "US";
    config_.credentials = key_path_;
    config_.api_url = sim_->url();
    config_.token_url = sim_->url() + "/token";
  }

  // The simulator's counters (token_grants, api_calls, jobs, queries).
  Json SimState() const { return Call("GET", "/_sim/state", ""); }
  Json Call(const std::string& method, const std::string& path, const std::string& body) const {
    net::HttpRequest req;
    req.method = method;
    req.url = sim_->url() + path;
    req.body = body;
    auto res = http_->Send(req);
    if (!res.ok()) return Json();
    return Json::parse(res->body, nullptr, false);
  }

  ::dw::testing::TempDir dir_;
  std::string key_path_;
  std::unique_ptr<sim::RunningSim> sim_;
  config::WarehouseConfig config_;
  std::unique_ptr<net::HttpClient> http_ = net::MakeCurlHttpClient();
};

}  // namespace dw::warehouse::test_support
