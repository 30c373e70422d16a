#include "workspace/doctor.h"

#include <future>

#include "actions/actions.h"
#include "base/log.h"
#include "workspace/doctor_checks.h"

namespace dw::workspace {
namespace {

using doctor::Found;
using Verdict = DoctorFinding::Verdict;

// The workspace file: one finding per configuration error, or one that it validates.
std::vector<DoctorFinding> CheckWorkspaceFile(Services& services) {
  const std::string file = (services.dir() / config::kWorkspaceFileName).string();
  if (services.workspace_status().ok()) {
    const config::Workspace& ws = services.workspace();
    return {Found("workspace", file, Verdict::kOk,
                  "validates: " + std::to_string(ws.warehouses.size()) + " warehouse(s), " +
                      std::to_string(ws.platforms.size()) + " platform(s), " + std::to_string(ws.checks.size()) +
                      " check block(s), " + std::to_string(ws.monitors.size()) + " monitor(s)")};
  }
  std::vector<DoctorFinding> out;
  for (const config::ConfigError& e : services.config_errors())
    out.push_back(Found("workspace", file, Verdict::kProblem, e.ToString(),
                        "edit " + e.file + (e.line > 0 ? " at line " + std::to_string(e.line) : "") +
                            ", then run `dw validate`"));
  if (out.empty())  // no file, or one that could not be read
    out.push_back(Found("workspace", file, Verdict::kProblem, RedactSecrets(services.workspace_status().message()),
                        "create one with `dw init DIR`, or point --workspace at the folder that holds it"));
  return out;
}

}  // namespace

namespace doctor {

DoctorFinding Found(std::string area, std::string subject, Verdict verdict, std::string detail, std::string fix) {
  DoctorFinding f;
  f.area = std::move(area);
  f.subject = std::move(subject);
  f.verdict = verdict;
  f.detail = RedactSecrets(detail);
  if (verdict == Verdict::kProblem) f.fix = RedactSecrets(fix);
  return f;
}

}  // namespace doctor

int DoctorReport::ExitCode() const {
  for (const DoctorFinding& f : findings)
    if (f.verdict == Verdict::kProblem) return 1;
  return 0;
}

const char* VerdictName(Verdict verdict) {
  switch (verdict) {
    case Verdict::kOk: return "ok";
    case Verdict::kProblem: return "problem";
    case Verdict::kNotChecked: return "not_checked";
  }
  return "problem";
}

DoctorReport RunDoctor(Services& services, const DoctorOptions& options) {
  DoctorReport report;
  auto add = [&report](std::vector<DoctorFinding> v) {
    for (DoctorFinding& f : v) report.findings.push_back(std::move(f));
  };
  add(CheckWorkspaceFile(services));
  if (!services.workspace_status().ok()) {
    report.findings.push_back(Found("workspace", "the rest", Verdict::kNotChecked,
                                    "the store, warehouses, platforms, channels and approvers are named by the "
                                    "workspace file, which does not load"));
    return report;
  }
  // The network checks wait on other machines: they run side by side, each bounded by
  // options.timeout, so one slow warehouse costs one timeout, not one per check after it.
  auto warehouses = std::async(std::launch::async, [&] { return doctor::CheckWarehouses(services, options); });
  auto platforms = std::async(std::launch::async, [&] { return doctor::CheckPlatforms(services, options); });
  auto desk = std::async(std::launch::async, [&] { return doctor::CheckDesk(services, options); });
  auto notify = std::async(std::launch::async, [&] { return doctor::CheckNotify(services, options); });
  add(doctor::CheckStateStore(services, options));
  Result<store::StateStore*> store = services.state();
  std::vector<DoctorFinding> approvals = doctor::CheckApprovals(
      services.workspace(), store.ok() ? *store : nullptr, actions::ApprovalLinkKeyFromEnvironment());
  add(warehouses.get());
  add(platforms.get());
  add(notify.get());
  add(std::move(approvals));
  add(desk.get());
  return report;
}

Json DoctorJson(const DoctorReport& report) {
  Json findings = Json::array();
  int problems = 0;
  for (const DoctorFinding& f : report.findings) {
    Json j = {{"area", f.area}, {"subject", f.subject}, {"verdict", VerdictName(f.verdict)}, {"detail", f.detail}};
    if (f.verdict == Verdict::kProblem) {
      j["fix"] = f.fix;
      ++problems;
    }
    findings.push_back(std::move(j));
  }
  return {{"ok", problems == 0}, {"problems", problems}, {"findings", std::move(findings)}};
}

}  // namespace dw::workspace
