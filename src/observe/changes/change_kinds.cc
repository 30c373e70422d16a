#include "observe/changes/change_kinds.h"

#include <algorithm>
#include <cctype>

namespace dw::observe::changes {

const std::vector<std::string>& AllChangeKinds() {
  static const std::vector<std::string> kinds = {
      kDeploy,        kRestore,       kRestoreSkippedState, kStateTransition,
      kException,     kExecution,     kExecutionReplay,     kFlowRevision,
      kTriggerToggled, kConnectorState, kSchemaVersion,     kModelChange,
      kWarehouseWrite, kConfigRisk,   kPlatformUnreachable};
  return kinds;
}

bool IsChangeKind(std::string_view kind) {
  const auto& k = AllChangeKinds();
  return std::find(k.begin(), k.end(), kind) != k.end();
}

std::string AssetKindOf(std::string_view type) {
  if (type == "kafka-connect") return "connect";
  if (type == "schema-registry") return "subject";
  return std::string(type);
}

std::string AssetIdFor(std::string_view type, std::string_view platform, std::string_view name) {
  std::string n(name);
  for (char& c : n)
    if (std::isspace(static_cast<unsigned char>(c)) || c == '/') c = '_';
  if (n.empty()) n = "_";
  return AssetKindOf(type) + "://" + std::string(platform) + "/" + n;
}

std::string PlatformAssetId(std::string_view type, std::string_view platform) {
  return AssetIdFor(type, platform, "_platform.all");
}

}  // namespace dw::observe::changes
