// One change, one candidate (issue 37): the events a collector writes for one change are facets of
// it, tied by the platform ids they carry, so diagnosis ranks the change once with the facets as
// its evidence and the next candidate is the next distinct change.
//
//   Flink release   deploy, restore, restore_skipped_state, config_risk, exception of one job run
//                   (evidence `job_id`, the run's jid) within kFacetSpan of each other, or a
//                   restore and a skipped state naming one savepoint (`savepoint_path`,
//                   `external_path`), on one job. A run's restart from a checkpoint hours later is
//                   a change of its own.
//   Kestra          the events of one execution (`execution_id`); a flow_revision and the routine
//                   executions that ran it (`to_revision` = `flow_revision`, the revision's own
//                   event among them). An exceptional run (a replay, a manual run) is its own change.
//   dbt             the model_change events of one manifest (`invocation_id`, else the manifest and
//                   its generated_at), and the warehouse writes whose query comment or tag names
//                   that invocation_id.
//   warehouse write a statement whose query tag or text names an execution id of the candidates
//                   joins that execution.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "store/records.h"

namespace dw::incidents {

// How far apart two events of one job run may be and still be one release.
inline constexpr std::chrono::minutes kFacetSpan{30};

// The change each event belongs to: out[i] == out[j] iff events i and j are facets of one change
// (the smallest index of the change's events). `exceptional[i]` says event i is an exceptional run
// (routine_runs.h), which never joins its revision. Deterministic.
std::vector<size_t> GroupFacets(const std::vector<const store::ChangeEvent*>& events,
                                const std::vector<bool>& exceptional);

// The dbt invocation id a statement's query comment or tag names (`"invocation_id": "<id>"`, as
// dbt's default query comment writes it), or "".
std::string DbtInvocationId(const std::string& text);

}  // namespace dw::incidents
