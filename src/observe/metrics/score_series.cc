#include "observe/metrics/score_series.h"

#include <cmath>
#include <cstdio>

namespace dw::observe::metrics {
namespace {

std::string Cell(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

std::string BandCell(double v) { return std::isfinite(v) ? Cell(v) : ""; }

}  // namespace

ScoreSummary WriteScoredSeries(const std::vector<SeriesRow>& rows, const DetectorOptions& options,
                               std::ostream& out) {
  StreamingDetector det("value", options);
  ScoreSummary s;
  out << "timestamp,value,anomaly_score,is_anomaly,expected_low,expected_high\n";
  for (const SeriesRow& r : rows) {
    Verdict v = det.Observe(r.ts_ms, r.value);
    ++s.points;
    if (v.kind == VerdictKind::kInvalid) ++s.invalid;
    if (v.kind == VerdictKind::kInsufficientHistory) ++s.insufficient;
    bool alarm = IsAlarm(v.kind);
    if (alarm) ++s.anomalies;
    char score[32];
    std::snprintf(score, sizeof score, "%.6f", v.score);
    out << FormatSeriesTimestamp(r.ts_ms) << ',' << Cell(r.value) << ',' << score << ','
        << (alarm ? 1 : 0) << ',' << BandCell(v.band_low) << ',' << BandCell(v.band_high) << '\n';
  }
  s.seasonality = det.active_seasonality();
  return s;
}

}  // namespace dw::observe::metrics
