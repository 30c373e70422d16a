#include "observe/metrics/series_csv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "tests/support/subprocess.h"

namespace dw::observe::metrics {
namespace {

TEST(SeriesCsvTest, ParsesNabAndRfc3339Timestamps) {
  EXPECT_EQ(*ParseSeriesTimestamp("1970-01-01 00:00:01"), 1000);
  EXPECT_EQ(*ParseSeriesTimestamp("2014-04-10 07:15:00.000000"), *ParseSeriesTimestamp("2014-04-10T07:15:00Z"));
  EXPECT_EQ(*ParseSeriesTimestamp("2014-04-10T09:15:00+02:00"), *ParseSeriesTimestamp("2014-04-10 07:15:00"));
  EXPECT_EQ(*ParseSeriesTimestamp("2014-04-10"), *ParseSeriesTimestamp("2014-04-10 00:00"));
  EXPECT_FALSE(ParseSeriesTimestamp("2014-13-10 00:00:00").ok());
  EXPECT_FALSE(ParseSeriesTimestamp("yesterday").ok());
  EXPECT_EQ(FormatSeriesTimestamp(*ParseSeriesTimestamp("2014-04-10 07:15:00")), "2014-04-10 07:15:00");
}

TEST(SeriesCsvTest, ReadsColumnsByNameAndKeepsBadValuesVisible) {
  dw::testing::TempDir dir;
  std::string path = (dir.path() / "s.csv").string();
  std::ofstream(path) << "value,timestamp\n1.5,2020-01-01 00:00:00\n,2020-01-01 01:00:00\ninf,2020-01-01 02:00:00\n";
  auto rows = ReadSeriesCsv(path);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 3u);
  EXPECT_DOUBLE_EQ((*rows)[0].value, 1.5);
  EXPECT_TRUE(std::isnan((*rows)[1].value));
  EXPECT_TRUE(std::isinf((*rows)[2].value));
}

TEST(SeriesCsvTest, NamesTheBadLine) {
  dw::testing::TempDir dir;
  std::string path = (dir.path() / "s.csv").string();
  std::ofstream(path) << "timestamp,value\n2020-01-01 00:00:00,1\n2020-01-01 01:00:00,abc\n";
  auto rows = ReadSeriesCsv(path);
  ASSERT_FALSE(rows.ok());
  EXPECT_NE(rows.status().message().find(":3:"), std::string::npos) << rows.status().message();
  std::ofstream(path) << "time,v\n";
  EXPECT_FALSE(ReadSeriesCsv(path).ok());
  EXPECT_EQ(ReadSeriesCsv((dir.path() / "none.csv").string()).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace dw::observe::metrics
