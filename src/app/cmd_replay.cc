// `dw replay DIR [--format json]`: reads the scenario, replays it against the product, prints the
// timeline and the verdicts. Exit 0 when every expectation holds, 1 when one fails (or the replay
// could not run), 2 when the scenario is malformed.
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <system_error>

#include "app/commands.h"
#include "app/replay_product.h"
#include "replay/families/family.h"
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

// `dw replay --family`: the generator and the judging live in replay/families; this translates.
int CmdReplayFamily(const ReplayCommand& c) {
  if (!c.dir.empty()) {
    std::cerr << "dw replay: give either a scenario folder or --family, not both\n";
    return 2;
  }
  if (c.no_replay && c.out.empty()) {
    std::cerr << "dw replay: --no-replay needs --out (the variants would be written nowhere)\n";
    return 2;
  }
  auto stories = replay::families::GenerateFamily(c.family, c.seed, c.count);
  if (!stories.ok()) {
    std::cerr << "dw replay: " << stories.status().message() << "\n";
    return 2;
  }
  std::error_code ec;
  std::filesystem::path out = c.out;
  bool temporary = out.empty();
  if (temporary)
    out = std::filesystem::temp_directory_path(ec) / ("dw-family-" + c.family + "-" + std::to_string(::getpid()));
  replay::ReplayOptions options;
  options.sim_binary = SimulatorBinary();
  options.product = MakeReplayProduct;
  auto verdicts = replay::families::WriteAndReplay(*stories, out, c.no_replay ? nullptr : &options,
                                                   [&](const replay::families::VariantVerdict& v) {
                                                     if (c.format != "json")
                                                       std::cerr << v.name << ": " << replay::families::OutcomeName(v.outcome) << "\n";
                                                   });
  if (temporary) std::filesystem::remove_all(out, ec);
  if (!verdicts.ok()) {
    std::cerr << "dw replay: " << verdicts.status().message() << "\n";
    return 1;
  }
  if (c.no_replay) {
    for (const auto& s : *stories) std::cout << (out / s.name).string() << "\n";
    return 0;
  }
  if (c.format == "json") std::cout << replay::families::SummaryJson(*verdicts).dump(2) << "\n";
  else std::cout << replay::families::SummaryText(*verdicts);
  for (const auto& v : *verdicts)
    if (v.outcome != replay::families::Outcome::kFirst && v.outcome != replay::families::Outcome::kQuiet) return 1;
  return 0;
}

}  // namespace

int CmdReplay(const GlobalOptions&, const ReplayCommand& c) {
  if (!c.family.empty()) return CmdReplayFamily(c);
  if (c.dir.empty()) {
    std::cerr << "dw replay: give a scenario folder (DIR) or --family NAME\n";
    return 2;
  }
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
