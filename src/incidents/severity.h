// Severity from the blast radius: SEV1 when a customer-facing consumer acts on damaged data within
// the horizon (24 h), SEV2 when any consumer does, SEV3 otherwise; with the sentence that says why.
// Computed from the Clock's now, so it rises as the deadline nears.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "graph/blast_radius.h"
#include "graph/graph_index.h"
#include "incidents/incidents.h"

namespace dw::incidents {

struct Sized {
  Severity severity;
  Json blast_radius = Json::object();  // graph::BlastRadius body, plus "not_in_graph"
  std::vector<graph::ImpactQuery> impact_queries;  // found, whether run or not
};

// The blast radius of `damaged` at `now` and the severity it gives. Assets not in the graph are
// left out of the walk and named in "not_in_graph". Without an index, or with no damaged asset in
// the graph, SEV3 saying the blast radius is unknown. With `impact_since` and an impact counter in
// `options`, runs each impact_sql found (counts in blast_radius["impact"]).
Sized SizeBlastRadius(const graph::GraphIndex* index, const std::vector<std::string>& damaged, TimePoint now,
                      const DeskOptions& options, std::optional<TimePoint> impact_since);

// The severity the consumers of a blast radius body give (see SizeBlastRadius).
Severity SeverityFromConsumers(const Json& consumers, TimePoint now, const DeskOptions& options);

}  // namespace dw::incidents
