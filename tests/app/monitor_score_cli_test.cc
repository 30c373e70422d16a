// `dw monitor score`: the detector over a CSV, through the real binary.
#include <gtest/gtest.h>

#include <sstream>

#include "tests/support/build_paths.h"
#include "tests/support/subprocess.h"

namespace dw {
namespace {
namespace monitor_score_cli_test {

using testing::RunCommand;
using testing::TempDir;

const std::string kDw = DW_BINARY;

std::string Q(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

// 200 hourly points near 100 (a fixed wobble), then a drop to 9 and a NaN.
std::string SeriesWithDrop() {
  std::ostringstream s;
  s << "timestamp,value\n";
  for (int i = 0; i < 200; ++i)
    s << "2026-01-" << (1 + i / 24 < 10 ? "0" : "") << 1 + i / 24 << " " << (i % 24 < 10 ? "0" : "")
      << i % 24 << ":00:00," << 100 + (i * 7 % 5) - 2 << "\n";
  s << "2026-01-09 08:00:00,9\n";
  s << "2026-01-09 09:00:00,nan\n";
  return s.str();
}

TEST(MonitorScoreCliTest, WritesOneScoredRowPerPointAndFlagsTheDrop) {
  TempDir tmp;
  auto in = tmp.Write("s.csv", SeriesWithDrop());
  auto r = RunCommand(kDw + " monitor score " + Q(in) + " --seasonality none");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream out(r.out);
  std::string line, last_but_one, last;
  std::getline(out, line);
  EXPECT_EQ(line, "timestamp,value,anomaly_score,is_anomaly,expected_low,expected_high,note");
  int rows = 0, anomalies = 0;
  while (std::getline(out, line)) {
    ++rows;
    last_but_one = last;
    last = line;
    if (line.find(",1,") != std::string::npos) ++anomalies;
  }
  EXPECT_EQ(rows, 202);
  EXPECT_EQ(anomalies, 1) << r.out;
  EXPECT_EQ(last_but_one.rfind("2026-01-09 08:00:00,9,", 0), 0u) << last_but_one;
  EXPECT_NE(last_but_one.find(",1,"), std::string::npos) << last_but_one;
  // A point that could not be judged says so: no score, no verdict, a note (never "0, 0").
  EXPECT_EQ(last.rfind("2026-01-09 09:00:00,nan,,,,,not judged: ", 0), 0u) << last;
  EXPECT_NE(r.err.find("1 anomalous"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1 ignored"), std::string::npos) << r.err;
}

TEST(MonitorScoreCliTest, DirectionSpikeDoesNotFlagADrop) {
  TempDir tmp;
  auto in = tmp.Write("s.csv", SeriesWithDrop());
  auto r = RunCommand(kDw + " monitor score " + Q(in) + " --direction spike");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("0 anomalous"), std::string::npos) << r.err;
}

TEST(MonitorScoreCliTest, BadOptionsAndFilesAreNamed) {
  TempDir tmp;
  auto in = tmp.Write("s.csv", SeriesWithDrop());
  auto bad_season = RunCommand(kDw + " monitor score " + Q(in) + " --seasonality weekly");
  EXPECT_EQ(bad_season.exit_code, 2);
  EXPECT_NE(bad_season.err.find("seasonality \"weekly\""), std::string::npos) << bad_season.err;
  auto bad_file = tmp.Write("b.csv", "timestamp,value\n2026-01-01 00:00:00,abc\n");
  auto r = RunCommand(kDw + " monitor score " + Q(bad_file));
  EXPECT_EQ(r.exit_code, 2);  // the command could not do its work (docs/cli.md)
  EXPECT_NE(r.err.find("b.csv:2"), std::string::npos) << r.err;
}

TEST(MonitorScoreCliTest, ABadTimestampNamesEveryAcceptedForm) {
  TempDir tmp;
  auto bad = tmp.Write("t.csv", "timestamp,value\n05/01/2026 10:00,3\n");
  auto r = RunCommand(kDw + " monitor score " + Q(bad));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is not a timestamp"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("RFC 3339"), std::string::npos) << r.err;
  // The ISO form the message names is accepted.
  auto iso = tmp.Write("i.csv", "timestamp,value\n2026-01-05T10:00:00Z,3\n2026-01-05T11:00:00+01:00,4\n");
  auto ok = RunCommand(kDw + " monitor score " + Q(iso));
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST(MonitorScoreCliTest, AnOutOfOrderRowIsMarkedNotJudged) {
  TempDir tmp;
  auto in = tmp.Write("o.csv", "timestamp,value\n2026-01-05 10:00:00,3\n2026-01-05 09:00:00,4\n");
  auto r = RunCommand(kDw + " monitor score " + Q(in));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("2026-01-05 09:00:00,4,,,,,not judged: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2026-01-05 10:00:00,3,0.000000,0,,,too little history to judge"), std::string::npos)
      << r.out;
}

}  // namespace monitor_score_cli_test
}  // namespace
}  // namespace dw
