// Test helpers for platform clients: a simulator started from a script (or an example's script
// file) and the PlatformConfig that points at it.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "base/clock.h"
#include "config/workspace.h"
#include "sim/sim_support.h"
#include "tests/support/build_paths.h"

namespace dw::testing {

inline Json LoadScript(const std::string& relative_path) {
  std::ifstream in(std::string(DW_SOURCE_DIR) + "/" + relative_path);
  std::stringstream ss;
  ss << in.rdbuf();
  return Json::parse(ss.str());
}

inline std::unique_ptr<sim::RunningSim> StartSim(sim::Platform platform, const Json& script) {
  auto s = sim::RunningSim::Start(platform, script);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::move(s).value() : nullptr;
}

inline config::PlatformConfig PlatformAt(const std::string& name, const std::string& type,
                                         const std::string& url) {
  config::PlatformConfig p;
  p.name = name;
  p.type = type;
  p.url = url;
  p.tenant = "main";
  p.timeout = std::chrono::milliseconds(2000);
  return p;
}

}  // namespace dw::testing
