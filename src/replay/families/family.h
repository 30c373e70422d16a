// Scenario families: generators of scenarios (SCENARIOS.md format) that vary one kind of incident,
// or one benign story, from a seed: times, volumes, noise, lineage shapes, distractor changes and
// the platforms involved. The expected verdict of a variant comes from what the generator planted,
// never from what the product concludes. `dw replay --family NAME --seed N --count K` writes them
// and replays them (docs/scenarios.md, Families).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "replay/replay.h"

namespace dw::replay::families {

struct ExpectedCause {
  std::vector<std::string> kinds;  // any of them is the planted change (facets of one change)
  std::string asset;
};

// One variant as the generator built it.
struct Story {
  std::string family;
  uint64_t seed = 0;
  bool benign = false;
  std::string name;           // the scenario's name: <family>-s<seed>
  std::string damaged_asset;  // incident variants: the asset the planted cause damages
  ExpectedCause cause;        // incident variants: the planted change
  std::optional<TimePoint> first_bad_write;  // incident variants: when the damage first landed
  std::vector<std::string> distractors;      // the distractor changes, in words
  std::string shape;                         // lineage depth/fan-out, volumes, platforms, in words
  std::map<std::string, std::string> files;  // path in the folder -> content (scenario.yaml, ...)
};

struct Family {
  std::string name;
  bool benign = false;
  std::string summary;  // one line: what the family plants
  // Builds the variant of `seed`; fails naming the story constraint that broke.
  std::function<Result<Story>(uint64_t seed)> generate;
};

// Every family, incident kinds first and the most common first, then the benign ones.
const std::vector<Family>& Families();
// The family of that name, or nullptr.
const Family* FindFamily(const std::string& name);

inline constexpr int kMaxCount = 1000;
// Seeds are written into family.json and scenario names; they must stay exact as JSON numbers.
inline constexpr uint64_t kMaxSeed = (uint64_t{1} << 53) - 1;

// The `count` variants of `family` for seeds seed..seed+count-1. kInvalidArgument naming what is
// wrong: an unknown family (listing the names), a count outside 1..kMaxCount, a last seed above
// kMaxSeed, or a variant whose story breaks a constraint (the seed and the constraint named).
Result<std::vector<Story>> GenerateFamily(const std::string& family, uint64_t seed, int count);

// Writes the story's files under `dir` (created; must not already hold a scenario.yaml).
Status WriteStory(const Story& story, const std::filesystem::path& dir);

// ---- What a replayed variant concluded, judged against what was planted. ----

enum class Outcome {
  kFirst,               // the planted cause ranked first
  kTop3,                // ranked second or third
  kRankedLower,         // ranked fourth or lower
  kNotAmongCandidates,  // an incident on the asset, but the planted cause is not a candidate at all
  kMissed,              // no incident on the damaged asset
  kQuiet,               // benign: no incident
  kIncidentOnBenign,    // benign: an incident opened
  kReplayFailed,        // the replay itself could not run
};
const char* OutcomeName(Outcome o);

struct VariantVerdict {
  std::string name;
  std::string family;
  bool benign = false;
  Outcome outcome = Outcome::kReplayFailed;
  int rank = 0;                         // of the planted cause (0: not ranked)
  std::optional<double> delay_minutes;  // incident opened − first bad write
  std::string detail;                   // what was seen
  int64_t wall_ms = 0;
  // The variant's other expectations (e.g. that a benign restore was seen at all) that failed.
  std::vector<std::string> other_failures;
};

// Judges a replay of `story` by its incident (or no_incident) verdict.
VariantVerdict Judge(const Story& story, const ReplayReport& report);
// The verdict when the replay could not run.
VariantVerdict ReplayFailed(const Story& story, const std::string& why);

// The per-variant lines and the summary (right cause first %, top 3 %, not among candidates,
// missed, incidents on benign variants, detection delay per family).
std::string SummaryText(const std::vector<VariantVerdict>& verdicts);
Json SummaryJson(const std::vector<VariantVerdict>& verdicts);

}  // namespace dw::replay::families

namespace dw::replay::families {

// Writes each story into `out`/<story.name> and, when `options` is given, replays it from that
// folder exactly as `dw replay DIR` would (ReadScenario, Replay) and judges it; `each` hears every
// verdict as it is made. A variant whose replay cannot run is a kReplayFailed verdict, not an
// error; a folder that cannot be written is.
Result<std::vector<VariantVerdict>> WriteAndReplay(const std::vector<Story>& stories, const std::filesystem::path& out,
                                                   const ReplayOptions* options,
                                                   const std::function<void(const VariantVerdict&)>& each);

}  // namespace dw::replay::families
