// `dw spend`: what the warehouses' queries cost, from their own accounting.
#include <cstdio>
#include <iostream>

#include "app/command_start.h"
#include "app/commands.h"
#include "config/duration.h"
#include "observe/spend/warehouse_spend.h"
#include "workspace/services.h"

namespace dw::app {
namespace {

std::string Amount(const observe::spend::SpendGroup& g, const std::string& unit) {
  char buf[64];
  if (unit == "credits") {
    std::snprintf(buf, sizeof buf, "%.4f credits", g.credits);
  } else {
    std::snprintf(buf, sizeof buf, "%.3f GiB billed, %.1f slot-h", static_cast<double>(g.bytes_billed) / (1 << 30),
                  static_cast<double>(g.slot_ms) / 3.6e6);
  }
  return buf;
}

}  // namespace

int CmdSpend(const GlobalOptions& g, const std::string& since_text, const std::string& by, const std::string& format) {
  StartedCommand start = StartCommand(g, "spend");
  if (!start) return start.exit_code;
  const auto& services = start.services;
  const TimePoint now = services->clock().Now();
  Result<TimePoint> since = config::ParseTimeOrAgo("since", since_text, now);
  if (!since.ok()) {
    std::cerr << "dw spend: " << since.status().message() << "\n";
    return 2;
  }
  Result<observe::spend::SpendReport> report = observe::spend::ReportSpend(services->workspace(), services->http(), *since, now, by);
  if (!report.ok()) {
    std::cerr << "dw spend: " << report.status().message() << "\n";
    return 2;
  }
  bool failed = false;
  for (const auto& w : report->warehouses) failed = failed || !w.error.empty();
  if (format == "json") {
    std::cout << report->ToJson().dump(2) << "\n";
    return failed ? 1 : 0;
  }
  if (report->warehouses.empty()) std::cout << "no warehouse bills per query (SQLite and PostgreSQL do not); nothing to report\n";
  for (const auto& w : report->warehouses) {
    std::cout << w.warehouse << " (" << w.type << ") since " << FormatRfc3339(report->since) << ", by " << by << "\n";
    if (!w.error.empty()) {
      std::cout << "  error: " << w.error << "\n";
      continue;
    }
    for (const auto& group : w.groups)
      std::cout << "  " << group.key << ": " << Amount(group, w.unit) << " in " << group.queries << " quer"
                << (group.queries == 1 ? "y" : "ies") << "\n";
    std::cout << "  total: " << Amount(w.total, w.unit) << " in " << w.total.queries << " queries; Data Workers' own: "
              << Amount(w.ours, w.unit) << " in " << w.ours.queries << "\n";
    std::cout << "  from " << w.source << "\n";
    for (const auto& n : w.notes) std::cout << "  note: " << n << "\n";
  }
  return failed ? 1 : 0;
}

}  // namespace dw::app
