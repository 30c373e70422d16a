// How the graph is kept in the state store's graph_assets and graph_edges rows.
//
// An asset row keeps, in attrs.sources.<origin>, what each source said about it and when
// (last_seen, to the second, refreshed at most once a minute while nothing else changes; so one
// source re-ingesting never erases another's facts), plus the merged view at the top of attrs
// (schedule, customer_facing, tags, impact_sql, notes, columns, aliases, placeholder) that loading
// reads.
// Where sources disagree the team's notes win, then dbt, Kestra, OpenLineage.
// An edge row keeps attrs.sources.<origin> = {last_seen (Unix ms), stale} and attrs.columns; its
// origin column lists the origins that assert it now (comma-separated).
#pragma once

#include <optional>
#include <string_view>

#include "base/status.h"
#include "graph/graph_index.h"
#include "graph/source_batch.h"
#include "store/records.h"

namespace dw::graph {

// `existing` (or a new row) with `facts` recorded as what `origin` says at `now`. An OpenLineage
// event without a schema facet does not assert "no columns" (the facet is optional, and an input
// is often listed without it while its producer's events carry it): the columns OpenLineage gave
// before are kept, as an edge's column lineage is. Other sources are read whole and replace their
// facts.
store::GraphAsset MergeAssetFacts(const std::optional<store::GraphAsset>& existing,
                                  const AssetFacts& facts, Origin origin, TimePoint now);

// Whether facts of `origin` without columns leave the columns it gave before (see
// MergeAssetFacts): OpenLineage's schema facet is optional per event.
bool KeepsColumns(Origin origin);

// How stale an asset's per-source last_seen may get while the source keeps repeating the same
// facts (an OpenLineage job reports every few seconds): the row is rewritten at most this often.
// Edges keep their last-seen to the second.
inline constexpr int64_t kAssetSeenRefreshMs = 60000;

// True when `origin` already said exactly `facts` about the asset, last confirmed less than
// kAssetSeenRefreshMs before `now`: the caller need not write the row again.
bool AssetFactsUnchanged(const store::GraphAsset& existing, const AssetFacts& facts, Origin origin,
                         TimePoint now);

// The row of an asset nothing has described yet (an edge named it).
store::GraphAsset PlaceholderRecord(const std::string& id);

// Writes the merged view of `record` into `index` (adding the asset if new). kDataLoss when the
// id is not canonical.
Status IndexAssetRecord(const store::GraphAsset& record, GraphIndex* index);

// The row for `edge` between `src` and `dst`.
store::GraphEdge EdgeRecord(std::string_view src, std::string_view dst, const EdgeEntry& edge,
                            const Json& columns);

// Adds the edge of `record` to `index`; endpoints missing from the index become placeholders.
// kDataLoss when the row is malformed.
Status IndexEdgeRecord(const store::GraphEdge& record, GraphIndex* index);

// IndexAssetRecord for a row as scanned from the store (attrs as JSON text). kDataLoss when the
// row is malformed.
Status IndexAssetRow(const store::GraphAssetView& row, GraphIndex* index);

// IndexEdgeRecord for a row as scanned from the store. The common attrs (per-origin last_seen and
// stale, no column lineage) are read without building a JSON document; anything else goes
// through IndexEdgeRecord. Endpoints already in the index are not parsed again. kDataLoss when
// the row is malformed.
Status IndexEdgeRow(const store::GraphEdgeView& row, GraphIndex* index);

}  // namespace dw::graph
