// OpenLineage events (spec 2-0-2: RunEvent, JobEvent, DatasetEvent) as a graph source: the job
// and its input and output datasets become assets, inputs -> job -> outputs become edges, and the
// schema, symlinks and columnLineage dataset facets give columns, aliases and column-level edges.
// COMPLETE, FAIL and ABORT run events are kept as the job's run history; a JobEvent is the same
// lineage without a run; a DatasetEvent describes one dataset (and the edges its column lineage
// reads from). The type is told by schemaURL, else by the members present (openlineage_names.h).
#pragma once

#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/json.h"
#include "base/status.h"
#include "graph/graph_index.h"
#include "graph/source_batch.h"

namespace dw::graph {

// Checks the shape of one event of any of the three types without resolving names. Fails with
// kInvalidArgument whose message starts with the JSON path of the first problem
// ("$.inputs[1].name: expected a string", "$: cannot tell the event type: ...").
Status ValidateRunEvent(const Json& event);

// Validates `event` and turns it into a batch, resolving dataset and job names against `index`
// (recorded aliases, symlinks, a unique asset with the same short name) and deriving canonical
// ids otherwise (namespace kafka://host:port -> kafka://host-port/<topic>; database schemes ->
// table://host-port/<schema.table>). `now` stands in for a missing eventTime. A COMPLETE event
// replaces what the job reads and writes: its other openlineage edges go stale.
Result<SourceBatch> RunEventBatch(const Json& event, const GraphIndex& index, TimePoint now);

// Merges batches of the openlineage origin into one (for ingesting a file of events at once);
// stale scopes are dropped (a file is a history, not one job's latest run).
SourceBatch MergeBatches(std::vector<SourceBatch> batches);

}  // namespace dw::graph
