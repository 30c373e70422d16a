// BigQuery's history of writes: the project's jobs in its location whose destination is a table,
// from `region-<location>`.INFORMATION_SCHEMA.JOBS (near real time): statement type, user,
// labels, the start of the text, and for DML the rows inserted, updated and deleted. The STRUCT
// columns are read as JSON text (TO_JSON_STRING), so every cell stays a scalar. The service account
// needs roles/bigquery.resourceViewer on the project.
#include <cctype>

#include "base/clock.h"
#include "base/json.h"
#include "warehouse/bigquery_warehouse.h"
#include "warehouse/cell_values.h"
#include "warehouse/history.h"

namespace dw::warehouse {
namespace {

std::optional<int64_t> JsonInt(const Json& j, const char* key) {
  auto it = j.is_object() ? j.find(key) : j.end();
  if (it == j.end()) return std::nullopt;
  if (it->is_number_integer()) return it->get<int64_t>();
  if (it->is_string()) {
    try {
      return std::stoll(it->get<std::string>());
    } catch (const std::exception&) {
    }
  }
  return std::nullopt;
}

std::string JsonText(const Json& j, const char* key) {
  auto it = j.is_object() ? j.find(key) : j.end();
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

class BigQueryHistory final : public WarehouseHistory {
 public:
  BigQueryHistory(config::WarehouseConfig config, std::unique_ptr<Warehouse> wh)
      : config_(std::move(config)), wh_(std::move(wh)) {}

  Result<std::vector<TableWrite>> WritesBetween(int64_t since_ms, int64_t until_ms, size_t limit) override {
    const Dialect& d = wh_->dialect();
    std::string region = "region-" + (config_.location.empty() ? std::string("US") : config_.location);
    for (char& c : region) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const std::string sql =
        "SELECT job_id, UNIX_MILLIS(creation_time), user_email, statement_type, TO_JSON_STRING(destination_table), "
        "TO_JSON_STRING(dml_statistics), TO_JSON_STRING(labels), SUBSTR(query, 1, 2000) FROM " + d.Quote(config_.project) +
        "." + d.Quote(region) + ".INFORMATION_SCHEMA.JOBS WHERE creation_time >= CAST(" + d.Param(1) +
        " AS TIMESTAMP) AND creation_time < CAST(" + d.Param(2) + " AS TIMESTAMP) AND job_type = 'QUERY' AND state = 'DONE' "
        "AND destination_table IS NOT NULL AND statement_type <> 'SELECT' ORDER BY creation_time, job_id LIMIT " + d.Param(3);
    Result<QueryOutcome> r = wh_->Query(sql, {FormatRfc3339(FromUnixMillis(since_ms)), FormatRfc3339(FromUnixMillis(until_ms)),
                                              static_cast<int64_t>(limit)},
                                        {config_.query_timeout, {{"dw", "history"}}});
    if (!r.ok()) return r.status();
    std::vector<TableWrite> out;
    for (const store::SqlRow& row : r->rows) {
      if (row.size() != 8) return DataLoss("warehouse '" + config_.name + "': the history query returned " + std::to_string(row.size()) + " columns");
      const Json destination = Json::parse(CellText(row[4]), nullptr, /*allow_exceptions=*/false);
      const Json dml = Json::parse(CellText(row[5]), nullptr, /*allow_exceptions=*/false);
      const std::string project = JsonText(destination, "project_id"), dataset = JsonText(destination, "dataset_id"),
                        table = JsonText(destination, "table_id");
      if (dataset.empty() || table.empty() || (!project.empty() && project != config_.project)) continue;
      // Tables whose names start with '_' are BigQuery's anonymous result tables, not writes.
      if (dataset.rfind("_", 0) == 0) continue;
      TableWrite w;
      w.query_id = CellText(row[0]);
      w.table = {dataset, table};
      w.reference = dataset + "." + table;
      const auto* started = std::get_if<int64_t>(&row[1]);
      w.started_ms = started == nullptr ? 0 : *started;
      w.user = CellText(row[2]);
      w.statement_type = CellText(row[3]);
      w.rows_inserted = JsonInt(dml, "inserted_row_count");
      w.rows_updated = JsonInt(dml, "updated_row_count");
      w.rows_deleted = JsonInt(dml, "deleted_row_count");
      w.query_tag = CellText(row[6]);
      w.query_text = CellText(row[7]);
      out.push_back(std::move(w));
    }
    return out;
  }

  std::chrono::minutes latency() const override { return std::chrono::minutes(15); }
  std::string source() const override { return "INFORMATION_SCHEMA.JOBS in " + config_.project + " (" + config_.location + ")"; }

 private:
  config::WarehouseConfig config_;
  std::unique_ptr<Warehouse> wh_;
};

}  // namespace

Result<std::unique_ptr<WarehouseHistory>> OpenBigQueryHistory(const config::WarehouseConfig& config, HttpClient* http) {
  Result<std::unique_ptr<Warehouse>> wh = OpenBigQueryWarehouse(config, http);
  if (!wh.ok()) return wh.status();
  return std::unique_ptr<WarehouseHistory>(std::make_unique<BigQueryHistory>(config, std::move(*wh)));
}

}  // namespace dw::warehouse
