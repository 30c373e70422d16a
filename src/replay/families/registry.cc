// The family registry, generation with its bounds, and writing a variant's folder.
#include <fstream>
#include <system_error>

#include "replay/families/families_list.h"

namespace dw::replay::families {

const std::vector<Family>& Families() {
  // Incident kinds first, the most common first; then the benign stories.
  static const std::vector<Family> kFamilies = {
      {"connect-sink-task-failed", false, "one task of a sink connector fails; its partition stops landing", ConnectSinkTaskFailed},
      {"kestra-replay-duplicates", false, "a replayed Kestra load appends the same rows again", KestraReplayDuplicates},
      {"kestra-load-stops", false, "the loader's schedule trigger is disabled; the loads stop (freshness)", KestraLoadStops},
      {"kestra-revision-nulls-column", false, "a flow revision maps a renamed upstream field; a column lands NULL", KestraRevisionNullsColumn},
      {"dbt-logic-change", false, "a dbt model's logic changes and its rebuilt output moves", DbtLogicChange},
      {"connect-failover-duplicates", false, "a worker is lost; the at-least-once sink lands rows again after failover", ConnectFailoverDuplicates},
      {"kestra-unit-change", false, "a flow revision writes amounts in cents where the table holds euros", KestraUnitChange},
      {"kestra-timezone-shift", false, "a flow revision stamps landed_at in a local zone's wall time labelled UTC; rows land hours early or late", KestraTimezoneShift},
      {"kestra-backfill-overwrites", false, "a backfill of the loader's schedule reloads past slots from a truncated staging table; good rows are overwritten by fewer", KestraBackfillOverwrites},
      {"dbt-type-change", false, "a dbt model change changes one column's type; the rebuild lands it with the same rows", DbtTypeChange},
      {"kestra-orphaned-keys", false, "the customers loader's revision keeps only active customers; orders point at customers that are gone", KestraOrphanedKeys},
      {"flink-restore-skips-state", false, "a release starts from the savepoint with allowNonRestoredState and skips the aggregate's state; totals restart from zero", FlinkRestoreSkipsState},
      {"monday-rush", true, "the Monday-morning rush, as every Monday of the history", MondayRush},
      {"dbt-unchanged-output", true, "a dbt refactor moves the model's checksum, not its rows", DbtUnchangedOutput},
      {"flink-restore-keeps-state", true, "a release restores the aggregate's state; at most empty state is skipped", FlinkRestoreKeepsState},
      {"kestra-backfill-same-rows", true, "a backfill of the loader's schedule reloads past slots with the rows they held", KestraBackfillSameRows},
      {"flink-checkpoint-restart", true, "a TaskManager is lost and the job restarts from its latest checkpoint, state intact", FlinkCheckpointRestart},
  };
  return kFamilies;
}

const Family* FindFamily(const std::string& name) {
  for (const auto& f : Families())
    if (f.name == name) return &f;
  return nullptr;
}

Result<std::vector<Story>> GenerateFamily(const std::string& name, uint64_t seed, int count) {
  const Family* family = FindFamily(name);
  if (!family) {
    std::string names;
    for (const auto& f : Families()) names += (names.empty() ? "" : ", ") + f.name;
    return InvalidArgument("--family: no family '" + name + "' (the families are: " + names + ")");
  }
  if (count < 1 || count > kMaxCount)
    return InvalidArgument("--count: " + std::to_string(count) + " is outside 1.." + std::to_string(kMaxCount));
  if (seed > kMaxSeed || static_cast<uint64_t>(count - 1) > kMaxSeed - seed)
    return InvalidArgument("--seed: the variants' seeds " + std::to_string(seed) + ".." + std::to_string(seed) + "+" +
                           std::to_string(count - 1) + " must stay at or below " + std::to_string(kMaxSeed) +
                           " (seeds are written as exact JSON numbers in family.json)");
  std::vector<Story> out;
  for (int i = 0; i < count; ++i) {
    auto story = family->generate(seed + static_cast<uint64_t>(i));
    if (!story.ok()) return story.status();
    out.push_back(std::move(story).value());
  }
  return out;
}

Status WriteStory(const Story& story, const std::filesystem::path& dir) {
  std::error_code ec;
  if (std::filesystem::exists(dir / "scenario.yaml", ec))
    return FailedPrecondition(dir.string() + " already holds a scenario.yaml; give a new folder");
  for (const auto& [path, text] : story.files) {
    std::filesystem::path to = dir / path;
    std::filesystem::create_directories(to.parent_path(), ec);
    if (ec) return Internal("cannot create " + to.parent_path().string() + ": " + ec.message());
    std::ofstream out(to, std::ios::binary);
    out << text;
    if (!out) return Internal("cannot write " + to.string());
  }
  return Status::Ok();
}

}  // namespace dw::replay::families
