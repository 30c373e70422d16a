// IngestSource::kKestraApi (graph/ingest.h; `dw ingest kestra [PLATFORM]`): the flows of a Kestra instance, read through its REST API rather
// than from a folder of YAML, applied to the context graph like lineage.kestra_flows.
#pragma once

#include <string>

#include "base/json.h"
#include "base/status.h"
#include "config/workspace.h"
#include "graph/context_graph.h"
#include "net/http_client.h"

namespace dw::graph {

struct KestraFlowIngestOptions {
  std::string platform;     // a platform of type kestra; empty: the workspace's only one
  int page_size = 100;      // flows per search page
  size_t max_flows = 20000; // a server that keeps paging past this is refused
};

// Lists every flow of the platform (GET .../flows/search, page by page), fetches each one's source
// (GET .../flows/{namespace}/{id}?source=true) and applies all of them as one read-whole Kestra
// source. An unreachable platform or a refused call fails the whole ingestion with the flow named,
// and nothing is stored. A flow whose source is missing, is not a flow, or names another
// namespace/id than the API listed is skipped with its reason (the others are read); a value of a
// flow that cannot be read is left out with its reason. A disabled flow keeps its edges and its
// schedule, marked disabled (since the revision that disabled it was saved). Returns the apply
// summary plus {"platform", "flows" (listed), "disabled", "flows_read", "flows_skipped",
// "flows_partly_read", "warnings" (a count line, then one line per skipped flow or value left out)}.
Result<Json> IngestKestraFlowsFromApi(const config::Workspace& ws, net::HttpClient& http,
                                      ContextGraph& graph, const KestraFlowIngestOptions& options);

}  // namespace dw::graph
