// Kestra flow YAML as a graph source. Per flow (kestra://<instance>/<namespace>.<id>):
//  - Flow triggers that wait on upstream flows (preconditions.flows, ExecutionFlow conditions)
//    become upstream -> flow edges, and Subflow (and ForEachItem) tasks flow -> subflow edges
//    (relation "triggers");
//  - KV Set tasks write, and kv('key'[, namespace]) expressions and KV Get tasks read, the asset
//    kv://<instance>/<namespace>/<key>;
//  - SQL in sql/query/sqls/queries/afterSQL properties of any task or trigger (JDBC, BigQuery, ...)
//    gives table reads and writes (ExtractTableRefs), a destinationTable property a write; the
//    tables are in the warehouse the task's JDBC `url` names (jdbc_warehouse.h), else the default;
//  - Kafka and Pub/Sub triggers and Consume tasks read their topic, Produce and Publish tasks write
//    it; a Schedule trigger's cron (in its `timezone`, disabled with the trigger or the flow) is the
//    flow's schedule; labels.owner its owner; description its notes.
// Values may be templates (kestra_templates.h): what is static is resolved, the rest is kept as a
// placeholder asset tagged "templated"; a value that cannot be read is left out and reported.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "base/status.h"
#include "graph/graph_index.h"
#include "graph/jdbc_warehouse.h"
#include "graph/source_batch.h"

namespace dw::graph {

struct KestraFlowOptions {
  std::string instance = "kestra";  // the platform name in the workspace
  std::string warehouse = "main";   // where tables named in SQL live when the task names no connection
  std::vector<KnownWarehouse> warehouses;  // the workspace's, to match a task's JDBC url against
};

// Adds what one flow's YAML asserts to `batch`. Fails with kInvalidArgument "<file>:<line>: ..."
// when the text is not YAML or is not a flow (no id or namespace); then nothing is added. A value
// that cannot be read (a template that never closes, a cron or time zone Kestra would refuse) is
// left out and reported in `problems` as "<file>: <where>: <why>" (when not null); the rest of the
// flow is still read.
Status AddKestraFlow(const std::string& yaml_text, const std::string& file, const KestraFlowOptions& options,
                     const GraphIndex& index, SourceBatch* batch, std::vector<std::string>* problems = nullptr);

// What reading a folder (or an instance) of flows gave.
struct KestraFlowsRead {
  SourceBatch batch;
  size_t flows = 0;                  // flows read, whole or in part
  std::vector<std::string> skipped;  // one sentence per file or flow not read at all
  std::vector<std::string> partly;   // one sentence per value left out of a flow that was read
  size_t partly_read_flows = 0;      // flows with at least one value left out

  // Counts one flow's outcome: `added` (AddKestraFlow's status) not ok is a flow skipped with its
  // message; otherwise a flow read, partly when `problems` names values left out. Returns added.ok().
  bool Count(const Status& added, const std::vector<std::string>& problems) {
    if (!added.ok()) {
      skipped.push_back(added.message());
      return false;
    }
    ++flows;
    if (!problems.empty()) ++partly_read_flows;
    partly.insert(partly.end(), problems.begin(), problems.end());
    return true;
  }
};

// Reads every *.yml and *.yaml file under `folder` (recursively, in path order) into one batch of
// origin kestra, read whole. A file that cannot be read or is not a flow is skipped and named in
// `skipped`; the others are still read. Fails only when the folder cannot be listed.
Result<KestraFlowsRead> KestraFlowsBatch(const std::filesystem::path& folder, const KestraFlowOptions& options,
                                         const GraphIndex& index);

// "2 flows skipped, 1 partly read" style summary plus the reasons, one line each; empty when
// every flow was read whole.
std::vector<std::string> KestraReadWarnings(const KestraFlowsRead& read, const std::string& source);

}  // namespace dw::graph
