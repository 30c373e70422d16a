// `dw collect`: one incremental pass of the change timeline collector over every platform.
#include <iostream>

#include "app/command_start.h"
#include "app/commands.h"
#include "workspace/services.h"
#include "observe/changes/collector.h"

namespace dw::app {

int CmdCollect(const GlobalOptions& g, const std::string& format, const std::string& max_log_bytes) {
  StartedCommand start = StartCommand(g, "collect");
  if (!start) return start.exit_code;
  const auto& services = start.services;
  observe::changes::CollectOptions options;
  if (!max_log_bytes.empty()) {
    try {
      size_t pos = 0;
      unsigned long long v = std::stoull(max_log_bytes, &pos);
      if (pos != max_log_bytes.size() || v == 0) throw std::invalid_argument("bad");
      options.max_log_bytes = v;
    } catch (const std::exception&) {
      std::cerr << "dw collect: --max-log-bytes must be a positive number of bytes, got '" << max_log_bytes << "'\n";
      return 2;
    }
  }
  auto store = services->state();
  if (!store.ok()) {
    std::cerr << "dw collect: state store: " << store.status().message() << "\n";
    return 2;
  }
  auto report = observe::changes::CollectChanges(services->workspace(), services->http(), **store,
                                                 services->clock(), options);
  if (!report.ok()) {
    std::cerr << "dw collect: " << report.status().message() << "\n";
    return 2;
  }
  if (format == "json") {
    std::cout << report->ToJson().dump(2) << "\n";
  } else {
    for (const auto& p : report->platforms) {
      std::cout << p.platform << " (" << p.type << "): ";
      if (!p.reachable) std::cout << "UNREACHABLE, ";
      std::cout << p.new_events << " new event(s), " << p.duplicates << " already known\n";
      for (const auto& e : p.errors) std::cout << "  error: " << e << "\n";
      for (const auto& n : p.notes) std::cout << "  note: " << n << "\n";
    }
    if (report->platforms.empty()) std::cout << "no platforms configured; nothing to collect\n";
    std::cout << report->new_events() << " new change event(s) stored\n";
  }
  return report->any_errors() ? 1 : 0;
}

}  // namespace dw::app
