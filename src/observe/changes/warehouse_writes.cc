#include "observe/changes/warehouse_writes.h"

#include <algorithm>

#include "base/identifiers.h"
#include "base/redaction.h"
#include "observe/changes/change_kinds.h"
#include "warehouse/backends.h"

namespace dw::observe::changes {
namespace {

constexpr size_t kMaxWritesPerPass = 5000;
// The history views are themselves behind by minutes to hours, and reading them runs a warehouse
// (billed): a watch loop's every pass would pay for nothing new.
constexpr int64_t kMinIntervalMs = 10 * 60 * 1000;

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// The asset id of each checked table of `warehouse`, by the catalog's name of it.
std::map<std::pair<std::string, std::string>, std::string> CheckedTables(const config::Workspace& ws,
                                                                         const config::WarehouseConfig& warehouse) {
  std::map<std::pair<std::string, std::string>, std::string> out;
  const warehouse::Dialect* dialect = warehouse::FindDialect(warehouse.type);
  if (dialect == nullptr) return out;
  for (const config::CheckConfig& c : ws.checks) {
    if (c.warehouse != warehouse.name) continue;
    Result<TableRef> ref = ParseTableRef(c.table);
    if (!ref.ok()) continue;
    warehouse::TableId id = dialect->TableOf(ref->schema, ref->table);
    out[{id.schema, id.table}] = c.asset_id;
  }
  return out;
}

std::string Count(const std::optional<int64_t>& n, const char* what) {
  return n && *n > 0 ? std::to_string(*n) + " " + what : "";
}

}  // namespace

std::pair<double, std::string> WriteRisk(const warehouse::TableWrite& w) {
  const std::string type = Upper(w.statement_type);
  const int64_t deleted = w.rows_deleted.value_or(0), updated = w.rows_updated.value_or(0);
  if (type.find("TRUNCATE") != std::string::npos || type.find("DROP") != std::string::npos)
    return {0.8, "a " + w.statement_type + " empties the table"};
  if (type.find("CREATE_TABLE") != std::string::npos || type.find("REPLACE") != std::string::npos)
    return {0.7, "a " + w.statement_type + " replaces every row"};
  if (deleted > 0) return {0.7, "it deleted rows"};
  if (updated > 0 || type == "MERGE" || type == "UPDATE") return {0.6, "it changed rows in place"};
  if (type == "INSERT" || type == "COPY") return {0.4, "it appended rows"};
  return {0.3, "a " + (w.statement_type.empty() ? std::string("write") : w.statement_type)};
}

Result<PlatformPass> CollectWarehouseWrites(const config::Workspace& workspace, const config::WarehouseConfig& warehouse,
                                            warehouse::WarehouseHistory& history, store::StateStore& store,
                                            const Clock& clock, std::chrono::milliseconds lookback) {
  PlatformPass pass;
  pass.platform = warehouse.name;
  pass.type = warehouse.type;
  const std::string cursor = "changes/warehouse/" + warehouse.name + "/history";
  Result<std::optional<std::string>> stored = store.GetCursor(cursor);
  if (!stored.ok()) return stored.status();
  const int64_t now = ToUnixMillis(clock.Now());
  int64_t since = now - lookback.count();
  if (stored->has_value()) {
    try {
      const int64_t last = std::stoll(**stored);
      if (now - last < kMinIntervalMs) {
        pass.notes.push_back("the history was read less than 10 minutes ago");
        return pass;
      }
      since = last - std::chrono::duration_cast<std::chrono::milliseconds>(history.latency()).count();
    } catch (const std::exception&) {
      pass.notes.push_back("the history cursor was unreadable: read the lookback again");
    }
  }
  ++pass.requests;
  Result<std::vector<warehouse::TableWrite>> writes = history.WritesBetween(since, now, kMaxWritesPerPass);
  if (!writes.ok()) {
    pass.reachable = writes.status().code() != StatusCode::kUnavailable && writes.status().code() != StatusCode::kDeadlineExceeded;
    pass.errors.push_back(RedactSecrets(writes.status().message()));
    return pass;
  }
  // A full page may have left writes behind: the cursor moves only to the last one read.
  int64_t until = now;
  if (writes->size() >= kMaxWritesPerPass) {
    until = writes->back().started_ms;
    pass.notes.push_back("read the first " + std::to_string(kMaxWritesPerPass) + " writes; the rest next pass");
  }
  const auto checked = CheckedTables(workspace, warehouse);
  std::vector<store::ChangeEvent> events;
  for (const warehouse::TableWrite& w : *writes) {
    auto known = checked.find({w.table.schema, w.table.table});
    store::ChangeEvent e;
    e.asset_id = known != checked.end() ? known->second : "table://" + warehouse.name + "/" + w.reference;
    e.dedup_key = "warehouse_write:" + warehouse.name + ":" + w.query_id + ":" + w.table.schema + "." + w.table.table;
    e.kind = kWarehouseWrite;
    e.happened_at = FromUnixMillis(w.started_ms);
    e.observed_at = clock.Now();
    auto [risk, why] = WriteRisk(w);
    e.risk = risk;
    std::string rows;
    for (const std::string& part : {Count(w.rows_inserted, "inserted"), Count(w.rows_updated, "updated"),
                                    Count(w.rows_deleted, "deleted")})
      if (!part.empty()) rows += (rows.empty() ? "" : ", ") + part;
    e.reason = (w.statement_type.empty() ? std::string("a write") : w.statement_type) + " by " +
               (w.user.empty() ? std::string("an unknown user") : w.user) + (rows.empty() ? "" : " (" + rows + ")") + ": " + why;
    e.evidence = {{"warehouse", warehouse.name},      {"table", w.reference},
                  {"query_id", w.query_id},           {"statement_type", w.statement_type},
                  {"user", w.user},                   {"query_tag", RedactSecrets(w.query_tag)},
                  {"query_text", RedactSecrets(w.query_text)}, {"source", history.source()},
                  {"time_source", "warehouse"}};
    if (w.rows_inserted) e.evidence["rows_inserted"] = *w.rows_inserted;
    if (w.rows_updated) e.evidence["rows_updated"] = *w.rows_updated;
    if (w.rows_deleted) e.evidence["rows_deleted"] = *w.rows_deleted;
    if (w.bytes_written) e.evidence["bytes_written"] = *w.bytes_written;
    events.push_back(std::move(e));
  }
  Status written = store.InTransaction([&](store::StateStore& tx) -> Status {
    for (const auto& e : events) {
      auto added = tx.AddChangeEvent(e);
      if (!added.ok()) return added.status();
      (*added ? pass.new_events : pass.duplicates)++;
    }
    return tx.SetCursor(cursor, std::to_string(until));
  });
  if (!written.ok()) return written;
  return pass;
}

}  // namespace dw::observe::changes
