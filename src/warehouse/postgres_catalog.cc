// PostgreSQL's catalog reader (table_catalog.h): per schema, one statement joins pg_class (every
// table and view, reltuples), pg_stat_user_tables (n_live_tup and the insert/update/delete
// counters, which move with every committed write) and information_schema.columns. Nothing is
// scanned. A role that may not read a table's columns (information_schema shows columns only of
// tables the role holds a privilege on) still gets its counters, and the missing grant is named;
// a role that may not read pg_stat_user_tables gets reltuples and columns, and that grant named.
#include <map>

#include "warehouse/table_catalog.h"

namespace dw::warehouse {
namespace {

std::optional<int64_t> PgInt(const SqlValue& v) {
  if (const auto* n = std::get_if<int64_t>(&v)) return *n;
  if (const auto* d = std::get_if<double>(&v)) return static_cast<int64_t>(*d);
  return std::nullopt;
}

std::string PgText(const SqlValue& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  return "";
}

// One statement per schema; `with_stats` false leaves pg_stat_user_tables out (its NULLs in place).
std::string PgSchemaStatement(bool with_stats) {
  return std::string(
             "SELECT c.relname, c.relkind, ") +
         (with_stats ? "s.n_live_tup, s.n_tup_ins, s.n_tup_upd, s.n_tup_del, "
                     : "NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint, ") +
         "CASE WHEN c.reltuples < 0 THEN NULL ELSE c.reltuples::bigint END, "
         "has_table_privilege(c.oid, 'SELECT'), col.column_name::text, col.data_type::text, "
         "col.is_nullable::text "
         "FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace " +
         (with_stats ? "LEFT JOIN pg_catalog.pg_stat_user_tables s ON s.relid = c.oid " : "") +
         "LEFT JOIN information_schema.columns col ON col.table_schema = n.nspname AND col.table_name = c.relname "
         "WHERE n.nspname = $1 AND c.relkind IN ('r', 'v', 'p', 'f', 'm') "
         "ORDER BY c.relname, col.ordinal_position";
}

}  // namespace

Result<CatalogRead> ReadPostgresCatalog(Warehouse& wh, const std::vector<std::string>& schemas_in) {
  CatalogRead out;
  out.source = "pg_class, pg_stat_user_tables and information_schema.columns";
  std::vector<std::string> schemas = schemas_in;
  Result<QueryOutcome> who = wh.Query(
      "SELECT current_user::text, n.nspname::text FROM pg_catalog.pg_namespace n WHERE n.nspname NOT IN "
      "('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_%' "
      "AND has_schema_privilege(n.oid, 'USAGE') ORDER BY 2",
      {}, {});
  ++out.statements;
  if (!who.ok()) return who.status();
  std::string role = who->rows.empty() ? "the warehouse's role" : PgText(who->rows[0][0]);
  if (schemas.empty())
    for (const SqlRow& row : who->rows) schemas.push_back(PgText(row[1]));
  bool with_stats = true;
  for (const std::string& schema : schemas) {
    Result<QueryOutcome> r = wh.Query(PgSchemaStatement(with_stats), {schema}, {});
    ++out.statements;
    if (!r.ok() && with_stats && r.status().code() == StatusCode::kPermissionDenied) {
      out.problems.push_back("pg_catalog.pg_stat_user_tables cannot be read by " + role + " (" +
                             r.status().message() + "): row counts come from reltuples (refreshed by ANALYZE) and "
                             "no load can be seen; GRANT SELECT ON pg_catalog.pg_stat_user_tables TO " + role);
      with_stats = false;
      r = wh.Query(PgSchemaStatement(false), {schema}, {});
      ++out.statements;
    }
    if (!r.ok()) return r.status();
    std::vector<std::string> hidden;
    for (size_t i = 0; i < r->rows.size();) {
      const SqlRow& first = r->rows[i];
      CatalogTable t;
      t.id = {schema, PgText(first[0])};
      const std::string kind = PgText(first[1]);
      t.view = kind == "v";
      const bool readable = PgInt(first[7]).value_or(0) != 0;
      if (!t.view) {
        t.row_count = PgInt(first[2]);
        if (!t.row_count) t.row_count = PgInt(first[6]);
        t.rows_inserted = PgInt(first[3]);
        t.rows_updated = PgInt(first[4]);
        t.rows_deleted = PgInt(first[5]);
        if (t.rows_inserted && t.rows_updated && t.rows_deleted)
          t.change_token = std::to_string(*t.rows_inserted) + "/" + std::to_string(*t.rows_updated) + "/" +
                           std::to_string(*t.rows_deleted);
      }
      std::vector<Column> columns;
      for (; i < r->rows.size() && PgText(r->rows[i][0]) == t.id.table; ++i) {
        const SqlRow& row = r->rows[i];
        if (std::holds_alternative<std::monostate>(row[8])) continue;
        columns.push_back({PgText(row[8]), PgText(row[9]), PgText(row[10]) == "YES"});
      }
      if (!columns.empty()) t.columns = std::move(columns);
      else if (!readable) hidden.push_back(schema + "." + t.id.table);
      // A materialized view is not in information_schema.columns at all: its columns stay unknown.
      out.tables.push_back(std::move(t));
    }
    if (!hidden.empty()) {
      std::string names;
      for (size_t k = 0; k < hidden.size(); ++k) names += (k ? ", " : "") + hidden[k];
      out.problems.push_back("information_schema.columns shows no columns of " + names + " to " + role +
                             " (it lists only tables the role holds a privilege on), so their schema is not "
                             "watched; their row counts and loads still are. GRANT SELECT ON " + names + " TO " +
                             role);
    }
  }
  return out;
}

}  // namespace dw::warehouse
