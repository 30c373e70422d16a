// The compact in-memory index of the context graph: assets numbered densely, edges in one array
// of fixed-size entries, adjacency as per-asset lists of edge numbers in both directions. Queries
// walk this; ContextGraph keeps it in step with the state store. Not thread-safe on its own:
// ContextGraph guards it with a reader/writer lock.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/json.h"
#include "graph/jdbc_warehouse.h"
#include "graph/source_batch.h"

namespace dw::graph {

using AssetIndex = uint32_t;
using EdgeIndex = uint32_t;
inline constexpr uint32_t kNone = UINT32_MAX;

enum AssetFlag : uint8_t { kCustomerFacing = 1, kPlaceholder = 2 };

// The rarely present, variable-size facts of an asset; kept apart so most assets cost little.
struct AssetDetails {
  std::string schedule;
  std::string schedule_timezone;  // empty: the workspace's zone
  bool schedule_disabled = false;
  std::string disabled_since;
  std::string impact_sql;
  std::string notes;
  std::vector<std::string> tags;
  std::vector<std::string> aliases;
  Json columns;  // null when unknown
};

struct AssetEntry {
  uint8_t kind = 0;  // index into KnownAssetKinds()
  uint8_t flags = 0;
  uint8_t origins = 0;    // bit per Origin that described the asset itself
  uint32_t domain = 0;    // interned string, 0 = none
  uint32_t owner = 0;     // interned string, 0 = none
  uint32_t details = kNone;  // index into details, or kNone
};

enum class Relation : uint8_t { kFeeds = 0, kTriggers = 1 };
// "feeds" or "triggers".
const char* RelationName(Relation r);

// One edge. last-seen times are seconds since the Unix epoch, per origin (0 = never asserted).
struct EdgeEntry {
  AssetIndex src = kNone;
  AssetIndex dst = kNone;
  std::array<uint32_t, kOriginCount> seen_s{};
  uint8_t origins = 0;  // bit per Origin that asserted the edge
  uint8_t stale = 0;    // bit per Origin that no longer asserts it
  Relation relation = Relation::kFeeds;

  // True iff every origin that asserted the edge has stopped asserting it.
  bool IsStale() const { return origins != 0 && (origins & ~stale) == 0; }
};

// Hashes std::string and std::string_view alike, so lookups by a view allocate nothing.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
template <typename V>
using StringMap = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;

class GraphIndex {
 public:
  // The asset numbered by `id`, adding a placeholder entry of `kind_index` when it is new.
  AssetIndex Intern(const std::string& id, uint8_t kind_index);
  // The number of `id`, or kNone.
  AssetIndex Find(std::string_view id) const;
  // The asset an alias (another name of the same dataset) stands for, or kNone.
  AssetIndex FindAlias(std::string_view alias) const;
  // Records `alias` as another name of `asset` (the latest call for an alias wins).
  void AddAlias(const std::string& alias, AssetIndex asset);
  // Forgets `alias` as a name of `asset` (a source stopped naming it so). When it answered
  // `asset`, it answers the first other asset whose details still list it, else nothing; when it
  // answered another asset, nothing changes. Scans the assets' details: aliases are dropped rarely.
  void DropAlias(const std::string& alias, AssetIndex asset);
  // How many assets of kind `kind_index` have `short_name` as MatchName; sets *first (when given)
  // to the first of them. Allocates nothing: intake asks this for every dataset it resolves.
  size_t CountByShortName(uint8_t kind_index, std::string_view short_name, AssetIndex* first = nullptr) const;

  size_t asset_count() const { return assets_.size(); }
  const std::string& id(AssetIndex a) const { return *ids_[a]; }
  const AssetEntry& asset(AssetIndex a) const { return assets_[a]; }
  AssetEntry& mutable_asset(AssetIndex a) { return assets_[a]; }
  // The details of `a`, or an empty one.
  const AssetDetails& details(AssetIndex a) const;
  // Details of `a`, created on first use.
  AssetDetails& mutable_details(AssetIndex a);
  const std::string& kind_name(AssetIndex a) const;
  // The interned string `s` (0 for ""), and back.
  uint32_t InternString(const std::string& s);
  const std::string& str(uint32_t i) const { return strings_[i]; }

