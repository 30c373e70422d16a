// A picture of a judged series: the values, the expected band, and the anomalies, readable without
// a legend hunt (the legend is written on the picture itself).
#pragma once

#include <string>
#include <vector>

#include "observe/metrics/detector.h"

namespace dw::observe::metrics {

// An SVG (900x360) of `verdicts` in time order: the band of normal values as a shaded area (where
// the detector had one), the values as a line, alarms as red dots with their verdict in a
// tooltip, the value range and first/last times on the axes, and `title` with the counts on top.
// Text is XML-escaped. An empty series yields a picture that says "no points".
std::string RenderSeriesSvg(const std::string& title, const std::vector<Verdict>& verdicts);

}  // namespace dw::observe::metrics
