// Inside workspace/: the areas `dw doctor` checks, one function each, combined by RunDoctor
// (doctor.cc). Each returns its findings and never throws; a dependency that does not answer is a
// finding, not an error.
#pragma once

#include <optional>
#include <vector>

#include "config/workspace.h"
#include "store/state_store.h"
#include "workspace/doctor.h"
#include "workspace/services.h"

namespace dw::workspace::doctor {

using Verdict = DoctorFinding::Verdict;

// A finding of `verdict` (fix only for kProblem).
DoctorFinding Found(std::string area, std::string subject, Verdict verdict, std::string detail, std::string fix = "");

// The state store: opens and is migrated (through services), accepts a write (rolled back), is
// private (SQLite: no group or other permission bits on the file or its -wal/-shm), and keeps a
// clock within options.max_clock_skew of this process's (PostgreSQL).
std::vector<DoctorFinding> CheckStateStore(Services& services, const DoctorOptions& options);

// The write probe alone: a cursor set inside a transaction that is then rolled back.
DoctorFinding StoreWriteFinding(store::StateStore& store, const std::string& location);

// The clock comparison alone: `store_now` (nullopt: the store has no clock of its own) against `now`.
DoctorFinding ClockFinding(const std::optional<TimePoint>& store_now, TimePoint now, std::chrono::milliseconds max_skew);

// Each warehouse answers, and each table a check names can be read (the missing grant named).
std::vector<DoctorFinding> CheckWarehouses(Services& services, const DoctorOptions& options);

// Each platform answers its configured token on the endpoint its collector reads.
std::vector<DoctorFinding> CheckPlatforms(Services& services, const DoctorOptions& options);

// Each notification channel builds from its settings and, where the service can say without a
// message, accepts its credentials.
std::vector<DoctorFinding> CheckNotify(Services& services, const DoctorOptions& options);

// Everyone asked to decide can: a declared key the store holds, or signed links / the SSO proxy;
// and DW_APPROVAL_LINK_KEY (`desk_key`, "" when unset) is strong enough where it is needed.
// `store` may be null (the store did not open): stored keys are then not compared.
std::vector<DoctorFinding> CheckApprovals(const config::Workspace& workspace, store::StateStore* store,
                                          const std::string& desk_key);

// desk.url answers an HTTP GET.
std::vector<DoctorFinding> CheckDesk(Services& services, const DoctorOptions& options);

}  // namespace dw::workspace::doctor
