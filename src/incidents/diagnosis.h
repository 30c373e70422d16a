// Diagnosis: the change events on an incident's damaged assets and everything upstream of them,
// in the window before the first bad point, each scored (time proximity, lineage distance, its own
// risk, whether it can explain the damage's shape) and explained, best first. Each damaged asset's
// own writers are judged first, against that asset's own damage: a change that explains it on its
// own (own_cause.h) ranks above the rest and is never ruled out as downstream of other damage.
// Other changes downstream of the damage are listed as unable to explain it. Deterministic;
// terminates on cyclic graphs.
#pragma once

#include "graph/blast_radius.h"
#include "graph/graph_index.h"
#include "incidents/incidents.h"
#include "store/state_store.h"

namespace dw::incidents {

// The weights of the score parts (they sum to 1; docs/incidents.md).
inline constexpr double kWeightTime = 0.2;
inline constexpr double kWeightDistance = 0.2;
inline constexpr double kWeightRisk = 0.2;
inline constexpr double kWeightShape = 0.4;
// Candidates listed in the answer (all are scored; alike ones are folded into the best of them).
inline constexpr size_t kMaxCandidatesListed = 10;

// Ranks the causes of `incident` at `now`. `index` may be null (only the damaged assets' own events
// are read, and the diagnosis says so). The store's error when events cannot be read.
// The blast radius's impact_sql queries are returned in `impact_queries` (when not null) instead
// of being run, so the caller can run them outside the graph's lock (graph::FillImpactCounts).
Result<Diagnosis> RankCauses(const Incident& incident, store::StateStore& store, const graph::GraphIndex* index,
                             const DeskOptions& options, TimePoint now,
                             std::vector<graph::ImpactQuery>* impact_queries);

// The time diagnosis measures from: the first bad point of the incident's metric and check signals,
// or of any signal when it holds only change signals.
TimePoint FirstBadPoint(const Incident& incident);

}  // namespace dw::incidents
