// The judgement stage's front door: signals become incidents, incidents move through their
// lifecycle, and a diagnosis ranks the change events that could have caused them.
//
//   signals (anomalous metric verdict, failed check, risky change event)
//     └─▶ Evaluate: group by lineage root within a window ─▶ incident opened or updated
//                   (severity from the blast radius, recurrence linked, verification resolves)
//   Diagnose(id): candidates = change events on the damaged assets and upstream, scored and explained
//   Acknowledge / Mitigate / Resolve / Close: a person's transitions, each with actor and Clock time
//   History: incidents from the store, filtered, with recurrence counts per cause kind and asset
//
// Reads observations (the state store's check results, metric points, change events; the context
// graph) and writes incidents (store IncidentRecord, whose body is this stage's). Knows nothing of
// proposals. Every time comes from the Clock given to the desk. Errors are values: nothing here
// throws across this header. Surfaces (agents/, app/) call only what is declared here.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/json.h"
#include "base/status.h"
#include "config/workspace.h"
#include "graph/context_graph.h"
#include "observe/metrics/metric_batch.h"
#include "observe/metrics/metric_service.h"
#include "platforms/notify/notify.h"
#include "store/records.h"
#include "store/state_store.h"

namespace dw::incidents {

// InvalidArgument unless `actor` looks like a person's email (one '@', no spaces, at most 254
// characters): what every `--as` of a person's step is checked with (a lifecycle move, a metric
// mark). The product's own steps use the actor "dw", which no person can pass.
Status CheckPersonActor(const std::string& actor);

// ---------------------------------------------------------------------------------------------
// Signals: what can open or update an incident.

enum class SignalKind {
  kMetric,  // an anomalous verdict of a monitor or of a quality:* series
  kCheck,   // a failed check (never an errored one: see observation gaps)
  kChange,  // a platform change event risky enough to be an incident by itself (release guard)
};
// "metric", "check", "change".
const char* SignalKindName(SignalKind kind);

// The shape of what went wrong, as far as the signal tells; diagnosis asks whether a change can
// explain it.
enum class SignalShape {
  kUnknown,            // nothing more than "abnormal"
  kLevelDrop,          // the value fell well below its baseline (towards zero when near 0)
  kLevelRise,          // the value rose well above its baseline (not a doubling)
  kDoubling,           // about twice the baseline (a run applied twice)
  kRepeatsEarlier,     // values equal to an earlier period's (a stale input)
  kNullRateJump,       // nulls where there were none (a field removed upstream)
  kMismatchesFound,    // rows that disagree with a reference, where the norm is none
  kStateDropped,       // a change event: a restore dropped operator state (release guard)
};
// "unknown", "level_drop", "level_rise", "doubling", "repeats_earlier", "null_rate_jump",
// "mismatches_found", "state_dropped".
const char* SignalShapeName(SignalShape shape);

// One signal. `bad` false means the same source is back to normal (a verdict within its band, a
// check passing again): it never opens an incident but lets Evaluate resolve one by verification.
struct Signal {
  SignalKind kind = SignalKind::kMetric;
  // The source, stable across evaluations: "metric:<name>", "check:<table_ref>:<check_name>",
  // "change:<dedup_key>". Two signals with the same key are the same source seen twice.
  std::string key;
  std::string asset_id;  // the damaged asset, canonical id; "" when it cannot be told (then it
                         // names the metric or table instead and the incident says so)
  TimePoint at;          // when the bad (or good) point was observed or happened
  bool bad = true;
  SignalShape shape = SignalShape::kUnknown;
  double value = 0;      // the observed value (metric value, check's observed count; 0 if none)
  std::optional<double> expected;  // the baseline or threshold, when known
  std::string summary;   // one sentence a person can read
  Json evidence = Json::object();  // what produced it (verdict, check result, change event)
};

// Something that could not be observed (an unreachable warehouse, a check that errored, a platform
// that did not answer). Reported beside incidents, never an incident itself.
struct ObservationGap {
  std::string source;  // "check:main.member_balances:not_null(balance)", "platform:flink", ...
  std::string asset_id;
  TimePoint at;
  std::string message;
};

// Signals gathered from the store for one evaluation pass.
struct SignalBatch {
  std::vector<Signal> signals;
  std::vector<ObservationGap> gaps;
  std::vector<std::string> notes;  // e.g. "monitor x names no asset and its SQL no known table"
};

// What to read for one pass. Metric verdicts are judged from the stored points (every monitor of
// the workspace and every stored quality:* series), check results are the latest per check,
// change events every one. What is new is chosen by the commit sequence when `after_seq` is set:
// a metric whose latest point, a check whose latest result, an event committed with
// after_seq < seq <= through_seq (StateStore::CommittedSeq), however long before it was stamped.
// Without it (a store's first pass, or rows from before the sequence), by time: a metric whose
// latest point is at or after `since`, a check result or event observed at or after `since`.
struct GatherOptions {
  TimePoint since;
  bool metrics = true;
  bool checks = true;
  bool changes = true;
  std::optional<int64_t> after_seq;
  int64_t through_seq = 0;
};

// Reads the signals of one pass from `store` (see GatherOptions), judging metrics with the
// workspace's monitor settings. A metric that cannot be judged (too little history) gives no
// signal; a check with status error gives an ObservationGap, never a signal; a platform_unreachable
// change event gives an ObservationGap. The store's error on failure; nothing is written.
Result<SignalBatch> GatherSignals(const config::Workspace& ws, store::StateStore& store,
                                  const Clock& clock, const GatherOptions& options);

// ---------------------------------------------------------------------------------------------
// Incidents.

enum class IncidentStatus { kOpen, kAcknowledged, kMitigated, kResolved, kClosed };
// "open", "acknowledged", "mitigated", "resolved", "closed".
const char* IncidentStatusName(IncidentStatus status);
std::optional<IncidentStatus> ParseIncidentStatus(const std::string& name);

// Why a person closed an incident instead of resolving it. Both feed the detector's marks: the
// metric points inside the incident's window are learnt as normal from then on.
enum class CloseReason { kNone, kExpected, kFalsePositive };
// "", "expected", "false_positive".
const char* CloseReasonName(CloseReason reason);
std::optional<CloseReason> ParseCloseReason(const std::string& name);

// One lifecycle step. actor is a person's email, or "dw" for the product's own steps (opening,
// resolution by verification, severity changes are not transitions).
struct Transition {
  std::string from;  // status name ("" for the opening)
  std::string to;
  std::string actor;
  TimePoint at;
  std::string reason;  // the person's words, or why the product did it
};

// One source an incident holds: the signals with the same key are counted, not repeated.
struct SignalRef {
  SignalKind kind = SignalKind::kMetric;
  std::string key;
  std::string asset_id;
  SignalShape shape = SignalShape::kUnknown;
  TimePoint first_at;   // first bad point
  TimePoint last_at;    // latest point seen (bad or good)
  int64_t count = 0;    // bad points seen
  bool bad_now = true;  // whether the latest point seen is still bad
  double value = 0;
  std::optional<double> expected;
  std::string summary;
  Json evidence = Json::object();  // of the first bad point
};

// SEV1: a customer-facing consumer acts on damaged data within 24 h; SEV2: any consumer acts
// within 24 h; SEV3: otherwise. Recomputed at every evaluation and every read, from the Clock.
struct Severity {
  int level = 3;  // 1, 2 or 3
  std::string reason;  // "the 22:00 sync://hightouch/tier-changes-to-braze acts in 6h 55m and is customer-facing"
  std::string consumer;  // the consumer that decided it ("" for SEV3 without consumers)
  std::optional<TimePoint> acts_at;
  TimePoint computed_at;
};

struct Incident {
  std::string id;  // "inc-YYYYMMDD-HHMM-xxxxxx": opening time (UTC) and a hash of the root
  IncidentStatus status = IncidentStatus::kOpen;
  CloseReason close_reason = CloseReason::kNone;
  std::string title;
  // The lineage root the signals were grouped under: the asset of the change that explains them
  // when there is one, else the most upstream damaged asset.
  std::string root_asset;
  std::vector<std::string> damaged_assets;  // sorted
  std::string domain;  // of the root (else the first damaged asset that has one)
  std::string owner;
  TimePoint opened_at;
  TimePoint updated_at;
  TimePoint first_bad_at;  // earliest bad point of any signal it holds
  std::optional<TimePoint> closed_at;  // resolved or closed
  std::vector<SignalRef> signals;
  std::vector<Transition> transitions;  // oldest first; the first is the opening
  Severity severity;
  // The cause as known: the release guard's restore or the change that tied the group at opening,
  // then the top-ranked candidate of the latest diagnosis ("" while unknown).
  std::string cause_kind;
  std::string cause_asset;
  std::optional<std::string> recurrence_of;  // the earlier incident with the same cause on the
                                             // same asset within 30 days
  std::vector<std::string> notes;  // e.g. "table://x is not in the context graph: ..."
};

// What one evaluation pass did.
struct EvaluationReport {
  std::vector<std::string> opened;    // incident ids
  std::vector<std::string> updated;   // ids that took a new signal or changed severity
  std::vector<std::string> resolved;  // ids resolved by verification
  size_t signals_seen = 0;
  size_t signals_bad = 0;
  size_t signals_ignored = 0;  // bad signals already held, or benign change events
  std::vector<ObservationGap> gaps;
  std::vector<std::string> notes;
};

// Counts of `impact_sql` for an asset since a time (the app runs it on the warehouse); used for
// the "members in reach" of a diagnosis and blast radius. May be empty (no counts).
using ImpactCounter = std::function<Result<int64_t>(const std::string& asset, const std::string& sql,
                                                    TimePoint since)>;

struct DeskOptions {
  // Signals that share a lineage root join one incident when their first bad points are at most
  // this far apart (workspace incidents.group_window).
  std::chrono::milliseconds group_window{std::chrono::hours(6)};
  // Diagnosis considers change events this long before the first bad point.
  std::chrono::milliseconds diagnosis_window{std::chrono::hours(24)};
  // The same cause on the same asset within this long links to the earlier incident.
  std::chrono::milliseconds recurrence_window{std::chrono::hours(24 * 30)};
  // A consumer acting within this long makes SEV1/SEV2.
  std::chrono::milliseconds act_horizon{std::chrono::hours(24)};
  // How far upstream grouping and diagnosis walk (cycles are walked once whatever the depth).
  int max_depth = 50;
  std::string timezone = "UTC";  // the workspace's, for schedules
  ImpactCounter impact_counter;  // optional
  // The workspace whose `notify:` routes the incidents' notices (opened, severity raised,
  // verified), written to the outbox in the same transaction as the incident; the resolution is
  // told by the action stage with its receipt. Null: nothing is notified. REQUIRES it outlives
  // the desk.
  const config::Workspace* notify = nullptr;
};

// The desk options a workspace asks for (incidents.group_window, timezone, and `notify` pointing
// at `ws` when it configures notify:). REQUIRES `ws` outlives every desk built with them.
DeskOptions DeskOptionsFor(const config::Workspace& ws);

// Filters for List and History; empty fields match everything.
struct IncidentFilter {
  std::string asset_id;  // incidents whose damaged assets or root include it
  std::string domain;
  std::optional<IncidentStatus> status;
  std::optional<TimePoint> from;  // opened_at >= from
  std::optional<TimePoint> to;    // opened_at < to
  int limit = 100;                // 1..1000
};

// ---------------------------------------------------------------------------------------------
// Diagnosis.

// The parts of a candidate's score, each in 0..1; total is their weighted sum (weights in
// docs/incidents.md), so a person can see why one candidate outranks another.
struct ScoreParts {
  double time_proximity = 0;    // 1 at the first bad point, halving every 6 h before it
  double lineage_distance = 0;  // 1 on the damaged asset, 1/(1+hops) upstream
  double risk = 0;              // the change's own risk as its collector judged it
  double shape_fit = 0;         // whether the change can explain the signal's shape
  double total = 0;
};

// Another event of the same change as a candidate (a Flink release's restore beside its skipped
// state, a flow's revision beside the runs that ran it: change_facets.h).
struct Facet {
  std::string kind;
  std::string asset_id;
  TimePoint happened_at;
  std::string dedup_key;
};

struct Candidate {
  int64_t event_id = 0;
  std::string dedup_key;
  std::string asset_id;  // where the change happened
  std::string kind;      // change kind ("restore_skipped_state", "execution", ...)
  // What kind of cause the evidence makes it: the change kind, or "stale_input" (a run that read a
  // superseded version of its source), "duplicated_run" (two runs for one slot).
  std::string cause_kind;
  TimePoint happened_at;
  ScoreParts score;
  std::string explanation;  // why it fits, in one sentence
  std::vector<std::string> evidence;          // log line, execution id, URL, ...
  std::vector<std::string> counter_evidence;  // what speaks against it
  std::vector<std::string> path;  // assets from the change to the damaged asset, both included
  // The other events of the same change, ranked with it rather than after it (their evidence is
  // gathered into `evidence`); empty when the change has one event.
  std::vector<Facet> facets;
};

struct Diagnosis {
  std::string incident_id;
  TimePoint first_bad_at;
  TimePoint window_from;  // first_bad_at - diagnosis_window
  std::vector<Candidate> ranked;  // best first; ties by time (later first) then dedup_key
  // What was looked at: every asset whose change events were read, and how many events.
  std::vector<std::string> assets_examined;
  size_t events_examined = 0;
  // Changes downstream of the damage in the window, listed as unable to explain it.
  std::vector<std::string> ruled_out;
  std::string summary;  // "the restore_skipped_state on flink://... at 14:02 ranks first" or
                        // "no change event on the damaged assets or upstream in the 24 h before..."
  Severity severity;
  Json blast_radius = Json::object();  // consumers, customer-facing, impact counts
  std::vector<std::string> notes;
};

// ---------------------------------------------------------------------------------------------
// History.

struct RecurrenceCount {
  std::string cause_kind;
  std::string asset_id;
  int64_t incidents = 0;
  std::vector<std::string> incident_ids;  // newest first
};

struct History {
  std::vector<Incident> incidents;  // newest first
  std::vector<RecurrenceCount> recurrences;  // by count descending, then cause kind, asset
  size_t total = 0;  // incidents that matched the filter (may exceed incidents.size())
};

// The time windows during which incidents covered a metric (for metrics: judged, not learnt). A
// closed expected/false_positive incident gives none (its points are learnt as normal).
struct CoverWindow {
  std::string incident_id;
  TimePoint from;
  std::optional<TimePoint> to;  // nullopt while still open
};

// The windows during which incidents keep a metric's points out of the detector's training
// (observe::metrics judges them but does not learn them, so the damage never becomes the
// baseline): every incident whose signals name the metric, or whose root or damaged assets include
// the metric's asset, from its first bad point until it was resolved (open: still running). An
// incident a person closed as expected or false_positive gives none: its points are marked
// expected instead. Each is labelled "incident <id>". `store` must outlive the function.
observe::metrics::UnlearntWindows MetricWindows(store::StateStore& store);

// MetricWindows for many requests (observe::metrics::JudgeLatestPoints, a batch of monitors): one
// read of the incidents over all the requests' ranges, then for each request the windows
// MetricWindows would give it, in the same order; the store's error is every request's. `store`
// must outlive the function.
observe::metrics::UnlearntWindowsOfMany MetricWindowsOfMany(store::StateStore& store);

// ---------------------------------------------------------------------------------------------
// The desk: one per workspace and store.

class IncidentDesk {
 public:
  // `store` and `clock` must outlive the desk; `graph` may be null (every asset then stands alone,
  // and incidents say so) and must outlive it otherwise.
  IncidentDesk(store::StateStore& store, const graph::ContextGraph* graph, const Clock& clock,
               DeskOptions options);
  // The same over a bare graph index (tests and benchmarks): REQUIRES `index` is not changed
  // while the desk runs, and outlives it. May be null.
  IncidentDesk(store::StateStore& store, const graph::GraphIndex* index, const Clock& clock,
               DeskOptions options);

