// `dw monitor mark` and `dw monitor prune`: the commands that change what is stored about metrics
// (ranges marked expected, retention).
#include <iostream>

#include "app/command_start.h"
#include "app/commands.h"
#include "workspace/services.h"
#include "config/duration.h"
#include "incidents/incidents.h"
#include "observe/metrics/metric_marks.h"
#include "observe/metrics/retention.h"

namespace dw::app {

int CmdMonitorMark(const GlobalOptions& g, const MonitorMarkOptions& o) {
  StartedCommand start = StartCommand(g, "monitor mark", {.records = true});
  if (!start) return start.exit_code;
  // A mark silences the monitor over its range: only a person makes one, and it names them.
  if (Status who = incidents::CheckPersonActor(o.as); !who.ok()) {
    std::cerr << "dw monitor mark: " << who.message() << "\n";
    return 2;
  }
  const auto& services = start.services;
  // A duration back from now, as every time option takes; a timestamp only with its zone: a mark
  // silences its range for good, so a date read in the wrong zone would hide a real anomaly.
  const int64_t now = ToUnixMillis(services->clock().Now());
  auto parse = [&](const std::string& name, const std::string& text) -> Result<int64_t> {
    if (auto ago = config::ParseDuration(text); ago.ok()) return now - ago->count();
    return observe::metrics::ParseRfc3339Millis(text, name);
  };
  auto from_ms = parse("--from", o.from);
  auto to_ms = parse("--to", o.to);
  for (const Status& st : {from_ms.status(), to_ms.status()}) {
    if (!st.ok()) {
      std::cerr << "dw monitor mark: " << st.message() << " (or a duration back from now: 6h)\n";
      return 2;
    }
  }
  const int64_t from = *from_ms, to = *to_ms;
  auto store = services->state();
  if (!store.ok()) {
    std::cerr << "dw monitor mark: state store: " << store.status().message() << "\n";
    return 2;
  }
  observe::metrics::MarkRequest req{o.metric, from, to, o.note, o.as};
  auto report = observe::metrics::MarkExpected(services->workspace(), **store, req);
  if (!report.ok()) {
    std::cerr << "dw monitor mark: " << report.status().message() << "\n";
    return 2;
  }
  std::cout << "marked " << o.metric << " expected from " << FormatRfc3339(FromUnixMillis(from))
            << " to " << FormatRfc3339(FromUnixMillis(to)) << " for " << o.as << " (mark " << report->id << ", "
            << report->points_covered << " stored point(s) in the range now; later points in it "
            << "are learnt as they arrive)\n";
  return 0;
}

int CmdMonitorPrune(const GlobalOptions& g) {
  StartedCommand start = StartCommand(g, "monitor prune");
  if (!start) return start.exit_code;
  const auto& services = start.services;
  auto store = services->state();
  if (!store.ok()) {
    std::cerr << "dw monitor prune: state store: " << store.status().message() << "\n";
    return 2;
  }
  auto report = observe::metrics::PruneMetricPoints(services->workspace(), **store, services->clock());
  if (!report.ok()) {
    std::cerr << "dw monitor prune: " << report.status().message() << "\n";
    return 2;
  }
  for (const auto& m : report->metrics)
    std::cout << m.metric << ": deleted " << m.deleted << " point(s) older than "
              << config::FormatDuration(std::chrono::milliseconds(m.retention_ms)) << "\n";
  std::cout << "deleted " << report->deleted << " metric point(s) in all\n";
  return 0;
}

}  // namespace dw::app
