// `dw collect` end to end: the dw binary against dw-sim child processes (the EV example's script).
#include <gtest/gtest.h>

#include <unistd.h>

#include <csignal>
#include <thread>

#include "tests/platforms/platform_test_support.h"
#include "tests/support/build_paths.h"
#include "tests/support/subprocess.h"

namespace dw {
namespace {

using dw::testing::RunCommand;

TEST(CollectCliTest, CollectsTheEvNightFromADwSimProcessAndDedupsTheSecondPass) {
  dw::testing::TempDir dir;
  // dw-sim as its own process, as the demo runs it.
  std::string port = std::to_string(20000 + ::getpid() % 5000);  // apart from the demo's ports
  std::string sim_cmd = std::string(DW_SIM_BINARY) + " kestra --listen 127.0.0.1:" + port + " --script " +
                        DW_SOURCE_DIR + "/examples/ev-kestra/sim/kestra.json > " + (dir.path() / "sim.log").string() +
                        " 2>&1 & echo $! > " + (dir.path() / "sim.pid").string();
  ASSERT_EQ(std::system(sim_cmd.c_str()), 0);
  auto stop = [&] {
    std::string pid = dw::testing::ReadWholeFile(dir.path() / "sim.pid");
    if (!pid.empty()) ::kill(std::stoi(pid), SIGTERM);
  };
  for (int i = 0; i < 200 && dw::testing::ReadWholeFile(dir.path() / "sim.log").find("listening") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  dir.Write("dataworkers.yaml",
            "version: 1\nname: ev\nwarehouses:\n  main: {type: sqlite, path: warehouse.db}\n"
            "platforms:\n  kestra: {type: kestra, url: \"http://127.0.0.1:" + port +
                "\", tenant: main, username: admin@kestra.io, password: \"Admin1234!\"}\n"
                "assets:\n  - id: kestra://kestra/pricing.tariff_sync\n");
  // The script's clock reads 02:36 on 2026-11-25; the first pass looks back a week from the
  // collector's clock, so that clock is pinned to the script's rather than the wall's (on
  // 2026-12-02 a week back from the wall clock no longer reached the 00:05 execution).
  std::string dw = std::string(DW_BINARY) + " --workspace " + dir.path().string() +
                   " --now 2026-11-25T02:36:00Z collect";
  auto first = RunCommand(dw + " --format json");
  auto second = RunCommand(dw);
  stop();
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  Json report = Json::parse(first.out);
  EXPECT_EQ(report["platforms"][0]["platform"], "kestra");
  EXPECT_EQ(report["new_events"], 4);  // four executions ended by 02:36
  ASSERT_EQ(second.exit_code, 0) << second.out << second.err;
  EXPECT_NE(second.out.find("0 new change event(s) stored"), std::string::npos) << second.out;
  EXPECT_EQ(first.out.find("Admin1234!"), std::string::npos);
}

TEST(CollectCliTest, UnreachablePlatformExitsOneAndSaysSo) {
  dw::testing::TempDir dir;
  dir.Write("dataworkers.yaml",
            "version: 1\nname: x\nwarehouses:\n  main: {type: sqlite, path: warehouse.db}\n"
            "platforms:\n  flink: {type: flink, url: \"http://127.0.0.1:1\", timeout: 1s}\n");
  auto r = RunCommand(std::string(DW_BINARY) + " --workspace " + dir.path().string() + " collect");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("flink (flink): UNREACHABLE"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("GET http://127.0.0.1:1/jobs/overview"), std::string::npos) << r.out;
  auto bad = RunCommand(std::string(DW_BINARY) + " --workspace " + dir.path().string() + " collect --max-log-bytes lots");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--max-log-bytes"), std::string::npos);
}

}  // namespace
}  // namespace dw
