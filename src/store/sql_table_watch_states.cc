// The automatic monitors' per-table state of SqlStateStore (declared in sql_state_store.h).
#include <string>

#include "store/sql_cells.h"
#include "store/sql_state_store.h"

namespace dw::store {

Result<std::vector<TableWatchStateRecord>> SqlStateStore::LoadTableWatchStates(const std::string& warehouse) {
  std::vector<TableWatchStateRecord> out;
  Status s = Do(false, [&]() -> Status {
    Result<std::vector<SqlRow>> rows =
        Run("SELECT asset_id, warehouse, state, updated_at FROM table_watch_states "
            "WHERE $1 = '' OR warehouse = $1 ORDER BY asset_id",
            {warehouse});
    if (!rows.ok()) return rows.status();
    for (const SqlRow& row : *rows) {
      RowReader r(row, "table_watch_states");
      TableWatchStateRecord rec;
      rec.asset_id = r.Text();
      rec.warehouse = r.Text();
      rec.state = r.Text();
      rec.updated_at = r.Time();
      DW_RETURN_IF_ERROR(r.status());
      out.push_back(std::move(rec));
    }
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

Status SqlStateStore::SaveTableWatchStates(const std::vector<TableWatchStateRecord>& records) {
  for (const TableWatchStateRecord& rec : records)
    if (rec.asset_id.empty()) return InvalidArgument("table watch state: the asset id must not be empty");
  if (records.empty()) return Status::Ok();
  // The state carries sentences (a verdict, a column's type as the engine spelled it): bound as
  // prose, so a secret quoted into one is stored as "***".
  return Do(true, [&]() -> Status {
    const SqlValue now = TimeCell(clock_.Now());
    for (const TableWatchStateRecord& rec : records)
      DW_RETURN_IF_ERROR(Run("INSERT INTO table_watch_states (asset_id, warehouse, state, updated_at) "
                             "VALUES ($1, $2, $3, $4) ON CONFLICT (asset_id) DO UPDATE SET "
                             "warehouse = excluded.warehouse, state = excluded.state, "
                             "updated_at = excluded.updated_at",
                             {rec.asset_id, rec.warehouse, ProseCell(rec.state), now})
                             .status());
    return Status::Ok();
  });
}

}  // namespace dw::store
