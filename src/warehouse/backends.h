// The warehouse back ends, found by their `type:` name in one registry (as DuckDB finds its
// storage extensions): opening a configured warehouse, probing it for `describe`, and showing where
// it lives, and its SQL dialect. Adding a back end (DuckDB, BigQuery) is one entry in backends.cc
// plus its own files (its warehouse, its probe, its dialect).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/http.h"
#include "base/status.h"
#include "config/workspace.h"
#include "warehouse/history.h"
#include "warehouse/probe.h"
#include "warehouse/spend.h"
#include "warehouse/table_catalog.h"
#include "warehouse/warehouse.h"

namespace dw::warehouse {

struct WarehouseBackend {
  std::string_view type;  // the workspace's `type:`, e.g. "sqlite"
  // Opens the configured warehouse (read-only where the engine allows it). `http` (which must
  // outlive what is opened) carries a REST engine's calls; SQLite and PostgreSQL ignore it.
  Result<std::unique_ptr<Warehouse>> (*open)(const config::WarehouseConfig& config, HttpClient* http);
  // Opens it read-only and runs a trivial query within `timeout`; never throws, never writes.
  WarehouseProbe (*probe)(const config::WarehouseConfig& config, std::chrono::milliseconds timeout, HttpClient* http);
  // Where it lives, safe to show (no password).
  std::string (*location)(const config::WarehouseConfig& config);
  // How its SQL is spelled (the same object its open warehouses answer from dialect()).
  const Dialect& (*dialect)();
  // Its history of writes (warehouse/history.h), or nullptr when the engine keeps none.
  Result<std::unique_ptr<WarehouseHistory>> (*history)(const config::WarehouseConfig& config, HttpClient* http) = nullptr;
  // What the engine keeps instead, when `history` is nullptr: for the error a user reads.
  std::string_view no_history_reason = "";
  // Its per-query cost (warehouse/spend.h), or nullptr when nothing is billed per query.
  Result<std::unique_ptr<WarehouseSpend>> (*spend)(const config::WarehouseConfig& config, HttpClient* http) = nullptr;
  // The database name other tools qualify its tables with (dbt's relation "database"."schema"."t"):
  // SQLite's "main", PostgreSQL's dbname, BigQuery's project, Snowflake's database; "" when the
  // configuration does not say.
  std::string (*database)(const config::WarehouseConfig& config) = nullptr;
  // Whether the workspace names its tables with a schema (schema.table). SQLite has the one schema
  // "main", so its tables are named alone.
  bool schemas = true;
  // Its catalog reader (table_catalog.h): every table's row count, change counters and columns
  // from metadata; nullptr where none is built yet.
  Result<CatalogRead> (*catalog)(Warehouse& wh, const std::vector<std::string>& schemas) = nullptr;
};

// The database a relation naming a table of `config` carries (WarehouseBackend::database), or ""
// when the type is unknown or the configuration does not say.
std::string WarehouseDatabase(const config::WarehouseConfig& config);

// Whether tables of warehouse type `type` are named schema.table in the workspace (false for
// SQLite; true for the engines with schemas and for an unknown type).
bool NamesTablesWithSchemas(std::string_view type);

// The back end for `type`, or nullptr.
const WarehouseBackend* FindWarehouseBackend(std::string_view type);

// The SQL dialect of back end `type`, or nullptr: one lookup by the workspace's `type:` name.
const Dialect* FindDialect(std::string_view type);

// "sqlite, postgres, bigquery, snowflake": every registered type, for error messages.
std::string WarehouseBackendNames();

}  // namespace dw::warehouse
