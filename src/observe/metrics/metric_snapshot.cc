// JudgeLatestPoint (metric_service.h): the judgement of a metric's latest point, resumed from the
// detector snapshot kept in the state store when it is still valid, replayed otherwise.
//
// A snapshot holds the replayer's state after the point before the latest one it saw (so that a
// judgement with no new point still re-judges the latest one), the start of the history it
// learnt, and fingerprints of the marks and incident windows over what it learnt. It is used only
// when all of these still hold; the store's history revision covers points written into or
// deleted from its past.
#include <algorithm>
#include <cstring>
#include <tuple>

#include <spdlog/spdlog.h>

#include "config/duration.h"
#include "observe/metrics/metric_snapshot.h"

#include "observe/metrics/metric_service.h"

namespace dw::observe::metrics {
namespace {

uint64_t Mix(uint64_t h, std::string_view bytes) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}
uint64_t MixI64(uint64_t h, int64_t v) {
  char b[8];
  std::memcpy(b, &v, 8);
  return Mix(h, std::string_view(b, 8));
}

// What of the marks and windows the points in [from_ms, through_ms] were judged under: each one
// clipped to that range (so a mark or incident that only reaches later points, or an incident
// closing after through_ms, changes nothing), in a fixed order.
uint64_t Fingerprint(const std::vector<store::MetricMark>& marks, const std::vector<UnlearntWindow>& windows,
                     int64_t from_ms, int64_t through_ms) {
  std::vector<std::tuple<int64_t, int64_t, std::string>> m, w;
  for (const auto& mark : marks) {
    int64_t a = std::max(ToUnixMillis(mark.from), from_ms), b = std::min(ToUnixMillis(mark.to), through_ms);
    if (a <= b) m.emplace_back(a, b, mark.note);
  }
  for (const auto& win : windows) {
    int64_t a = std::max(ToUnixMillis(win.from), from_ms);
    int64_t b = win.to ? std::min(ToUnixMillis(*win.to), through_ms + 1) : through_ms + 1;
    if (a < b) w.emplace_back(a, b, win.label);
  }
  std::sort(m.begin(), m.end());
  std::sort(w.begin(), w.end());
  uint64_t h = 1469598103934665603ULL;
  for (const auto& [a, b, note] : m) h = Mix(MixI64(MixI64(h, a), b), note + '\x1f');
  h = Mix(h, "|windows|");
  for (const auto& [a, b, label] : w) h = Mix(MixI64(MixI64(h, a), b), label + '\x1f');
  return h;
}

// The snapshot's own fields beside the replayer's state.
struct SnapshotBookkeeping {
  int64_t from_ms = 0;
  int64_t through_ms = 0;
  uint64_t fingerprint = 0;
};
std::string EncodeBookkeeping(const SnapshotBookkeeping& b) {
  std::string out(24, '\0');
  std::memcpy(out.data(), &b.from_ms, 8);
  std::memcpy(out.data() + 8, &b.through_ms, 8);
  std::memcpy(out.data() + 16, &b.fingerprint, 8);
  return out;
}
bool DecodeBookkeeping(std::string_view in, SnapshotBookkeeping* b) {
  if (in.size() != 24) return false;
  std::memcpy(&b->from_ms, in.data(), 8);
  std::memcpy(&b->through_ms, in.data() + 8, 8);
  std::memcpy(&b->fingerprint, in.data() + 16, 8);
  return true;
}

std::string Rfc(int64_t ms) { return FormatRfc3339(FromUnixMillis(ms)); }

}  // namespace

Result<bool> SaveReplayerSnapshot(store::StateStore& store, const std::string& metric,
                                  const MetricReplayer& replayer, int64_t revision, int64_t from_ms,
                                  int64_t through_ms, const std::vector<store::MetricMark>& marks,
                                  const std::vector<UnlearntWindow>& windows) {
  SnapshotBookkeeping book{from_ms, through_ms, Fingerprint(marks, windows, from_ms, through_ms)};
  store::MetricSnapshotRecord rec;
  rec.metric = metric;
  rec.revision = revision;
  rec.from = FromUnixMillis(from_ms);
  rec.through = FromUnixMillis(through_ms);
  rec.state = replayer.Encode(EncodeBookkeeping(book));
  store::MetricSnapshots* snapshots = store::MetricSnapshotsOf(store);
  if (!snapshots) return FailedPrecondition("this state store keeps no detector snapshots");
  return snapshots->SaveMetricSnapshot(rec);
}

