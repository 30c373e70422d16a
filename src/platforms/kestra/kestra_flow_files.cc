#include "platforms/kestra/kestra_flow_files.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

namespace dw::platforms::kestra {

namespace fs = std::filesystem;

Result<std::vector<fs::path>> FlowFilesIn(const fs::path& folder) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec))
    return NotFound("lineage.kestra_flows: " + folder.string() + " is not a folder");
  std::vector<fs::path> files;
  for (fs::recursive_directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string ext = it->path().extension().string();
    if (it->is_regular_file() && (ext == ".yml" || ext == ".yaml")) files.push_back(it->path());
  }
  if (ec) return Unavailable("lineage.kestra_flows: cannot list " + folder.string() + ": " + ec.message());
  std::sort(files.begin(), files.end());
  return files;
}

std::string FlowFolderInstance(const config::Workspace& ws) {
  for (const auto& [name, p] : ws.platforms)
    if (p.type == "kestra") return name;
  return "kestra";
}

Result<std::vector<std::string>> FlowIdsIn(const config::Workspace& ws) {
  if (ws.lineage.kestra_flows.empty()) return std::vector<std::string>();
  Result<std::vector<fs::path>> files = FlowFilesIn(ws.lineage.kestra_flows);
  if (!files.ok()) return files.status();
  std::set<std::string> ids;
  for (const fs::path& f : *files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) continue;
    std::ostringstream text;
    text << in.rdbuf();
    try {
      YAML::Node doc = YAML::Load(text.str());
      if (!doc.IsMap() || !doc["id"] || !doc["namespace"] || !doc["id"].IsScalar() || !doc["namespace"].IsScalar())
        continue;
      const std::string ns = doc["namespace"].as<std::string>(), id = doc["id"].as<std::string>();
      if (!ns.empty() && !id.empty()) ids.insert(ns + "." + id);
    } catch (const YAML::Exception&) {
      continue;
    }
  }
  return std::vector<std::string>(ids.begin(), ids.end());
}

}  // namespace dw::platforms::kestra
