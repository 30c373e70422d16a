#include "store/sql_metric_rows.h"

#include <utility>

#include "store/bytes_cell.h"

namespace dw::store {

Result<MetricMark> ReadMetricMarkRow(RowReader& r) {
  MetricMark m;
  m.id = r.Int();
  m.metric = r.Text();
  m.from = r.Time();
  m.to = r.Time();
  m.note = r.Text();
  m.created_at = r.Time();
  if (!r.status().ok()) return r.status();
  return m;
}

Result<MetricSnapshotRecord> ReadMetricSnapshotRow(RowReader& r, const std::string& metric,
                                                   std::string_view backend) {
  MetricSnapshotRecord snap;
  snap.metric = metric;
  snap.revision = r.Int();
  snap.from = r.Time();
  snap.through = r.Time();
  std::string text = r.Text();
  snap.written_at = r.Time();
  if (!r.status().ok()) return r.status();
  auto bytes = BytesFromCell(backend, text);
  if (!bytes.ok()) return DataLoss("metric_snapshots row of " + metric + ": " + bytes.status().message());
  snap.state = std::move(bytes).value();
  return snap;
}

}  // namespace dw::store
