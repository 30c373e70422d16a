// dbt's manifest.json (schema v7 to v12, dbt 1.3 to 1.11, and v20 of dbt Fusion) as a graph source. One physical table is one asset:
// a model, seed or snapshot becomes dbt://<package>/<name>, the producer, with an edge to the
// warehouse table it builds (table://<warehouse>/<schema>.<alias>, the asset the checks see);
// sources become warehouse tables; exposures become dashboards (type dashboard) or api assets
// (other types); depends_on.nodes become edges from the tables read to the model reading them.
// A table's relation names ("db"."schema"."table", db.schema.table) and dbt unique id become its
// aliases, so OpenLineage, SQL and typed names stitch onto it.
#pragma once

#include <string>
#include <vector>

#include "base/json.h"
#include "base/status.h"
#include "config/workspace.h"
#include "graph/graph_index.h"
#include "graph/source_batch.h"

namespace dw::graph {

// What DbtManifestBatch reads, as its refusal of another version says it.
inline constexpr const char* kSupportedManifests =
    "dw reads manifest v7 to v12 (dbt 1.3 to 1.11) and v20 (dbt Fusion 2.0)";

// Where the tables a manifest's relations name live.
struct RelationWarehouses {
  struct Warehouse {
    std::string name;      // the workspace's warehouse name
    std::string database;  // the database its relations carry ("" when unknown)
    bool schemas = true;   // tables are named schema.table (false: SQLite, the table alone)
  };
  std::vector<Warehouse> warehouses;
  // Where a relation whose database matches no warehouse lands (the workspace's default
  // warehouse); "" leaves such a model without a table.
  std::string fallback;
  // Table ids the workspace itself spells (its checks): a relation that names one of them
  // case-insensitively (Snowflake folds names to upper case) takes the workspace's spelling.
  std::vector<std::string> known_tables;
};

// The warehouses of `ws` with their databases (warehouse/backends.h), its default warehouse as
// the fallback, and its checks' tables.
RelationWarehouses RelationWarehousesOf(const config::Workspace& ws);

// Reads `manifest`. A relation (database, schema, identifier) is a table of the warehouse whose
// database it names (case-insensitively), else of `where.fallback`; a source is stitched onto an
// existing table asset with the same table name when there is exactly one. Fails with
// kInvalidArgument naming the JSON path of a malformed part, or the version when the manifest is
// not one kSupportedManifests names.
Result<SourceBatch> DbtManifestBatch(const Json& manifest, const RelationWarehouses& where, const GraphIndex& index);

// DbtManifestBatch with every relation in warehouse `warehouse`.
Result<SourceBatch> DbtManifestBatch(const Json& manifest, const std::string& warehouse, const GraphIndex& index);

}  // namespace dw::graph
