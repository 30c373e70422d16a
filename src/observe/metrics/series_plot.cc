#include "observe/metrics/series_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "base/markup_escape.h"
#include "observe/metrics/series_csv.h"

namespace dw::observe::metrics {
namespace {

constexpr double kW = 900, kH = 360, kLeft = 80, kRight = 20, kTop = 40, kBottom = 40;

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

}  // namespace

std::string RenderSeriesSvg(const std::string& title, const std::vector<Verdict>& verdicts) {
  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"900\" height=\"360\" "
                    "viewBox=\"0 0 900 360\" font-family=\"sans-serif\" font-size=\"12\">\n"
                    "<rect width=\"900\" height=\"360\" fill=\"white\"/>\n";
  std::vector<const Verdict*> pts;
  for (const Verdict& v : verdicts)
    if (v.kind != VerdictKind::kInvalid) pts.push_back(&v);
  size_t alarms = 0;
  for (const Verdict* v : pts) alarms += IsAlarm(v->kind);
  svg += "<text x=\"" + Num(kLeft) + "\" y=\"24\" font-size=\"15\" font-weight=\"bold\">" + EscapeMarkup(title) +
         "</text>\n";
  if (pts.empty()) {
    svg += "<text x=\"450\" y=\"180\" text-anchor=\"middle\">no points</text>\n</svg>\n";
    return svg;
  }
  double lo = INFINITY, hi = -INFINITY;
  for (const Verdict* v : pts) {
    lo = std::min(lo, v->value);
    hi = std::max(hi, v->value);
    if (std::isfinite(v->band_low)) lo = std::min(lo, v->band_low);
    if (std::isfinite(v->band_high)) hi = std::max(hi, v->band_high);
  }
  if (hi - lo < 1e-12) {
    hi += 1;
    lo -= 1;
  }
  int64_t t0 = pts.front()->ts_ms, t1 = pts.back()->ts_ms;
  double span = std::max<double>(1, static_cast<double>(t1 - t0));
  auto x = [&](int64_t t) { return kLeft + (kW - kLeft - kRight) * static_cast<double>(t - t0) / span; };
  auto y = [&](double v) { return kTop + (kH - kTop - kBottom) * (hi - v) / (hi - lo); };

  // The band: one polygon per stretch of points that have one (upper edge forth, lower back).
  for (size_t i = 0; i < pts.size();) {
    if (!std::isfinite(pts[i]->band_low) && !std::isfinite(pts[i]->band_high)) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < pts.size() && (std::isfinite(pts[j]->band_low) || std::isfinite(pts[j]->band_high))) ++j;
    std::string poly;
    for (size_t k = i; k < j; ++k)
      poly += Num(x(pts[k]->ts_ms)) + "," + Num(y(std::isfinite(pts[k]->band_high) ? pts[k]->band_high : hi)) + " ";
    for (size_t k = j; k-- > i;)
      poly += Num(x(pts[k]->ts_ms)) + "," + Num(y(std::isfinite(pts[k]->band_low) ? pts[k]->band_low : lo)) + " ";
    svg += "<polygon points=\"" + poly + "\" fill=\"#cfe3f7\" stroke=\"none\"/>\n";
    i = j;
  }
  std::string line;
  for (const Verdict* v : pts) line += Num(x(v->ts_ms)) + "," + Num(y(v->value)) + " ";
  svg += "<polyline points=\"" + line + "\" fill=\"none\" stroke=\"#1f4e79\" stroke-width=\"1.5\"/>\n";
  for (const Verdict* v : pts) {
    if (!IsAlarm(v->kind)) continue;
    svg += "<circle cx=\"" + Num(x(v->ts_ms)) + "\" cy=\"" + Num(y(v->value)) +
           "\" r=\"4\" fill=\"#c00000\"><title>" + EscapeMarkup(FormatSeriesTimestamp(v->ts_ms) + ": " + v->explanation) +
           "</title></circle>\n";
  }
  // Axes and the legend, written where they are read.
  svg += "<line x1=\"" + Num(kLeft) + "\" y1=\"" + Num(kH - kBottom) + "\" x2=\"" + Num(kW - kRight) + "\" y2=\"" +
         Num(kH - kBottom) + "\" stroke=\"#888\"/>\n";
  svg += "<text x=\"" + Num(kLeft - 6) + "\" y=\"" + Num(kTop + 4) + "\" text-anchor=\"end\">" +
         EscapeMarkup(FormatMetricValue(hi)) + "</text>\n";
  svg += "<text x=\"" + Num(kLeft - 6) + "\" y=\"" + Num(kH - kBottom) + "\" text-anchor=\"end\">" +
         EscapeMarkup(FormatMetricValue(lo)) + "</text>\n";
  svg += "<text x=\"" + Num(kLeft) + "\" y=\"" + Num(kH - 14) + "\">" + EscapeMarkup(FormatSeriesTimestamp(t0)) + " UTC</text>\n";
  svg += "<text x=\"" + Num(kW - kRight) + "\" y=\"" + Num(kH - 14) + "\" text-anchor=\"end\">" +
         EscapeMarkup(FormatSeriesTimestamp(t1)) + " UTC</text>\n";
  svg += "<text x=\"" + Num(kW - kRight) + "\" y=\"24\" text-anchor=\"end\" fill=\"#444\">" +
         std::to_string(pts.size()) + " points · blue line: value · shaded: expected band · red: " +
         std::to_string(alarms) + " anomalies</text>\n";
  svg += "</svg>\n";
  return svg;
}

}  // namespace dw::observe::metrics
