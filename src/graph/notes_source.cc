#include "graph/notes_source.h"

namespace dw::graph {

SourceBatch NotesBatch(const std::vector<config::AssetNote>& notes) {
  SourceBatch batch;
  batch.origin = Origin::kNotes;
  batch.stale_scope = "*";
  for (const config::AssetNote& n : notes) {
    AssetFacts f;
    f.id = n.id;
    f.domain = n.domain;
    f.owner = n.owner;
    f.schedule = n.schedule;
    if (n.customer_facing) f.customer_facing = true;
    f.tags = n.tags;
    f.impact_sql = n.impact_sql;
    f.notes = n.notes;
    batch.assets.push_back(std::move(f));
    for (const std::string& r : n.reads) batch.edges.push_back({r, n.id, "feeds", nullptr});
    for (const std::string& w : n.writes) batch.edges.push_back({n.id, w, "feeds", nullptr});
  }
  return batch;
}

}  // namespace dw::graph
