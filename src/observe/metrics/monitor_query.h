// Running a monitor's trusted SQL on its warehouse through the Warehouse interface (SQLite or
// PostgreSQL, read-only, with the warehouse's query_timeout). The SQL comes from the workspace
// file (trusted); nothing from an MCP argument reaches it, and the window bounds are bound as
// parameters, never spliced into the text.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/http.h"
#include "base/status.h"
#include "config/workspace.h"
#include "observe/metrics/metric_service.h"

namespace dw::observe::metrics {

struct MonitorRow {
  std::optional<std::string> bucket;  // the first column of a (bucket, value) series query
  std::optional<double> value;        // nullopt when the query returned NULL
};

// Runs `sql` read-only on `wh`, binding :window_start and :window_end (RFC 3339 text) when the
// query names them. One column: one value per row; two columns: (bucket, value). Unavailable when
// the warehouse cannot be opened, InvalidArgument when the query fails or returns a non-numeric
// value (with the warehouse name and the warehouse's message). `http` carries a REST warehouse's
// calls (BigQuery, Snowflake), which are errors without it; the functions below pass theirs on.
Result<std::vector<MonitorRow>> RunMonitorQuery(const config::WarehouseConfig& wh,
                                                const std::string& sql,
                                                const std::string& window_start,
                                                const std::string& window_end,
                                                HttpClient* http = nullptr);

// A series_sql's rows as points: each row's bucket is the START of the `every_ms` it measures
// (`date_trunc('hour', at)`, as SQL writes buckets), and its point is recorded at the bucket's end,
// as a `sql` monitor's point is, so one series never mixes the two and a change inside a bucket is
// never after the point that measured it. A bucket that has not ended by `now_ms` is left out (it
// is measured once it is over). InvalidArgument naming `monitor` for a NULL or unreadable bucket.
Result<std::vector<IncomingPoint>> SeriesPoints(const std::string& monitor, const std::vector<MonitorRow>& rows,
                                                 int64_t every_ms, int64_t now_ms);

// The end of the last whole slot of an `every_ms` grid (multiples of `every_ms` from the epoch, as
// the watch loop schedules) at or before `now_ms`; `now_ms` itself for a grid of no length.
int64_t SlotEndAtOrBefore(int64_t now_ms, int64_t every_ms);

// What monitor `m` (with `settings`, its SettingsFromMonitor) measures at `now_ms`: its `sql`
// (exactly one row with one value), over the last whole slot of its `every` grid when it names
// :window_end ([end - every, end) with end = SlotEndAtOrBefore(now), recorded at that end), else
// over [now - every, now) recorded at now (it reads the table as it is now); or else its `series_sql`
// over the training window (every (bucket, value) row). NotFound for a warehouse that is not
// configured; InvalidArgument for the wrong number of rows or a NULL or unparsable bucket; the
// query's error otherwise. `window_start` / `window_end` are the bounds it was run with.
struct MonitorMeasurement {
  std::vector<IncomingPoint> points;
  std::string window_start, window_end;
};
Result<MonitorMeasurement> MeasureMonitor(const config::Workspace& ws, const config::MonitorConfig& m,
                                          const MonitorSettings& settings, int64_t now_ms,
                                          HttpClient* http = nullptr);

}  // namespace dw::observe::metrics
