#include "graph/asset_lookup.h"

#include <algorithm>
#include <cctype>

#include "base/identifiers.h"
#include "config/suggest.h"

namespace dw::graph {
namespace {

std::string Lower(std::string_view s) { return AsciiLower(s); }

}  // namespace

std::vector<std::string> OriginNames(uint8_t bits) {
  std::vector<std::string> out;
  for (int i = 0; i < kOriginCount; ++i)
    if (bits & (1u << i)) out.push_back(OriginName(static_cast<Origin>(i)));
  return out;
}

std::vector<std::string> ClosestIds(const GraphIndex& index, const std::string& name, size_t limit) {
  const std::string lname = Lower(name);
  const std::string lshort = Lower(ShortName(name));
  std::vector<std::pair<size_t, AssetIndex>> scored;
  const size_t n = index.asset_count();
  // Edit distance over every id is fine for workspace-sized graphs; past that, fragments only.
  const bool distance = n <= 50000;
  for (AssetIndex a = 0; a < n; ++a) {
    const std::string lid = Lower(index.id(a));
    size_t score;
    if (lid.find(lname) != std::string::npos || (!lshort.empty() && lid.find(lshort) != std::string::npos)) {
      score = 0;
    } else if (distance) {
      score = 1 + config::EditDistance(lname, lid);
    } else {
      continue;
    }
    scored.emplace_back(score, a);
  }
  std::sort(scored.begin(), scored.end(), [&](const auto& x, const auto& y) {
    return x.first != y.first ? x.first < y.first : index.id(x.second) < index.id(y.second);
  });
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && out.size() < limit; ++i) out.push_back(index.id(scored[i].second));
  return out;
}

Result<AssetIndex> FindAsset(const GraphIndex& index, const std::string& name) {
  AssetIndex a = index.Find(name);
  if (a == kNone) a = index.FindAlias(name);
  // How `checks:` names a table (warehouse.schema.table, warehouse.table) is a name for it too.
  if (a == kNone && !name.starts_with("table://"))
    if (Result<TableRef> ref = ParseTableRef(name); ref.ok()) a = index.Find(ref->AssetIdString());
  if (a != kNone) return a;
  std::vector<std::string> close = ClosestIds(index, name, 5);
  std::string msg = "no asset '" + name + "' in the context graph";
  if (!close.empty()) {
    msg += "; closest: ";
    for (size_t i = 0; i < close.size(); ++i) msg += (i ? ", " : "") + close[i];
  } else {
    msg += " (the graph holds " + std::to_string(index.asset_count()) + " assets)";
  }
  return NotFound(msg);
}

AssetMatches SearchAssets(const GraphIndex& index, const AssetQuery& q) {
  const std::string text = Lower(q.text), owner = Lower(q.owner);
  AssetMatches m;
  for (AssetIndex a = 0; a < index.asset_count(); ++a) {
    const AssetEntry& e = index.asset(a);
    if (!q.kind.empty() && index.kind_name(a) != q.kind) continue;
    if (!q.domain.empty() && index.str(e.domain) != q.domain) continue;
    if (!owner.empty() && Lower(index.str(e.owner)).find(owner) == std::string::npos) continue;
    if (!text.empty() && Lower(index.id(a)).find(text) == std::string::npos) {
      bool alias_hit = false;
      for (const std::string& al : index.details(a).aliases)
        if (Lower(al).find(text) != std::string::npos) alias_hit = true;
      if (!alias_hit) continue;
    }
    ++m.total;
    m.assets.push_back(a);
  }
  std::sort(m.assets.begin(), m.assets.end(),
            [&](AssetIndex x, AssetIndex y) { return index.id(x) < index.id(y); });
  if (m.assets.size() > q.limit) m.assets.resize(q.limit);
  return m;
}

Json AssetJson(const GraphIndex& index, AssetIndex a, bool full) {
  const AssetEntry& e = index.asset(a);
  const AssetDetails& d = index.details(a);
  Json j{{"id", index.id(a)},
         {"kind", index.kind_name(a)},
         {"domain", index.str(e.domain)},
         {"owner", index.str(e.owner)},
         {"placeholder", (e.flags & kPlaceholder) != 0},
         {"customer_facing", (e.flags & kCustomerFacing) != 0},
         {"origins", OriginNames(e.origins)}};
  if (!d.schedule.empty()) j["schedule"] = d.schedule;
  if (!d.schedule_timezone.empty()) j["schedule_timezone"] = d.schedule_timezone;
  if (d.schedule_disabled) j["schedule_disabled"] = true;
  if (!d.disabled_since.empty()) j["disabled_since"] = d.disabled_since;
  if (!d.tags.empty()) j["tags"] = d.tags;
  if (full) {
    j["notes"] = d.notes;
    j["aliases"] = d.aliases;
    j["columns"] = d.columns.is_null() ? Json::array() : d.columns;
    j["has_impact_sql"] = !d.impact_sql.empty();
    j["upstream_edges"] = index.in(a).size();
    j["downstream_edges"] = index.out(a).size();
  }
  return j;
}

}  // namespace dw::graph
