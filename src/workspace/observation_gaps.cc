#include "workspace/observation_gaps.h"

#include <chrono>

namespace dw::workspace {
namespace {

// A message said this long ago is said in full again (a log read from the middle still has it).
constexpr std::chrono::hours kSaidFor{1};
// At most this many messages are remembered (a process that sees ever new messages stays small).
constexpr size_t kMaxSaid = 1000;
constexpr size_t kListed = 5;

}  // namespace

std::vector<std::string> ObservationGapLines(const std::vector<incidents::ObservationGap>& gaps, TimePoint now,
                                             SaidGaps* said) {
  std::vector<std::string> messages;                    // in order of first appearance
  std::map<std::string, std::vector<std::string>> sources;  // message -> its sources
  for (const incidents::ObservationGap& g : gaps) {
    auto [it, fresh] = sources.try_emplace(g.message);
    if (fresh) messages.push_back(g.message);
    it->second.push_back(g.source);
  }
  std::vector<std::string> out;
  for (const std::string& message : messages) {
    const std::vector<std::string>& from = sources[message];
    std::string line = "observation gap " + from.front();
    if (from.size() > 1) {
      line += " and " + std::to_string(from.size() - 1) + " more (";
      for (size_t i = 1; i < from.size() && i <= kListed; ++i) line += (i > 1 ? ", " : "") + from[i];
      line += from.size() - 1 > kListed ? ", ...)" : ")";
    }
    if (said != nullptr) {
      auto earlier = said->said.find(message);
      if (earlier != said->said.end() && now - earlier->second.at < kSaidFor) {
        out.push_back(line + ": the same error as " + earlier->second.source);
        continue;
      }
      if (said->said.size() >= kMaxSaid) said->said.clear();
      said->said[message] = {from.front(), now};
    }
    out.push_back(line + ": " + message);
  }
  return out;
}

}  // namespace dw::workspace
