#include "store/sql_metric_rows.h"

#include <utility>

namespace dw::store {

Result<MetricMark> ReadMetricMarkRow(RowReader& r) {
  MetricMark m;
  m.id = r.Int();
  m.metric = r.Text();
  m.from = r.Time();
  m.to = r.Time();
  m.note = r.Text();
  m.created_at = r.Time();
  m.author = r.Text();
  if (!r.status().ok()) return r.status();
  return m;
}

Result<MetricSnapshotRecord> ReadMetricSnapshotRow(RowReader& r, const std::string& metric) {
  MetricSnapshotRecord snap;
  snap.metric = metric;
  snap.revision = r.Int();
  snap.from = r.Time();
  snap.through = r.Time();
  snap.state = r.Text();
  snap.written_at = r.Time();
  if (!r.status().ok()) return r.status();
  return snap;
}

}  // namespace dw::store
