#include "observe/metrics/series_plot.h"

#include <gtest/gtest.h>

namespace dw::observe::metrics {
namespace {
namespace series_plot_test {

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TEST(SeriesPlotTest, DrawsValuesBandAndOneDotPerAnomaly) {
  StreamingDetector d("orders <eu>", {});
  std::vector<Verdict> v;
  for (int i = 0; i < 100; ++i) v.push_back(d.Observe(1767225600000LL + i * 3600000LL, 100 + (i % 3)));
  v.push_back(d.Observe(1767225600000LL + 100 * 3600000LL, 9));
  std::string svg = RenderSeriesSvg("orders <eu>", v);
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_EQ(Count(svg, "<polyline"), 1u);
  EXPECT_GE(Count(svg, "<polygon"), 1u);
  EXPECT_EQ(Count(svg, "<circle"), 1u);
  EXPECT_NE(svg.find("orders &lt;eu&gt;"), std::string::npos);
  EXPECT_EQ(svg.find("orders <eu>"), std::string::npos) << "text must be escaped";
  EXPECT_NE(svg.find("red: 1 anomalies"), std::string::npos);
  EXPECT_NE(svg.find("anomalous drop"), std::string::npos);
  EXPECT_NE(svg.find("2026-01-01 00:00:00 UTC"), std::string::npos);
}

TEST(SeriesPlotTest, EmptySeriesSaysSo) {
  std::string svg = RenderSeriesSvg("m", {});
  EXPECT_NE(svg.find("no points"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
}

}  // namespace series_plot_test
}  // namespace
}  // namespace dw::observe::metrics
