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

// A free-text CSV cell, quoted (RFC 4180) when it holds a comma, quote or line break.
std::string NoteCell(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c == '\r' || c == '\n' ? ' ' : c;
  }
  return out + "\"";
}

}  // namespace

ScoreSummary WriteScoredSeries(const std::vector<SeriesRow>& rows, const DetectorOptions& options,
                               std::ostream& out) {
  StreamingDetector det("value", options);
  ScoreSummary s;
  out << "timestamp,value,anomaly_score,is_anomaly,expected_low,expected_high,note\n";
  for (const SeriesRow& r : rows) {
    Verdict v = det.Observe(r.ts_ms, r.value);
    ++s.points;
    if (v.kind == VerdictKind::kInsufficientHistory) ++s.insufficient;
    out << FormatSeriesTimestamp(r.ts_ms) << ',' << Cell(r.value) << ',';
    if (v.kind == VerdictKind::kInvalid) {
      // Not judged: an empty score and verdict, never a 0 that reads like a normal point.
      ++s.invalid;
      out << ",,,," << NoteCell("not judged: " + v.explanation) << '\n';
      continue;
    }
    bool alarm = IsAlarm(v.kind);
    if (alarm) ++s.anomalies;
    char score[32];
    std::snprintf(score, sizeof score, "%.6f", v.score);
    out << score << ',' << (alarm ? 1 : 0) << ',' << BandCell(v.band_low) << ','
        << BandCell(v.band_high) << ','
        << (v.kind == VerdictKind::kInsufficientHistory ? NoteCell("too little history to judge") : "")
        << '\n';
  }
  s.seasonality = det.active_seasonality();
  return s;
}

}  // namespace dw::observe::metrics
