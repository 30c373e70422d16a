// Whether a change can explain the shape of the damage: a restore that dropped state explains a
// level drop towards zero; a stale input (a run that read a superseded version of its source)
// explains values equal to an earlier period's and rows disagreeing with the reference; a
// duplicated run explains a doubling; a schema version that removed a field explains a null-rate
// jump. Each answer carries the sentence that says why, and what speaks against it.
#pragma once

#include <string>
#include <vector>

#include "graph/graph_index.h"
#include "incidents/incidents.h"
#include "incidents/routine_runs.h"
#include "store/records.h"

namespace dw::incidents {

struct ShapeFit {
  double fit = 0;  // 0..1
  std::string explanation;
  std::vector<std::string> counter_evidence;
  std::string cause_kind;  // the kind of cause it stands for: the change kind, or "stale_input",
                           // "duplicated_run" when the evidence says so
};

// How well `event` explains the damage shapes `shapes` (the incident's data signals; empty when it
// has only change signals). `others` are the other change events examined (for duplicated runs);
// `index` may be null. `profile` is what is usual for the flow's runs (learnt from `others` when
// null): two runs closer than half its cadence are a duplicated run, unless this one looks like
// the last N and the other does not (then the other is the duplicate); a replay always is.
ShapeFit FitShape(const store::ChangeEvent& event, const std::vector<SignalShape>& shapes,
                  const std::vector<store::ChangeEvent>& others, const graph::GraphIndex* index,
                  const RunProfile* profile = nullptr);

// The input of `flow` (a canonical id) that a newer version supersedes in the graph, e.g.
// api://pricing/v1/tariffs/current when api://pricing/v2/tariffs/current exists; "" when none.
std::string SupersededInput(const graph::GraphIndex& index, const std::string& flow, std::string* newer);

}  // namespace dw::incidents
