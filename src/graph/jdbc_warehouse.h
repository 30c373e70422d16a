// Which warehouse a task's JDBC connection (`url: jdbc:postgresql://host:5432/shop`) names, so
// that the tables its SQL reads and writes land in that warehouse: a flow that reads Druid and
// writes Redshift then has two tables, not one table it both reads and writes.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dw::graph {

// What a JDBC URL says about where it connects. Credentials and parameters other than the
// database are never kept (a URL may carry a password).
struct JdbcTarget {
  std::string system;    // "postgres", "redshift", "mysql", "druid", "snowflake", ... (lower case)
  std::string host;      // lower case, without port or user; "" when the URL names none
  std::string database;  // "" when the URL does not say
};

// Parses `url`; nullopt when it is not a JDBC URL ("jdbc:<system>:...").
std::optional<JdbcTarget> ParseJdbcUrl(std::string_view url);

// A warehouse of the workspace, as the Kestra reader matches connections to it.
struct KnownWarehouse {
  std::string name;      // the workspace's name for it
  std::string type;      // its `type:` (postgres, sqlite, bigquery, snowflake)
  std::string database;  // the database its tables carry (warehouse::WarehouseDatabase), or ""
};

// The warehouse instance the tables of `target` belong to: the workspace warehouse of the same
// system whose database it names (or the only one of that system when either side leaves the
// database out); else an instance of its own, "<system>-<host>[-<database>]" ("druid-broker",
// "redshift-dw.example.com-dev").
std::string WarehouseForJdbc(const JdbcTarget& target, const std::vector<KnownWarehouse>& warehouses);

}  // namespace dw::graph
