// Naming for OpenLineage events, shared by the DOM path (openlineage_event.h) and the streaming
// reader (openlineage_reader.h): which canonical id a dataset or job of an event stands for.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "graph/graph_index.h"

namespace dw::graph {

// True for START, RUNNING, COMPLETE, ABORT, FAIL and OTHER.
bool IsRunEventType(std::string_view type);

// A dataset's canonical id and its other names (namespace/name and symlinks that are not the id).
struct ResolvedDataset {
  std::string id;
  std::vector<std::string> aliases;
};

// Resolves the dataset `ns`/`name` with `symlinks` (namespace/name of each symlink identifier)
// against `index`: a known id or alias, a unique asset with the same short name, else an id
// derived from the namespace (kafka://host:port -> kafka://host-port/<topic>; database schemes ->
// table://host-port/<schema.table>). The id may not be canonical: callers check.
ResolvedDataset ResolveRunEventDataset(const std::string& ns, const std::string& name,
                                       const std::vector<std::string>& symlinks, const GraphIndex& index);

// "flink", "dbt" or "kestra" from job.facets.jobType.integration, else from
// run.facets.processing_engine.name (case-insensitive); "" when neither names one.
std::string RunEventJobKind(std::string_view integration, std::string_view engine);

// The job's canonical id: a recorded id or alias "ns/name", a unique job of that name, else one
// derived from `kind`. kInvalidArgument at $.job / $.job.name when none can be made.
Result<std::string> ResolveRunEventJob(const std::string& ns, const std::string& name,
                                       const std::string& kind, const GraphIndex& index);

}  // namespace dw::graph
