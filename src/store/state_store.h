// The state store: every observation and decision Data Workers keeps (check results, metric
// points, change events, collector cursors, graph, incidents, receipts). One interface, two
// backends (SQLite by default, PostgreSQL) that pass the same test suite.
//
// Every method is thread-safe: the MCP server calls one store from several threads. Every method
// that writes several rows does so in one transaction: on failure nothing of it is written.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "store/records.h"

namespace dw::store {

// The store schema version this build writes. A store whose recorded version is higher is refused.
int CurrentSchemaVersion();

class StateStore {
 public:
  virtual ~StateStore() = default;

  // "sqlite" or "postgresql".
  virtual std::string backend() const = 0;
  // The schema version recorded in the store after migrations.
  virtual int schema_version() const = 0;

  // Runs `body` in one transaction; every store call `body` makes on the store it is given joins
  // it, and other threads' calls wait until it ends (so `body` must not wait for another thread
  // that uses the store). Commits iff `body` returns Ok and no store call inside failed past
  // argument validation; otherwise rolls everything back and returns the first failure, even if
  // `body` ignored it (PostgreSQL cannot go on after a failed statement; SQLite is made to agree).
  // Nested calls join the outer transaction.
  virtual Status InTransaction(const std::function<Status(StateStore&)>& body) = 0;

  // Check results.
  // Records `rows` in one transaction. InvalidArgument (nothing written) if a row is malformed.
  virtual Status RecordCheckResults(const std::vector<CheckResultRow>& rows) = 0;
  // The newest `limit` (> 0) results for `table_ref`, newest first.
  virtual Result<std::vector<CheckResultRow>> CheckResultsFor(const std::string& table_ref,
                                                              int limit) = 0;
  // Every result of one run, in the order recorded.
  virtual Result<std::vector<CheckResultRow>> CheckResultsOfRun(const std::string& run_id) = 0;
  // The newest result of check `check_name` on `table_ref`, or nullopt when it never ran.
  virtual Result<std::optional<CheckResultRow>> LatestCheckResult(const std::string& table_ref,
                                                                  const std::string& check_name) = 0;

  // Metric points.
  // Writes `points` of `metric` in one transaction; a point at an existing (metric, ts) replaces
  // its value, and within `points` the last one at a ts wins. InvalidArgument if a value is not
  // finite or `metric` is empty (nothing written).
  virtual Status UpsertMetricPoints(const std::string& metric,
                                    const std::vector<MetricPoint>& points) = 0;
  // The points of `metric` with from <= ts < to, oldest first.
  virtual Result<std::vector<MetricPoint>> MetricPoints(const std::string& metric, TimePoint from,
                                                        TimePoint to) = 0;

  // Deletes the points of `metric` with ts < `before` in one transaction and returns how many
  // were deleted.
  virtual Result<int64_t> DeleteMetricPointsBefore(const std::string& metric, TimePoint before) = 0;
  // Every metric name that has at least one stored point, ordered.
  virtual Result<std::vector<std::string>> MetricNames() = 0;

  // Metric marks (ranges a person marked expected).
  // Stores `mark` and returns its id. InvalidArgument (nothing written) for an empty metric, an
  // empty author or from > to.
  virtual Result<int64_t> AddMetricMark(const MetricMark& mark) = 0;
  // The marks of `metric` that overlap [from, to] (both inclusive), by `from` ascending.
  virtual Result<std::vector<MetricMark>> MetricMarks(const std::string& metric, TimePoint from,
                                                      TimePoint to) = 0;

  // Change events.
  // Adds `event`; returns false (and writes nothing) when its dedup_key is already stored.
  virtual Result<bool> AddChangeEvent(const ChangeEvent& event) = 0;
  // Events on `asset_id` with from <= happened_at < to, oldest first.
  virtual Result<std::vector<ChangeEvent>> ChangeEventsFor(const std::string& asset_id,
                                                           TimePoint from, TimePoint to) = 0;
  // Events on any asset with from <= happened_at < to, oldest first.
  virtual Result<std::vector<ChangeEvent>> ChangeEventsBetween(TimePoint from, TimePoint to) = 0;

