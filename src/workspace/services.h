// The services one process builds from a workspace, shared by every surface (CLI, MCP agents,
// HTTP server). Surfaces hold no business logic: they call into what is reachable from here.
// The workspace layer sits after the stages and before mcp/ along the data path: it includes the
// stages' front doors and is included by agents/ and app/, never the reverse.
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "base/clock.h"
#include "base/json.h"
#include "config/workspace.h"
#include "graph/context_graph.h"
#include "net/http_client.h"
#include "store/state_store.h"
#include "workspace/session_scan_budget.h"

namespace dw::workspace {

class Services {
 public:
  // Loads the workspace in `dir`. A workspace that fails to load still yields Services (so an MCP
  // agent can start and explain the problem through its tools); see workspace_status().
  static std::shared_ptr<Services> Load(const std::filesystem::path& dir, const Clock& clock);

  const std::filesystem::path& dir() const { return dir_; }
  // The validated workspace; REQUIRES: workspace_status().ok().
  const config::Workspace& workspace() const { return *workspace_; }
  // Ok when the workspace loaded; otherwise kNotFound (no dataworkers.yaml) or kInvalidArgument
  // with every config error in the message, one per line.
  const Status& workspace_status() const { return workspace_status_; }
  const std::vector<config::ConfigError>& config_errors() const { return config_errors_; }

  const Clock& clock() const { return *clock_; }
  net::HttpClient& http() const { return *http_; }

  // DescribeConfiguration(workspace()), computed once: the workspace cannot change while the
  // process runs. REQUIRES: workspace_status().ok().
  const Json& configuration_description();

  // The state store, opened (and migrated) on first use; thread-safe.
  Result<store::StateStore*> state();

  // The context graph, loaded from the state store on first use after ingesting the workspace's
  // own sources (notes, lineage.dbt_manifest, lineage.kestra_flows); afterwards refreshed when
  // another process changed it. A source that fails is reported in graph_warnings(), not fatal.
  // Thread-safe.
  Result<graph::ContextGraph*> graph();
  // graph() for a writer (the OpenLineage intake): once loaded, returned without the per-call
  // check of the store's generation, because every write syncs the index with the store itself
  // before storing anything (ContextGraph::ApplyInOrder). Thread-safe.
  Result<graph::ContextGraph*> graph_for_write();
  // Problems met while ingesting the workspace's sources on first use (one sentence each).
  std::vector<std::string> graph_warnings();
  // What each MCP session served by this process has billed (mcp.max_scan_bytes); thread-safe.
  SessionScanBudget& session_scan_budget() { return session_scan_budget_; }

 private:
  std::filesystem::path dir_;
  std::optional<config::Workspace> workspace_;
  Status workspace_status_;
  std::vector<config::ConfigError> config_errors_;
  const Clock* clock_ = nullptr;
  std::unique_ptr<net::HttpClient> http_;
  std::once_flag described_once_;
  Json configuration_description_;
  std::mutex state_mu_;
  std::unique_ptr<store::StateStore> state_;
  std::mutex graph_mu_;
  std::unique_ptr<graph::ContextGraph> graph_;
  std::atomic<graph::ContextGraph*> loaded_graph_{nullptr};  // graph_ once loaded
  std::vector<std::string> graph_warnings_;
  SessionScanBudget session_scan_budget_;
};

}  // namespace dw::workspace
