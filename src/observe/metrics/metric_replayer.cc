#include "observe/metrics/metric_replayer.h"

#include <cstring>

#include "observe/metrics/detector_state.h"

namespace dw::observe::metrics {
namespace {

uint64_t NameHash(const std::string& s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

void PutI64(std::string& out, int64_t v) {
  char b[8];
  std::memcpy(b, &v, 8);
  out.append(b, 8);
}
int64_t GetI64(std::string_view& in) {
  int64_t v = 0;
  std::memcpy(&v, in.data(), 8);
  in.remove_prefix(8);
  return v;
}
constexpr size_t kBookkeepingBytes = 5 * 8;

}  // namespace

int64_t HistoryStartMs(const std::string& metric, int64_t window_ms, int64_t now_ms) {
  if (window_ms <= 0) return now_ms;
  int64_t offset = static_cast<int64_t>(NameHash(metric) % static_cast<uint64_t>(window_ms));
  return offset + window_ms * FloorDiv(now_ms - window_ms - offset, window_ms);
}

uint64_t SettingsHash(const MonitorSettings& settings) {
  std::string extra = settings.timezone;
  PutI64(extra, settings.training_window_ms);
  return DetectorOptionsHash(settings.detector, extra);
}

Result<MetricReplayer> MetricReplayer::Start(const std::string& metric, const MonitorSettings& settings) {
  std::optional<config::TimeZone> zone;
  if (settings.timezone != "UTC") {
    auto z = config::TimeZone::Load(settings.timezone);
    if (!z.ok()) return z.status();
    zone = *z;
  }
  return MetricReplayer(std::make_unique<StreamingDetector>(metric, settings.detector), std::move(zone),
                        SettingsHash(settings));
}

Verdict MetricReplayer::Feed(const store::MetricPoint& p, const std::vector<store::MetricMark>& marks,
                             const std::vector<UnlearntWindow>& windows) {
  StreamingDetector& det = *det_;
  int64_t ts = ToUnixMillis(p.ts);
  // What the detector sees: local wall-clock ms (strictly increasing: the repeated hour when
  // clocks go back is nudged 1 ms past the point before). The real gap decides what is missing.
  int64_t local = ts;
  int real_missing = -1;
  if (zone_) {
    int64_t secs = ts >= 0 ? ts / 1000 : -((-ts + 999) / 1000);
    local = ts + zone_->OffsetAt(secs) * 1000;
    if (prev_local_ != INT64_MIN) {
      real_missing = det.MissingPointsAt(prev_local_ + (ts - prev_real_));
      if (local <= prev_local_) local = prev_local_ + 1;
    }
    prev_real_ = ts;
    prev_local_ = local;
  }
  const store::MetricMark* mark = nullptr;
  for (const auto& m : marks)
    if (m.from <= p.ts && p.ts <= m.to) mark = &m;
  const UnlearntWindow* window = nullptr;
  for (const auto& w : windows)
    if (w.from <= p.ts && (!w.to || p.ts < *w.to)) window = &w;
  Verdict v;
  if (mark) {
    v = det.Observe(local, p.value, /*expected=*/true);
    if (v.kind == VerdictKind::kExpected) {
      ++marked_;
      if (!mark->note.empty()) v.explanation += " (marked: " + mark->note + ")";
    }
  } else if (window) {
    v = det.ObserveWithoutLearning(local, p.value);
    if (v.kind != VerdictKind::kInvalid) {
      ++incident_;
      v.explanation += "; inside " + window->label + ", so not learnt";
    }
  } else {
    v = det.Observe(local, p.value);
  }
  v.ts_ms = ts;
  if (real_missing >= 0 && real_missing != v.missing_before) {
    // A clock change made the local gap differ from the real one: say what is really missing.
    std::string said = " (" + std::to_string(v.missing_before) + " points missing before it)";
    size_t at = v.explanation.find(said);
    if (at != std::string::npos)
      v.explanation.replace(at, said.size(),
                            real_missing > 0 ? " (" + std::to_string(real_missing) + " points missing before it)" : "");
    v.missing_before = real_missing;
  }
  ++points_;
  return v;
}

std::string MetricReplayer::Encode(std::string_view extra) const {
  std::string payload;
  PutI64(payload, prev_real_);
  PutI64(payload, prev_local_);
  PutI64(payload, static_cast<int64_t>(points_));
  PutI64(payload, static_cast<int64_t>(marked_));
  PutI64(payload, static_cast<int64_t>(incident_));
  payload.append(extra);
  return EncodeDetectorState(*det_, settings_hash_, payload);
}

Result<MetricReplayer> MetricReplayer::Resume(const std::string& metric, const MonitorSettings& settings,
                                              std::string_view bytes, std::string* extra) {
  auto fresh = Start(metric, settings);
  if (!fresh.ok()) return fresh.status();
  auto decoded = DecodeDetectorState(bytes, metric, settings.detector, fresh->settings_hash_);
  if (!decoded.ok()) return decoded.status();
  std::string_view in = decoded->payload;
  if (in.size() < kBookkeepingBytes)
    return DataLoss("detector snapshot of " + metric + " lacks its replay bookkeeping");
  MetricReplayer r(std::move(decoded->detector), std::move(fresh->zone_), fresh->settings_hash_);
  r.prev_real_ = GetI64(in);
  r.prev_local_ = GetI64(in);
  r.points_ = static_cast<size_t>(GetI64(in));
  r.marked_ = static_cast<size_t>(GetI64(in));
  r.incident_ = static_cast<size_t>(GetI64(in));
  if (extra) *extra = std::string(in);
  return r;
}

}  // namespace dw::observe::metrics
