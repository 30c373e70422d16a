#include "observe/metrics/monitor_query.h"

#include <cstdlib>

#include "observe/metrics/series_csv.h"
#include "warehouse/backends.h"
#include "warehouse/named_params.h"
#include "warehouse/warehouse.h"

namespace dw::observe::metrics {
namespace {

// A cell as a metric value: numbers as they are, numeric text (PostgreSQL numeric) parsed.
Result<std::optional<double>> ValueOf(const warehouse::SqlValue& cell, const std::string& wh) {
  if (std::holds_alternative<std::monostate>(cell)) return std::optional<double>();
  if (const auto* n = std::get_if<int64_t>(&cell)) return std::optional<double>(static_cast<double>(*n));
  if (const auto* d = std::get_if<double>(&cell)) return std::optional<double>(*d);
  const std::string& s = std::get<std::string>(cell);
  char* end = nullptr;
  double d = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0')
    return InvalidArgument("warehouse " + wh + ": the monitor query returned '" + s.substr(0, 40) +
                           "', which is not a number");
  return std::optional<double>(d);
}

std::optional<std::string> TextOf(const warehouse::SqlValue& cell) {
  if (std::holds_alternative<std::monostate>(cell)) return std::nullopt;
  if (const auto* s = std::get_if<std::string>(&cell)) return *s;
  if (const auto* n = std::get_if<int64_t>(&cell)) return std::to_string(*n);
  return std::to_string(std::get<double>(cell));
}

}  // namespace

int64_t SlotEndAtOrBefore(int64_t now_ms, int64_t every_ms) {
  if (every_ms <= 0) return now_ms;
  int64_t q = now_ms / every_ms;
  if (now_ms % every_ms < 0) --q;  // floor, also before 1970
  return q * every_ms;
}

Result<std::vector<IncomingPoint>> SeriesPoints(const std::string& monitor, const std::vector<MonitorRow>& rows,
                                                 int64_t every_ms, int64_t now_ms) {
  // 2200-01-01: later than any real bucket.
  constexpr int64_t kFarFutureMs = 7258118400000LL;
  std::vector<IncomingPoint> points;
  for (const auto& r : rows) {
    if (!r.bucket) return InvalidArgument("monitor " + monitor + ": series_sql returned a NULL bucket");
    auto ts = ParseSeriesTimestamp(*r.bucket);
    if (!ts.ok()) return InvalidArgument("monitor " + monitor + ": series_sql bucket: " + ts.status().message());
    if (*ts >= kFarFutureMs - every_ms) continue;
    const int64_t end = *ts + every_ms;
    if (end > now_ms) continue;  // not over yet: measured once it is
    points.push_back({end, r.value});
  }
  return points;
}

Result<std::vector<MonitorRow>> RunMonitorQuery(const config::WarehouseConfig& wh,
                                                const std::string& sql,
                                                const std::string& window_start,
                                                const std::string& window_end, HttpClient* http) {
  Result<warehouse::PositionalSql> bound = warehouse::BindNamedParameters(
      sql, {{"window_start", window_start}, {"window_end", window_end}}, warehouse::FindDialect(wh.type));
  if (!bound.ok()) return InvalidArgument("warehouse " + wh.name + ": " + bound.status().message());
  Result<std::unique_ptr<warehouse::Warehouse>> opened = warehouse::OpenWarehouse(wh, http);
  if (!opened.ok()) return Unavailable(opened.status().message());
  Result<warehouse::QueryOutcome> out = (*opened)->Query(bound->sql, bound->params, {wh.query_timeout});
  if (!out.ok()) return InvalidArgument(out.status().message());
  std::vector<MonitorRow> rows;
  for (const warehouse::SqlRow& r : out->rows) {
    if (r.empty() || r.size() > 2)
      return InvalidArgument("warehouse " + wh.name + ": a monitor query returns one column (a value) "
                             "or two (bucket, value); this one returned " + std::to_string(r.size()));
    MonitorRow row;
    if (r.size() == 2) row.bucket = TextOf(r[0]);
    Result<std::optional<double>> v = ValueOf(r.back(), wh.name);
    if (!v.ok()) return v.status();
    row.value = *v;
    rows.push_back(std::move(row));
  }
  return rows;
}

Result<MonitorMeasurement> MeasureMonitor(const config::Workspace& ws, const config::MonitorConfig& m,
                                          const MonitorSettings& settings, int64_t now_ms, HttpClient* http) {
  const std::string& name = m.name;
  auto found = ws.warehouses.find(m.warehouse);
  if (found == ws.warehouses.end())
    return NotFound("monitor " + name + ": warehouse " + m.warehouse + " is not configured");
  bool single = m.spec.contains("sql");
  std::string sql = m.spec.value(single ? "sql" : "series_sql", std::string());
  MonitorMeasurement out;
  // A `sql` monitor that bounds its window with :window_end measures the last whole slot of its
  // `every` grid, the slot the watch loop ran it for (its jitter only delays the run), never
  // [now - every, now): a window that moves with the run's minute mixes two slots (at 08:02 an
  // hourly count holds 58 minutes of 07:00 and 2 of 08:00) and is judged against the 08:00 slot
  // its history learnt from whole windows. A query that does not bound it reads the table as it
  // is now (a state, or rows since :window_start), so its point is at now: stamped at the slot's
  // end it would precede rows it counted, and the change that wrote them.
  const bool whole_slot = single && warehouse::NamesParameter(sql, "window_end");
  const int64_t end_ms = whole_slot ? SlotEndAtOrBefore(now_ms, settings.every_ms) : now_ms;
  out.window_start = FormatRfc3339(FromUnixMillis(end_ms - (single ? settings.every_ms : settings.training_window_ms)));
  out.window_end = FormatRfc3339(FromUnixMillis(end_ms));
  auto rows = RunMonitorQuery(found->second, sql, out.window_start, out.window_end, http);
  if (!rows.ok()) return rows.status();
  if (single) {
    if (rows->size() != 1 || rows->front().bucket)
      return InvalidArgument("monitor " + name + ": sql must return exactly one row with one value; it returned " +
                             std::to_string(rows->size()) + " rows");
    out.points.push_back({end_ms, rows->front().value});
    return out;
  }
  auto points = SeriesPoints(name, *rows, settings.every_ms, now_ms);
  if (!points.ok()) return points.status();
  out.points = std::move(points).value();
  return out;
}

}  // namespace dw::observe::metrics
