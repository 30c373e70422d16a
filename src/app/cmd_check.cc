// `dw check [TABLE...]`: runs the workspace's quality checks, like `soda scan` or `dbt test`, with
// an exit code a CI step can gate on.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <map>

#include "app/command_start.h"
#include "app/commands.h"
#include "workspace/services.h"
#include "base/log.h"
#include "observe/quality/quality_run.h"
#include "config/duration.h"

namespace dw::app {
namespace {

const char* Tag(observe::quality::Verdict v) {
  switch (v) {
    case observe::quality::Verdict::kPass: return "PASS ";
    case observe::quality::Verdict::kFail: return "FAIL ";
    case observe::quality::Verdict::kError: return "ERROR";
    case observe::quality::Verdict::kSkipped: return "SKIP ";
    case observe::quality::Verdict::kWarn: return "WARN ";
  }
  return "?";
}

// True when every check of `t` errored with one message (an unreachable warehouse, a table that is
// gone): that message is said once for the table instead of once per check.
bool OneErrorForAll(const observe::quality::TableReport& t) {
  if (t.outcomes.size() < 2) return false;
  for (const observe::quality::CheckOutcome& o : t.outcomes)
    if (o.verdict != observe::quality::Verdict::kError || o.message != t.outcomes.front().message) return false;
  return true;
}

void PrintText(const observe::quality::QualityReport& report) {
  std::map<std::string, std::string> said;  // an error message -> the first table it was said for
  for (const observe::quality::TableReport& t : report.tables) {
    std::cout << t.asset_id << "  (" << (t.rows ? std::to_string(*t.rows) + " rows scanned, " : "")
              << t.queries << (t.queries == 1 ? " query, " : " queries, ") << t.duration_ms
              << " ms)\n";
    if (OneErrorForAll(t)) {
      const std::string& message = t.outcomes.front().message;
      auto [first, fresh] = said.emplace(message, t.asset_id);
      std::cout << "  " << Tag(observe::quality::Verdict::kError) << "  all " << t.outcomes.size()
                << " checks: " << (fresh ? message : "the same error as " + first->second) << "\n";
      for (const std::string& n : t.notes) std::cout << "  note: " << n << "\n";
      continue;
    }
    size_t width = 0;
    for (const observe::quality::CheckOutcome& o : t.outcomes) width = std::max(width, o.name.size());
    for (const observe::quality::CheckOutcome& o : t.outcomes) {
      std::cout << "  " << Tag(o.verdict) << "  " << o.name << std::string(width - o.name.size() + 2, ' ')
                << o.message << "\n";
      if (o.sample && !o.sample->empty()) {
        size_t shown = 0;
        for (const Json& row : *o.sample) {
          if (shown++ == 3) {
            std::cout << "         ... " << o.sample->size() - 3 << " more in --format json\n";
            break;
          }
          std::cout << "         sample " << row.dump() << "\n";
        }
      }
      if (o.failing_rows_query) std::cout << "         failing rows: " << *o.failing_rows_query << "\n";
    }
    for (const std::string& n : t.notes) std::cout << "  note: " << n << "\n";
  }
  if (report.dbt) {
    const observe::quality::DbtReport& d = *report.dbt;
    std::cout << "\ndbt tests of " << (d.project.empty() ? d.manifest : d.project) << ": " << d.tests << " in the manifest, "
              << d.imported << " imported as checks, " << d.not_imported.size() << " not imported\n";
    for (const observe::quality::DbtTestNotImported& n : d.not_imported)
      std::cout << "  NOT IMPORTED  " << n.name << (n.model.empty() ? "" : " (" + n.model + ")") << ": " << n.reason << "\n";
  }
  std::cout << "\n"
            << report.Count(observe::quality::Verdict::kPass) + report.Count(observe::quality::Verdict::kFail) +
                   report.Count(observe::quality::Verdict::kError) + report.Count(observe::quality::Verdict::kSkipped) +
                   report.Count(observe::quality::Verdict::kWarn)
            << " checks on " << report.tables.size() << (report.tables.size() == 1 ? " table: " : " tables: ")
            << report.Count(observe::quality::Verdict::kPass) << " passed, "
            << report.Count(observe::quality::Verdict::kFail) << " failed, "
            << report.Count(observe::quality::Verdict::kWarn) << " warned, "
            << report.Count(observe::quality::Verdict::kError) << " errors, "
            << report.Count(observe::quality::Verdict::kSkipped) << " skipped (run " << report.run_id
            << (report.record_error ? ", NOT recorded: " + *report.record_error : "") << ")\n";
}

}  // namespace

int CmdCheck(const GlobalOptions& g, const CheckOptions& options) {
  StartedCommand start = StartCommand(g, "check");
  if (!start) return start.exit_code;
  const auto& services = start.services;
  observe::quality::QualityRequest req;
  req.http = &services->http();
  req.tables = options.tables;
  req.checks = options.checks;
  req.max_scan_rows = options.max_scan_rows;
  req.max_scan_bytes = options.max_scan_bytes;
  req.record = options.record;
  if (!options.since.empty()) {
    Result<TimePoint> since = config::ParseTimeOrAgo("since", options.since, services->clock().Now());
    if (!since.ok()) {
      std::cerr << "dw check: " << since.status().message() << "\n";
      return 2;
    }
    req.since = *since;
  }
  store::StateStore* store = nullptr;
  if (options.record) {
    Result<store::StateStore*> opened = services->state();
    if (!opened.ok()) {
      std::cerr << "dw check: the state store cannot be opened, so results would be lost: "
                << RedactSecrets(opened.status().message()) << " (use --no-record to run anyway)\n";
      return 2;
    }
    store = *opened;
  }
  // A progress bar on a terminal for multi-table runs; plain lines when stderr is a log.
  const bool tty = isatty(STDERR_FILENO) == 1;
  observe::quality::QualityProgress progress = [&](size_t done, size_t total, const observe::quality::TableReport& t) {
    if (total < 2) return;
    if (tty) {
      const int width = 30;
      int filled = static_cast<int>(width * done / total);
      std::fprintf(stderr, "\r[%s%s] %zu/%zu %s\033[K", std::string(static_cast<size_t>(filled), '#').c_str(),
                   std::string(static_cast<size_t>(width - filled), '.').c_str(), done, total,
                   t.asset_id.c_str());
      if (done == total) std::fputs("\n", stderr);
    } else {
      std::fprintf(stderr, "checked %zu/%zu %s\n", done, total, t.asset_id.c_str());
    }
  };
  Result<observe::quality::QualityReport> report =
      observe::quality::RunQuality(services->workspace(), store, services->clock(), req, progress);
  if (!report.ok()) {
    std::cerr << "dw check: " << RedactSecrets(report.status().message()) << "\n";
    return 2;
  }
  if (options.format == "json") {
    std::cout << RedactSecrets(report->ToJson().dump(2)) << "\n";
  } else {
    PrintText(*report);
  }
  // Results that were lost are a run that did not do its work, whatever the checks found.
  if (report->record_error) {
    std::cerr << "dw check: the results could not be recorded: " << *report->record_error << "\n";
    return 2;
  }
  return report->ExitCode();
}

}  // namespace dw::app
