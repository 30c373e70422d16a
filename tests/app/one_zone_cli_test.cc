// One zone per answer: with the workspace's `timezone:` set, every time `dw blast-radius` prints
// (the moment of the answer, each consumer's next run, the provenance) reads in that zone with its
// offset, under a header naming it; none is left in UTC beside a local one. Judged over zones with
// whole, half and daylight-saving offsets and seeded moments on both sides of a DST change.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <regex>

#include "base/rfc3339.h"
#include "config/time_zone.h"
#include "tests/support/build_paths.h"
#include "tests/support/example_workspace.h"
#include "tests/support/subprocess.h"

namespace dw {
namespace {
namespace one_zone_cli_test {

using testing::RunCommand;

const std::string kDw = DW_BINARY;

TEST(OneZoneCliTest, EveryTimeABlastRadiusPrintsReadsInTheWorkspacesZone) {
  testing::TempDir tmp;
  const std::filesystem::path ws = testing::CopyExample(tmp, "loyalty-flink");
  std::mt19937 rng(20261207);
  const std::regex stamp(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d))");
  std::string current = "UTC";
  for (const char* zone_name : {"Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Adelaide", "UTC"}) {
    SCOPED_TRACE(zone_name);
    // The example says UTC; each round swaps the zone in.
    std::string text = testing::ReadWholeFile(ws / "dataworkers.yaml");
    text.replace(text.find("timezone: " + current), std::string("timezone: " + current).size(),
                 std::string("timezone: ") + zone_name);
    std::ofstream(ws / "dataworkers.yaml", std::ios::trunc) << text;
    current = zone_name;
    auto zone = config::TimeZone::Load(zone_name);
    ASSERT_TRUE(zone.ok()) << zone.status().ToString();
    for (int round = 0; round < 3; ++round) {
      // Moments through 2026, so some fall in summer time and some in winter time.
      const int64_t now_s = 1767225600 + static_cast<int64_t>(rng() % (365u * 86400u));
      const TimePoint now = FromUnixMillis(now_s * 1000);
      auto r = RunCommand(kDw + " --workspace '" + ws.string() + "' --now " + FormatRfc3339(now) +
                          " blast-radius table://main/member_balances");
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_NE(r.out.find("blast radius at " + config::FormatWithOffset(now, *zone) + " (" + zone_name + ")"),
                std::string::npos)
          << r.out;
      int stamps = 0;
      for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), stamp); it != std::sregex_iterator(); ++it) {
        ++stamps;
        const std::string s = it->str();
        Result<TimePoint> t = ParseRfc3339(s);
        ASSERT_TRUE(t.ok()) << s;
        EXPECT_EQ(s, config::FormatWithOffset(*t, *zone)) << "a time in another zone or spelling: " << s << "\n"
                                                          << r.out;
      }
      EXPECT_GE(stamps, 3) << "the answer, two next runs: " << r.out;
    }
  }
}

}  // namespace one_zone_cli_test
}  // namespace
}  // namespace dw
