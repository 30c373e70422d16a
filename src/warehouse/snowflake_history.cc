// Snowflake's history of writes: SNOWFLAKE.ACCOUNT_USAGE.ACCESS_HISTORY (which objects each query
// modified; Enterprise Edition, up to three hours behind) joined with QUERY_HISTORY (the
// statement's type, user, tag, text and row counts), read through the SQL API like any statement.
// The role needs the SNOWFLAKE database's GOVERNANCE_VIEWER database role.
#include <cctype>

#include "base/clock.h"
#include "base/json.h"
#include "warehouse/cell_values.h"
#include "warehouse/history.h"
#include "warehouse/snowflake_warehouse.h"

namespace dw::warehouse {
namespace {

// "ANALYTICS.SHOP.ORDERS" or "ANALYTICS.\"shop\".\"Orders\"" split into its names, unquoted.
std::vector<std::string> SplitObjectName(const std::string& name) {
  std::vector<std::string> parts(1);
  bool quoted = false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '"') {
      if (quoted && i + 1 < name.size() && name[i + 1] == '"') {
        parts.back() += '"';
        ++i;
      } else {
        quoted = !quoted;
      }
    } else if (c == '.' && !quoted) {
      parts.emplace_back();
    } else {
      parts.back() += c;
    }
  }
  return parts;
}

// How a workspace writes a catalog name: an upper-case plain identifier (what Snowflake stores
// for an unquoted one) in lower case, any other as it is.
std::string WorkspaceSpelling(const std::string& name) {
  bool plain = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]));
  for (char c : name)
    plain = plain && (std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_' || c == '$');
  if (!plain) return name;
  std::string out = name;
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

class SnowflakeHistory final : public WarehouseHistory {
 public:
  SnowflakeHistory(config::WarehouseConfig config, std::unique_ptr<Warehouse> wh)
      : config_(std::move(config)), wh_(std::move(wh)) {}

  Result<std::vector<TableWrite>> WritesBetween(int64_t since_ms, int64_t until_ms, size_t limit) override {
    const Dialect& d = wh_->dialect();
    const std::string sql =
        "SELECT a.query_id, date_part(epoch_millisecond, a.query_start_time), a.user_name, a.objects_modified, "
        "q.query_type, q.rows_inserted, q.rows_updated, q.rows_deleted, q.bytes_written, q.query_tag, "
        "substr(q.query_text, 1, 2000) "
        "FROM snowflake.account_usage.access_history a "
        "JOIN snowflake.account_usage.query_history q ON q.query_id = a.query_id "
        "WHERE a.query_start_time >= to_timestamp_ltz(" + d.Param(1) + ") AND a.query_start_time < to_timestamp_ltz(" +
        d.Param(2) + ") AND array_size(a.objects_modified) > 0 "
        "ORDER BY a.query_start_time, a.query_id LIMIT " + d.Param(3);
    auto iso = [](int64_t ms) { return FormatRfc3339(FromUnixMillis(ms)); };
    Result<QueryOutcome> r = wh_->Query(sql, {iso(since_ms), iso(until_ms), static_cast<int64_t>(limit)},
                                        {config_.query_timeout, {{"dw", "history"}}});
    if (!r.ok()) return r.status();
    std::vector<TableWrite> out;
    for (const store::SqlRow& row : r->rows) {
      if (row.size() != 11) return DataLoss("warehouse '" + config_.name + "': the history query returned " + std::to_string(row.size()) + " columns");
      const Json modified = Json::parse(CellText(row[3]), nullptr, /*allow_exceptions=*/false);
      if (!modified.is_array()) continue;
      for (const Json& object : modified) {
        if (!object.is_object() || !object.contains("objectName") || !object["objectName"].is_string()) continue;
        const std::string domain = object.value("objectDomain", std::string());
        std::string lower = domain;
        for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (lower != "table" && lower != "materialized view" && lower != "dynamic table") continue;
        std::vector<std::string> parts = SplitObjectName(object["objectName"].get<std::string>());
        if (parts.size() != 3 || parts[0] != config_.database) continue;  // another database's table
        TableWrite w;
        w.query_id = CellText(row[0]);
        w.table = {parts[1], parts[2]};
        w.reference = WorkspaceSpelling(parts[1]) + "." + WorkspaceSpelling(parts[2]);
        w.started_ms = CellInt(row[1]).value_or(0);
        w.user = CellText(row[2]);
        w.statement_type = CellText(row[4]);
        w.rows_inserted = CellInt(row[5]);
        w.rows_updated = CellInt(row[6]);
        w.rows_deleted = CellInt(row[7]);
        w.bytes_written = CellInt(row[8]);
        w.query_tag = CellText(row[9]);
        w.query_text = CellText(row[10]);
        out.push_back(std::move(w));
      }
    }
    return out;
  }

  std::chrono::minutes latency() const override { return std::chrono::minutes(180); }
  std::string source() const override { return "SNOWFLAKE.ACCOUNT_USAGE.ACCESS_HISTORY and QUERY_HISTORY"; }

 private:
  config::WarehouseConfig config_;
  std::unique_ptr<Warehouse> wh_;
};

}  // namespace

Result<std::unique_ptr<WarehouseHistory>> OpenSnowflakeHistory(const config::WarehouseConfig& config, HttpClient* http) {
  Result<std::unique_ptr<Warehouse>> wh = OpenSnowflakeWarehouse(config, http);
  if (!wh.ok()) return wh.status();
  return std::unique_ptr<WarehouseHistory>(std::make_unique<SnowflakeHistory>(config, std::move(*wh)));
}

}  // namespace dw::warehouse