  // One pass: bad signals join an open incident with the same lineage root within the group
  // window or open one (the release guard's change signals open one at once when the job's writes
  // reach a customer-facing consumer); good signals resolve an incident by verification when every
  // source that opened it is back to normal; severity is recomputed for every open incident.
  // Transitions and incidents are written in one store transaction: on failure nothing is written
  // and the store's error is returned.
  Result<EvaluationReport> Evaluate(const SignalBatch& batch);

  // The incident `id`, or the one incident among the newest 5,000 whose id starts with it (at least
  // 6 characters). NotFound naming the closest ids when there is none; InvalidArgument naming them
  // when several start with it.
  Result<Incident> Get(const std::string& id);
  // Incidents matching `filter`, newest first. InvalidArgument for a limit outside 1..1000.
  Result<std::vector<Incident>> List(const IncidentFilter& filter);

  // A person's transitions. `actor` must be an email-like string (InvalidArgument otherwise).
  // FailedPrecondition naming the current status when the move is not allowed (e.g. acknowledging
  // a resolved incident); NotFound with the closest ids for an unknown id.
  //   open → acknowledged → mitigated → resolved; open/acknowledged → mitigated;
  //   any unresolved → resolved (by a person) or closed (expected or false_positive).
  Result<Incident> Acknowledge(const std::string& id, const std::string& actor, const std::string& reason);
  Result<Incident> Mitigate(const std::string& id, const std::string& actor, const std::string& reason);
  Result<Incident> Resolve(const std::string& id, const std::string& actor, const std::string& reason);
  // The product's own resolution after a verification it ran passed (actor "dw"; the actions
  // stage calls it with what was verified). Same refusals as Resolve.
  Result<Incident> ResolveByVerification(const std::string& id, const std::string& reason);
  // Also marks the metric points of the incident's window expected (store MetricMarks), so the
  // detector learns them. InvalidArgument for CloseReason::kNone.
  Result<Incident> Close(const std::string& id, const std::string& actor, CloseReason reason,
                         const std::string& note);

