// `dw doctor` on the state store: it opens and is migrated, it takes a write, it is private, and
// its clock agrees with ours.
#include <filesystem>
#include <system_error>

#include "store/location.h"
#include "store/store_clock.h"
#include "workspace/doctor_checks.h"

namespace dw::workspace::doctor {
namespace {

namespace fs = std::filesystem;

// A SQLite store holds approvals, receipts and people's public keys: other users of the machine
// must not read it. The store creates its file 0600; a copy, a restore or a umask-less tool may
// not have.
std::vector<DoctorFinding> PrivacyFindings(const std::string& path) {
  std::vector<DoctorFinding> out;
  bool any_open = false;
  for (const std::string& p : {path, path + "-wal", path + "-shm"}) {
    std::error_code ec;
    fs::file_status st = fs::status(p, ec);
    if (ec || !fs::exists(st)) continue;
    const fs::perms others = st.permissions() & (fs::perms::group_all | fs::perms::others_all);
    if (others == fs::perms::none) continue;
    any_open = true;
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.permissions() & fs::perms::mask));
    out.push_back(Found("state", p, Verdict::kProblem,
                        std::string("mode ") + mode + ": other users of this machine can read the state store",
                        "chmod 600 " + p));
  }
  if (!any_open) out.push_back(Found("state", path, Verdict::kOk, "readable and writable by its owner only"));
  return out;
}

}  // namespace

DoctorFinding StoreWriteFinding(store::StateStore& store, const std::string& location) {
  // The probe's write is undone by failing the transaction on purpose; only this status says the
  // write itself went through.
  static const std::string kRolledBack = "dw doctor: write probe rolled back";
  Status s = store.InTransaction([](store::StateStore& tx) -> Status {
    DW_RETURN_IF_ERROR(tx.SetCursor("dw-doctor.write-probe", "probe"));
    return Cancelled(kRolledBack);
  });
  if (s.code() == StatusCode::kCancelled && s.message() == kRolledBack)
    return Found("state", location, Verdict::kOk, "takes a write (the probe was rolled back)");
  return Found("state", location, Verdict::kProblem, "refuses a write: " + s.message(),
               "give the user that runs dw write access to the store (a read-only disk, a full disk or a "
               "read-only PostgreSQL role stops every incident, approval and receipt)");
}

DoctorFinding ClockFinding(const std::optional<TimePoint>& store_now, TimePoint now, std::chrono::milliseconds max_skew) {
  if (!store_now)
    return Found("clock", "this machine", Verdict::kOk, "the store is a file read with this machine's clock");
  const auto skew = std::chrono::duration_cast<std::chrono::milliseconds>(*store_now - now);
  const auto magnitude = skew < std::chrono::milliseconds(0) ? -skew : skew;
  std::string said = "the store's clock is " + std::to_string(magnitude.count()) + " ms " +
                     (skew < std::chrono::milliseconds(0) ? "behind" : "ahead of") + " this machine's";
  if (magnitude <= max_skew) return Found("clock", "store", Verdict::kOk, said);
  return Found("clock", "store", Verdict::kProblem,
               said + " (more than " + std::to_string(max_skew.count() / 1000) + " s): approval expiry, signed "
                      "statements and watch leases compare the two",
               "synchronise both machines' clocks (NTP: chrony or systemd-timesyncd)");
}

std::vector<DoctorFinding> CheckStateStore(Services& services, const DoctorOptions& options) {
  const config::Workspace& ws = services.workspace();
  const bool pg = store::IsPostgresLocation(ws.state);
  const std::string location = pg ? store::RedactLocation(ws.state) : ws.state;
  Result<store::StateStore*> opened = services.state();
  if (!opened.ok())
    return {Found("state", location, Verdict::kProblem, "does not open: " + opened.status().message(),
                  pg ? "check `state:` (host, database, user, password), that the server runs and that the "
                       "user may write the store (opening it checks its migrations)"
                     : "check that the folder of `state:` exists and the user that runs dw may write it "
                       "(opening it checks its migrations)")};
  store::StateStore& st = **opened;
  std::vector<DoctorFinding> out;
  out.push_back(Found("state", location, Verdict::kOk,
                      st.backend() + ", opened; schema version " + std::to_string(st.schema_version()) + " (current)"));
  out.push_back(StoreWriteFinding(st, location));
  if (!pg)
    for (DoctorFinding& f : PrivacyFindings(ws.state)) out.push_back(std::move(f));
  auto* clock = dynamic_cast<store::StoreClock*>(&st);
  if (clock == nullptr) {
    out.push_back(Found("clock", "store", Verdict::kNotChecked, "this store does not tell its time"));
    return out;
  }
  Result<std::optional<TimePoint>> store_now = clock->ServerNow();
  if (!store_now.ok()) {
    out.push_back(Found("clock", "store", Verdict::kProblem, "the store did not tell its time: " + store_now.status().message(),
                        "check that the store answers queries"));
    return out;
  }
  out.push_back(ClockFinding(*store_now, SystemClock().Now(), options.max_clock_skew));
  return out;
}

}  // namespace dw::workspace::doctor
