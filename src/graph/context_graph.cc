#include "graph/context_graph.h"

#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "base/identifiers.h"
#include "graph/graph_records.h"

namespace dw::graph {
namespace {

uint8_t Bit(Origin o) { return static_cast<uint8_t>(1u << static_cast<int>(o)); }

Status ValidateBatch(const SourceBatch& batch) {
  auto check = [](const std::string& id, const std::string& where) -> Status {
    auto parsed = ParseAssetId(id);
    if (!parsed.ok()) return InvalidArgument(where + ": " + parsed.status().message());
    return Status::Ok();
  };
  for (size_t i = 0; i < batch.assets.size(); ++i)
    DW_RETURN_IF_ERROR(check(batch.assets[i].id, "assets[" + std::to_string(i) + "]"));
  for (size_t i = 0; i < batch.edges.size(); ++i) {
    const EdgeFacts& e = batch.edges[i];
    DW_RETURN_IF_ERROR(check(e.src, "edges[" + std::to_string(i) + "].src"));
    DW_RETURN_IF_ERROR(check(e.dst, "edges[" + std::to_string(i) + "].dst"));
    if (e.relation != "feeds" && e.relation != "triggers")
      return InvalidArgument("edges[" + std::to_string(i) + "]: unknown relation '" + e.relation +
                             "' (feeds or triggers)");
  }
  for (size_t i = 0; i < batch.runs.size(); ++i)
    DW_RETURN_IF_ERROR(check(batch.runs[i].job, "runs[" + std::to_string(i) + "].job"));
  if (!batch.stale_scope.empty() && batch.stale_scope != "*")
    DW_RETURN_IF_ERROR(check(batch.stale_scope, "stale_scope"));
  for (size_t i = 0; i < batch.stale_assets.size(); ++i)
    DW_RETURN_IF_ERROR(check(batch.stale_assets[i], "stale_assets[" + std::to_string(i) + "]"));
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
  // A write running in this process syncs with the store itself (it checks the generation first):
  // readers do not queue behind it, nor behind the store it holds.
  std::unique_lock<std::mutex> writer(writer_mu_, std::try_to_lock);
  if (!writer.owns_lock()) return Status::Ok();
  auto gen = store_->GetCursor(kGraphGenerationCursor);
  if (!gen.ok()) return gen.status();
  if (gen->value_or("") == generation_) return Status::Ok();
  GraphIndex fresh;
  std::string fresh_gen;
  DW_RETURN_IF_ERROR(LoadFromStore(&fresh, &fresh_gen));
  std::unique_lock<std::shared_mutex> lock(mu_);
  index_ = std::move(fresh);
  generation_ = fresh_gen;
  return Status::Ok();
}

Result<ApplySummary> ContextGraph::Apply(const SourceBatch& batch) {
  DW_RETURN_IF_ERROR(ValidateBatch(batch));
  return ApplyInOrder({&batch});
}

void ContextGraph::RememberAsset(const store::GraphAsset& row) {
  if (asset_cache_.size() >= kAssetCacheSize) asset_cache_.clear();
  asset_cache_[row.id] = row;
}

Status ContextGraph::ValidateSourceBatch(const SourceBatch& batch) { return ValidateBatch(batch); }

Result<ApplySummary> ContextGraph::ApplyInOrder(const std::vector<const SourceBatch*>& batches) {
  std::lock_guard<std::mutex> writer(writer_mu_);
  // Pick up other processes' writes first, so stale marks and merges start from the truth.
  {
    auto gen = store_->GetCursor(kGraphGenerationCursor);
    if (!gen.ok()) return gen.status();
    if (gen->value_or("") != generation_) {
      asset_cache_.clear();  // another process wrote: the store is the truth again
      GraphIndex fresh;
      std::string fresh_gen;
      DW_RETURN_IF_ERROR(LoadFromStore(&fresh, &fresh_gen));
      std::unique_lock<std::shared_mutex> lock(mu_);
      index_ = std::move(fresh);
      generation_ = fresh_gen;
    }
  }
  const TimePoint now = clock_->Now();
  const uint32_t now_s = static_cast<uint32_t>(ToUnixMillis(now) / 1000);
  ApplySummary summary;

  // Assets the batches describe, in order: merge into the stored rows (the store is the truth for
  // facts).
  std::map<std::string, store::GraphAsset> asset_rows;  // rows to write
  std::unordered_set<std::string> described;
  for (const SourceBatch* batch : batches)
    for (const AssetFacts& f : batch->assets) {
      described.insert(f.id);
      const store::GraphAsset* current = nullptr;  // what the store holds (or will, for this group)
      std::optional<store::GraphAsset> read;
      if (auto it = asset_rows.find(f.id); it != asset_rows.end()) {
        current = &it->second;
      } else if (auto c = asset_cache_.find(f.id); c != asset_cache_.end()) {
        current = &c->second;
      } else {
        auto got = store_->GetAsset(f.id);
        if (!got.ok()) return got.status();
        read = std::move(*got);
        if (read) {
          RememberAsset(*read);
          current = &*read;
        }
      }
      // A source repeating itself changes nothing worth a write (see AssetFactsUnchanged).
      if (current && AssetFactsUnchanged(*current, f, batch->origin, now)) continue;
      store::GraphAsset merged =
          MergeAssetFacts(current ? std::optional<store::GraphAsset>(*current) : std::nullopt, f, batch->origin, now);
      asset_rows[f.id] = std::move(merged);
    }
  summary.assets_described = static_cast<int>(described.size());

  // Edges: the new state of every edge the batches touch, keyed by (src, dst, relation). Each
  // batch's assertions and then its stale marks are applied in turn, so a group ends as the same
  // batches applied one after another would.
  using EdgeKey = std::tuple<std::string, std::string, std::string>;
  std::map<EdgeKey, std::pair<EdgeEntry, Json>> edge_rows;
  std::unordered_map<std::string, std::vector<const EdgeKey*>> rows_touching;  // asset -> keys
  // Only a batch with stale marks by asset reads rows_touching: most groups (OpenLineage RUNNING
  // events) have none, and skip two string-keyed insertions per edge.
  bool touching_needed = false;
  for (const SourceBatch* batch : batches)
    touching_needed |= (!batch->stale_scope.empty() && batch->stale_scope != "*") || !batch->stale_assets.empty();
  std::set<std::string> placeholders;
  {
    std::shared_lock<std::shared_mutex> lock(mu_);
    auto known = [&](const std::string& id) {
      return described.count(id) || index_.Find(id) != kNone || placeholders.count(id);
    };
    // The row of `key`, created from the index (or as a new edge) on first use.
    auto row = [&](const EdgeKey& key, EdgeIndex existing, bool count) -> std::pair<EdgeEntry, Json>& {
      auto it = edge_rows.find(key);
      if (it != edge_rows.end()) return it->second;
      EdgeEntry entry;
      entry.relation = std::get<2>(key) == "triggers" ? Relation::kTriggers : Relation::kFeeds;
      Json columns;
      if (existing == kNone) {
        AssetIndex s = index_.Find(std::get<0>(key)), d = index_.Find(std::get<1>(key));
        existing = (s != kNone && d != kNone) ? index_.FindEdge(s, d, entry.relation) : kNone;
      }
      if (existing != kNone) {
        entry = index_.edge(existing);
        columns = index_.edge_columns(existing);
      }
      if (count) ++(existing != kNone ? summary.edges_refreshed : summary.edges_added);
      it = edge_rows.emplace(key, std::make_pair(entry, std::move(columns))).first;
      if (touching_needed) {
        rows_touching[std::get<0>(key)].push_back(&it->first);
        rows_touching[std::get<1>(key)].push_back(&it->first);
      }
      return it->second;
    };
    for (const SourceBatch* batch : batches) {
      const uint8_t bit = Bit(batch->origin);
      const int oi = static_cast<int>(batch->origin);
      std::set<EdgeKey> asserted;
      for (const EdgeFacts& f : batch->edges) {
        for (const std::string* id : {&f.src, &f.dst})
          if (!known(*id)) placeholders.insert(*id);
        EdgeKey key{f.src, f.dst, f.relation};
        auto& [e, columns] = row(key, kNone, true);
        e.origins |= bit;
        e.stale &= static_cast<uint8_t>(~bit);
        e.seen_s[oi] = now_s;
        if (!f.columns.is_null()) columns = f.columns;
        if (!batch->stale_scope.empty() || !batch->stale_assets.empty() || !batch->stale_prefixes.empty())
          asserted.insert(std::move(key));
      }
      // Stale marks: edges of this origin in scope that this batch no longer asserts.
      auto mark = [&](const EdgeKey& key, EdgeIndex ei) {
        if (asserted.count(key)) return;
        auto it = edge_rows.find(key);
        const EdgeEntry& now_e = it != edge_rows.end() ? it->second.first : index_.edge(ei);
        if (!(now_e.origins & bit) || (now_e.stale & bit)) return;
        row(key, ei, false).first.stale |= bit;
        ++summary.edges_marked_stale;
      };
      auto mark_index_edge = [&](EdgeIndex ei) {
        const EdgeEntry& e = index_.edge(ei);
        if (!(e.origins & bit)) return;
        mark(EdgeKey{index_.id(e.src), index_.id(e.dst), RelationName(e.relation)}, ei);
      };
      auto mark_touching = [&](const std::string& asset) {
        AssetIndex a = index_.Find(asset);
        if (a != kNone) {
          for (EdgeIndex ei : index_.out(a)) mark_index_edge(ei);
          for (EdgeIndex ei : index_.in(a)) mark_index_edge(ei);
        }
        if (auto it = rows_touching.find(asset); it != rows_touching.end()) {
          std::vector<const EdgeKey*> keys = it->second;  // mark may add rows
          for (const EdgeKey* k : keys) mark(*k, kNone);
        }
      };
      if (batch->stale_scope == "*") {
        for (EdgeIndex ei = 0; ei < index_.edge_count(); ++ei) mark_index_edge(ei);
        std::vector<const EdgeKey*> keys;
        for (const auto& [k, v] : edge_rows) keys.push_back(&k);
        for (const EdgeKey* k : keys) mark(*k, kNone);
      } else if (!batch->stale_scope.empty()) {
        mark_touching(batch->stale_scope);
      }
      for (const std::string& asset : batch->stale_assets) mark_touching(asset);
      if (!batch->stale_prefixes.empty()) {
        auto owned = [&](const std::string& id) {
          for (const std::string& p : batch->stale_prefixes)
            if (id.starts_with(p)) return true;
          return false;
        };
        for (EdgeIndex ei = 0; ei < index_.edge_count(); ++ei) {
          const EdgeEntry& e = index_.edge(ei);
          if ((e.origins & bit) && (owned(index_.id(e.src)) || owned(index_.id(e.dst)))) mark_index_edge(ei);
        }
        std::vector<const EdgeKey*> keys;
        for (const auto& [k, v] : edge_rows)
          if (owned(std::get<0>(k)) || owned(std::get<1>(k))) keys.push_back(&k);
        for (const EdgeKey* k : keys) mark(*k, kNone);
      }
    }
  }
  // A placeholder may already be stored (another process); never overwrite a described row.
  std::vector<store::GraphAsset> rows;
  rows.reserve(asset_rows.size() + placeholders.size());
  for (auto& [id, row] : asset_rows) rows.push_back(std::move(row));
  for (const std::string& id : placeholders) {
    auto got = store_->GetAsset(id);
    if (!got.ok()) return got.status();
    if (got->has_value()) continue;
    rows.push_back(PlaceholderRecord(id));
    ++summary.placeholders_added;
  }
  // Rows identical to what the index (and so the store) holds are not written again: a source
  // repeating an edge within the same second.
  std::vector<store::GraphEdge> edge_records;
  edge_records.reserve(edge_rows.size());
  {
    std::shared_lock<std::shared_mutex> lock(mu_);
    for (auto it = edge_rows.begin(); it != edge_rows.end();) {
      const auto& [src, dst, rel] = it->first;
      const auto& [entry, columns] = it->second;
      AssetIndex s = index_.Find(src), d = index_.Find(dst);
      EdgeIndex was = s != kNone && d != kNone ? index_.FindEdge(s, d, entry.relation) : kNone;
      if (was != kNone) {
        const EdgeEntry& old = index_.edge(was);
        if (old.origins == entry.origins && old.stale == entry.stale && old.seen_s == entry.seen_s &&
            index_.edge_columns(was) == (columns.is_null() || columns.empty() ? Json() : columns)) {
          it = edge_rows.erase(it);
          continue;
        }
      }
      edge_records.push_back(EdgeRecord(src, dst, entry, columns));
      ++it;
    }
  }

  std::string new_generation;
  bool others_wrote = false;
  Status written = store_->InTransaction([&](store::StateStore& tx) -> Status {
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
    auto gen = tx.GetCursor(kGraphGenerationCursor);
    if (!gen.ok()) return gen.status();
    int64_t n = 0;
    if (gen->has_value()) n = std::strtoll((*gen)->c_str(), nullptr, 10);
    others_wrote = gen->value_or("") != generation_;
    new_generation = std::to_string(n + 1);
    return tx.SetCursor(kGraphGenerationCursor, new_generation);
  });
  if (!written.ok()) {
    asset_cache_.clear();  // what was read or merged may not be what the store holds
    return written;
  }
  for (const store::GraphAsset& row : rows) RememberAsset(row);

  std::unique_lock<std::shared_mutex> lock(mu_);
  for (const store::GraphAsset& row : rows) DW_RETURN_IF_ERROR(IndexAssetRecord(row, &index_));
  for (const auto& [key, value] : edge_rows) {
    const auto& [src, dst, rel] = key;
    // Interning (not just finding) keeps the index whole even if a row it lacks was skipped above.
    AssetIndex s = index_.Intern(src, static_cast<uint8_t>(KindIndex(ParseAssetId(src)->kind)));
    AssetIndex d = index_.Intern(dst, static_cast<uint8_t>(KindIndex(ParseAssetId(dst)->kind)));
    EdgeEntry e = value.first;
    e.src = s;
    e.dst = d;
    EdgeIndex existing = index_.FindEdge(s, d, e.relation);
    EdgeIndex at = existing == kNone ? index_.AddEdge(e) : existing;
    if (existing != kNone) index_.mutable_edge(at) = e;
    index_.set_edge_columns(at, value.second);
  }
  // If another process wrote between our check and our transaction, the index misses its rows:
  // leave the generation unmatched so the next Refresh reloads.
  generation_ = others_wrote ? std::string() : new_generation;
  return summary;
}

}  // namespace dw::graph
