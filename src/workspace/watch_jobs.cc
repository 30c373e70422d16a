#include "workspace/watch_jobs.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "actions/actions.h"
#include "incidents/incidents.h"
#include "workspace/incident_desk.h"
#include "platforms/notify/notify.h"
#include "workspace/incident_windows.h"
#include "workspace/observation_gaps.h"
#include "workspace/proposals.h"
#include "store/watch_leases.h"

namespace dw::workspace {
namespace {

// Several `dw watch` replicas on one PostgreSQL store run their signal passes one at a time, as
// the threads of one process do (pass_mu below): two passes reading the same cursor would judge
// the same signals twice. Held through the store's session (released if the replica dies).
constexpr const char* kSignalPassMutex = "incidents-signal-pass";
constexpr int kSignalPassWaitMs = 120'000;
// How far before the time cursor a replica's first pass of a store reads again
// (incidents::RunSignalPass, which reads by time only until the store has a sequence cursor):
// longer than any job takes from stamping its observations to committing them.
constexpr std::chrono::minutes kReplicaPassOverlap{15};

class CrossReplicaPass {
 public:
  // Waits (polling, so the store is free for other jobs meanwhile) until this replica holds the
  // pass. No-op on a store without leases (SQLite's single watcher).
  static Result<std::unique_ptr<CrossReplicaPass>> Hold(store::StateStore& store) {
    store::WatchLeases* leases = store::WatchLeasesOf(store);
    if (leases == nullptr) return std::unique_ptr<CrossReplicaPass>();
    for (int waited = 0;; waited += 50) {
      auto held = leases->TryHoldMutex(kSignalPassMutex);
      if (!held.ok()) return held.status();
      if (*held) return std::unique_ptr<CrossReplicaPass>(new CrossReplicaPass(*leases));
      if (waited >= kSignalPassWaitMs)
        return Unavailable("another dw watch replica has held the signal pass for over 2 minutes");
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  ~CrossReplicaPass() { leases_.ReleaseMutex(kSignalPassMutex); }

 private:
  explicit CrossReplicaPass(store::WatchLeases& leases) : leases_(leases) {}
  store::WatchLeases& leases_;
};

// "notify", every 30 s: one delivery pass over the notification outbox, so what an earlier process
// wrote and did not get to send (it was killed, the service was down) goes out on the next pass.
observe::watch::WatchJobKind NotifyDeliveryJobKind() {
  return {"notify", 30 * 1000,
          [](observe::watch::WatchLoop& loop, const std::shared_ptr<const observe::watch::WatchEnvironment>& env,
             int64_t every_ms) -> Status {
            if (platforms::notify::ChannelNames(*env->workspace).empty()) return Status::Ok();
            auto mail = std::shared_ptr<net::MailClient>(net::MakeCurlMailClient());
            // Approval requests carry links signed at send time with this process's key.
            platforms::notify::DeliveryOptions options;
            options.approval_link = actions::ApprovalLinkSignerFor(actions::ApprovalLinkKeyFromEnvironment());
            return loop.AddJob({"notify", "notify", every_ms, [env, mail, options](int64_t, int) -> Status {
                                  auto store = env->state();
                                  if (!store.ok()) return store.status();
                                  auto r = platforms::notify::DeliverDue(*env->workspace, **store, *env->http,
                                                                         *mail, *env->clock, options);
                                  if (!r.ok()) return r.status();
                                  if (r->sent + r->retried + r->failed > 0 && env->say)
                                    env->say(FormatRfc3339(env->clock->Now()) + " notify: " +
                                             std::to_string(r->sent) + " sent, " + std::to_string(r->retried) +
                                             " to retry, " + std::to_string(r->failed) + " failed");
                                  return Status::Ok();
                                }});
          }};
}

// "approvals", every minute: approval requests past their approval_ttl expire and escalate to
// escalate_to (actions::ExpireApprovalRequests); never granted by silence.
observe::watch::WatchJobKind ApprovalExpiryJobKind() {
  return {"approvals", 60 * 1000,
          [](observe::watch::WatchLoop& loop, const std::shared_ptr<const observe::watch::WatchEnvironment>& env,
             int64_t every_ms) -> Status {
            return loop.AddJob({"approvals", "actions", every_ms, [env](int64_t, int) -> Status {
                                  auto store = env->state();
                                  if (!store.ok()) return store.status();
                                  auto said = actions::ExpireApprovalRequests(**store, *env->workspace, *env->clock);
                                  if (!said.ok()) return said.status();
                                  // And every decision checked again: one that does not verify is raised.
                                  auto raised = actions::RaiseRejectedDecisions(**store, *env->workspace, *env->clock);
                                  if (!raised.ok()) return raised.status();
                                  said->insert(said->end(), raised->begin(), raised->end());
                                  if (env->say)
                                    for (const std::string& line : *said)
                                      env->say(FormatRfc3339(env->clock->Now()) + " approvals: " + line);
                                  return Status::Ok();
                                }});
          }};
}

// "receipts", every minute, its first run at the loop's start (the first slot is the current
// one): the receipt sweep (the environment's sweep_receipts), so that a resolution left without
// its receipt (a `dw incidents resolve` killed between the two, a receipt write that failed) gets
// it whether or not any monitor, check or collection job runs or succeeds. In the "actions" group,
// so it never runs beside the "verify" job, which writes receipts too.
observe::watch::WatchJobKind ReceiptSweepJobKind() {
  return {"receipts", 60 * 1000,
          [](observe::watch::WatchLoop& loop, const std::shared_ptr<const observe::watch::WatchEnvironment>& env,
             int64_t every_ms) -> Status {
            if (!env->sweep_receipts) return Status::Ok();
            return loop.AddJob({"receipts", "actions", every_ms,
                                [env](int64_t, int) -> Status { return env->sweep_receipts(); }});
          }};
}

// Whether the domain `name` is at L2 or above (proposals are drafted and sent there).
bool Proposes(const config::Workspace& ws, const std::string& name) {
  auto d = ws.domains.find(name);
  if (d == ws.domains.end()) return false;
  auto level = actions::ParseAutonomy(d->second.autonomy);
  return level.ok() && *level >= actions::Autonomy::kL2;
}

// Whether a person approved or denied any proposal of incident `id`.
Result<bool> AnyProposalDecided(store::StateStore& store, const actions::DecisionTrust& trust, const std::string& id,
                                const Clock& clock) {
  auto proposals = store.ProposalsOfIncident(id);
  if (!proposals.ok()) return proposals.status();
  for (const auto& p : *proposals) {
    auto st = actions::GetProposalState(store, trust, p.id, p.version, clock);
    if (!st.ok()) return st.status();
    if (st->status == actions::ProposalStatus::kApproved || st->status == actions::ProposalStatus::kDenied) return true;
  }
  return false;
}

// The incidents of a proposing domain (L2 and above) that are still open and whose proposals were
// never sent: none stored, or stored and still drafted. A loop killed between opening an incident
// and sending its proposals (or between storing and sending them) leaves these; the restarted
// loop's first pass drafts them, since no later pass reports the incident opened again.
Result<std::vector<std::string>> IncidentsAwaitingProposals(store::StateStore& store, incidents::IncidentDesk& desk,
                                                            const config::Workspace& ws, const Clock& clock) {
  std::vector<std::string> out;
  const actions::DecisionTrust trust = actions::TrustOf(ws);
  for (incidents::IncidentStatus status : {incidents::IncidentStatus::kOpen, incidents::IncidentStatus::kAcknowledged,
                                           incidents::IncidentStatus::kMitigated}) {
    incidents::IncidentFilter f;
    f.status = status;
    f.limit = 1000;
    auto list = desk.List(f);
    if (!list.ok()) return list.status();
    for (const auto& inc : *list) {
      if (!Proposes(ws, inc.domain)) continue;
      auto proposals = store.ProposalsOfIncident(inc.id);
      if (!proposals.ok()) return proposals.status();
      bool unsent = proposals->empty();
      for (const auto& p : *proposals) {
        auto st = actions::GetProposalState(store, trust, p.id, 0, clock);
        if (!st.ok()) return st.status();
        unsent |= st->status == actions::ProposalStatus::kDrafted;
      }
      if (unsent) out.push_back(inc.id);
    }
  }
  return out;
}

// Whether the domain `name` is at L3 or above (Data Workers re-checks by itself there).
bool ActsReversibly(const config::Workspace& ws, const std::string& name) {
  auto d = ws.domains.find(name);
  if (d == ws.domains.end()) return false;
  auto level = actions::ParseAutonomy(d->second.autonomy);
  return level.ok() && *level >= actions::Autonomy::kL3;
}

// Whether incident `inc` was marked mitigated (the owner says the fix is in) and not verified
// since: each mitigation is verified once, so a failure asks a person once, not every pass. A
// verification that found the data back but the cause still live (`cause_still_live`) does not
// count: the incident is verified again each pass until the fix is live.
Result<bool> AwaitsVerification(store::StateStore& store, const incidents::Incident& inc) {
  if (inc.status != incidents::IncidentStatus::kMitigated) return false;
  TimePoint mitigated_at = inc.transitions.back().at;
  auto events = store.ActionEvents("incident:" + inc.id);
  if (!events.ok()) return events.status();
  for (const auto& e : *events)
    if ((e.kind == "verified" || e.kind == "verification_failed") && e.at >= mitigated_at) return false;
  return true;
}

// "verify", every 5 minutes, for domains at L3 and above: each mitigated incident is verified by
// Data Workers itself, every step dispatched through actions::DispatchAutonomous (so `dw stop`
// halts it); a pass resolves the incident and writes its receipt, a failure asks a person.
observe::watch::WatchJobKind AutonomousVerificationJobKind(std::shared_ptr<Services> services) {
  return {"verify", 5 * 60 * 1000,
          [services](observe::watch::WatchLoop& loop, const std::shared_ptr<const observe::watch::WatchEnvironment>& env,
                     int64_t every_ms) -> Status {
            bool any = false;
            for (const auto& [name, d] : env->workspace->domains) any |= ActsReversibly(*env->workspace, name);
            if (!any) return Status::Ok();
            return loop.AddJob({"verify", "actions", every_ms, [env, services](int64_t, int) -> Status {
                                  auto store = env->state();
                                  if (!store.ok()) return store.status();
                                  auto desk = OpenIncidentDesk(*services);
                                  if (!desk.ok()) return desk.status();
                                  incidents::IncidentFilter f;
                                  f.status = incidents::IncidentStatus::kMitigated;
                                  f.limit = 1000;
                                  auto list = (*desk)->List(f);
                                  if (!list.ok()) return list.status();
                                  const std::string now = FormatRfc3339(env->clock->Now());
                                  for (const auto& inc : *list) {
                                    if (!ActsReversibly(*env->workspace, inc.domain)) continue;
                                    auto due = AwaitsVerification(**store, inc);
                                    if (!due.ok()) return due.status();
                                    if (!*due) continue;
                                    auto v = actions::VerifyIncident(
                                        **store, *env->workspace, **desk, inc.id,
                                        VerifyOptionsFor(*services, "dw (autonomy)", /*autonomous=*/true), *env->clock);
                                    if (!v.ok()) return v.status();
                                    if (env->say) env->say(now + " verify: " + v->summary);
                                  }
                                  return Status::Ok();
                                }});
          }};
}

}  // namespace

std::vector<observe::watch::WatchJobKind> WatchJobKinds() {
  std::vector<observe::watch::WatchJobKind> kinds = observe::watch::ObserveWatchJobKinds();
  kinds.push_back(NotifyDeliveryJobKind());
  kinds.push_back(ApprovalExpiryJobKind());
  kinds.push_back(ReceiptSweepJobKind());
  return kinds;
}

std::vector<observe::watch::WatchJobKind> WatchJobKinds(const std::shared_ptr<Services>& services) {
  std::vector<observe::watch::WatchJobKind> kinds = WatchJobKinds();
  kinds.push_back(AutonomousVerificationJobKind(services));
  return kinds;
}

std::shared_ptr<const observe::watch::WatchEnvironment> WatchEnvironmentFor(
    const std::shared_ptr<Services>& services, std::function<void(const std::string&)> say) {
  auto env = std::make_shared<observe::watch::WatchEnvironment>();
  env->workspace = &services->workspace();
  env->state = [services] { return services->state(); };
  env->http = &services->http();
  env->clock = &services->clock();
  env->say = std::move(say);
  env->unlearnt = [services](const std::string& metric, const std::string& asset_id, TimePoint from,
                             TimePoint to) -> Result<std::vector<observe::metrics::UnlearntWindow>> {
    auto store = services->state();
    if (!store.ok()) return store.status();
    return IncidentWindows(**store)(metric, asset_id, from, to);
  };
  env->unlearnt_many = [services](const std::vector<observe::metrics::UnlearntWindowsRequest>& requests)
      -> std::vector<Result<std::vector<observe::metrics::UnlearntWindow>>> {
    auto store = services->state();
    if (!store.ok())
      return std::vector<Result<std::vector<observe::metrics::UnlearntWindow>>>(requests.size(), store.status());
    return IncidentWindowsOfMany(**store)(requests);
  };
  // The incidents stage's signal job: after every monitor, check and collection run, one pass
  // over what was observed since the last (incidents::RunSignalPass). Jobs of different groups may
  // end at once; passes are serialised so two never judge the same signals. A failed pass is
  // reported and retried by the next one (its cursor did not move).
  auto pass_mu = std::make_shared<std::mutex>();
  // Incident id -> how many signal sources it held when its proposals were last drafted (under pass_mu).
  auto drafted_sources = std::make_shared<std::map<std::string, size_t>>();
  // Whether this process's first pass has looked for incidents whose proposals were never sent
  // (under pass_mu).
  auto looked_for_unsent = std::make_shared<bool>(false);
  // The observation gaps' messages this process has said (under pass_mu).
  auto said_gaps = std::make_shared<SaidGaps>();
  env->after_run = [services, pass_mu, drafted_sources, looked_for_unsent, said_gaps,
                    say = env->say](const std::string& job) {
    std::lock_guard<std::mutex> lock(*pass_mu);
    const std::string now = FormatRfc3339(services->clock().Now());
    auto fail = [&](const Status& s) { say(now + " incidents after " + job + ": FAILED (the next pass retries): " + s.message()); };
    auto store = services->state();
    if (!store.ok()) return fail(store.status());
    auto across = CrossReplicaPass::Hold(**store);
    if (!across.ok()) return fail(across.status());
    auto desk = OpenIncidentDesk(*services);
    if (!desk.ok()) return fail(desk.status());
    auto r = incidents::RunSignalPass(services->workspace(), **desk, **store, services->clock(),
                                      *across ? kReplicaPassOverlap : std::chrono::milliseconds{0});
    if (!r.ok()) return fail(r.status());
    for (const std::string& id : r->opened) say(now + " incident opened " + id + " (after " + job + ")");
    for (const std::string& id : r->updated) say(now + " incident updated " + id + " (after " + job + ")");
    for (const std::string& id : r->resolved) say(now + " incident resolved by verification " + id);
    // L2 and above propose: an incident opened or updated by this pass gets its proposals drafted
    // and sent to its domain's approvers (a content-equal draft stores no new version); so, on the
    // process's first pass, does one an earlier process opened and never sent proposals for.
    std::vector<std::string> unsent;
    if (!*looked_for_unsent) {
      auto found = IncidentsAwaitingProposals(**store, **desk, services->workspace(), services->clock());
      if (!found.ok()) return fail(found.status());
      for (const std::string& id : *found)
        if (std::find(r->opened.begin(), r->opened.end(), id) == r->opened.end() &&
            std::find(r->updated.begin(), r->updated.end(), id) == r->updated.end())
          unsent.push_back(id);
      *looked_for_unsent = true;
    }
    for (const auto* ids : {&r->opened, &r->updated, &unsent})
      for (const std::string& id : *ids) {
        auto inc = (*desk)->Get(id);
        if (!inc.ok() || inc->status == incidents::IncidentStatus::kResolved ||
            inc->status == incidents::IncidentStatus::kClosed || !Proposes(services->workspace(), inc->domain))
          continue;
        // Once the owner has decided on any of its proposals, the set is hers: no new versions
        // drafted over it by later passes (a person asks for a redraft with `dw incidents propose`).
        auto decided = AnyProposalDecided(**store, actions::TrustOf(services->workspace()), id, services->clock());
        if (!decided.ok()) return fail(decided.status());
        if (*decided) continue;
        // An update redrafts only when a signal source joined since this process last drafted
        // (a severity recomputed as the clock moves is no reason for new versions and requests).
        auto seen = drafted_sources->find(id);
        if (seen != drafted_sources->end() && seen->second == inc->signals.size()) continue;
        (*drafted_sources)[id] = inc->signals.size();
        auto proposed = ProposeIncidentFixes(*services, id, "agent:dw-incidents");
        if (!proposed.ok()) {
          say(now + " proposals for " + id + ": not drafted: " + proposed.status().message());
          continue;
        }
        for (const auto& p : proposed->stored)
          if (p.new_version) say(now + " proposal " + p.id + " v" + std::to_string(p.version) + ": " + p.sending);
      }
    // What this pass resolved gets its receipt now (one per incident); any other resolution still
    // without one, and a write that fails here, is the "receipts" job's, within a minute.
    if (!r->resolved.empty()) {
      auto receipts = actions::WriteResolutionReceipts(**store, services->workspace(), **desk, services->clock());
      if (!receipts.ok()) return fail(receipts.status());
      for (const std::string& line : *receipts) say(now + " " + line);
    }
    // An error every check of every table shares (an unreachable warehouse) is said once an hour,
    // not once per check and pass.
    for (const std::string& line : ObservationGapLines(r->gaps, services->clock().Now(), said_gaps.get()))
      say(now + " " + line);
  };
  // The "receipts" job's sweep: under the same mutex and cross-replica lock as the passes, so a
  // pass writing the receipts of what it resolved and this sweep are never two writers at once
  // (with replicas the job's slot is leased too, so one replica sweeps per minute). A failure is
  // the job's: recorded, and retried with the loop's backoff.
  env->sweep_receipts = [services, pass_mu, say = env->say]() -> Status {
    std::lock_guard<std::mutex> lock(*pass_mu);
    auto store = services->state();
    if (!store.ok()) return store.status();
    auto across = CrossReplicaPass::Hold(**store);
    if (!across.ok()) return across.status();
    auto desk = OpenIncidentDesk(*services);
    if (!desk.ok()) return desk.status();
    const std::string now = FormatRfc3339(services->clock().Now());
    auto receipts = actions::WriteResolutionReceipts(**store, services->workspace(), **desk, services->clock());
    if (!receipts.ok()) return receipts.status();
    if (say)
      for (const std::string& line : *receipts) say(now + " " + line);
    return Status::Ok();
  };
  return env;
}

}  // namespace dw::workspace