  // Ranks the candidate causes of incident `id` (see Diagnosis); deterministic for the same
  // store, graph and clock; terminates on cyclic graphs. Records the top cause on the incident
  // (cause_kind, cause_asset, recurrence link). NotFound with the closest ids for an unknown id.
  Result<Diagnosis> Diagnose(const std::string& id);

  // History from the store (see History). InvalidArgument for a limit outside 1..1000.
  Result<History> GetHistory(const IncidentFilter& filter);

  // Every notification of incident `id` from the outbox, in the order written, with its delivery
  // state (pending, sent, failed: given up or refused, the failure recorded). NotFound with the
  // closest ids for an unknown incident.
  Result<std::vector<platforms::notify::NotificationStatus>> Notifications(const std::string& id);

  // The windows of incidents that cover metric `metric` (named by a signal) or asset `asset_id`.
  Result<std::vector<CoverWindow>> WindowsCovering(const std::string& metric, const std::string& asset_id);

 private:
  // Runs fn(const graph::GraphIndex*) under the graph's read lock (nullptr without a graph).
  template <typename F>
  auto WithIndex(F&& fn) {
    if (graph_ != nullptr) return graph_->Read([&](const graph::GraphIndex& ix) { return fn(&ix); });
    return fn(index_);
  }
  Result<std::vector<Incident>> Active();
  Result<Incident> Load(const std::string& id);
  Result<Incident> Move(const std::string& id, IncidentStatus to, const std::string& actor,
                        const std::string& reason, CloseReason close);
  Status LinkRecurrence(Incident& incident);