  // The edge (src, dst, relation), or kNone.
  EdgeIndex FindEdge(AssetIndex src, AssetIndex dst, Relation relation) const;
  // Adds the edge (REQUIRES: not present) and returns its number.
  EdgeIndex AddEdge(const EdgeEntry& edge);
  size_t edge_count() const { return edges_.size(); }
  const EdgeEntry& edge(EdgeIndex e) const { return edges_[e]; }
  EdgeEntry& mutable_edge(EdgeIndex e) { return edges_[e]; }
  const std::vector<EdgeIndex>& out(AssetIndex a) const { return out_[a]; }
  const std::vector<EdgeIndex>& in(AssetIndex a) const { return in_[a]; }
  // Column lineage of edge `e`, or null.
  const Json& edge_columns(EdgeIndex e) const;
  void set_edge_columns(EdgeIndex e, Json columns);

  // The workspace's warehouses: intake places a dataset named by the OpenLineage naming spec in
  // one of them (openlineage_stitch.h). Empty when the graph is read without a workspace. They are
  // the names' context, not graph content: ContextGraph carries them across reloads.
  const std::vector<KnownWarehouse>& warehouses() const;
  void set_warehouses(std::shared_ptr<const std::vector<KnownWarehouse>> warehouses) {
    warehouses_ = std::move(warehouses);
  }
  const std::shared_ptr<const std::vector<KnownWarehouse>>& shared_warehouses() const { return warehouses_; }

  // Pre-sizes for a known graph (loading from the store, benchmarks).
  void Reserve(size_t assets, size_t edges);
  // Gives back the spare capacity of the asset and edge arrays (after a load of unknown size).
  void ShrinkToFit();
  // Bytes held for edges: entries, both adjacency lists and their per-asset list headers.
  size_t EdgeBytes() const;
  // Bytes held for assets: entries, ids, id and alias maps, details (approximate for strings).
  size_t AssetBytes() const;

 private:
  StringMap<AssetIndex> by_id_;
  std::vector<const std::string*> ids_;  // keys of by_id_ (stable: node-based map)
  std::vector<AssetEntry> assets_;
  std::vector<AssetDetails> details_;
  StringMap<AssetIndex> aliases_;
  std::vector<std::string> strings_{""};
  std::unordered_map<std::string, uint32_t> string_ids_;
  std::vector<EdgeEntry> edges_;
  std::vector<std::vector<EdgeIndex>> out_;
  std::vector<std::vector<EdgeIndex>> in_;
  std::unordered_map<EdgeIndex, Json> edge_columns_;
  std::shared_ptr<const std::vector<KnownWarehouse>> warehouses_;
  // Built on the first FindByShortName, then kept up to date by Intern.
  // Readers share the index (ContextGraph's shared lock), so the first build is guarded.
  mutable std::unordered_multimap<std::string, AssetIndex, StringHash, std::equal_to<>> by_short_name_;
  mutable bool short_names_built_ = false;
  mutable std::unique_ptr<std::mutex> short_names_mu_ = std::make_unique<std::mutex>();
};

// The short name of a canonical id: the part after the last '/' or '.', e.g. "member_balances".
std::string_view ShortName(std::string_view id);

// The name sources match on when stitching by name: a table's table name (after the last '.'),
// for other kinds the whole name after the instance ("points-balance", "pricing.tariff_sync").
std::string_view MatchName(std::string_view id);

// The index of `kind` in KnownAssetKinds(), or kNone.
uint32_t KindIndex(std::string_view kind);

}  // namespace dw::graph
