// The team's notes: the workspace's `assets:` entries as a graph source.
#pragma once

#include <vector>

#include "config/workspace.h"
#include "graph/source_batch.h"

namespace dw::graph {

// One batch (origin notes, read whole: edges the notes no longer list go stale) with every noted
// asset and its reads (read -> asset) and writes (asset -> written).
SourceBatch NotesBatch(const std::vector<config::AssetNote>& notes);

}  // namespace dw::graph