  store::StateStore& store_;
  const graph::ContextGraph* graph_ = nullptr;
  const graph::GraphIndex* index_ = nullptr;
  const Clock& clock_;
  DeskOptions options_;
};

// One pass as `dw watch` (after every monitor, check and collection run) and `dw incidents scan`
// run it: gathers what was committed since the last pass (store cursor incidents.last_seq, a
// commit sequence: StateStore::CommittedSeq), evaluates it and moves the cursor to the sequence
// it read through. A signal is consumed by the order it was committed in, never by its time: a
// result stamped before another job's pass and committed after it, or an hourly bucket written an
// hour late, is read by the next pass. The store's error on failure, with the cursor left where it
// was (the next pass reads the same again).
//
// The first pass of a store (no incidents.last_seq: a new store, or one from before the sequence)
// reads by time instead: what was stamped since incidents.last_pass (when the pass ran last), or
// the group window before now. `overlap` > 0 (several `dw watch` replicas on one store,
// docs/watch.md) widens that read by `overlap`: a re-read signal that an active incident already
// holds is ignored as seen, and one whose incident was resolved or closed after it was observed is
// dropped (never an incident again). Replicas that pass at once may read the same range; the
// desk's dedupe is what keeps that one incident.
Result<EvaluationReport> RunSignalPass(const config::Workspace& ws, IncidentDesk& desk, store::StateStore& store,
                                       const Clock& clock, std::chrono::milliseconds overlap = {});
inline constexpr const char* kLastPassCursor = "incidents.last_pass";
inline constexpr const char* kLastSeqCursor = "incidents.last_seq";

// ---------------------------------------------------------------------------------------------
// Notifications (platforms/notify/ sends them; this stage decides what an incident says).

// The notice of `incident` for `event`: its dedup key "dw:<workspace name>:<incident id>" (the
// Opsgenie alias, the PagerDuty dedup_key: one alert per incident whatever is retried), severity
// SEV<n>, the root or first damaged asset, the cause ranked first, the consumer that decided the
// severity and when it acts, the domain when the workspace defines it. `summary` as given.
platforms::notify::IncidentNotice NoticeOf(const config::Workspace& ws, const Incident& incident,
                                           platforms::notify::EventKind event, const std::string& summary);

// The incident `id` as stored (no severity recomputed, no graph needed): what the action stage
// reads to notify about it. NotFound when there is none; DataLoss for a row this stage did not write.
Result<Incident> ReadIncident(store::StateStore& store, const std::string& id);

// Writes `notice` to the outbox of `store` (one message per channel routed). A notice the
// workspace cannot route (InvalidArgument: a domain it does not define) is logged and skipped, so
// a notification never blocks the incident; the store's error is returned (inside a transaction:
// it rolls back).
Status EnqueueNotice(const config::Workspace& ws, store::StateStore& store, const Clock& clock,
                     const platforms::notify::IncidentNotice& notice);

// ---------------------------------------------------------------------------------------------
// JSON forms (the MCP tools' structuredContent and `dw incidents --format json`; docs/tools.md).

Json IncidentToJson(const Incident& incident);
Json DiagnosisToJson(const Diagnosis& diagnosis);
Json HistoryToJson(const History& history);
Json EvaluationToJson(const EvaluationReport& report);
// [{channel, event, state, attempts, last_error, answer, updated_at}] (`dw incidents show`).
Json NotificationsToJson(const std::vector<platforms::notify::NotificationStatus>& notifications);

}  // namespace dw::incidents
