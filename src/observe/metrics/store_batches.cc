#include "observe/metrics/store_batches.h"

namespace dw::observe::metrics {

Result<std::vector<std::vector<store::MetricPoint>>> PointsOfMany(store::StateStore& store,
                                                                  const std::vector<store::MetricRange>& ranges) {
  if (store::MetricBatches* batches = store::MetricBatchesOf(store)) return batches->MetricPointsOfMany(ranges);
  std::vector<std::vector<store::MetricPoint>> out;
  for (const auto& r : ranges) {
    auto points = store.MetricPoints(r.metric, r.from, r.to);
    if (!points.ok()) return points.status();
    out.push_back(std::move(points).value());
  }
  return out;
}

Result<std::vector<std::vector<store::MetricMark>>> MarksOfMany(store::StateStore& store,
                                                                const std::vector<store::MetricRange>& ranges) {
  if (store::MetricBatches* batches = store::MetricBatchesOf(store)) return batches->MetricMarksOfMany(ranges);
  std::vector<std::vector<store::MetricMark>> out;
  for (const auto& r : ranges) {
    auto marks = store.MetricMarks(r.metric, r.from, r.to);
    if (!marks.ok()) return marks.status();
    out.push_back(std::move(marks).value());
  }
  return out;
}

Status UpsertPointsOfMany(store::StateStore& store, const std::vector<store::MetricPointsWrite>& writes) {
  if (writes.empty()) return Status::Ok();
  if (store::MetricBatches* batches = store::MetricBatchesOf(store)) return batches->UpsertMetricPointsOfMany(writes);
  return store.InTransaction([&](store::StateStore& tx) -> Status {
    for (const auto& w : writes) DW_RETURN_IF_ERROR(tx.UpsertMetricPoints(w.metric, w.points));
    return Status::Ok();
  });
}

Result<std::vector<Result<store::MetricSnapshotLoad>>> LoadSnapshotsOfMany(store::StateStore& store,
                                                                           store::MetricSnapshots& snapshots,
                                                                           const std::vector<std::string>& metrics) {
  if (store::MetricBatches* batches = store::MetricBatchesOf(store)) return batches->LoadMetricSnapshots(metrics);
  std::vector<Result<store::MetricSnapshotLoad>> out;
  for (const auto& m : metrics) out.push_back(snapshots.LoadMetricSnapshot(m));
  return out;
}

std::vector<Result<bool>> SaveSnapshotsOfMany(store::StateStore& store, store::MetricSnapshots& snapshots,
                                              const std::vector<store::MetricSnapshotRecord>& records) {
  std::vector<Result<bool>> out;
  if (records.empty()) return out;
  if (store::MetricBatches* batches = store::MetricBatchesOf(store)) {
    auto saved = batches->SaveMetricSnapshots(records);
    for (size_t i = 0; i < records.size(); ++i)
      out.push_back(saved.ok() ? Result<bool>(bool((*saved)[i])) : Result<bool>(saved.status()));
    return out;
  }
  for (const auto& r : records) out.push_back(snapshots.SaveMetricSnapshot(r));
  return out;
}

}  // namespace dw::observe::metrics
