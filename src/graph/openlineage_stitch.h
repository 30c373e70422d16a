// Stitching OpenLineage datasets to the workspace's warehouses by the OpenLineage naming spec
// (spec/Naming.md): a dataset's namespace names its datasource (`postgres://host:5432`,
// `snowflake://org-account`, `bigquery`) and its name the path inside it
// (`database.schema.table`, `project.dataset.table`). The same table then has one id whether a
// Spark job's event, a dbt manifest or a workspace check names it, and a table of another
// database that only shares a short name is never merged into the workspace's.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/jdbc_warehouse.h"

namespace dw::graph {

// A dataset the naming spec places in a SQL database the workspace can hold as a warehouse.
struct OlWarehouseDataset {
  JdbcTarget target;  // system (the workspace `type:` it would be), host, database
  std::string table;  // what the product's table ids carry: schema.table (dataset.table)
};

// Reads `ns`/`name` by the naming spec for the systems the workspace has warehouse types for:
// postgres://{host}:{port} + {database}.{schema}.{table}; snowflake://{org}-{account} +
// {database}.{schema}.{table}; bigquery + {project}.{dataset}.{table}. nullopt for any other
// namespace, or a name without the parts the spec requires (those keep the generic naming).
std::optional<OlWarehouseDataset> ParseOlWarehouseDataset(std::string_view ns, std::string_view name);

// The dataset's id in the workspace: table://<warehouse>/<table> in the workspace warehouse of
// its system whose database it names (or the only one of that system when either side leaves the
// database out), else in an instance of its own (`postgres-db.internal-analytics`); "" when the
// workspace has no warehouse of that system (no opinion: the generic naming applies).
std::string StitchOlDataset(const OlWarehouseDataset& dataset, const std::vector<KnownWarehouse>& warehouses);

}  // namespace dw::graph
