// JudgeLatestPoints (metric_batch.h) and JudgeLatestPoint (metric_service.h), which is it with one
// metric: the judgement of a metric's latest point, resumed from the detector snapshot kept in the
// state store when it is still valid, replayed otherwise.
//
// A snapshot holds the replayer's state after the point before the latest one it saw when it was
// saved (so that a judgement with no new point still re-judges the latest one; a resumed
// judgement saves only on its turn, SnapshotDue, so it may be a few points older), the start of the history it
// learnt, and fingerprints of the marks and incident windows over what it learnt. It is used only
// when all of these still hold; the store's history revision covers points written into or
// deleted from its past.
#include <algorithm>
#include <cstring>
#include <tuple>

#include <spdlog/spdlog.h>

#include "config/duration.h"
#include "observe/metrics/metric_batch.h"
#include "observe/metrics/metric_service.h"
#include "observe/metrics/metric_snapshot.h"
#include "observe/metrics/store_batches.h"

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

store::MetricSnapshotRecord SnapshotRecord(const std::string& metric, const MetricReplayer& replayer,
                                           int64_t revision, int64_t from_ms, int64_t through_ms,
                                           const std::vector<store::MetricMark>& marks,
                                           const std::vector<UnlearntWindow>& windows) {
  SnapshotBookkeeping book{from_ms, through_ms, Fingerprint(marks, windows, from_ms, through_ms)};
  store::MetricSnapshotRecord rec;
  rec.metric = metric;
  rec.revision = revision;
  rec.from = FromUnixMillis(from_ms);
  rec.through = FromUnixMillis(through_ms);
  rec.state = replayer.Encode(EncodeBookkeeping(book));
  return rec;
}

// One metric of a batch on its way to a judgement.
struct Pending {
  int64_t start = 0;  // HistoryStartMs
  std::optional<Status> failed;
  std::vector<store::MetricMark> marks;
  std::vector<UnlearntWindow> windows;
  std::optional<MetricReplayer> replayer;  // set once resumed (or started fresh)
  std::optional<int64_t> revision;         // set when the store keeps snapshots
  std::string reason;                      // why it replays ("" when resumed)
  int64_t resume_after = 0;
  bool resumed = false;
  std::vector<store::MetricPoint> points;
};

// Whether a judgement of `metric` that fed `fed` points before its latest, its detector now at
// `points` points of history, saves its snapshot (MetricToJudge::snapshot_every). A replay
// always does (else every judgement would replay). A resumed one does when (points - fed, points]
// holds its turn: a multiple of `every` shifted by a hash of the name, so one point a pass saves a
// series every `every` passes, the series of a pass in turn, and many points at once (a backfill)
// save at once. Which snapshot is kept never changes a verdict; only how many points the next
// judgement feeds (at most `every` more than with 1).
bool SnapshotDue(const std::string& metric, bool resumed, size_t fed, size_t points, int every) {
  if (!resumed || every <= 1) return true;
  const uint64_t k = static_cast<uint64_t>(every);
  const uint64_t turn = Mix(1469598103934665603ULL, metric) % k;
  const uint64_t after = static_cast<uint64_t>(points) + turn;
  return after / k > (after - std::min<uint64_t>(fed, after)) / k;
}

// Whether `load`'s snapshot is still valid for `item` at `now`; resumes `p` from it if so, else
// says why not in p.reason.
void ResumeIfValid(const MetricToJudge& item, const Result<store::MetricSnapshotLoad>& load, int64_t now,
                   Pending& p) {
  const std::string& metric = item.metric;
  if (!load.ok()) {
    p.reason = load.status().message();
    spdlog::warn("metric {}: detector snapshot unreadable ({}); replaying its history", metric,
                 load.status().ToString());
    return;
  }
  p.revision = load->revision;
  const auto& snap = load->snapshot;
  SnapshotBookkeeping book;
  std::string extra;
  if (!snap) {
    p.reason = "no snapshot yet";
  } else if (snap->revision != load->revision) {
    p.reason = "points at or before the snapshot's last point were written or pruned since";
  } else if (auto resumed = MetricReplayer::Resume(metric, item.settings, snap->state, &extra); !resumed.ok()) {
    p.reason = resumed.status().message();
    spdlog::warn("metric {}: {}; snapshot discarded, replaying the history", metric, p.reason);
  } else if (!DecodeBookkeeping(extra, &book)) {
    p.reason = "the snapshot's bookkeeping is damaged";
    spdlog::warn("metric {}: {}; snapshot discarded, replaying the history", metric, p.reason);
  } else if (book.from_ms != p.start) {
    p.reason = "the history now starts at " + Rfc(p.start) + " (the snapshot's started at " + Rfc(book.from_ms) + ")";
  } else if (book.through_ms >= now) {
    p.reason = "the snapshot learnt points up to " + Rfc(book.through_ms) + ", after now";
  } else if (book.fingerprint != Fingerprint(p.marks, p.windows, p.start, book.through_ms)) {
    p.reason = "a mark or an incident window over the points it learnt changed";
  } else {
    p.replayer = std::move(resumed).value();
    p.resume_after = book.through_ms;
    p.resumed = true;
    p.reason.clear();
  }
}

}  // namespace

