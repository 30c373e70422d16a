#include "graph/context_graph.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "base/identifiers.h"
#include "graph/facts_fingerprint.h"
#include "graph/graph_records.h"

namespace dw::graph {
namespace {

uint8_t Bit(Origin o) { return static_cast<uint8_t>(1u << static_cast<int>(o)); }

Status ValidateBatch(const SourceBatch& batch) {
  // Runs for every event of the HTTP intake: the common, valid case allocates nothing; the error's
  // path and message are built only for an id that fails.
  auto check = [](const std::string& id, const char* field, size_t i, const char* member) -> Status {
    if (IsCanonicalAssetId(id)) return Status::Ok();
    auto parsed = ParseAssetId(id);
    const std::string where = i == SIZE_MAX ? std::string(field) : fmt::format("{}[{}]{}", field, i, member);
    return InvalidArgument(where + ": " + (parsed.ok() ? "not canonical" : parsed.status().message()));
  };
  for (size_t i = 0; i < batch.assets.size(); ++i) DW_RETURN_IF_ERROR(check(batch.assets[i].id, "assets", i, ""));
  for (size_t i = 0; i < batch.edges.size(); ++i) {
    const EdgeFacts& e = batch.edges[i];
    DW_RETURN_IF_ERROR(check(e.src, "edges", i, ".src"));
    DW_RETURN_IF_ERROR(check(e.dst, "edges", i, ".dst"));
    if (e.relation != "feeds" && e.relation != "triggers")
      return InvalidArgument("edges[" + std::to_string(i) + "]: unknown relation '" + e.relation +
                             "' (feeds or triggers)");
  }
  for (size_t i = 0; i < batch.runs.size(); ++i) DW_RETURN_IF_ERROR(check(batch.runs[i].job, "runs", i, ".job"));
  if (!batch.stale_scope.empty() && batch.stale_scope != "*")
    DW_RETURN_IF_ERROR(check(batch.stale_scope, "stale_scope", SIZE_MAX, ""));
  for (size_t i = 0; i < batch.stale_assets.size(); ++i)
    DW_RETURN_IF_ERROR(check(batch.stale_assets[i], "stale_assets", i, ""));
  for (size_t i = 0; i < batch.stale_prefixes.size(); ++i) {
    const std::string& p = batch.stale_prefixes[i];
    size_t sep = p.find("://");
    // At least "<kind>://<instance>/": a shorter prefix would claim other sources' edges.
    if (sep == std::string::npos || sep == 0 || p.size() < sep + 5 || p.back() != '/')
      return InvalidArgument("stale_prefixes[" + std::to_string(i) + "]: '" + p +
                             "' is not of the form <kind>://<instance>/");
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<ContextGraph>> ContextGraph::Load(store::StateStore* store, const Clock& clock) {
  std::unique_ptr<ContextGraph> g(new ContextGraph(store, clock));
  DW_RETURN_IF_ERROR(g->LoadFromStore(&g->index_, &g->generation_));
  return g;
}

Status ContextGraph::LoadFromStore(GraphIndex* index, std::string* generation) {
  // Read the generation first: a write that lands while we read makes the next Refresh reload.
  auto gen = store_->GetCursor(kGraphGenerationCursor);
  if (!gen.ok()) return gen.status();
  *generation = gen->value_or("");
  // One pass over each table, row by row: no row vectors, no JSON document per edge.
  DW_RETURN_IF_ERROR(store_->ScanAssets([&](const store::GraphAssetView& a) { return IndexAssetRow(a, index); }));
  DW_RETURN_IF_ERROR(store_->ScanEdges([&](const store::GraphEdgeView& e) { return IndexEdgeRow(e, index); }));
  index->ShrinkToFit();
  return Status::Ok();
}

Status ContextGraph::Refresh() {
  // A write running in this process syncs with the store itself (its transaction checks the
  // generation): readers do not queue behind it, nor behind the store it holds.
  std::unique_lock<std::mutex> writer(writer_mu_, std::try_to_lock);
  if (!writer.owns_lock()) return Status::Ok();
  auto gen = store_->GetCursor(kGraphGenerationCursor);
  if (!gen.ok()) return gen.status();
  if (gen->value_or("") == generation_) return Status::Ok();
  return ReloadIndex();
}

void ContextGraph::SetWarehouses(std::vector<KnownWarehouse> warehouses) {
  auto shared = std::make_shared<const std::vector<KnownWarehouse>>(std::move(warehouses));
  std::unique_lock<std::shared_mutex> lock(mu_);
  index_.set_warehouses(std::move(shared));
}

Status ContextGraph::ReloadIndex() {
  GraphIndex fresh;
  std::string fresh_gen;
  DW_RETURN_IF_ERROR(LoadFromStore(&fresh, &fresh_gen));
  std::unique_lock<std::shared_mutex> lock(mu_);
  fresh.set_warehouses(index_.shared_warehouses());
  index_ = std::move(fresh);
  generation_ = fresh_gen;
  return Status::Ok();
}

Result<ApplySummary> ContextGraph::Apply(const SourceBatch& batch) {
  DW_RETURN_IF_ERROR(ValidateBatch(batch));
  return ApplyInOrder({&batch});
}

void ContextGraph::RememberAsset(CachedAsset asset) {
  if (asset_cache_.size() >= kAssetCacheSize) asset_cache_.clear();
  std::string id = asset.row.id;
  asset_cache_.insert_or_assign(std::move(id), std::move(asset));
}

Status ContextGraph::ValidateSourceBatch(const SourceBatch& batch) { return ValidateBatch(batch); }

namespace {

// An edge the batches touch. The ids are views of strings that outlive ApplyInOrder: a batch's,
// or the index's (node-stable, and the index is only reloaded before the views are taken).
struct EdgeKey {
  std::string_view src;
  std::string_view dst;
  Relation relation = Relation::kFeeds;
  bool operator==(const EdgeKey&) const = default;
  // The order rows are written and indexed in: by ids, then relation (as "feeds" < "triggers").
  bool operator<(const EdgeKey& o) const {
    if (int c = src.compare(o.src); c != 0) return c < 0;
    if (int c = dst.compare(o.dst); c != 0) return c < 0;
    return relation < o.relation;
  }
};

struct EdgeKeyHash {
  size_t operator()(const EdgeKey& k) const {
    const size_t h = std::hash<std::string_view>{}(k.src) * 31 + std::hash<std::string_view>{}(k.dst);
    return h * 2 + static_cast<size_t>(k.relation);
  }
};

// The new state of an edge, and its number in the index when it is already there.
struct EdgeRow {
  EdgeEntry entry;
  Json columns;
  EdgeIndex existing = kNone;
};

Relation ParseRelation(const std::string& name) {
  return name == "triggers" ? Relation::kTriggers : Relation::kFeeds;
}

}  // namespace

Result<ApplySummary> ContextGraph::ApplyInOrder(const std::vector<const SourceBatch*>& batches) {
  std::lock_guard<std::mutex> writer(writer_mu_);
  // Optimistic: the write is computed from this process's index and cached rows, and its
  // transaction first checks that no other process wrote the graph since they were read. If one
  // did, nothing is written: reload from the store (the truth) and compute again. One query per
  // write when this process is the only writer, as it is under `dw serve`.
  for (int attempt = 1;; ++attempt) {
    bool others_wrote = false;
    Result<ApplySummary> applied = TryApply(batches, &others_wrote);
    if (!others_wrote) return applied;
    asset_cache_.clear();
    DW_RETURN_IF_ERROR(ReloadIndex());
    if (attempt == kApplyAttempts)
      return Unavailable("the context graph was written by another process during each of " +
                         std::to_string(kApplyAttempts) + " attempts to store this batch; try again");
  }
}

Result<ApplySummary> ContextGraph::TryApply(const std::vector<const SourceBatch*>& batches, bool* others_wrote) {
  const TimePoint now = clock_->Now();
  const int64_t now_ms = ToUnixMillis(now);
  const uint32_t now_s = static_cast<uint32_t>(now_ms / 1000);
  ApplySummary summary;

  // Assets the batches describe, in order: merge into the stored rows (the store is the truth for
  // facts).
  std::map<std::string_view, CachedAsset> asset_rows;  // rows to write, by id
  std::unordered_set<std::string_view> described;
  for (const SourceBatch* batch : batches) {
    const Origin origin = batch->origin;
    const int oi = static_cast<int>(origin);
    for (const AssetFacts& f : batch->assets) {
      described.insert(f.id);
      const CachedAsset* current = nullptr;  // what the store holds (or will, for this group)
      std::optional<CachedAsset> read;
      if (auto it = asset_rows.find(f.id); it != asset_rows.end()) {
        current = &it->second;
      } else if (auto c = asset_cache_.find(std::string_view(f.id)); c != asset_cache_.end()) {
        current = &c->second;
      } else {
        auto got = store_->GetAsset(f.id);
        if (!got.ok()) return got.status();
        if (*got) {
          read.emplace();
          read->row = std::move(**got);
          RememberAsset(*read);
          current = &*read;
        }
      }
      // A source repeating itself changes nothing worth a write: the same facts, confirmed less
      // than kAssetSeenRefreshMs ago. What this process merged itself is compared by fingerprint;
      // a row read from the store by its JSON (AssetFactsUnchanged).
      const uint64_t facts_fp = FactsFingerprint(f);
      const uint64_t columns_fp = JsonFingerprint(f.columns);
      if (current) {
        const CachedAsset::Said& said = current->said[oi];
        if (said.seen_ms == 0) {
          if (AssetFactsUnchanged(current->row, f, origin, now)) continue;
        } else if (now_ms >= said.seen_ms && now_ms - said.seen_ms < kAssetSeenRefreshMs &&
                   said.facts == facts_fp &&
                   (said.columns == columns_fp || (f.columns.is_null() && KeepsColumns(origin)))) {
          continue;
        }
      }
      CachedAsset merged;
      merged.row = MergeAssetFacts(current ? std::optional<store::GraphAsset>(current->row) : std::nullopt, f,
                                   origin, now);
      if (current) merged.said = current->said;
      // The columns the row now keeps for this origin (f's, or those kept from before).
      const Json& kept = merged.row.attrs["sources"][OriginName(origin)].value("columns", Json());
      merged.said[oi] = {facts_fp, JsonFingerprint(kept), now_ms / 1000 * 1000};
      asset_rows.insert_or_assign(std::string_view(f.id), std::move(merged));
    }
  }
  summary.assets_described = static_cast<int>(described.size());

  // Edges: the new state of every edge the batches touch. Each batch's assertions and then its
  // stale marks are applied in turn, so a group ends as the same batches applied one after
  // another would.
  std::unordered_map<EdgeKey, EdgeRow, EdgeKeyHash> edge_rows;
  std::unordered_map<std::string_view, std::vector<EdgeKey>> rows_touching;  // asset -> keys
  // Only a batch with stale marks by asset reads rows_touching: most groups (OpenLineage RUNNING
  // events) have none, and skip two insertions per edge.
  bool touching_needed = false;
  for (const SourceBatch* batch : batches)
    touching_needed |= (!batch->stale_scope.empty() && batch->stale_scope != "*") || !batch->stale_assets.empty();
  std::set<std::string_view> placeholders;
  {
    std::shared_lock<std::shared_mutex> lock(mu_);
    auto known = [&](std::string_view id) {
      return described.count(id) || index_.Find(id) != kNone || placeholders.count(id);
    };
    // The row of `key`, created from the index (or as a new edge) on first use.
    auto row = [&](const EdgeKey& key, EdgeIndex existing, bool count) -> EdgeRow& {
      auto [it, added] = edge_rows.try_emplace(key);
      EdgeRow& r = it->second;
      if (!added) return r;
      r.entry.relation = key.relation;
      if (existing == kNone) {
        AssetIndex s = index_.Find(key.src), d = index_.Find(key.dst);
        existing = (s != kNone && d != kNone) ? index_.FindEdge(s, d, key.relation) : kNone;
      }
      r.existing = existing;
      if (existing != kNone) {
        r.entry = index_.edge(existing);
        r.columns = index_.edge_columns(existing);
      }
      if (count) ++(existing != kNone ? summary.edges_refreshed : summary.edges_added);
      if (touching_needed) {
        rows_touching[key.src].push_back(key);
        rows_touching[key.dst].push_back(key);
      }
      return r;
    };
    for (const SourceBatch* batch : batches) {
      const uint8_t bit = Bit(batch->origin);
      const int oi = static_cast<int>(batch->origin);
      const bool marks = !batch->stale_scope.empty() || !batch->stale_assets.empty() || !batch->stale_prefixes.empty();
      std::unordered_set<EdgeKey, EdgeKeyHash> asserted;
      for (const EdgeFacts& f : batch->edges) {
        for (const std::string* id : {&f.src, &f.dst})
          if (!known(*id)) placeholders.insert(*id);
        const EdgeKey key{f.src, f.dst, ParseRelation(f.relation)};
        EdgeRow& r = row(key, kNone, true);
        r.entry.origins |= bit;
        r.entry.stale &= static_cast<uint8_t>(~bit);
        r.entry.seen_s[oi] = now_s;
        if (!f.columns.is_null()) r.columns = f.columns;
        if (marks) asserted.insert(key);
      }
      if (!marks) continue;
      // Stale marks: edges of this origin in scope that this batch no longer asserts.
      auto mark = [&](const EdgeKey& key, EdgeIndex ei) {
        if (asserted.count(key)) return;
        auto it = edge_rows.find(key);
        const EdgeEntry& now_e = it != edge_rows.end() ? it->second.entry : index_.edge(ei);
        if (!(now_e.origins & bit) || (now_e.stale & bit)) return;
        row(key, ei, false).entry.stale |= bit;
        ++summary.edges_marked_stale;
      };
      auto mark_index_edge = [&](EdgeIndex ei) {
        const EdgeEntry& e = index_.edge(ei);
        if (!(e.origins & bit)) return;
        mark(EdgeKey{index_.id(e.src), index_.id(e.dst), e.relation}, ei);
      };
      // The keys of the rows so far that `pred` selects (mark may add rows while they are walked).
      auto row_keys = [&](auto pred) {
        std::vector<EdgeKey> keys;
        for (const auto& [k, v] : edge_rows)
          if (pred(k)) keys.push_back(k);
        return keys;
      };
      auto mark_touching = [&](const std::string& asset) {
        AssetIndex a = index_.Find(asset);
        if (a != kNone) {
          for (EdgeIndex ei : index_.out(a)) mark_index_edge(ei);
          for (EdgeIndex ei : index_.in(a)) mark_index_edge(ei);
        }
        if (auto it = rows_touching.find(asset); it != rows_touching.end()) {
          std::vector<EdgeKey> keys = it->second;  // mark may add rows
          for (const EdgeKey& k : keys) mark(k, kNone);
        }
      };
      if (batch->stale_scope == "*") {
        for (EdgeIndex ei = 0; ei < index_.edge_count(); ++ei) mark_index_edge(ei);
        for (const EdgeKey& k : row_keys([](const EdgeKey&) { return true; })) mark(k, kNone);
      } else if (!batch->stale_scope.empty()) {
        mark_touching(batch->stale_scope);
      }
      for (const std::string& asset : batch->stale_assets) mark_touching(asset);
      if (!batch->stale_prefixes.empty()) {
        auto owned = [&](std::string_view id) {
          for (const std::string& p : batch->stale_prefixes)
            if (id.starts_with(p)) return true;
          return false;
        };
        for (EdgeIndex ei = 0; ei < index_.edge_count(); ++ei) {
          const EdgeEntry& e = index_.edge(ei);
          if ((e.origins & bit) && (owned(index_.id(e.src)) || owned(index_.id(e.dst)))) mark_index_edge(ei);
        }
        for (const EdgeKey& k : row_keys([&](const EdgeKey& k) { return owned(k.src) || owned(k.dst); }))
          mark(k, kNone);
      }
    }
  }
  // A placeholder may already be stored (another process); never overwrite a described row.
  std::vector<store::GraphAsset> rows;
  rows.reserve(asset_rows.size() + placeholders.size());
  for (auto& [id, asset] : asset_rows) rows.push_back(asset.row);
  for (std::string_view id : placeholders) {
    auto got = store_->GetAsset(std::string(id));
    if (!got.ok()) return got.status();
    if (got->has_value()) continue;
    rows.push_back(PlaceholderRecord(std::string(id)));
    ++summary.placeholders_added;
  }
  // Rows identical to what the index (and so the store) holds are not written again: a source
  // repeating an edge within the same second.
  std::vector<std::pair<const EdgeKey*, const EdgeRow*>> changed;
  changed.reserve(edge_rows.size());
  {
    std::shared_lock<std::shared_mutex> lock(mu_);
    for (const auto& [key, r] : edge_rows) {
      if (r.existing != kNone) {
        const EdgeEntry& old = index_.edge(r.existing);
        if (old.origins == r.entry.origins && old.stale == r.entry.stale && old.seen_s == r.entry.seen_s &&
            index_.edge_columns(r.existing) == (r.columns.is_null() || r.columns.empty() ? Json() : r.columns))
          continue;
      }
      changed.emplace_back(&key, &r);
    }
  }
  std::sort(changed.begin(), changed.end(), [](const auto& a, const auto& b) { return *a.first < *b.first; });
  std::vector<store::GraphEdge> edge_records;
  edge_records.reserve(changed.size());
  for (const auto& [key, r] : changed) edge_records.push_back(EdgeRecord(key->src, key->dst, r->entry, r->columns));

  std::string new_generation;
  Status written = store_->InTransaction([&](store::StateStore& tx) -> Status {
    // First, under the write lock: has another process written since the index was read?
    auto gen = tx.GetCursor(kGraphGenerationCursor);
    if (!gen.ok()) return gen.status();
    if (gen->value_or("") != generation_) {
      *others_wrote = true;
      return Status(StatusCode::kCancelled, "another process wrote the graph");
    }
    int64_t n = 0;
    if (gen->has_value()) n = std::strtoll((*gen)->c_str(), nullptr, 10);
    new_generation = std::to_string(n + 1);
    DW_RETURN_IF_ERROR(tx.UpsertAssets(rows));
    DW_RETURN_IF_ERROR(tx.UpsertEdges(edge_records));
    for (const SourceBatch* batch : batches)
      for (const JobRun& run : batch->runs) {
        store::ChangeEvent ev;
        ev.dedup_key = std::string(OriginName(batch->origin)) + ":run:" + run.run_id + ":" + run.event_type;
        ev.asset_id = run.job;
        ev.kind = "run";
        ev.happened_at = run.at;
        ev.observed_at = now;
        ev.evidence = Json{{"origin", OriginName(batch->origin)}, {"run_id", run.run_id},
                           {"event_type", run.event_type}};
        if (!run.message.empty()) ev.evidence["message"] = run.message;
        ev.reason = run.event_type == "COMPLETE" ? "run completed" : "run ended with " + run.event_type;
        auto added = tx.AddChangeEvent(ev);
        if (!added.ok()) return added.status();
        if (*added) ++summary.runs_recorded;
      }
    return tx.SetCursor(kGraphGenerationCursor, new_generation);
  });
  if (!written.ok()) {
    asset_cache_.clear();  // what was read or merged may not be what the store holds
    return written;
  }

  {
    std::unique_lock<std::shared_mutex> lock(mu_);
    for (const store::GraphAsset& row : rows) DW_RETURN_IF_ERROR(IndexAssetRecord(row, &index_));
    for (const auto& [key, r] : changed) {
      EdgeEntry e = r->entry;
      if (r->existing != kNone) {
        const EdgeEntry& old = index_.edge(r->existing);
        e.src = old.src;
        e.dst = old.dst;
        index_.mutable_edge(r->existing) = e;
        index_.set_edge_columns(r->existing, r->columns);
        continue;
      }
      // Interning (not just finding) keeps the index whole even if a row it lacks was skipped above.
      auto endpoint = [&](std::string_view id) {
        AssetIndex a = index_.Find(id);
        if (a != kNone) return a;
        std::string owned(id);
        return index_.Intern(owned, static_cast<uint8_t>(KindIndex(ParseAssetId(owned)->kind)));
      };
      e.src = endpoint(key->src);
      e.dst = endpoint(key->dst);
      EdgeIndex existing = index_.FindEdge(e.src, e.dst, e.relation);
      EdgeIndex at = existing == kNone ? index_.AddEdge(e) : existing;
      if (existing != kNone) index_.mutable_edge(at) = e;
      index_.set_edge_columns(at, r->columns);
    }
    generation_ = new_generation;
  }
  // Placeholders are remembered as read (nothing merged); described rows with what was merged.
  for (const store::GraphAsset& row : rows)
    if (!asset_rows.count(row.id)) RememberAsset(CachedAsset{row, {}});
  for (auto& [id, asset] : asset_rows) RememberAsset(std::move(asset));
  return summary;
}

}  // namespace dw::graph
