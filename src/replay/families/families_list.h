// The family generators (one file each) and the pieces two Connect families share. Internal to
// replay/families; the registry (registry.cc) is the public way in.
#pragma once

#include "replay/families/loaders.h"

namespace dw::replay::families {

Result<Story> KestraReplayDuplicates(uint64_t seed);
Result<Story> ConnectSinkTaskFailed(uint64_t seed);
Result<Story> KestraRevisionNullsColumn(uint64_t seed);
Result<Story> KestraLoadStops(uint64_t seed);
Result<Story> KestraUnitChange(uint64_t seed);
Result<Story> ConnectFailoverDuplicates(uint64_t seed);
Result<Story> DbtLogicChange(uint64_t seed);
Result<Story> MondayRush(uint64_t seed);
Result<Story> DbtUnchangedOutput(uint64_t seed);
Result<Story> FlinkRestoreSkipsState(uint64_t seed);
Result<Story> FlinkRestoreKeepsState(uint64_t seed);
Result<Story> FlinkCheckpointRestart(uint64_t seed);
Result<Story> KestraTimezoneShift(uint64_t seed);
Result<Story> KestraBackfillOverwrites(uint64_t seed);
Result<Story> KestraBackfillSameRows(uint64_t seed);
Result<Story> DbtTypeChange(uint64_t seed);
Result<Story> KestraOrphanedKeys(uint64_t seed);

// A sink connector's dw-sim entry, every task RUNNING since `since`.
Json SinkConnector(const SinkStream& s, const std::string& topic, const std::string& cls, TimePoint since);
// A Connect task's stack trace whose last "Caused by:" is `root`.
std::string TaskTrace(const std::string& root);
extern const std::vector<std::string> kSinkClasses;

}  // namespace dw::replay::families