Result<MetricJudgement> JudgeLatestPoint(store::StateStore& store, const std::string& metric,
                                         const MonitorSettings& settings, const Clock& clock,
                                         const UnlearntWindows& unlearnt) {
  const int64_t now = ToUnixMillis(clock.Now());
  const int64_t start = HistoryStartMs(metric, settings.training_window_ms, now);
  const TimePoint to = FromUnixMillis(now + 1);
  auto marks = store.MetricMarks(metric, FromUnixMillis(start), FromUnixMillis(now));
  if (!marks.ok()) return marks.status();
  std::vector<UnlearntWindow> windows;
  if (unlearnt) {
    auto got = unlearnt(metric, settings.asset_id, FromUnixMillis(start), to);
    if (!got.ok()) return got.status();
    windows = std::move(got).value();
  }

  std::optional<MetricReplayer> replayer;
  std::optional<int64_t> revision;  // set when the store keeps snapshots
  std::string reason = "snapshots are off";
  int64_t resume_after = 0;
  store::MetricSnapshots* snapshots = store::MetricSnapshotsOf(store);
  if (settings.use_snapshots && !snapshots) reason = "this state store keeps no detector snapshots";
  if (settings.use_snapshots && snapshots) {
    auto load = snapshots->LoadMetricSnapshot(metric);
    if (!load.ok()) {
      reason = load.status().message();
      spdlog::warn("metric {}: detector snapshot unreadable ({}); replaying its history", metric,
                   load.status().ToString());
    } else {
      revision = load->revision;
      const auto& snap = load->snapshot;
      SnapshotBookkeeping book;
      std::string extra;
      if (!snap) {
        reason = "no snapshot yet";
      } else if (snap->revision != load->revision) {
        reason = "points at or before the snapshot's last point were written or pruned since";
      } else if (auto resumed = MetricReplayer::Resume(metric, settings, snap->state, &extra); !resumed.ok()) {
        reason = resumed.status().message();
        spdlog::warn("metric {}: {}; snapshot discarded, replaying the history", metric, reason);
      } else if (!DecodeBookkeeping(extra, &book)) {
        reason = "the snapshot's bookkeeping is damaged";
        spdlog::warn("metric {}: {}; snapshot discarded, replaying the history", metric, reason);
      } else if (book.from_ms != start) {
        reason = "the history now starts at " + Rfc(start) + " (the snapshot's started at " + Rfc(book.from_ms) + ")";
      } else if (book.through_ms >= now) {
        reason = "the snapshot learnt points up to " + Rfc(book.through_ms) + ", after now";
      } else if (book.fingerprint != Fingerprint(*marks, windows, start, book.through_ms)) {
        reason = "a mark or an incident window over the points it learnt changed";
      } else {
        replayer = std::move(resumed).value();
        resume_after = book.through_ms;
        reason.clear();
      }
    }
  }
  const bool from_snapshot = replayer.has_value();
  auto points = store.MetricPoints(metric, FromUnixMillis(from_snapshot ? resume_after + 1 : start), to);
  if (!points.ok()) return points.status();
  if (from_snapshot && points->empty()) {
    // Nothing after the snapshot (the latest point was deleted): judge from the start.
    replayer.reset();
    reason = "no point after the snapshot";
    points = store.MetricPoints(metric, FromUnixMillis(start), to);
    if (!points.ok()) return points.status();
  }
  if (points->empty())
    return NotFound("metric " + metric + " has no point in the last " +
                    config::FormatDuration(std::chrono::milliseconds(now - start)));
  if (!replayer) {
    auto fresh = MetricReplayer::Start(metric, settings);
    if (!fresh.ok()) return fresh.status();
    replayer = std::move(fresh).value();
  }
  const size_t n = points->size();
  for (size_t i = 0; i + 1 < n; ++i) replayer->Feed((*points)[i], *marks, windows);
  if (revision && n >= 2) {
    auto saved = SaveReplayerSnapshot(store, metric, *replayer, *revision, start,
                                      ToUnixMillis((*points)[n - 2].ts), *marks, windows);
    if (!saved.ok())
      spdlog::warn("metric {}: detector snapshot not saved: {}", metric, saved.status().ToString());
  }
  MetricJudgement j;
  j.metric = metric;
  j.latest = replayer->Feed(points->back(), *marks, windows);
  j.history_points = replayer->points();
  j.seasonality = replayer->detector().active_seasonality();
  j.marked_points = replayer->marked_points();
  j.incident_points = replayer->incident_points();
  j.from_snapshot = from_snapshot && reason.empty();
  j.replay_reason = reason;
  j.points_fed = n;
  return j;
}

}  // namespace dw::observe::metrics
