// The workspace's folder of Kestra flow YAML (lineage.kestra_flows): which files it holds and which
// flows they declare. The graph reads the files for lineage, the change collector watches the
// flows they declare, and drafting finds a flow's file to change: one listing for all three.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "base/status.h"
#include "config/workspace.h"

namespace dw::platforms::kestra {

// Every *.yml and *.yaml file under `folder`, recursively, in path order. kNotFound when `folder`
// is not a folder, kUnavailable when it cannot be listed; both name the folder.
Result<std::vector<std::filesystem::path>> FlowFilesIn(const std::filesystem::path& folder);

// The Kestra platform the folder's flows run on: the first platform of type kestra in the
// workspace, or "kestra" when there is none (the name their kestra:// assets carry).
std::string FlowFolderInstance(const config::Workspace& ws);

// "namespace.id" of every flow declared in the folder, sorted, each once. Files that are not
// YAML or do not declare a flow (no id or namespace) are skipped: the graph's ingest reports
// them with their line. Empty when the workspace names no folder; the listing's error otherwise.
Result<std::vector<std::string>> FlowIdsIn(const config::Workspace& ws);

}  // namespace dw::platforms::kestra
