// SQLite's catalog reader (table_catalog.h). SQLite keeps no statistics that move with writes
// (sqlite_stat1 is refreshed only by ANALYZE, and PRAGMA data_version is per database), so the
// honest equivalent costs a scan: one statement reads every column (sqlite_master joined with
// pragma_table_info), and one statement per 400 tables (SQLite's compound SELECT limit is 500)
// counts each table and reads its max(rowid). count(*) reads the table's smallest index; max(rowid)
// is one b-tree descent. Views are not counted (that would run them). A change that keeps both the
// count and max(rowid) (an UPDATE in place, a same-size reload of a WITHOUT ROWID table) is not seen.
#include <algorithm>
#include <cctype>

#include "warehouse/table_catalog.h"

namespace dw::warehouse {
namespace {

constexpr size_t kSqliteTablesPerCount = 400;

std::string SqliteText(const SqlValue& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  return "";
}

std::optional<int64_t> SqliteInt(const SqlValue& v) {
  if (const auto* n = std::get_if<int64_t>(&v)) return *n;
  return std::nullopt;
}

std::string LowerText(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The counting SELECT of table `t` (its index `k` in the answer); `rowid` false for WITHOUT ROWID.
std::string CountSelect(const Dialect& d, const CatalogTable& t, size_t k, bool rowid) {
  return "SELECT " + std::to_string(k) + ", count(*), " + (rowid ? "max(rowid)" : "NULL") + " FROM " +
         d.Table(t.id);
}

bool IsNoSuchTable(const Status& s) { return s.message().find("no such table") != std::string::npos; }

}  // namespace

Result<CatalogRead> ReadSqliteCatalog(Warehouse& wh, const std::vector<std::string>& schemas) {
  CatalogRead out;
  out.source = "sqlite_master, pragma_table_info, and count(*) with max(rowid) of every table";
  if (!schemas.empty() && std::find(schemas.begin(), schemas.end(), "main") == schemas.end()) return out;
  Result<QueryOutcome> cols = wh.Query(
      "SELECT m.name, m.type, COALESCE(m.sql, ''), p.name, p.type, p.\"notnull\" FROM sqlite_master m "
      "JOIN pragma_table_info(m.name) p WHERE m.type IN ('table', 'view') AND m.name NOT LIKE 'sqlite\\_%' "
      "ESCAPE '\\' ORDER BY m.name, p.cid",
      {}, {});
  ++out.statements;
  if (!cols.ok()) return cols.status();
  std::vector<bool> has_rowid;
  for (size_t i = 0; i < cols->rows.size();) {
    CatalogTable t;
    t.id = {"main", SqliteText(cols->rows[i][0])};
    t.view = SqliteText(cols->rows[i][1]) == "view";
    const std::string ddl = LowerText(SqliteText(cols->rows[i][2]));
    const bool virtual_table = ddl.rfind("create virtual", 0) == 0;
    std::vector<Column> columns;
    for (; i < cols->rows.size() && SqliteText(cols->rows[i][0]) == t.id.table; ++i)
      columns.push_back({SqliteText(cols->rows[i][3]), LowerText(SqliteText(cols->rows[i][4])),
                         SqliteInt(cols->rows[i][5]).value_or(0) == 0});
    t.columns = std::move(columns);
    if (virtual_table) t.view = true;  // counting a virtual table runs its module: left alone as a view is
    out.tables.push_back(std::move(t));
    has_rowid.push_back(ddl.find("without rowid") == std::string::npos);
  }
  // Which tables are counted, by their index in out.tables.
  std::vector<size_t> counted;
  for (size_t k = 0; k < out.tables.size(); ++k)
    if (!out.tables[k].view) counted.push_back(k);
  std::vector<bool> gone(out.tables.size(), false);
  auto apply = [&](const SqlRow& row) {
    auto k = SqliteInt(row[0]);
    if (!k || *k < 0 || static_cast<size_t>(*k) >= out.tables.size()) return;
    CatalogTable& t = out.tables[static_cast<size_t>(*k)];
    t.row_count = SqliteInt(row[1]);
    t.row_count_exact = true;
    auto max_rowid = SqliteInt(row[2]);
    t.change_token = std::to_string(t.row_count.value_or(0)) + "/" + (max_rowid ? std::to_string(*max_rowid) : "-");
  };
  for (size_t from = 0; from < counted.size(); from += kSqliteTablesPerCount) {
    const size_t to = std::min(counted.size(), from + kSqliteTablesPerCount);
    std::string sql;
    for (size_t j = from; j < to; ++j)
      sql += (j == from ? "" : " UNION ALL ") + CountSelect(wh.dialect(), out.tables[counted[j]], counted[j],
                                                           has_rowid[counted[j]]);
    Result<QueryOutcome> r = wh.Query(sql, {}, {});
    ++out.statements;
    if (r.ok()) {
      for (const SqlRow& row : r->rows) apply(row);
      continue;
    }
    if (!IsNoSuchTable(r.status())) return r.status();
    // A table dropped since the listing: count the others one by one, and leave it out.
    for (size_t j = from; j < to; ++j) {
      Result<QueryOutcome> one = wh.Query(CountSelect(wh.dialect(), out.tables[counted[j]], counted[j],
                                                      has_rowid[counted[j]]), {}, {});
      ++out.statements;
      if (one.ok()) {
        for (const SqlRow& row : one->rows) apply(row);
      } else if (IsNoSuchTable(one.status())) {
        gone[counted[j]] = true;
      } else {
        return one.status();
      }
    }
  }
  std::vector<CatalogTable> kept;
  for (size_t k = 0; k < out.tables.size(); ++k) {
    if (gone[k]) out.vanished.push_back(out.tables[k].id.Display());
    else kept.push_back(std::move(out.tables[k]));
  }
  out.tables = std::move(kept);
  return out;
}

}  // namespace dw::warehouse
