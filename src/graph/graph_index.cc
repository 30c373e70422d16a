#include "graph/graph_index.h"

#include <algorithm>

#include "base/identifiers.h"

namespace dw::graph {

const char* RelationName(Relation r) { return r == Relation::kTriggers ? "triggers" : "feeds"; }

std::string_view ShortName(std::string_view id) {
  size_t scheme = id.find("://");
  std::string_view rest = scheme == std::string_view::npos ? id : id.substr(scheme + 3);
  size_t cut = rest.find_last_of("/.");
  return cut == std::string_view::npos ? rest : rest.substr(cut + 1);
}

const std::vector<KnownWarehouse>& GraphIndex::warehouses() const {
  static const std::vector<KnownWarehouse> kNoWarehouses;
  return warehouses_ ? *warehouses_ : kNoWarehouses;
}

std::string_view MatchName(std::string_view id) {
  if (id.starts_with("table://")) return ShortName(id);
  size_t scheme = id.find("://");
  if (scheme == std::string_view::npos) return id;
  std::string_view rest = id.substr(scheme + 3);
  size_t slash = rest.find('/');
  return slash == std::string_view::npos ? rest : rest.substr(slash + 1);
}

uint32_t KindIndex(std::string_view kind) {
  const auto& kinds = KnownAssetKinds();
  for (size_t i = 0; i < kinds.size(); ++i)
    if (kinds[i] == kind) return static_cast<uint32_t>(i);
  return kNone;
}

AssetIndex GraphIndex::Intern(const std::string& id, uint8_t kind_index) {
  auto [it, added] = by_id_.try_emplace(id, static_cast<AssetIndex>(ids_.size()));
  if (!added) return it->second;
  ids_.push_back(&it->first);
  AssetEntry entry;
  entry.kind = kind_index;
  entry.flags = kPlaceholder;
  assets_.push_back(entry);
  out_.emplace_back();
  in_.emplace_back();
  if (short_names_built_)
    by_short_name_.emplace(std::string(MatchName(id)), it->second);
  return it->second;
}

AssetIndex GraphIndex::Find(std::string_view id) const {
  auto it = by_id_.find(id);
  return it == by_id_.end() ? kNone : it->second;
}

AssetIndex GraphIndex::FindAlias(std::string_view alias) const {
  auto it = aliases_.find(alias);
  return it == aliases_.end() ? kNone : it->second;
}

void GraphIndex::AddAlias(const std::string& alias, AssetIndex asset) { aliases_[alias] = asset; }

void GraphIndex::DropAlias(const std::string& alias, AssetIndex asset) {
  auto it = aliases_.find(alias);
  if (it == aliases_.end() || it->second != asset) return;
  for (AssetIndex a = 0; a < assets_.size(); ++a) {
    if (a == asset || assets_[a].details == kNone) continue;
    const std::vector<std::string>& names = details_[assets_[a].details].aliases;
    if (std::find(names.begin(), names.end(), alias) != names.end()) {
      it->second = a;
      return;
    }
  }
  aliases_.erase(it);
}

size_t GraphIndex::CountByShortName(uint8_t kind_index, std::string_view short_name, AssetIndex* first) const {
  {
    std::lock_guard<std::mutex> lock(*short_names_mu_);
    if (!short_names_built_) {
      by_short_name_.reserve(ids_.size());
      for (AssetIndex a = 0; a < ids_.size(); ++a)
        by_short_name_.emplace(std::string(MatchName(*ids_[a])), a);
      short_names_built_ = true;
    }
  }
  size_t count = 0;
  auto [b, e] = by_short_name_.equal_range(short_name);
  for (auto it = b; it != e; ++it) {
    if (assets_[it->second].kind != kind_index) continue;
    if (count++ == 0 && first) *first = it->second;
  }
  return count;
}

const AssetDetails& GraphIndex::details(AssetIndex a) const {
  static const AssetDetails kEmpty;
  uint32_t d = assets_[a].details;
  return d == kNone ? kEmpty : details_[d];
}

AssetDetails& GraphIndex::mutable_details(AssetIndex a) {
  if (assets_[a].details == kNone) {
    assets_[a].details = static_cast<uint32_t>(details_.size());
    details_.emplace_back();
  }
  return details_[assets_[a].details];
}

const std::string& GraphIndex::kind_name(AssetIndex a) const {
  return KnownAssetKinds()[assets_[a].kind];
}

uint32_t GraphIndex::InternString(const std::string& s) {
  if (s.empty()) return 0;
  auto [it, added] = string_ids_.try_emplace(s, static_cast<uint32_t>(strings_.size()));
  if (added) strings_.push_back(s);
  return it->second;
}

EdgeIndex GraphIndex::FindEdge(AssetIndex src, AssetIndex dst, Relation relation) const {
  // Scan the shorter of the two lists: most assets have a handful of edges.
  const bool from_src = out_[src].size() <= in_[dst].size();
  for (EdgeIndex e : from_src ? out_[src] : in_[dst]) {
    const EdgeEntry& x = edges_[e];
    if (x.src == src && x.dst == dst && x.relation == relation) return e;
  }
  return kNone;
}

EdgeIndex GraphIndex::AddEdge(const EdgeEntry& edge) {
  EdgeIndex e = static_cast<EdgeIndex>(edges_.size());
  edges_.push_back(edge);
  out_[edge.src].push_back(e);
  in_[edge.dst].push_back(e);
  return e;
}

const Json& GraphIndex::edge_columns(EdgeIndex e) const {
  static const Json kNull;
  auto it = edge_columns_.find(e);
  return it == edge_columns_.end() ? kNull : it->second;
}

void GraphIndex::set_edge_columns(EdgeIndex e, Json columns) {
  if (columns.is_null() || columns.empty()) {
    edge_columns_.erase(e);
  } else {
    edge_columns_[e] = std::move(columns);
  }
}

void GraphIndex::Reserve(size_t assets, size_t edges) {
  by_id_.reserve(assets);
  ids_.reserve(assets);
  assets_.reserve(assets);
  out_.reserve(assets);
  in_.reserve(assets);
  edges_.reserve(edges);
}

void GraphIndex::ShrinkToFit() {
  ids_.shrink_to_fit();
  assets_.shrink_to_fit();
  out_.shrink_to_fit();
  in_.shrink_to_fit();
  edges_.shrink_to_fit();
}

size_t GraphIndex::EdgeBytes() const {
  size_t bytes = edges_.capacity() * sizeof(EdgeEntry);
  bytes += (out_.capacity() + in_.capacity()) * sizeof(std::vector<EdgeIndex>);
  for (const auto& v : out_) bytes += v.capacity() * sizeof(EdgeIndex);
  for (const auto& v : in_) bytes += v.capacity() * sizeof(EdgeIndex);
  return bytes;
}

size_t GraphIndex::AssetBytes() const {
  // Per map node: the key string (with its heap buffer past the small-string size), the value,
  // the next pointer and the cached hash; plus one bucket pointer.
  size_t bytes = assets_.capacity() * sizeof(AssetEntry) + ids_.capacity() * sizeof(void*);
  bytes += by_id_.bucket_count() * sizeof(void*);
  for (const auto& [k, v] : by_id_)
    bytes += sizeof(std::string) + sizeof(v) + 2 * sizeof(void*) + (k.size() > 15 ? k.size() + 1 : 0);
  bytes += details_.capacity() * sizeof(AssetDetails);
  return bytes;
}

}  // namespace dw::graph
