// `dw changes` through the real binary at a fixed --now: the timeline the collectors stored, in
// the workspace's zone with its offset, filtered, paged, and refused with exit 2 for a bad option.
#include <gtest/gtest.h>

#include "base/rfc3339.h"
#include "store/state_store.h"
#include "tests/support/build_paths.h"
#include "tests/support/subprocess.h"

namespace dw {
namespace {

using testing::RunCommand;
using testing::TempDir;

void AddEvent(store::StateStore& st, const std::string& key, const std::string& asset, const std::string& kind,
              const std::string& at, const std::string& reason) {
  store::ChangeEvent e;
  e.dedup_key = key;
  e.asset_id = asset;
  e.kind = kind;
  e.happened_at = *ParseRfc3339(at);
  e.observed_at = e.happened_at;
  e.risk = 0.5;
  e.reason = reason;
  auto added = st.AddChangeEvent(e);
  ASSERT_TRUE(added.ok() && *added) << added.status().ToString();
}

TEST(ChangesCliTest, TheTimelineInTheWorkspacesZoneFilteredAndPaged) {
  TempDir tmp;
  tmp.Write("dataworkers.yaml",
            "version: 1\nname: w\ntimezone: Europe/Berlin\nwarehouses:\n  main: {type: sqlite, path: w.db}\n");
  {
    auto store = store::OpenStateStore((tmp.path() / ".dw" / "state.db").string());
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    AddEvent(**store, "d1", "flink://flink/job", "deploy", "2026-11-24T13:00:00Z", "v4.2 deployed");
    AddEvent(**store, "r1", "flink://flink/job", "restore", "2026-11-24T13:02:00Z", "restored from the 13:00 savepoint");
    AddEvent(**store, "e1", "kestra://k/prod.tariffs/load", "execution", "2026-11-24T14:00:00Z", "SUCCESS in 41 s");
    AddEvent(**store, "old", "flink://flink/job", "deploy", "2026-11-20T09:00:00Z", "v4.1 deployed");
  }
  const std::string dw = std::string(DW_BINARY) + " --workspace '" + tmp.path().string() + "' --now 2026-11-24T15:00:00Z";

  auto all = RunCommand(dw + " changes");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_NE(all.out.find("3 of 3 change(s)"), std::string::npos) << "the default is the last 24 hours: " << all.out;
  EXPECT_NE(all.out.find("(Europe/Berlin)"), std::string::npos) << all.out;
  // Newest first, each at its local time with the offset (Berlin is UTC+1 in November).
  const size_t exec = all.out.find("2026-11-24T15:00:00+01:00  execution  kestra://k/prod.tariffs/load");
  const size_t restore = all.out.find("2026-11-24T14:02:00+01:00  restore  flink://flink/job");
  ASSERT_NE(exec, std::string::npos) << all.out;
  ASSERT_NE(restore, std::string::npos) << all.out;
  EXPECT_LT(exec, restore);
  EXPECT_EQ(all.out.find("v4.1 deployed"), std::string::npos) << "older than the range: " << all.out;

  auto week = RunCommand(dw + " changes --since 7d --asset flink://flink/job --kind deploy --format json");
  ASSERT_EQ(week.exit_code, 0) << week.err;
  Json j = Json::parse(week.out);
  ASSERT_EQ(j["events"].size(), 2u) << week.out;
  EXPECT_EQ(j["timezone"], "Europe/Berlin");
  EXPECT_EQ(j["events"][0]["happened_local"], "2026-11-24T14:00:00+01:00");
  EXPECT_EQ(j["events"][1]["reason"], "v4.1 deployed");

  auto page = RunCommand(dw + " changes --limit 1");
  ASSERT_EQ(page.exit_code, 0) << page.err;
  EXPECT_NE(page.out.find("1 of 3 change(s)"), std::string::npos) << page.out;
  EXPECT_NE(page.out.find("more: --offset 1"), std::string::npos) << page.out;
  auto next = RunCommand(dw + " changes --limit 1 --offset 2");
  ASSERT_EQ(next.exit_code, 0) << next.err;
  EXPECT_NE(next.out.find("deploy  flink://flink/job"), std::string::npos) << next.out;
  EXPECT_EQ(next.out.find("more:"), std::string::npos) << next.out;

  auto until = RunCommand(dw + " changes --since 2026-11-24T13:01:00Z --until 2026-11-24T13:30:00Z --format json");
  ASSERT_EQ(until.exit_code, 0) << until.err;
  ASSERT_EQ(Json::parse(until.out)["events"].size(), 1u) << until.out;

  for (const std::string bad : {"--since 1x", "--until yesterday", "--kind bogus", "--limit 0",
                                "--since 2026-11-24T16:00:00Z --until 2026-11-24T15:00:00Z"}) {
    auto r = RunCommand(dw + " changes " + bad);
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.out << r.err;
    EXPECT_FALSE(r.err.empty()) << bad;
  }
}

}  // namespace
}  // namespace dw
