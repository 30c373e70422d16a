// Test support for the Snowflake warehouse: a generated key-pair user (RSA 2048, PKCS#8 PEM file)
// and `dw-sim snowflake` started on loopback with that user's public key registered, the tables a
// test seeds, and the client's configuration pointing at it.
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

class SnowflakeSimFixture {
 public:
  // `script` gets account, database and the user added; its tables and options are kept.
  // `registered_pem`: the key the simulator trusts (the client's own unless a test says otherwise).
  void Start(Json script, const std::string& registered_pem = ::dw::testing::TestKeyPem()) {
    key_path_ = dir_.Write("rsa_key.p8", ::dw::testing::TestKeyPem()).string();
    const std::string registered = dir_.Write("registered.p8", registered_pem).string();
    script["account"] = "xy12345";
    script["database"] = "ANALYTICS";
    script["users"] = Json::array({{{"name", "dw_checks"}, {"private_key", registered}}});
    auto sim = sim::RunningSim::Start(sim::Platform::kSnowflake, script);
    ASSERT_TRUE(sim.ok()) << sim.status().ToString();
    sim_ = std::move(*sim);
    config_.name = "sf";
    config_.type = "snowflake";
    config_.account = "xy12345.us-east-2.aws";
    config_.user = "dw_checks";
    config_.private_key = key_path_;
    config_.database = "ANALYTICS";
    config_.default_schema = "PUBLIC";
    config_.compute_warehouse = "CHECKS_XS";
    config_.api_url = sim_->url();
  }

  // The simulator's counters (jwts, api_calls, statements, query_tags, ...).
  Json SimState() const {
    net::HttpRequest req;
    req.url = sim_->url() + "/_sim/state";
    auto res = http_->Send(req);
    return res.ok() ? Json::parse(res->body, nullptr, false) : Json();
  }
  // Replaces the simulator's faults (sim_support.h's shape).
  void SetFaults(const Json& faults) const {
    net::HttpRequest req;
    req.method = "POST";
    req.url = sim_->url() + "/_sim/faults";
    req.body = Json{{"faults", faults}}.dump();
    req.headers = {{"Content-Type", "application/json"}};
    (void)http_->Send(req);
  }

  ::dw::testing::TempDir dir_;
  std::string key_path_;
  std::unique_ptr<sim::RunningSim> sim_;
  config::WarehouseConfig config_;
  std::unique_ptr<net::HttpClient> http_ = net::MakeCurlHttpClient();
};

}  // namespace dw::warehouse::test_support
