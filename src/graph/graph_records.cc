#include "graph/graph_records.h"

#include <algorithm>

#include "base/identifiers.h"
#include "base/json_scan.h"

namespace dw::graph {
namespace {

constexpr Origin kPriority[] = {Origin::kNotes, Origin::kDbt, Origin::kKestra, Origin::kOpenLineage};
constexpr const char* kScheduleKeys[] = {"schedule", "schedule_timezone", "schedule_disabled", "disabled_since"};

Json FactsJson(const AssetFacts& f, TimePoint now) {
  Json j = Json::object();
  if (!f.domain.empty()) j["domain"] = f.domain;
  if (!f.owner.empty()) j["owner"] = f.owner;
  if (!f.schedule.empty()) j["schedule"] = f.schedule;
  if (!f.schedule_timezone.empty()) j["schedule_timezone"] = f.schedule_timezone;
  if (f.schedule_disabled) j["schedule_disabled"] = true;
  if (!f.disabled_since.empty()) j["disabled_since"] = f.disabled_since;
  if (f.customer_facing) j["customer_facing"] = *f.customer_facing;
  if (!f.tags.empty()) j["tags"] = f.tags;
  if (!f.impact_sql.empty()) j["impact_sql"] = f.impact_sql;
  if (!f.notes.empty()) j["notes"] = f.notes;
  if (!f.aliases.empty()) j["aliases"] = f.aliases;
  if (!f.columns.is_null()) j["columns"] = f.columns;
  j["last_seen"] = ToUnixMillis(now) / 1000 * 1000;  // to the second, like an edge's
  return j;
}

// The first value of `key` among the sources, in priority order; null if none has it.
Json FirstByPriority(const Json& sources, const char* key) {
  for (Origin o : kPriority) {
    auto it = sources.find(OriginName(o));
    if (it != sources.end() && it->is_object() && it->contains(key)) return (*it)[key];
  }
  return nullptr;
}

std::string StringOr(const Json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<std::string> StringList(const Json& j, const char* key) {
  std::vector<std::string> out;
  auto it = j.find(key);
  if (it == j.end() || !it->is_array()) return out;
  for (const Json& v : *it)
    if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

// The union of the aliases `attrs`' sources give, in source order; the merged "aliases" list for a
// row without sources.
std::vector<std::string> SourceAliases(const Json& attrs) {
  auto sources = attrs.find("sources");
  if (sources == attrs.end() || !sources->is_object()) return StringList(attrs, "aliases");
  std::vector<std::string> out;
  for (const auto& [name, src] : sources->items())
    for (auto& al : StringList(src, "aliases"))
      if (std::find(out.begin(), out.end(), al) == out.end()) out.push_back(std::move(al));
  return out;
}

}  // namespace

bool KeepsColumns(Origin origin) { return origin == Origin::kOpenLineage; }

store::GraphAsset MergeAssetFacts(const std::optional<store::GraphAsset>& existing,
                                  const AssetFacts& facts, Origin origin, TimePoint now) {
  store::GraphAsset rec;
  if (existing) rec = *existing;
  rec.id = facts.id;
  auto parsed = ParseAssetId(facts.id);
  rec.kind = parsed.ok() ? parsed->kind : "";
  if (!rec.attrs.is_object()) rec.attrs = Json::object();
  Json& sources = rec.attrs["sources"];
  if (!sources.is_object()) sources = Json::object();
  Json fresh = FactsJson(facts, now);
  if (facts.columns.is_null() && KeepsColumns(origin))
    if (auto it = sources.find(OriginName(origin)); it != sources.end() && it->is_object())
      if (auto cols = it->find("columns"); cols != it->end()) fresh["columns"] = *cols;
  sources[OriginName(origin)] = std::move(fresh);

  Json merged = FirstByPriority(sources, "domain");
  rec.domain = merged.is_string() ? merged.get<std::string>() : "";
  merged = FirstByPriority(sources, "owner");
  rec.owner = merged.is_string() ? merged.get<std::string>() : "";
  Json& a = rec.attrs;
  for (const char* key : {"impact_sql", "notes", "columns", "customer_facing"}) {
    Json v = FirstByPriority(sources, key);
    if (v.is_null()) {
      a.erase(key);
    } else {
      a[key] = v;
    }
  }
  // A schedule's zone and state come from the source that gave the schedule, never mixed with
  // another source's cron.
  const Json* scheduler = nullptr;
  for (Origin o : kPriority) {
    auto it = sources.find(OriginName(o));
    if (it != sources.end() && it->is_object() && it->contains("schedule")) {
      scheduler = &*it;
      break;
    }
  }
  for (const char* key : kScheduleKeys) {
    if (scheduler != nullptr && scheduler->contains(key)) {
      a[key] = (*scheduler)[key];
    } else {
      a.erase(key);
    }
  }
  // Tags and aliases are unions of what the sources say now: every source's names are names of
  // the asset, and a name no source gives any more (a relation an older dw put on a dbt model,
  // which now names the table the model builds) is dropped, never kept from the stored row.
  std::vector<std::string> tags, aliases;
  for (const auto& [name, src] : sources.items()) {
    for (auto& t : StringList(src, "tags"))
      if (std::find(tags.begin(), tags.end(), t) == tags.end()) tags.push_back(t);
    for (auto& al : StringList(src, "aliases"))
      if (std::find(aliases.begin(), aliases.end(), al) == aliases.end()) aliases.push_back(al);
  }
  if (tags.empty()) a.erase("tags"); else a["tags"] = tags;
  if (aliases.empty()) a.erase("aliases"); else a["aliases"] = aliases;
  a["placeholder"] = false;
  return rec;
}

bool AssetFactsUnchanged(const store::GraphAsset& existing, const AssetFacts& facts, Origin origin,
                         TimePoint now) {
  const Json& attrs = existing.attrs;
  if (!attrs.is_object()) return false;
  auto placeholder = attrs.find("placeholder");
  if (placeholder == attrs.end() || !placeholder->is_boolean() || placeholder->get<bool>()) return false;
  auto sources = attrs.find("sources");
  if (sources == attrs.end() || !sources->is_object()) return false;
  auto found = sources->find(OriginName(origin));
  if (found == sources->end() || !found->is_object()) return false;
  const Json& mine = *found;
  // The same facts, last confirmed less than kAssetSeenRefresh ago: nothing worth a write.
  auto seen = mine.find("last_seen");
  if (seen == mine.end() || !seen->is_number_integer()) return false;
  const int64_t now_ms = ToUnixMillis(now), seen_ms = seen->get<int64_t>();
  if (seen_ms > now_ms || now_ms - seen_ms >= kAssetSeenRefreshMs) return false;
  // Key by key against what FactsJson would write, without building it: this runs for every asset
  // of every event an OpenLineage producer sends.
  size_t keys = 1;  // last_seen
  auto same_string = [&](const char* key, const std::string& value) {
    if (value.empty()) return true;
    ++keys;
    auto it = mine.find(key);
    return it != mine.end() && it->is_string() && it->get_ref<const std::string&>() == value;
  };
  auto same_list = [&](const char* key, const std::vector<std::string>& values) {
    if (values.empty()) return true;
    ++keys;
    auto it = mine.find(key);
    if (it == mine.end() || !it->is_array() || it->size() != values.size()) return false;
    for (size_t i = 0; i < values.size(); ++i)
      if (!(*it)[i].is_string() || (*it)[i].get_ref<const std::string&>() != values[i]) return false;
    return true;
  };
  if (!same_string("domain", facts.domain) || !same_string("owner", facts.owner) ||
      !same_string("schedule", facts.schedule) || !same_string("schedule_timezone", facts.schedule_timezone) ||
      !same_string("disabled_since", facts.disabled_since) || !same_string("impact_sql", facts.impact_sql) ||
      !same_string("notes", facts.notes) || !same_list("tags", facts.tags) ||
      !same_list("aliases", facts.aliases))
    return false;
  if (facts.schedule_disabled) {
    ++keys;
    auto it = mine.find("schedule_disabled");
    if (it == mine.end() || !it->is_boolean() || !it->get<bool>()) return false;
  }
  if (facts.customer_facing) {
    ++keys;
    auto it = mine.find("customer_facing");
    if (it == mine.end() || !it->is_boolean() || it->get<bool>() != *facts.customer_facing) return false;
  }
  auto columns = mine.find("columns");
  if (!facts.columns.is_null()) {
    ++keys;
    if (columns == mine.end() || *columns != facts.columns) return false;
  } else if (columns != mine.end() && KeepsColumns(origin)) {
    ++keys;  // kept by MergeAssetFacts
  }
  return mine.size() == keys;
}

store::GraphAsset PlaceholderRecord(const std::string& id) {
  store::GraphAsset rec;
  rec.id = id;
  auto parsed = ParseAssetId(id);
  rec.kind = parsed.ok() ? parsed->kind : "";
  rec.attrs = Json{{"placeholder", true}, {"sources", Json::object()}};
  return rec;
}

Status IndexAssetRecord(const store::GraphAsset& record, GraphIndex* index) {
  auto parsed = ParseAssetId(record.id);
  if (!parsed.ok())
    return DataLoss("graph_assets row '" + record.id + "': " + parsed.status().message());
  AssetIndex a = index->Intern(record.id, static_cast<uint8_t>(KindIndex(parsed->kind)));
  AssetEntry& e = index->mutable_asset(a);
  const Json& attrs = record.attrs.is_object() ? record.attrs : Json::object();
  e.domain = index->InternString(record.domain);
  e.owner = index->InternString(record.owner);
  e.flags = 0;
  if (attrs.value("placeholder", false)) e.flags |= kPlaceholder;
  if (attrs.value("customer_facing", false)) e.flags |= kCustomerFacing;
  e.origins = 0;
  if (auto it = attrs.find("sources"); it != attrs.end() && it->is_object())
    for (const auto& [name, v] : it->items())
      if (auto o = ParseOrigin(name)) e.origins |= static_cast<uint8_t>(1u << static_cast<int>(*o));
  AssetDetails d;
  d.schedule = StringOr(attrs, "schedule");
  d.schedule_timezone = StringOr(attrs, "schedule_timezone");
  if (auto it = attrs.find("schedule_disabled"); it != attrs.end() && it->is_boolean())
    d.schedule_disabled = it->get<bool>();
  d.disabled_since = StringOr(attrs, "disabled_since");
  d.impact_sql = StringOr(attrs, "impact_sql");
  d.notes = StringOr(attrs, "notes");
  d.tags = StringList(attrs, "tags");
  // The names its sources give it now (MergeAssetFacts' union; a row an older dw wrote may carry a
  // merged list no source gives any more), replacing what this asset was named before.
  d.aliases = SourceAliases(attrs);
  if (auto it = attrs.find("columns"); it != attrs.end()) d.columns = *it;
  const bool has_details = !d.schedule.empty() || !d.impact_sql.empty() || !d.notes.empty() ||
                           !d.tags.empty() || !d.aliases.empty() || !d.columns.is_null();
  const std::vector<std::string> before = index->details(a).aliases;
  if (has_details || e.details != kNone) index->mutable_details(a) = d;
  for (const std::string& alias : before)
    if (std::find(d.aliases.begin(), d.aliases.end(), alias) == d.aliases.end()) index->DropAlias(alias, a);
  for (const std::string& alias : d.aliases) index->AddAlias(alias, a);
  return Status::Ok();
}

store::GraphEdge EdgeRecord(std::string_view src, std::string_view dst, const EdgeEntry& edge,
                            const Json& columns) {
  store::GraphEdge rec;
  rec.src = std::string(src);
  rec.dst = std::string(dst);
  rec.relation = RelationName(edge.relation);
  Json sources = Json::object();
  for (int i = 0; i < kOriginCount; ++i) {
    uint8_t bit = static_cast<uint8_t>(1u << i);
    if (!(edge.origins & bit)) continue;
    const char* name = OriginName(static_cast<Origin>(i));
    sources[name] = Json{{"last_seen", static_cast<int64_t>(edge.seen_s[i]) * 1000},
                         {"stale", (edge.stale & bit) != 0}};
    if (!(edge.stale & bit) || edge.IsStale())
      rec.origin += (rec.origin.empty() ? "" : ",") + std::string(name);
  }
  rec.attrs = Json{{"sources", sources}};
  if (!columns.is_null()) rec.attrs["columns"] = columns;
  return rec;
}

Status IndexEdgeRecord(const store::GraphEdge& record, GraphIndex* index) {
  auto bad = [&](const std::string& why) {
    return DataLoss("graph_edges row " + record.src + " -> " + record.dst + ": " + why);
  };
  Relation rel;
  if (record.relation == "feeds") {
    rel = Relation::kFeeds;
  } else if (record.relation == "triggers") {
    rel = Relation::kTriggers;
  } else {
    return bad("unknown relation '" + record.relation + "'");
  }
  auto s = ParseAssetId(record.src);
  auto d = ParseAssetId(record.dst);
  if (!s.ok()) return bad(s.status().message());
  if (!d.ok()) return bad(d.status().message());
  EdgeEntry e;
  e.src = index->Intern(record.src, static_cast<uint8_t>(KindIndex(s->kind)));
  e.dst = index->Intern(record.dst, static_cast<uint8_t>(KindIndex(d->kind)));
  e.relation = rel;
  const Json& attrs = record.attrs;
  if (attrs.is_object())
    if (auto it = attrs.find("sources"); it != attrs.end() && it->is_object())
      for (const auto& [name, v] : it->items()) {
        auto o = ParseOrigin(name);
        if (!o || !v.is_object()) continue;
        int i = static_cast<int>(*o);
        e.origins |= static_cast<uint8_t>(1u << i);
        if (v.value("stale", false)) e.stale |= static_cast<uint8_t>(1u << i);
        int64_t ms = v.value("last_seen", int64_t{0});
        e.seen_s[i] = static_cast<uint32_t>(std::max<int64_t>(0, ms / 1000));
      }
  EdgeIndex existing = index->FindEdge(e.src, e.dst, rel);
  EdgeIndex at = existing == kNone ? index->AddEdge(e) : existing;
  if (existing != kNone) index->mutable_edge(at) = e;
  if (attrs.is_object() && attrs.contains("columns")) index->set_edge_columns(at, attrs["columns"]);
  return Status::Ok();
}

}  // namespace dw::graph

namespace dw::graph {
namespace {

// Reads {"sources": {"<origin>": {"last_seen": N, "stale": B}, ...}} into an EdgeEntry. Gives up
// (returns false from a callback) on anything else, so the caller can take the DOM path.
class EdgeAttrsSax {
 public:
  explicit EdgeAttrsSax(EdgeEntry* e) : e_(e) {}
  bool null() { return Skip(); }
  bool boolean(bool b) {
    if (depth_ == 3 && key_ == kStale && origin_ >= 0) {
      if (b) e_->stale |= static_cast<uint8_t>(1u << origin_);
      key_ = kOther;
      return true;
    }
    return Skip();
  }
  bool number_integer(Json::number_integer_t v) { return Number(v); }
  bool number_unsigned(Json::number_unsigned_t v) {
    return v > static_cast<Json::number_unsigned_t>(INT64_MAX) ? false : Number(static_cast<int64_t>(v));
  }
  bool number_float(Json::number_float_t, const std::string&) { return false; }
  bool string(std::string&) { return Skip(); }
  bool binary(Json::binary_t&) { return false; }
  bool start_object(std::size_t) {
    ++depth_;
    if (depth_ == 1) return true;
    if (depth_ == 2) return key_ == kSources;
    if (depth_ == 3) {
      key_ = kOther;
      return true;  // origin_ was set by the key (or is -1: an unknown origin, ignored)
    }
    return false;
  }
  bool end_object() {
    if (depth_ == 3 && origin_ >= 0) e_->origins |= static_cast<uint8_t>(1u << origin_);
    --depth_;
    return true;
  }
  bool start_array(std::size_t) { return false; }
  bool end_array() { return false; }
  bool key(std::string& k) {
    if (depth_ == 1) {
      if (k == "sources") {
        key_ = kSources;
        return true;
      }
      return false;  // columns or anything else: the DOM path
    }
    if (depth_ == 2) {
      auto o = ParseOrigin(k);
      origin_ = o ? static_cast<int>(*o) : -1;
      return true;
    }
    if (depth_ == 3) {
      key_ = k == "last_seen" ? kLastSeen : k == "stale" ? kStale : kOther;
      return true;
    }
    return false;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

 private:
  enum Key { kOther, kSources, kLastSeen, kStale };
  bool Number(int64_t v) {
    if (depth_ == 3 && key_ == kLastSeen && origin_ >= 0) {
      e_->seen_s[origin_] = static_cast<uint32_t>(std::max<int64_t>(0, v / 1000));
      key_ = kOther;
      return true;
    }
    return Skip();
  }
  // A scalar we do not use: fine inside an origin's object, anything else is unusual.
  bool Skip() {
    if (depth_ == 3 && key_ == kOther) return true;
    return false;
  }

  EdgeEntry* e_;
  int depth_ = 0;
  int origin_ = -1;
  Key key_ = kOther;
};

// The index of an endpoint: found without parsing when known, else validated and interned.
Result<AssetIndex> Endpoint(std::string_view id, GraphIndex* index) {
  AssetIndex a = index->Find(id);
  if (a != kNone) return a;
  std::string owned(id);
  auto parsed = ParseAssetId(owned);
  if (!parsed.ok()) return parsed.status();
  return index->Intern(owned, static_cast<uint8_t>(KindIndex(parsed->kind)));
}

}  // namespace

Status IndexAssetRow(const store::GraphAssetView& row, GraphIndex* index) {
  store::GraphAsset rec;
  rec.id = row.id;
  rec.kind = row.kind;
  rec.domain = row.domain;
  rec.owner = row.owner;
  rec.attrs = ParseJsonText(row.attrs);
  if (rec.attrs.is_discarded())
    return DataLoss("graph_assets row '" + rec.id + "': attrs are not valid JSON");
  return IndexAssetRecord(rec, index);
}

Status IndexEdgeRow(const store::GraphEdgeView& row, GraphIndex* index) {
  Relation rel;
  if (row.relation == "feeds") {
    rel = Relation::kFeeds;
  } else if (row.relation == "triggers") {
    rel = Relation::kTriggers;
  } else {
    return DataLoss("graph_edges row " + std::string(row.src) + " -> " + std::string(row.dst) +
                    ": unknown relation '" + std::string(row.relation) + "'");
  }
  EdgeEntry e;
  e.relation = rel;
  EdgeAttrsSax sax(&e);
  // JsonLexer reads the usual attrs several times faster than nlohmann; anything unusual (or that
  // it refuses) takes the DOM path below, which decides.
  if (ScanJson(row.attrs, &sax) != JsonScanResult::kOk) {
    store::GraphEdge rec;
    rec.src = row.src;
    rec.dst = row.dst;
    rec.relation = row.relation;
    rec.attrs = Json::parse(row.attrs.begin(), row.attrs.end(), nullptr, /*allow_exceptions=*/false);
    if (rec.attrs.is_discarded())
      return DataLoss("graph_edges row " + rec.src + " -> " + rec.dst + ": attrs are not valid JSON");
    return IndexEdgeRecord(rec, index);
  }
  auto s = Endpoint(row.src, index);
  auto d = Endpoint(row.dst, index);
  auto bad = [&](const Status& why) {
    return DataLoss("graph_edges row " + std::string(row.src) + " -> " + std::string(row.dst) + ": " + why.message());
  };
  if (!s.ok()) return bad(s.status());
  if (!d.ok()) return bad(d.status());
  e.src = *s;
  e.dst = *d;
  EdgeIndex existing = index->FindEdge(e.src, e.dst, rel);
  if (existing == kNone) {
    index->AddEdge(e);
  } else {
    index->mutable_edge(existing) = e;
  }
  return Status::Ok();
}

}  // namespace dw::graph
