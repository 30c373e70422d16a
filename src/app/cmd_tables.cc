// `dw tables`: every table the automatic monitors watch, from the state store (docs/auto-monitors.md).
#include <iostream>

#include "app/command_start.h"
#include "app/commands.h"
#include "base/redaction.h"
#include "observe/auto_monitor/auto_monitor.h"
#include "workspace/incident_windows.h"
#include "workspace/services.h"

namespace dw::app {

int CmdTables(const GlobalOptions& g, const std::string& pattern, bool refresh, const std::string& format) {
  StartedCommand start = StartCommand(g, "tables");
  if (!start) return start.exit_code;
  const auto& services = start.services;
  Result<store::StateStore*> store = services->state();
  if (!store.ok()) {
    std::cerr << "dw tables: the state store cannot be opened: " << RedactSecrets(store.status().message()) << "\n";
    return 2;
  }
  observe::auto_monitor::PassOptions options;
  options.http = &services->http();
  options.unlearnt = workspace::IncidentWindowsOfMany(**store);
  auto answer = observe::auto_monitor::AnswerTables(services->workspace(), **store, services->clock(), pattern,
                                                    refresh, options);
  if (!answer.ok()) {
    std::cerr << "dw tables: " << RedactSecrets(answer.status().message()) << "\n";
    return 2;
  }
  bool bad = false;
  for (const auto& t : answer->tables)
    bad |= t.verdict == "late" || t.verdict == "schema_changed" || t.verdict == "volume_anomaly";
  for (const auto& p : answer->passes) bad |= !p.status.ok();
  if (format == "json") {
    std::cout << answer->ToJson().dump(2) << "\n";
    return bad ? 1 : 0;
  }
  for (const auto& p : answer->passes) {
    if (!p.status.ok()) {
      std::cout << "warehouse " << p.warehouse << ": not read: " << RedactSecrets(p.status.message()) << "\n";
      continue;
    }
    std::cout << "warehouse " << p.warehouse << ": " << p.tables << " table(s) read from " << p.source << " in "
              << p.statements << " catalog statement(s)" << (p.excluded ? ", " + std::to_string(p.excluded) + " excluded" : "")
              << "\n";
    for (const auto& problem : p.problems) std::cout << "  missing grant: " << problem << "\n";
    for (const auto& gone : p.vanished) std::cout << "  dropped while read: " << gone << "\n";
  }
  for (const auto& note : answer->notes) std::cout << "note: " << note << "\n";
  if (answer->tables.empty())
    std::cout << (pattern.empty() ? "no table watched yet" : "no watched table matches " + pattern)
              << (refresh ? "" : " (dw watch runs the metadata pass; dw tables --refresh runs one now)") << "\n";
  for (const auto& t : answer->tables) {
    std::cout << t.name << (t.view ? " (view)" : "") << ": " << t.verdict << "\n";
    std::string monitors;
    for (const auto& m : t.monitors) monitors += (monitors.empty() ? "" : ", ") + m;
    std::cout << "  monitors: " << (monitors.empty() ? "none (no metadata to watch)" : monitors);
    if (t.row_count) std::cout << "; rows " << (t.row_count_exact ? "" : "~") << *t.row_count;
    std::cout << "\n  cadence: " << (t.cadence.kind == observe::auto_monitor::CadenceKind::kUnknown ? "not learnt yet" : t.cadence.text)
              << "; last load: " << (t.last_load_ms ? observe::auto_monitor::WatchedTableJson(t)["last_load"].get<std::string>() : "none seen")
              << (t.rows_last_load ? " (" + std::to_string(*t.rows_last_load) + " rows)" : "") << "\n";
    std::cout << "  " << t.sentence << "\n";
    for (const auto& d : t.declared) std::cout << "  declared " << d << "\n";
  }
  return bad ? 1 : 0;
}

}  // namespace dw::app