Result<bool> SaveReplayerSnapshot(store::StateStore& store, const std::string& metric,
                                  const MetricReplayer& replayer, int64_t revision, int64_t from_ms,
                                  int64_t through_ms, const std::vector<store::MetricMark>& marks,
                                  const std::vector<UnlearntWindow>& windows) {
  store::MetricSnapshots* snapshots = store::MetricSnapshotsOf(store);
  if (!snapshots) return FailedPrecondition("this state store keeps no detector snapshots");
  return snapshots->SaveMetricSnapshot(SnapshotRecord(metric, replayer, revision, from_ms, through_ms, marks, windows));
}

UnlearntWindowsOfMany EachOf(const UnlearntWindows& one) {
  if (!one) return {};
  return [one](const std::vector<UnlearntWindowsRequest>& requests) {
    std::vector<Result<std::vector<UnlearntWindow>>> out;
    for (const auto& r : requests) out.push_back(one(r.metric, r.asset_id, r.from, r.to));
    return out;
  };
}

std::vector<Result<MetricJudgement>> JudgeLatestPoints(store::StateStore& store,
                                                       const std::vector<MetricToJudge>& batch,
                                                       const Clock& clock,
                                                       const UnlearntWindowsOfMany& unlearnt) {
  const int64_t now = ToUnixMillis(clock.Now());
  const TimePoint to = FromUnixMillis(now + 1);
  const size_t n = batch.size();
  std::vector<Pending> pending(n);
  // The entries still on their way, and the failure of a batch read for all of them.
  auto alive = [&] {
    std::vector<size_t> out;
    for (size_t i = 0; i < n; ++i)
      if (!pending[i].failed) out.push_back(i);
    return out;
  };
  auto fail = [&](const std::vector<size_t>& which, const Status& s) {
    for (size_t i : which) pending[i].failed = s;
  };

  // The marks over each history, then its incident windows.
  std::vector<store::MetricRange> ranges;
  for (size_t i = 0; i < n; ++i) {
    pending[i].start = HistoryStartMs(batch[i].metric, batch[i].settings.training_window_ms, now);
    ranges.push_back({batch[i].metric, FromUnixMillis(pending[i].start), FromUnixMillis(now)});
  }
  if (auto marks = MarksOfMany(store, ranges); !marks.ok()) {
    fail(alive(), marks.status());
  } else {
    for (size_t i = 0; i < n; ++i) pending[i].marks = std::move((*marks)[i]);
  }
  if (unlearnt) {
    std::vector<size_t> asked = alive();
    std::vector<UnlearntWindowsRequest> requests;
    for (size_t i : asked)
      requests.push_back({batch[i].metric, batch[i].settings.asset_id, FromUnixMillis(pending[i].start), to});
    if (!requests.empty()) {
      auto got = unlearnt(requests);
      if (got.size() != requests.size()) {
        fail(asked, Internal("the incident windows answered " + std::to_string(got.size()) + " of " +
                             std::to_string(requests.size()) + " metrics"));
      } else {
        for (size_t k = 0; k < asked.size(); ++k) {
          if (got[k].ok()) pending[asked[k]].windows = std::move(got[k]).value();
          else pending[asked[k]].failed = got[k].status();
        }
      }
    }
  }

  // The snapshots, for the metrics that use them.
  store::MetricSnapshots* snapshots = store::MetricSnapshotsOf(store);
  std::vector<size_t> loading;
  std::vector<std::string> names;
  for (size_t i : alive()) {
    if (!batch[i].settings.use_snapshots) pending[i].reason = "snapshots are off";
    else if (!snapshots) pending[i].reason = "this state store keeps no detector snapshots";
    else {
      loading.push_back(i);
      names.push_back(batch[i].metric);
    }
  }
  if (!loading.empty()) {
    auto loads = LoadSnapshotsOfMany(store, *snapshots, names);
    for (size_t k = 0; k < loading.size(); ++k) {
      size_t i = loading[k];
      if (!loads.ok()) ResumeIfValid(batch[i], Result<store::MetricSnapshotLoad>(loads.status()), now, pending[i]);
      else ResumeIfValid(batch[i], (*loads)[k], now, pending[i]);
    }
  }

  // The points each judgement feeds: after the snapshot, or the whole history. A metric with no
  // point after its snapshot (the latest was deleted) is judged from the start.
  for (int round = 0; round < 2; ++round) {
    std::vector<size_t> reading;
    ranges.clear();
    for (size_t i : alive()) {
      Pending& p = pending[i];
      if (round == 1 && !(p.resumed && p.points.empty())) continue;
      if (round == 1) {
        p.replayer.reset();
        p.reason = "no point after the snapshot";
      }
      bool after_snapshot = round == 0 && p.resumed;
      reading.push_back(i);
      ranges.push_back({batch[i].metric, FromUnixMillis(after_snapshot ? p.resume_after + 1 : p.start), to});
    }
    if (reading.empty()) continue;
    auto points = PointsOfMany(store, ranges);
    if (!points.ok()) {
      fail(reading, points.status());
      continue;
    }
    for (size_t k = 0; k < reading.size(); ++k) pending[reading[k]].points = std::move((*points)[k]);
  }

  // Each detector fed up to the point before the latest; its snapshot taken there.
  std::vector<store::MetricSnapshotRecord> records;
  std::vector<size_t> saving;
  for (size_t i : alive()) {
    Pending& p = pending[i];
    if (p.points.empty()) {
      p.failed = NotFound("metric " + batch[i].metric + " has no point in the last " +
                          config::FormatDuration(std::chrono::milliseconds(now - p.start)));
      continue;
    }
    if (!p.replayer) {
      auto fresh = MetricReplayer::Start(batch[i].metric, batch[i].settings);
      if (!fresh.ok()) {
        p.failed = fresh.status();
        continue;
      }
      p.replayer = std::move(fresh).value();
    }
    const size_t count = p.points.size();
    for (size_t k = 0; k + 1 < count; ++k) p.replayer->Feed(p.points[k], p.marks, p.windows);
    const bool resumed = p.resumed && p.reason.empty();
    if (p.revision && count >= 2 &&
        SnapshotDue(batch[i].metric, resumed, count - 1, p.replayer->points(), batch[i].snapshot_every)) {
      records.push_back(SnapshotRecord(batch[i].metric, *p.replayer, *p.revision, p.start,
                                       ToUnixMillis(p.points[count - 2].ts), p.marks, p.windows));
      saving.push_back(i);
    }
  }
  if (!records.empty()) {
    auto saved = SaveSnapshotsOfMany(store, *snapshots, records);
    for (size_t k = 0; k < saving.size(); ++k)
      if (!saved[k].ok())
        spdlog::warn("metric {}: detector snapshot not saved: {}", batch[saving[k]].metric,
                     saved[k].status().ToString());
  }

  std::vector<Result<MetricJudgement>> out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    Pending& p = pending[i];
    if (p.failed) {
      out.push_back(*p.failed);
      continue;
    }
    MetricJudgement j;
    j.metric = batch[i].metric;
    j.latest = p.replayer->Feed(p.points.back(), p.marks, p.windows);
    j.history_points = p.replayer->points();
    j.seasonality = p.replayer->detector().active_seasonality();
    j.marked_points = p.replayer->marked_points();
    j.incident_points = p.replayer->incident_points();
    j.from_snapshot = p.resumed && p.reason.empty();
    j.replay_reason = p.reason;
    j.points_fed = p.points.size();
    out.emplace_back(std::move(j));
  }
  return out;
}

Result<MetricJudgement> JudgeLatestPoint(store::StateStore& store, const std::string& metric,
                                         const MonitorSettings& settings, const Clock& clock,
                                         const UnlearntWindows& unlearnt) {
  return std::move(JudgeLatestPoints(store, {{metric, settings}}, clock, EachOf(unlearnt)).front());
}

}  // namespace dw::observe::metrics
