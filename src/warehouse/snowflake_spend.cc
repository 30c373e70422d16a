// Snowflake's per-query cost: SNOWFLAKE.ACCOUNT_USAGE.QUERY_ATTRIBUTION_HISTORY (the compute
// credits of each query's execution, idle time excluded; up to eight hours behind; queries of
// about 100 ms or less are not listed), with each query's text from QUERY_HISTORY for dbt's
// comment. Cloud services, storage and idle warehouse time are not in it.
#include <cstdlib>

#include "base/clock.h"
#include "warehouse/snowflake_warehouse.h"
#include "warehouse/cell_values.h"
#include "warehouse/spend.h"

namespace dw::warehouse {
namespace {

class SnowflakeSpend final : public WarehouseSpend {
 public:
  SnowflakeSpend(config::WarehouseConfig config, std::unique_ptr<Warehouse> wh)
      : config_(std::move(config)), wh_(std::move(wh)) {}

  Result<std::vector<QuerySpend>> QueriesBetween(int64_t since_ms, int64_t until_ms, size_t limit) override {
    const Dialect& d = wh_->dialect();
    const std::string sql =
        "SELECT h.query_id, date_part(epoch_millisecond, h.start_time), h.user_name, h.query_tag, "
        "substr(q.query_text, 1, 2000), h.credits_attributed_compute "
        "FROM snowflake.account_usage.query_attribution_history h "
        "LEFT JOIN snowflake.account_usage.query_history q ON q.query_id = h.query_id "
        "WHERE h.start_time >= to_timestamp_ltz(" + d.Param(1) + ") AND h.start_time < to_timestamp_ltz(" + d.Param(2) +
        ") ORDER BY h.start_time, h.query_id LIMIT " + d.Param(3);
    Result<QueryOutcome> r = wh_->Query(sql, {FormatRfc3339(FromUnixMillis(since_ms)), FormatRfc3339(FromUnixMillis(until_ms)),
                                              static_cast<int64_t>(limit)},
                                        {config_.query_timeout, {{"dw", "spend"}}});
    if (!r.ok()) return r.status();
    std::vector<QuerySpend> out;
    for (const store::SqlRow& row : r->rows) {
      if (row.size() != 6) return DataLoss("warehouse '" + config_.name + "': the spend query returned " + std::to_string(row.size()) + " columns");
      QuerySpend q;
      q.query_id = CellText(row[0]);
      q.started_ms = static_cast<int64_t>(CellNumber(row[1]));
      q.user = CellText(row[2]);
      q.tag = CellText(row[3]);
      q.query_text = CellText(row[4]);
      q.credits = CellNumber(row[5]);
      out.push_back(std::move(q));
    }
    return out;
  }

  std::string unit() const override { return "credits"; }
  std::string source() const override {
    return "SNOWFLAKE.ACCOUNT_USAGE.QUERY_ATTRIBUTION_HISTORY (compute credits per query; up to 8 h behind; "
           "short queries, cloud services and idle warehouse time are not in it)";
  }

 private:
  config::WarehouseConfig config_;
  std::unique_ptr<Warehouse> wh_;
};

}  // namespace

Result<std::unique_ptr<WarehouseSpend>> OpenSnowflakeSpend(const config::WarehouseConfig& config, HttpClient* http) {
  Result<std::unique_ptr<Warehouse>> wh = OpenSnowflakeWarehouse(config, http);
  if (!wh.ok()) return wh.status();
  return std::unique_ptr<WarehouseSpend>(std::make_unique<SnowflakeSpend>(config, std::move(*wh)));
}

}  // namespace dw::warehouse
