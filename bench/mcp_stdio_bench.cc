// MCP over stdio, measured the way a client sees it: `dw mcp AGENT` as a child process on pipes.
//  - start to first response: spawn + initialize, repeated;
//  - idle resident memory after initialize;
//  - round trips of ping and describe_workspace (p50, p99).
// usage: mcp_stdio_bench WORKSPACE_DIR [CALLS]   (default 10000 calls)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "mcp/stdio_client.h"
#include "tests/support/build_paths.h"

namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(p / 100.0 * static_cast<double>(v.size() - 1));
  return v[i];
}

long RssKb(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

void Report(const char* what, const std::vector<double>& us) {
  std::printf("%-40s n=%zu  p50=%.1f us  p99=%.1f us  max=%.1f us\n", what, us.size(),
              Percentile(us, 50), Percentile(us, 99), *std::max_element(us.begin(), us.end()));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s WORKSPACE_DIR [CALLS]\n", argv[0]);
    return 2;
  }
  std::string ws = argv[1];
  int calls = argc > 2 ? std::stoi(argv[2]) : 10000;
  std::vector<std::string> cmd = {DW_BINARY, "--workspace", ws, "mcp", "dw-incidents"};

  std::vector<double> start_ms;
  for (int i = 0; i < 30; ++i) {
    dw::mcp::StdioClient c;
    auto t0 = Clock::now();
    if (!c.Start(cmd).ok() || !c.Initialize("bench", 10s).ok()) {
      std::fprintf(stderr, "cannot start dw mcp\n");
      return 1;
    }
    start_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    c.Stop();
  }
  std::printf("%-40s n=30  p50=%.2f ms  p95=%.2f ms\n", "start to first response (initialize)",
              Percentile(start_ms, 50), Percentile(start_ms, 95));

  dw::mcp::StdioClient c;
  if (!c.Start(cmd).ok() || !c.Initialize("bench", 10s).ok()) return 1;
  std::this_thread::sleep_for(200ms);
  std::printf("%-40s %ld kB\n", "idle resident memory after initialize", RssKb(c.pid()));

  auto measure = [&](const char* what, const std::string& method, const dw::Json& params, int n) {
    std::vector<double> us;
    us.reserve(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      auto t0 = Clock::now();
      auto r = c.Call(method, params, 10s);
      if (!r.ok() || !r->contains("result")) {
        std::fprintf(stderr, "%s failed: %s\n", what, r.ok() ? r->dump().c_str() : r.status().ToString().c_str());
        std::exit(1);
      }
      us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    }
    Report(what, us);
  };
  measure("ping", "ping", dw::Json::object(), calls);
  measure("describe_workspace (probe=false)", "tools/call",
          {{"name", "describe_workspace"}, {"arguments", {{"probe", false}}}}, calls);
  measure("describe_workspace (probe=true)", "tools/call",
          {{"name", "describe_workspace"}, {"arguments", {{"probe", true}}}}, std::max(1, calls / 10));
  std::printf("%-40s %ld kB\n", "resident memory after the calls", RssKb(c.pid()));
  return c.Stop() == 0 ? 0 : 1;
}
