// Reading the metric tables' rows, shared by the one-metric statements (sql_state_store.cc,
// sql_metric_snapshots.cc) and the batch statements (sql_metric_batches.cc), so a column added to
// a table is read the same way by both.
#pragma once

#include <string>

#include "base/status.h"
#include "store/metric_snapshots.h"
#include "store/records.h"
#include "store/sql_cells.h"

namespace dw::store {

// A metric_marks row's cells from r's position on: id, metric, from, to, note, created_at.
// The reader's first error (kDataLoss) when a cell is missing or of the wrong type.
Result<MetricMark> ReadMetricMarkRow(RowReader& r);

// A metric_snapshots row's cells from r's position on: revision, from, through, state (its bytes,
// as SqlConnection::QueryBytes reads them), written_at; for `metric`. The reader's first error
// (kDataLoss) when a cell is missing or of the wrong type.
Result<MetricSnapshotRecord> ReadMetricSnapshotRow(RowReader& r, const std::string& metric);

}  // namespace dw::store
