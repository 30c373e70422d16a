// What the surfaces print for a pass's observation gaps: one line per message, not per check.
#include "workspace/observation_gaps.h"

#include <gtest/gtest.h>

#include "base/rfc3339.h"

namespace dw::workspace {
namespace {
namespace observation_gaps_test {

incidents::ObservationGap Gap(const std::string& source, const std::string& message) {
  incidents::ObservationGap g;
  g.source = source;
  g.message = message;
  return g;
}

TEST(ObservationGapLines, OneLinePerMessageNamingEverySource) {
  const TimePoint now = *ParseRfc3339("2026-11-24T15:00:00Z");
  std::vector<incidents::ObservationGap> gaps;
  for (int i = 0; i < 7; ++i) gaps.push_back(Gap("check:table://pg/t:c" + std::to_string(i), "refused"));
  gaps.push_back(Gap("platform:flink", "timed out"));
  std::vector<std::string> lines = ObservationGapLines(gaps, now, nullptr);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0],
            "observation gap check:table://pg/t:c0 and 6 more (check:table://pg/t:c1, check:table://pg/t:c2, "
            "check:table://pg/t:c3, check:table://pg/t:c4, check:table://pg/t:c5, ...): refused");
  EXPECT_EQ(lines[1], "observation gap platform:flink: timed out");
}

TEST(ObservationGapLines, AMessageSaidInTheLastHourRefersToWhereItWasSaid) {
  const TimePoint now = *ParseRfc3339("2026-11-24T15:00:00Z");
  SaidGaps said;
  EXPECT_EQ(ObservationGapLines({Gap("check:a:x", "refused")}, now, &said),
            std::vector<std::string>{"observation gap check:a:x: refused"});
  EXPECT_EQ(ObservationGapLines({Gap("check:b:x", "refused"), Gap("check:b:y", "refused")}, now + std::chrono::minutes(5),
                                &said),
            std::vector<std::string>{"observation gap check:b:x and 1 more (check:b:y): the same error as check:a:x"});
  // An hour on, said in full again (a log read from the middle still has it).
  EXPECT_EQ(ObservationGapLines({Gap("check:c:x", "refused")}, now + std::chrono::hours(1), &said),
            std::vector<std::string>{"observation gap check:c:x: refused"});
}

}  // namespace observation_gaps_test
}  // namespace
}  // namespace dw::workspace
