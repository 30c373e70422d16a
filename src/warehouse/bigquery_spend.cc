// BigQuery's per-query cost: the project's jobs in its location, from
// `region-<location>`.INFORMATION_SCHEMA.JOBS (bytes billed and slot time of each query job, its
// user, its labels and the start of its text), read like any statement.
#include <cctype>

#include "base/clock.h"
#include "warehouse/bigquery_warehouse.h"
#include "warehouse/cell_values.h"
#include "warehouse/spend.h"

namespace dw::warehouse {
namespace {

class BigQuerySpend final : public WarehouseSpend {
 public:
  BigQuerySpend(config::WarehouseConfig config, std::unique_ptr<Warehouse> wh)
      : config_(std::move(config)), wh_(std::move(wh)) {}

  Result<std::vector<QuerySpend>> QueriesBetween(int64_t since_ms, int64_t until_ms, size_t limit) override {
    const Dialect& d = wh_->dialect();
    std::string region = "region-" + (config_.location.empty() ? std::string("US") : config_.location);
    for (char& c : region) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const std::string sql =
        "SELECT job_id, UNIX_MILLIS(creation_time), user_email, TO_JSON_STRING(labels), SUBSTR(query, 1, 2000), "
        "total_bytes_billed, total_slot_ms FROM " + d.Quote(config_.project) + "." + d.Quote(region) +
        ".INFORMATION_SCHEMA.JOBS WHERE creation_time >= CAST(" + d.Param(1) + " AS TIMESTAMP) AND creation_time < CAST(" +
        d.Param(2) + " AS TIMESTAMP) AND job_type = 'QUERY' AND state = 'DONE' ORDER BY creation_time, job_id LIMIT " +
        d.Param(3);
    Result<QueryOutcome> r = wh_->Query(sql, {FormatRfc3339(FromUnixMillis(since_ms)), FormatRfc3339(FromUnixMillis(until_ms)),
                                              static_cast<int64_t>(limit)},
                                        {config_.query_timeout, {{"dw", "spend"}}});
    if (!r.ok()) return r.status();
    std::vector<QuerySpend> out;
    for (const store::SqlRow& row : r->rows) {
      if (row.size() != 7) return DataLoss("warehouse '" + config_.name + "': the spend query returned " + std::to_string(row.size()) + " columns");
      QuerySpend q;
      q.query_id = CellText(row[0]);
      q.started_ms = CellInt(row[1]).value_or(0);
      q.user = CellText(row[2]);
      q.tag = CellText(row[3]);
      q.query_text = CellText(row[4]);
      q.bytes_billed = CellInt(row[5]).value_or(0);
      q.slot_ms = CellInt(row[6]).value_or(0);
      out.push_back(std::move(q));
    }
    return out;
  }

  std::string unit() const override { return "bytes"; }
  std::string source() const override { return "INFORMATION_SCHEMA.JOBS in " + config_.project + " (" + config_.location + ")"; }

 private:
  config::WarehouseConfig config_;
  std::unique_ptr<Warehouse> wh_;
};

}  // namespace

Result<std::unique_ptr<WarehouseSpend>> OpenBigQuerySpend(const config::WarehouseConfig& config, HttpClient* http) {
  Result<std::unique_ptr<Warehouse>> wh = OpenBigQueryWarehouse(config, http);
  if (!wh.ok()) return wh.status();
  return std::unique_ptr<WarehouseSpend>(std::make_unique<BigQuerySpend>(config, std::move(*wh)));
}

}  // namespace dw::warehouse
