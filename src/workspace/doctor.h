// `dw doctor`: everything a workspace depends on, checked in one pass, each failure with what to do
// about it, in the spirit of `dbt debug`. Nothing is written outside the check itself (the state
// store's write probe is rolled back) and no message is sent: a channel is validated only where
// its service has a call for that.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "base/json.h"
#include "workspace/services.h"

namespace dw::workspace {

// What one check found.
struct DoctorFinding {
  enum class Verdict {
    kOk,          // checked and fine
    kProblem,     // checked and something must be fixed (exit 1)
    kNotChecked,  // could not or need not be checked here; `detail` says why
  };
  std::string area;     // "workspace", "state", "clock", "warehouse", "platform", "notify",
                        // "approvals", "desk"
  std::string subject;  // what in that area: a warehouse's name, a person's email, a file
  Verdict verdict = Verdict::kOk;
  std::string detail;  // what was seen, one sentence, never a secret
  std::string fix;     // what to do, when verdict is kProblem (one sentence)
};

struct DoctorOptions {
  // The longest any one check waits for an answer (a warehouse, a platform, the desk). Checks run
  // side by side, so the whole pass takes about the slowest one, not the sum.
  std::chrono::milliseconds timeout{10'000};
  // How far the store's clock may be from this process's before it is a problem: time-based
  // decisions (approval expiry, signed statements, leases) compare the two.
  std::chrono::milliseconds max_clock_skew{30'000};
};

struct DoctorReport {
  std::vector<DoctorFinding> findings;  // in the order of the areas above
  // 0 when nothing is a problem, 1 otherwise (the workspace or something it names needs fixing).
  int ExitCode() const;
};

// Checks the workspace `services` loaded (or failed to load) and everything it names: the file
// validates; the state store opens, is migrated, accepts a write (rolled back) and, for SQLite, is
// readable by its owner only; the store's clock is within options.max_clock_skew; each warehouse is
// reachable and each checked table readable (a missing grant is named); each platform answers its
// token; each notification channel is configured and, where the service allows it without sending
// (Slack's auth.test), accepted; every approver can decide (a declared key the store holds, or
// signed links with a strong DW_APPROVAL_LINK_KEY); desk.url answers. A workspace that does not
// load is reported error by error and nothing else is checked. Never throws.
DoctorReport RunDoctor(Services& services, const DoctorOptions& options = {});

// {"ok": bool, "findings": [{"area", "subject", "verdict": "ok"|"problem"|"not_checked", "detail",
// "fix"?}], "problems": n}
Json DoctorJson(const DoctorReport& report);

// The verdict's name in DoctorJson ("ok", "problem", "not_checked").
const char* VerdictName(DoctorFinding::Verdict verdict);

}  // namespace dw::workspace
