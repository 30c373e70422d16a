// The StateStore implementation shared by both backends: the typed methods written once over a
// SqlConnection, with the locking and transaction rules of the interface.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>

#include "base/clock.h"
#include "store/migrations.h"
#include "store/sql_connection.h"
#include "store/metric_batches.h"
#include "store/metric_snapshots.h"
#include "store/state_store.h"
#include "store/store_clock.h"
#include "store/table_watch_states.h"
#include "store/watch_leases.h"

namespace dw::store {

class SqlStateStore final : public StateStore,
                            public MetricSnapshots,
                            public MetricBatches,
                            public WatchLeases,
                            public TableWatchStates,
                            public StoreClock {
 public:
  // Migrates `conn` to the newest of `migrations` and returns a store over it; the errors are
  // ApplyMigrations'. `clock` must outlive the store.
  static Result<std::unique_ptr<StateStore>> Open(std::unique_ptr<SqlConnection> conn,
                                                  std::span<const Migration> migrations,
                                                  const Clock& clock, bool simulated_clock = false);

  std::string backend() const override { return conn_->backend(); }
  int schema_version() const override { return schema_version_; }
  // PostgreSQL's clock_timestamp(); nullopt on SQLite (the process's own clock).
  Result<std::optional<TimePoint>> ServerNow() override;

  Status InTransaction(const std::function<Status(StateStore&)>& body) override;

  Status RecordCheckResults(const std::vector<CheckResultRow>& rows) override;
  Result<std::vector<CheckResultRow>> CheckResultsFor(const std::string& table_ref,
                                                      int limit) override;
  Result<std::vector<CheckResultRow>> CheckResultsOfRun(const std::string& run_id) override;
  Result<std::optional<CheckResultRow>> LatestCheckResult(const std::string& table_ref,
                                                          const std::string& check_name) override;

  Status UpsertMetricPoints(const std::string& metric,
                            const std::vector<MetricPoint>& points) override;
  Result<std::vector<MetricPoint>> MetricPoints(const std::string& metric, TimePoint from,
                                                TimePoint to) override;
  Result<int64_t> DeleteMetricPointsBefore(const std::string& metric, TimePoint before) override;
  Result<std::vector<std::string>> MetricNames() override;
  Result<MetricSnapshotLoad> LoadMetricSnapshot(const std::string& metric) override;
  Result<bool> SaveMetricSnapshot(const MetricSnapshotRecord& snapshot) override;
  Result<int64_t> AddMetricMark(const MetricMark& mark) override;
  Result<std::vector<MetricMark>> MetricMarks(const std::string& metric, TimePoint from,
                                              TimePoint to) override;

  // In sql_metric_batches.cc.
  Result<std::vector<std::vector<MetricPoint>>> MetricPointsOfMany(
      const std::vector<MetricRange>& ranges) override;
  Result<std::vector<std::vector<MetricMark>>> MetricMarksOfMany(
      const std::vector<MetricRange>& ranges) override;
  Result<std::vector<Result<MetricSnapshotLoad>>> LoadMetricSnapshots(
      const std::vector<std::string>& metrics) override;
  Result<std::vector<bool>> SaveMetricSnapshots(const std::vector<MetricSnapshotRecord>& snapshots) override;
  Status UpsertMetricPointsOfMany(const std::vector<MetricPointsWrite>& writes) override;

  Result<bool> AddChangeEvent(const ChangeEvent& event) override;
  Result<std::vector<ChangeEvent>> ChangeEventsFor(const std::string& asset_id, TimePoint from,
                                                   TimePoint to) override;
  Result<std::vector<ChangeEvent>> ChangeEventsBetween(TimePoint from, TimePoint to) override;
  Result<int64_t> CommittedSeq() override;
  Result<std::vector<ChangeEvent>> ChangeEventsCommitted(int64_t after, int64_t through) override;
  Result<std::vector<std::string>> MetricsWithLatestPointCommitted(int64_t after, int64_t through) override;

  Result<std::optional<std::string>> GetCursor(const std::string& name) override;
  Status SetCursor(const std::string& name, const std::string& value) override;

  Status UpsertAssets(const std::vector<GraphAsset>& assets) override;
  Result<std::optional<GraphAsset>> GetAsset(const std::string& id) override;
  Result<std::vector<GraphAsset>> Assets() override;
  Status UpsertEdges(const std::vector<GraphEdge>& edges) override;
  Result<std::vector<GraphEdge>> Edges() override;
  Status ScanAssets(const std::function<Status(const GraphAssetView&)>& fn) override;
  Status ScanEdges(const std::function<Status(const GraphEdgeView&)>& fn) override;

  Status PutIncident(const IncidentRecord& incident) override;
  Result<std::optional<IncidentRecord>> GetIncident(const std::string& id) override;
  Result<std::vector<IncidentRecord>> Incidents(const std::string& status, int limit) override;
  Result<std::vector<IncidentRecord>> IncidentsOverlapping(TimePoint from, TimePoint to) override;
  Result<std::vector<std::string>> IncidentIdsToSweep(const std::string& status, int limit,
                                                      TimePoint closed_after) override;

  Result<int64_t> AppendReceipt(const std::string& prev_hash, const std::string& hash,
                                const std::string& body) override;
  Result<std::vector<ReceiptRecord>> Receipts() override;
  Status ScanReceipts(const std::function<Status(const ReceiptRecord&)>& fn) override;
  Result<std::optional<ReceiptRecord>> GetReceipt(int64_t seq) override;

  Status PutPersonKey(const PersonKeyRecord& key) override;
  Result<std::optional<PersonKeyRecord>> GetPersonKey(const std::string& email) override;
  Status AddProposal(const ProposalRecord& proposal) override;
  Result<std::vector<ProposalRecord>> ProposalVersions(const std::string& id) override;
  Result<std::vector<ProposalRecord>> ProposalsOfIncident(const std::string& incident_id) override;
  Result<int64_t> AppendActionEvent(const ActionEventRecord& event) override;
  Result<std::vector<ActionEventRecord>> ActionEvents(const std::string& subject) override;
  Result<std::vector<ActionEventRecord>> ActionEventsOfOpenRequests() override;

  // In sql_table_watch_states.cc.
  Result<std::vector<TableWatchStateRecord>> LoadTableWatchStates(const std::string& warehouse) override;
  Status SaveTableWatchStates(const std::vector<TableWatchStateRecord>& records) override;

  // In sql_outbox.cc.
  Result<bool> EnqueueOutbox(const OutboxMessage& message) override;
  Result<std::vector<OutboxMessage>> DueOutbox(TimePoint now, int limit) override;
  Status UpdateOutbox(const OutboxMessage& message) override;
  Status UpdateOutboxMessages(const std::vector<OutboxMessage>& messages) override;
  Result<std::vector<OutboxMessage>> OutboxFor(const std::string& incident_id) override;

  // In sql_watch_leases.cc (PostgreSQL only: WatchLeasesOf hides them on SQLite).
  Result<int64_t> Heartbeat(const WatchReplica& self) override;
  Result<int64_t> DatabaseNowMs() override;
  Result<LeaseClaim> ClaimLease(const std::string& job, int64_t due_ms, const std::string& replica,
                                int64_t lease_ms) override;
  Result<bool> FinishLease(const std::string& job, int64_t due_ms, const std::string& replica, int64_t run_id,
                           bool ok, const std::string& message) override;
  Status StopReplica(const std::string& replica) override;
  Result<std::vector<WatchReplica>> Replicas() override;
  Result<std::vector<LeaseClaim>> ClaimLeases(const std::vector<LeaseSlot>& slots, const std::string& replica,
                                              int64_t lease_ms, int64_t max_take) override;
  Result<std::vector<bool>> FinishLeases(const std::vector<LeaseFinish>& runs, const std::string& replica) override;
  Result<std::vector<WatchLease>> OpenLeases() override;
  Result<std::vector<LeaseSlot>> AbandonedLeases(int limit) override;
  Result<std::vector<WatchRun>> RecentRuns(int limit) override;
  Result<WatchPrune> PruneWatchHistory(int64_t keep_ms, int64_t max_rows) override;
  Result<bool> TryHoldMutex(const std::string& name) override;
  Status ReleaseMutex(const std::string& name) override;

 private:
  SqlStateStore(std::unique_ptr<SqlConnection> conn, int schema_version, const Clock& clock)
      : conn_(std::move(conn)), schema_version_(schema_version), clock_(clock) {}

  // Serializes the outbox's writers to the end of the transaction (PostgreSQL; a no-op on SQLite,
  // whose writers are serial already). REQUIRES: inside a Do body. In sql_outbox.cc.
  Status LockOutboxLines();
  // Runs `body` holding the store lock. A `write` outside any transaction gets its own; inside
  // one, `body` joins it and a failure dooms it.
  Status Do(bool write, const std::function<Status()>& body);
  // Marks `metric`'s history as rewritten (see LoadMetricSnapshot). REQUIRES: inside a Do body.
  Status BumpMetricRevision(const std::string& metric);
  // Runs one statement. REQUIRES: mu_ held (i.e. called from a Do body).
  Result<std::vector<SqlRow>> Run(const std::string& sql, const std::vector<SqlValue>& params);
  // Run for a statement that selects a bytes column (SqlConnection::QueryBytes).
  Result<std::vector<SqlRow>> RunBytes(const std::string& sql, const std::vector<SqlValue>& params);

  // The lock is recursive because a transaction body calls back into the store on its thread.
  std::recursive_mutex mu_;
  std::unique_ptr<SqlConnection> conn_;
  const int schema_version_;
  const Clock& clock_;
  int depth_ = 0;    // > 0 while a transaction is open
  Status tx_error_;  // the first failure inside the open transaction
};

}  // namespace dw::store
