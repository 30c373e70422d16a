// Read-only client of the Kestra REST API (tenant in the path, `main` on open source; basic auth
// on open source, bearer tokens on Enterprise): executions search with paging and filters,
// execution detail with task runs and outputs, execution logs, flows with source and revisions,
// triggers, and KV values.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "platforms/platform_call.h"

namespace dw::platforms::kestra {

struct TaskRun {
  std::string id;
  std::string task_id;
  std::string state;
  Json outputs = Json::object();
  int attempts = 0;  // attempts[] length: more than one means the task was retried
};

struct Execution {
  std::string id;
  std::string namespace_;
  std::string flow_id;
  int64_t flow_revision = 0;
  std::string state;             // state.current: CREATED, RUNNING, SUCCESS, FAILED, WARNING, ...
  int64_t start_ms = 0;          // state.startDate
  std::optional<int64_t> end_ms; // state.endDate (absent while running)
  double duration_s = 0;         // state.duration, seconds
  std::vector<TaskRun> task_runs;
  Json labels = Json::array();
  std::string original_id;  // originalId: another execution's id when this one replays it
  std::vector<std::string> state_history;  // state.histories[].state, oldest first (RESTARTED for a replay)
  // trigger: what started it. `has_trigger` false when Kestra names none (a run started from the UI
  // or the API); else trigger.type (io.kestra.plugin.core.trigger.Schedule, ...), trigger.id and,
  // for a schedule, the slot it ran for (trigger.variables.date; differs from start_ms for a backfill
  // or a late run).
  bool has_trigger = false;
  std::string trigger_type;
  std::string trigger_id;
  std::string trigger_date;
  // True for a state an execution does not leave (SUCCESS, FAILED, WARNING, KILLED, CANCELLED, SKIPPED).
  bool terminal() const;
};

struct ExecutionQuery {
  std::string namespace_;  // filters[namespace][EQUALS]; empty: any
  std::string flow_id;     // filters[flowId][EQUALS]; empty: any
  std::optional<int64_t> start_from_ms;  // filters[startDate][GTE]
  int page = 1;            // from 1
  int size = 100;
};

struct ExecutionPage {
  std::vector<Execution> results;
  int64_t total = 0;
};

struct LogEntry {
  int64_t timestamp_ms = 0;
  std::string level;
  std::string task_id;
  std::string message;
};

struct Flow {
  std::string namespace_;
  std::string id;
  int64_t revision = 0;
  // When this revision was saved (AbstractFlow.updated, "created or last updated"); absent when
  // the server does not say.
  std::optional<int64_t> updated_ms;
  bool disabled = false;
  std::string source;  // YAML, when asked for
};

struct FlowPage {
  std::vector<Flow> results;  // without source
  int64_t total = 0;
};

struct Trigger {
  std::string namespace_;
  std::string flow_id;
  std::string trigger_id;
  bool disabled = false;
  std::optional<int64_t> updated_ms;
};

struct KvValue {
  std::string type;
  Json value;
};

class KestraClient {
 public:
  // `platform` (type kestra) and `http` must outlive the client.
  KestraClient(const config::PlatformConfig& platform, net::HttpClient& http);

  // GET /api/v1/{tenant}/executions/search, sorted by start date ascending.
  Result<ExecutionPage> SearchExecutions(const ExecutionQuery& query) const;
  // GET /api/v1/{tenant}/executions/{id}.
  Result<Execution> GetExecution(const std::string& id) const;
  // GET /api/v1/{tenant}/logs/{executionId}; at most `max_entries` entries are kept.
  Result<std::vector<LogEntry>> ExecutionLogs(const std::string& execution_id,
                                              size_t max_entries = 1000) const;
  // GET /api/v1/{tenant}/flows/search, one page (`page` from 1) sorted by namespace then id.
  // Deleted flows are left out of `results` (still counted in `total`, as Kestra counts them).
  Result<FlowPage> SearchFlows(int page, int size) const;
  // GET /api/v1/{tenant}/flows/{namespace}/{id}?source=true.
  Result<Flow> GetFlow(const std::string& namespace_, const std::string& id) const;
  // GET /api/v1/{tenant}/flows/{namespace}/{id}/revisions: every revision Kestra keeps, as it
  // answers them (FlowWithSource: revision, `updated` where given, source), oldest first.
  Result<std::vector<Flow>> FlowRevisions(const std::string& namespace_, const std::string& id) const;
  // GET /api/v1/{tenant}/triggers/search (one page of `size`).
  Result<std::vector<Trigger>> Triggers(int page = 1, int size = 100) const;
  // GET /api/v1/{tenant}/namespaces/{ns}/kv/{key}.
  Result<KvValue> GetKv(const std::string& namespace_, const std::string& key) const;

  std::string tenant() const;
  const PlatformCall& call() const { return call_; }

 private:
  std::vector<std::string> Api(std::vector<std::string> rest) const;
  PlatformCall call_;
};

}  // namespace dw::platforms::kestra
