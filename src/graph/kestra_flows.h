// Kestra flow YAML as a graph source. Per flow (kestra://<instance>/<namespace>.<id>):
//  - Flow triggers that wait on upstream flows (preconditions.flows, ExecutionFlow conditions)
//    become upstream -> flow edges (relation "triggers");
//  - KV Set tasks write, and kv('key'[, namespace]) expressions and KV Get tasks read, the asset
//    kv://<instance>/<namespace>/<key>;
//  - SQL in sql/query/sqls/queries properties gives table reads and writes (ExtractTableRefs), a
//    destinationTable property a write;
//  - Kafka and Pub/Sub realtime triggers read their topic; a Schedule trigger's cron is the flow's
//    schedule; labels.owner its owner; description its notes.
#pragma once

#include <filesystem>
#include <string>

#include "base/status.h"
#include "graph/graph_index.h"
#include "graph/source_batch.h"

namespace dw::graph {

struct KestraFlowOptions {
  std::string instance = "kestra";  // the platform name in the workspace
  std::string warehouse = "main";   // where tables named in SQL live
};

// Adds what one flow's YAML asserts to `batch`. Fails with kInvalidArgument "<file>:<line>: ..."
// when the text is not YAML or is not a flow (no id or namespace).
Status AddKestraFlow(const std::string& yaml_text, const std::string& file,
                     const KestraFlowOptions& options, const GraphIndex& index, SourceBatch* batch);

// Reads every *.yml and *.yaml file under `folder` (recursively, in path order) into one batch of
// origin kestra, read whole. Fails on the first file that cannot be read or is not a flow.
Result<SourceBatch> KestraFlowsBatch(const std::filesystem::path& folder,
                                     const KestraFlowOptions& options, const GraphIndex& index);

}  // namespace dw::graph
