#include "graph/notes_source.h"

namespace dw::graph {

SourceBatch NotesBatch(const std::vector<config::AssetNote>& notes) {
  SourceBatch batch;
  batch.origin = Origin::kNotes;
  batch.stale_scope = std::string("*");  // not = "*": GCC 12 -Wrestrict false positive
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
    for (const std::string& r : n.reads) {
      EdgeFacts e;
      e.src = r;
      e.dst = n.id;
      batch.edges.push_back(std::move(e));
    }
    for (const std::string& w : n.writes) {
      EdgeFacts e;
      e.src = n.id;
      e.dst = w;
      batch.edges.push_back(std::move(e));
    }
  }
  return batch;
}

}  // namespace dw::graph