  // The commit sequence: every check result, change event and metric point (when written or its
  // value changed) is stamped with the number of the transaction that committed it, in commit
  // order, so that what was committed after a number is read exactly once, however late it was
  // stamped in time and however writers overlap (PostgreSQL replicas included). Rows written
  // before the sequence existed carry 0.
  // The last number committed: every row stamped at or below it is visible to the next read.
  virtual Result<int64_t> CommittedSeq() = 0;
  // Change events committed with after < seq <= through, in commit order.
  virtual Result<std::vector<ChangeEvent>> ChangeEventsCommitted(int64_t after, int64_t through) = 0;
  // The metrics whose latest point (by ts) was committed, or its value changed, with
  // after < seq <= through; ordered by name.
  virtual Result<std::vector<std::string>> MetricsWithLatestPointCommitted(int64_t after, int64_t through) = 0;

  // Collector cursors (where a collector stopped reading, e.g. the last Kestra execution seen).
  // The value stored under `name`, or nullopt if none was ever set.
  virtual Result<std::optional<std::string>> GetCursor(const std::string& name) = 0;
  // Stores `value` under `name`, replacing any previous value.
  virtual Status SetCursor(const std::string& name, const std::string& value) = 0;

  // Context graph.
  // Inserts or replaces `assets` (by id) in one transaction; updated_at is set to now.
  virtual Status UpsertAssets(const std::vector<GraphAsset>& assets) = 0;
  // The asset with `id`, or nullopt.
  virtual Result<std::optional<GraphAsset>> GetAsset(const std::string& id) = 0;
  // Every asset, ordered by id.
  virtual Result<std::vector<GraphAsset>> Assets() = 0;
  // Inserts or replaces `edges` (by src, dst, relation) in one transaction; updated_at set to now.
  virtual Status UpsertEdges(const std::vector<GraphEdge>& edges) = 0;
  // Every edge, ordered by (src, dst, relation).
  virtual Result<std::vector<GraphEdge>> Edges() = 0;
  // Assets() and Edges() one row at a time, attrs left as JSON text (loading millions of rows
  // without a row vector or a JSON document each). The views live for the call only. Stops at
  // and returns the first error of `fn`. The defaults go through Assets() and Edges().
  virtual Status ScanAssets(const std::function<Status(const GraphAssetView&)>& fn) {
    auto rows = Assets();
    if (!rows.ok()) return rows.status();
    for (const GraphAsset& a : *rows) {
      std::string attrs = a.attrs.dump();
      DW_RETURN_IF_ERROR(fn({a.id, a.kind, a.domain, a.owner, attrs}));
    }
    return Status::Ok();
  }
  virtual Status ScanEdges(const std::function<Status(const GraphEdgeView&)>& fn) {
    auto rows = Edges();
    if (!rows.ok()) return rows.status();
    for (const GraphEdge& e : *rows) {
      std::string attrs = e.attrs.dump();
      DW_RETURN_IF_ERROR(fn({e.src, e.dst, e.relation, attrs}));
    }
    return Status::Ok();
  }

  // Incidents.
  // Inserts `incident` or replaces the stored one with the same id.
  virtual Status PutIncident(const IncidentRecord& incident) = 0;
  // The incident with `id`, or nullopt.
  virtual Result<std::optional<IncidentRecord>> GetIncident(const std::string& id) = 0;
  // The newest `limit` (> 0) incidents by opened_at, newest first; only those with `status`
  // unless it is empty.
  virtual Result<std::vector<IncidentRecord>> Incidents(const std::string& status, int limit) = 0;

  // Every incident whose window overlaps [from, to): opened_at < to and (still open, i.e. no
  // closed_at, or closed_at > from); by opened_at ascending.
  virtual Result<std::vector<IncidentRecord>> IncidentsOverlapping(TimePoint from,
                                                                   TimePoint to) = 0;
  // The ids, no record decoded, of the incidents with `status` that are among the newest `limit`
  // (> 0) by opened_at or were closed after `closed_after`; newest opened first. For sweeps that
  // look for the few incidents still owing something (a receipt) and read only those: decoding
  // every resolved incident each pass was most of a short `dw` run's work.
  virtual Result<std::vector<std::string>> IncidentIdsToSweep(const std::string& status, int limit,
                                                              TimePoint closed_after) = 0;

