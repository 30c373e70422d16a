// `dw doctor`: everything the workspace depends on, checked, with what to do about each failure.
#include <iomanip>
#include <iostream>

#include "app/command_start.h"
#include "app/commands.h"
#include "workspace/doctor.h"

namespace dw::app {
namespace {

const char* Mark(workspace::DoctorFinding::Verdict v) {
  switch (v) {
    case workspace::DoctorFinding::Verdict::kOk: return "ok";
    case workspace::DoctorFinding::Verdict::kProblem: return "PROBLEM";
    case workspace::DoctorFinding::Verdict::kNotChecked: return "-";
  }
  return "?";
}

void PrintText(const workspace::DoctorReport& report) {
  int ok = 0, problems = 0, unchecked = 0;
  for (const auto& f : report.findings) {
    std::cout << std::left << std::setw(9) << Mark(f.verdict) << std::setw(11) << f.area << f.subject << ": "
              << f.detail << "\n";
    if (!f.fix.empty()) std::cout << std::string(20, ' ') << "fix: " << f.fix << "\n";
    ok += f.verdict == workspace::DoctorFinding::Verdict::kOk;
    problems += f.verdict == workspace::DoctorFinding::Verdict::kProblem;
    unchecked += f.verdict == workspace::DoctorFinding::Verdict::kNotChecked;
  }
  std::cout << problems << " problem(s), " << ok << " ok, " << unchecked << " not checked\n";
}

}  // namespace

int CmdDoctor(const GlobalOptions& g, const std::string& format, int timeout_seconds) {
  StartedCommand start = StartCommand(g, "doctor", {.require_workspace = false});
  if (!start) return start.exit_code;
  workspace::DoctorOptions options;
  options.timeout = std::chrono::seconds(timeout_seconds);
  workspace::DoctorReport report = workspace::RunDoctor(*start.services, options);
  if (format == "json") {
    std::cout << workspace::DoctorJson(report).dump(2) << "\n";
  } else {
    PrintText(report);
  }
  // No workspace file at all: there was nothing to check (2), as `dw validate` says.
  if (!start.services->workspace_status().ok() && start.services->config_errors().empty()) return 2;
  return report.ExitCode();
}

}  // namespace dw::app
