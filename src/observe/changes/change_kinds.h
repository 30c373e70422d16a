// The kinds of change event the collectors write, and the asset id helpers they share.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dw::observe::changes {

inline constexpr const char* kDeploy = "deploy";                  // a new run of a job started
inline constexpr const char* kRestore = "restore";                // a job restored a checkpoint/savepoint
inline constexpr const char* kRestoreSkippedState = "restore_skipped_state";  // ... and dropped state
inline constexpr const char* kStateTransition = "state_transition";  // a job's status changed
inline constexpr const char* kException = "exception";
inline constexpr const char* kExecution = "execution";            // a Kestra execution ended
inline constexpr const char* kExecutionReplay = "execution_replay";  // ... and it replayed an earlier one
inline constexpr const char* kFlowRevision = "flow_revision";
inline constexpr const char* kTriggerToggled = "trigger_toggled";
inline constexpr const char* kConnectorState = "connector_state";
inline constexpr const char* kSchemaVersion = "schema_version";
inline constexpr const char* kModelChange = "model_change";      // a dbt model's compiled code changed
inline constexpr const char* kWarehouseWrite = "warehouse_write";  // a statement wrote a table (warehouse history)
inline constexpr const char* kConfigRisk = "config_risk";
inline constexpr const char* kPlatformUnreachable = "platform_unreachable";

// Every kind above, in documentation order.
const std::vector<std::string>& AllChangeKinds();
// True iff `kind` is one of AllChangeKinds().
bool IsChangeKind(std::string_view kind);

// The asset kind a platform type's assets have: flink -> flink, kestra -> kestra,
// kafka-connect -> connect, schema-registry -> subject.
std::string AssetKindOf(std::string_view platform_type);

// "<asset kind>://<platform>/<name>", with whitespace and '/' in `name` replaced by '_' so the id
// stays canonical.
std::string AssetIdFor(std::string_view platform_type, std::string_view platform,
                       std::string_view name);

// The id that stands for a whole platform in platform-level observations (platform_unreachable):
// "<asset kind>://<platform>/_platform.all" (canonical for every kind, Kestra's namespace.flow too).
std::string PlatformAssetId(std::string_view platform_type, std::string_view platform);

}  // namespace dw::observe::changes