  // Receipts (append-only; the store never updates or deletes one).
  // Appends a receipt and returns its seq. FailedPrecondition if `prev_hash` is not the hash of
  // the last receipt ("" when there is none); AlreadyExists if `hash` is already stored or another
  // writer appended concurrently.
  virtual Result<int64_t> AppendReceipt(const std::string& prev_hash, const std::string& hash,
                                        const std::string& body) = 0;
  // Every receipt, by seq ascending.
  virtual Result<std::vector<ReceiptRecord>> Receipts() = 0;
  // Receipts() one at a time (verifying a million receipts without holding them); stops at and
  // returns the first error of `fn`.
  virtual Status ScanReceipts(const std::function<Status(const ReceiptRecord&)>& fn) {
    auto rows = Receipts();
    if (!rows.ok()) return rows.status();
    for (const ReceiptRecord& r : *rows) DW_RETURN_IF_ERROR(fn(r));
    return Status::Ok();
  }
  // The receipt with `seq`, or the newest when `seq` is 0; nullopt when there is none.
  virtual Result<std::optional<ReceiptRecord>> GetReceipt(int64_t seq) = 0;

  // Action stage: person keys, proposals, the action event log.
  // Stores `key`, replacing an earlier key of the same email (the old one stops verifying).
  virtual Status PutPersonKey(const PersonKeyRecord& key) = 0;
  // The key of `email`, or nullopt.
  virtual Result<std::optional<PersonKeyRecord>> GetPersonKey(const std::string& email) = 0;
  // Stores one proposal version. AlreadyExists (nothing written) if (id, version) is stored:
  // versions never change. InvalidArgument for an empty id or version < 1.
  virtual Status AddProposal(const ProposalRecord& proposal) = 0;
  // Every version of proposal `id`, oldest first (empty when unknown).
  virtual Result<std::vector<ProposalRecord>> ProposalVersions(const std::string& id) = 0;
  // Every version of every proposal of `incident_id`, by (id, version).
  virtual Result<std::vector<ProposalRecord>> ProposalsOfIncident(const std::string& incident_id) = 0;
  // Appends `event` (seq assigned) and returns its seq. AlreadyExists (nothing written) when its
  // non-empty nonce is already in the log.
  virtual Result<int64_t> AppendActionEvent(const ActionEventRecord& event) = 0;
  // The events about `subject` ("" for all), by seq ascending.
  virtual Result<std::vector<ActionEventRecord>> ActionEvents(const std::string& subject) = 0;
  // The events, by seq ascending, of every proposal ("proposal:" subjects) whose newest request
  // event (sent, escalated, or awaiting: an approval that left other parties to approve) is later
  // than its newest draft and closing event (drafted, expired, lapsed, approved, denied): the
  // ones an approval request may still be open for. Chosen by kind
  // and seq in the index, so the sweep's cost follows the open requests, not the whole log.
  virtual Result<std::vector<ActionEventRecord>> ActionEventsOfOpenRequests() = 0;

  // Notification outbox (platforms/notify/ writes and delivers it).
  // Adds `message` as given (state, attempts, next_attempt_at; id and times are set by the store);
  // returns false and writes nothing when (incident_id, channel, event) is already stored.
  // InvalidArgument for an empty incident_id, channel or event, or an unknown state.
  virtual Result<bool> EnqueueOutbox(const OutboxMessage& message) = 0;
  // Up to `limit` (> 0) pending messages with next_attempt_at <= now and no earlier pending
  // message of the same incident and channel (so an incident's messages reach a channel in the
  // order they were written: a resolve never overtakes its trigger), oldest due first.
  virtual Result<std::vector<OutboxMessage>> DueOutbox(TimePoint now, int limit) = 0;
  // Stores state, attempts, next_attempt_at, last_error and answer of the message `message.id`
  // (updated_at set to now). NotFound when there is no such message.
  virtual Status UpdateOutbox(const OutboxMessage& message) = 0;
  // UpdateOutbox of every message of `messages`, all or nothing, in a few statements (a delivery
  // round's outcomes). InvalidArgument for an unknown state, NotFound when one id is unknown;
  // nothing is written then.
  virtual Status UpdateOutboxMessages(const std::vector<OutboxMessage>& messages) = 0;
  // Every message of `incident_id`, in the order they were written.
  virtual Result<std::vector<OutboxMessage>> OutboxFor(const std::string& incident_id) = 0;
};

// Opens (creating if needed) the store named by `location`: a postgresql:// (or postgres://) URL,
// or else a SQLite file path (relative to the current directory; callers resolve paths relative
// to the workspace first) whose parent folders are created. Applies pending migrations in one
// transaction; refuses a store written by a newer version with kFailedPrecondition and a message
// that names both versions. Errors name the location with any password redacted. `clock` stamps
// written_at/updated_at/applied_at and must outlive the store.
Result<std::unique_ptr<StateStore>> OpenStateStore(const std::string& location,
                                                   const Clock& clock = RealClock());

}  // namespace dw::store
