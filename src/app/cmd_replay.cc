// `dw replay DIR [--format json]`: reads the scenario, replays it against the product, prints the
// timeline and the verdicts. Exit 0 when every expectation holds, 1 when one fails (or the replay
// could not run), 2 when the scenario is malformed.
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <system_error>

#include "app/commands.h"
#include "app/replay_product.h"
#include "replay/replay.h"

namespace dw::app {
namespace {

// dw-sim is built beside dw; DW_SIM names another one.
std::filesystem::path SimulatorBinary() {
  if (const char* env = std::getenv("DW_SIM"); env && *env) return env;
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return (ec ? std::filesystem::path(".") : self.parent_path()) / "dw-sim";
}

}  // namespace

int CmdReplay(const GlobalOptions&, const ReplayCommand& c) {
  auto scenario = replay::ReadScenario(c.dir);
  if (!scenario.ok()) {
    std::cerr << "dw replay: " << scenario.status().message() << "\n";
    return 2;
  }
  replay::ReplayOptions options;
  options.sim_binary = SimulatorBinary();
  options.product = MakeReplayProduct;
  options.scratch = c.keep_scratch;
  options.keep_scratch = !c.keep_scratch.empty();
  auto report = replay::Replay(*scenario, options);
  if (!report.ok()) {
    std::cerr << "dw replay: " << report.status().message() << "\n";
    return report.status().code() == StatusCode::kInvalidArgument ? 2 : 1;
  }
  if (c.format == "json") std::cout << report->ToJson().dump(2) << "\n";
  else std::cout << report->ToText();
  return report->passed() ? 0 : 1;
}

}  // namespace dw::app
