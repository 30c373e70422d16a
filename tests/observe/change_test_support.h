// Test support for the change collectors: a SQLite state store in a scratch folder, a workspace the
// test fills with simulator platforms, one collection pass, and the stored events of one kind.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "base/iso_time.h"
#include "net/http_client.h"
#include "observe/changes/collector.h"
#include "store/state_store.h"
#include "tests/platforms/platform_test_support.h"
#include "tests/support/subprocess.h"

namespace dw::observe::changes::test_support {

inline TimePoint At(const char* iso) { return FromUnixMillis(*ParseIsoTimeMillis(iso)); }

class ChangeStoreTest : public ::testing::Test {
 protected:
  explicit ChangeStoreTest(TimePoint now) : clock_(now) {}

  // Opens (or, when already open, reopens: what a restarted process sees) the store in dir_.
  void OpenStore() {
    store_.reset();
    auto s = store::OpenStateStore((dir_.path() / "state.db").string(), clock_);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(s).value();
  }
  // One collection pass over ws_'s platforms at clock_'s time.
  CollectReport Collect() {
    auto r = CollectChanges(ws_, *http_, *store_, clock_);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : CollectReport{};
  }
  // The Kestra simulator at `url` as the workspace's platform "kestra", signed in as its EV
  // script's user, watching the tariff flow.
  void WatchTariffFlowAt(const std::string& url) {
    auto kp = dw::testing::PlatformAt("kestra", "kestra", url);
    kp.username = "admin@kestra.io";
    kp.password = "Admin1234!";
    ws_.platforms["kestra"] = kp;
    config::AssetNote note;
    note.id = "kestra://kestra/pricing.tariff_sync";
    ws_.assets.push_back(note);
  }
  // Every stored event of `kind`, oldest first.
  std::vector<store::ChangeEvent> Events(const std::string& kind) {
    auto all = store_->ChangeEventsBetween(At("2000-01-01T00:00:00Z"), At("2100-01-01T00:00:00Z"));
    EXPECT_TRUE(all.ok());
    std::vector<store::ChangeEvent> out;
    if (!all.ok()) return out;
    for (auto& e : *all)
      if (e.kind == kind) out.push_back(e);
    return out;
  }

  dw::testing::TempDir dir_;
  SimulatedClock clock_;
  std::unique_ptr<net::HttpClient> http_ = net::MakeCurlHttpClient();
  std::unique_ptr<store::StateStore> store_;
  config::Workspace ws_;
};

}  // namespace dw::observe::changes::test_support
