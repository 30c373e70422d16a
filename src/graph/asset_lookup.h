// Finding assets: by exact id or alias, by name fragment, kind or owner, and the closest ids to
// one that does not exist; and the JSON view of an asset that every answer uses.
#pragma once

#include <string>
#include <vector>

#include "base/json.h"
#include "base/status.h"
#include "graph/graph_index.h"

namespace dw::graph {

// The asset named by `name` (a canonical id, a recorded alias, or a table as `checks:` names it:
// warehouse.schema.table or warehouse.table). kNotFound otherwise, with the
// closest known ids in the message ("did you mean ...").
Result<AssetIndex> FindAsset(const GraphIndex& index, const std::string& name);

// Up to `limit` known ids closest to `name`: those containing it (or its short name) first, then
// by edit distance.
std::vector<std::string> ClosestIds(const GraphIndex& index, const std::string& name, size_t limit);

struct AssetQuery {
  std::string text;   // case-insensitive fragment of the id or an alias; empty = any
  std::string kind;   // exact kind; empty = any
  std::string owner;  // case-insensitive fragment of the owner; empty = any
  std::string domain; // exact domain; empty = any
  size_t limit = 50;
};

struct AssetMatches {
  std::vector<AssetIndex> assets;  // ordered by id
  size_t total = 0;                // matches before the limit
};

// The assets matching every set field of `query`.
AssetMatches SearchAssets(const GraphIndex& index, const AssetQuery& query);

// {id, kind, domain, owner, placeholder, customer_facing, origins[], schedule?, schedule_timezone?,
// schedule_disabled?, disabled_since?, tags?} of `a`;
// with `full`, also notes, aliases, columns, impact_sql (whether defined), edge counts.
Json AssetJson(const GraphIndex& index, AssetIndex a, bool full = false);

// The origin names in `bits` (bit per Origin), in Origin order.
std::vector<std::string> OriginNames(uint8_t bits);

}  // namespace dw::graph
