// dbt's manifest.json (schema v11 and v12) as a graph source: models, seeds and snapshots become
// dbt://<package>/<name>; sources become warehouse tables; exposures become dashboards
// (type dashboard) or api assets (other types); depends_on.nodes become edges. Relation names
// ("db"."schema"."table") become aliases, so OpenLineage and SQL names stitch onto them.
#pragma once

#include <string>

#include "base/json.h"
#include "base/status.h"
#include "graph/graph_index.h"
#include "graph/source_batch.h"

namespace dw::graph {

// Reads `manifest`. Source tables are named in warehouse `warehouse` (table://<warehouse>/...),
// stitched onto an existing table asset with the same table name when there is exactly one.
// Fails with kInvalidArgument naming the JSON path of a malformed part, or the version when the
// manifest is not v11 or v12.
Result<SourceBatch> DbtManifestBatch(const Json& manifest, const std::string& warehouse,
                                     const GraphIndex& index);

}  // namespace dw::graph
