// What a signal pass's observation gaps say, as the surfaces print them (`dw watch`, `dw incidents
// scan`): an unreachable warehouse fails every check of every table with one error, which is said
// once, not once per check.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/clock.h"
#include "incidents/incidents.h"

namespace dw::workspace {

// The messages already said by this process (a long-running `dw watch`): message -> the source it
// was first said for, and when.
struct SaidGaps {
  struct Said {
    std::string source;
    TimePoint at;
  };
  std::map<std::string, Said> said;
};

// One line per distinct message of `gaps`, in the order each first appears, without a time:
// "observation gap SOURCE: MESSAGE", or with several sources "observation gap SOURCE and N more
// (SOURCE2, ...): MESSAGE" (at most 5 listed). With `said`, a message it holds from the last hour
// before `now` is not repeated: the line ends "the same error as FIRST-SOURCE" instead; the
// messages said in full are added to it. Pure apart from `said`.
std::vector<std::string> ObservationGapLines(const std::vector<incidents::ObservationGap>& gaps, TimePoint now,
                                             SaidGaps* said);

}  // namespace dw::workspace
