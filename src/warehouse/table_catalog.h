// What a warehouse's own catalog says about every table and view, from metadata alone (no table is
// scanned where the engine keeps the numbers): its row count, a counter or time that moves when
// the table is written, and its columns. What the automatic monitors (observe/auto_monitor) read
// once a pass. One reader per engine, found through the warehouse registry (backends.h); an engine
// without one is kFailedPrecondition, saying so.
//
// PostgreSQL: pg_class and pg_stat_user_tables (n_live_tup, n_tup_ins/upd/del, last_autoanalyze)
// with information_schema.columns: one statement per schema. SQLite has no statistics that move
// with writes: one statement reads the columns (sqlite_master with pragma_table_info) and one
// counts every table (count(*) and max(rowid), a scan of each table's smallest index).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/http.h"
#include "base/status.h"
#include "config/workspace.h"
#include "warehouse/warehouse.h"

namespace dw::warehouse {

// One table or view as the catalog describes it.
struct CatalogTable {
  TableId id;
  bool view = false;
  std::optional<int64_t> row_count;  // nullopt for a view, or where the engine keeps no count
  bool row_count_exact = false;      // SQLite's count(*); PostgreSQL's is the statistics' estimate
  // Counters of the rows written since the statistics were last reset (PostgreSQL), each moving
  // with every committed write.
  std::optional<int64_t> rows_inserted, rows_updated, rows_deleted;
  // What moves whenever the engine sees a write, compared between passes ("" where nothing does:
  // a view). PostgreSQL: the three counters; SQLite: the count and max(rowid).
  std::string change_token;
  // When the engine itself says the table last changed (Snowflake's LAST_ALTERED), if it does.
  std::optional<int64_t> last_altered_ms;
  // The columns in catalog order; nullopt when the credentials cannot read them (see problems).
  std::optional<std::vector<Column>> columns;
};

// What one read of the catalog found.
struct CatalogRead {
  std::vector<CatalogTable> tables;  // by schema, then name
  // What could not be read and the grant that would let it, each said once ("information_schema.
  // columns shows no columns of shop.payments to this role: GRANT SELECT ON shop.payments TO dw").
  std::vector<std::string> problems;
  // Tables listed but gone by the time they were read (dropped meanwhile): left out, not errors.
  std::vector<std::string> vanished;
  int statements = 0;  // catalog statements issued
  std::string source;  // what was read, for reports
};

// Reads the catalog of `schemas` of the open warehouse `wh` of `config` (empty: every schema the
// connection can see, outside the engine's own). kFailedPrecondition "not built for this engine
// yet" for an engine without a reader; the warehouse's error when the catalog cannot be read at
// all (unreachable); a part that cannot be read is a problem named in the answer, not an error.
Result<CatalogRead> ReadTableCatalog(const config::WarehouseConfig& config, Warehouse& wh,
                                     const std::vector<std::string>& schemas = {});

// Whether the engine of `type` has a catalog reader.
bool HasTableCatalog(std::string_view type);

// The readers the registry names (postgres_catalog.cc, sqlite_catalog.cc).
Result<CatalogRead> ReadPostgresCatalog(Warehouse& wh, const std::vector<std::string>& schemas);
Result<CatalogRead> ReadSqliteCatalog(Warehouse& wh, const std::vector<std::string>& schemas);

}  // namespace dw::warehouse
