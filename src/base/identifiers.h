// Canonical asset ids, `<kind>://<instance>/<name>`: the one spelling every stage uses for an
// asset, so lineage from different sources (OpenLineage, dbt, Kestra flows, the team's notes)
// stitches into one graph. Aliases are resolved to these ids by the graph stage, not here.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace dw {

struct AssetId {
  std::string kind;      // one of KnownAssetKinds(), e.g. "table"
  std::string instance;  // a configured name (warehouse, platform) or a system's name ("prod")
  std::string name;      // kind-specific, e.g. "loyalty.member_balances" for a table

  // "<kind>://<instance>/<name>".
  std::string ToString() const;
  bool operator==(const AssetId&) const = default;
};

// The asset kinds the product knows, in documentation order: kafka, pubsub, flink, table, dbt,
// kestra, kv, connect, subject, sync, dashboard, api.
const std::vector<std::string>& KnownAssetKinds();

// Returns true iff `kind` is one of KnownAssetKinds().
bool IsKnownAssetKind(std::string_view kind);

// Parses a canonical id. Fails with kInvalidArgument and a sentence naming what is wrong (unknown
// kind, missing instance, empty or malformed name) when `text` is not canonical. Canonical means:
// lower-case known kind; instance of letters, digits, '_', '-', '.'; a name without whitespace,
// empty segments or a trailing '/'; tables as `schema.table` or `table`; Kestra flows as
// `namespace.flow`.
Result<AssetId> ParseAssetId(std::string_view text);

// Returns true iff ParseAssetId(text) succeeds.
bool IsCanonicalAssetId(std::string_view text);

// Returns true iff `name` can name a warehouse, platform or domain in the workspace: a letter,
// then letters, digits, '_' or '-' (no '.', which separates a check's warehouse from its table).
bool IsValidConfigName(std::string_view name);

// A table reference in a workspace check: `warehouse.schema.table`, `warehouse.table` (schemaless,
// e.g. SQLite) or `table://warehouse/schema.table`.
struct TableRef {
  std::string warehouse;
  std::string schema;  // empty when the reference has no schema
  std::string table;

  // The canonical id: table://<warehouse>/<schema>.<table>, or table://<warehouse>/<table>.
  std::string AssetIdString() const;
  // "schema.table" or "table", as the warehouse's SQL names it.
  std::string QualifiedName() const;
};

// Parses a check's table reference. Fails with kInvalidArgument when it has fewer than two or more
// than three dot-separated parts, or an empty part.
Result<TableRef> ParseTableRef(std::string_view text);

// The parts of a relation name as dbt and the warehouses write it: "db"."schema"."t",
// `p`.`d`.`t` or db.schema.t; a dot inside quotes belongs to its part, and the quotes go.
std::vector<std::string> RelationParts(std::string_view relation);

// `s` with its ASCII letters in lower case (names compared as engines fold unquoted ones).
std::string AsciiLower(std::string_view s);

}  // namespace dw
