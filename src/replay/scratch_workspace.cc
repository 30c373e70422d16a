#include "replay/scratch_workspace.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <system_error>

namespace dw::replay {

namespace fs = std::filesystem;

namespace {

// Points each notify channel that has a receiver at it and removes the others (and their routes).
void RewriteNotify(YAML::Node root, const std::map<std::string, std::string>& receivers, ScratchWorkspace* out) {
  YAML::Node notify = root["notify"];
  if (!notify || !notify.IsMap()) return;
  std::vector<std::string> drop;
  size_t kept = 0;
  for (auto it = notify.begin(); it != notify.end(); ++it) {
    std::string name = it->first.as<std::string>();
    if (name == "link" || name == "routes") continue;
    auto url = receivers.find(name);
    if (url == receivers.end()) {
      drop.push_back(name);
      continue;
    }
    ++kept;
    YAML::Node c = it->second;
    if (!c.IsMap()) continue;  // the loader names what is wrong with it
    const std::string& u = url->second;
    if (name == "slack") {
      if (c["webhook"]) c["webhook"] = u + "/services/dw-replay/slack";
      if (c["token"]) c["api_url"] = u + "/api";
    } else if (name == "teams") {
      c["webhook"] = u + "/workflows/dw-replay";
    } else if (name == "email") {
      c["smtp"] = u;
    } else {
      c["url"] = u;
    }
  }
  for (const auto& name : drop) notify.remove(name);
  out->channels_left_out = drop;
  if (kept == 0) {
    root.remove("notify");
    return;
  }
  if (YAML::Node routes = notify["routes"]; routes && routes.IsSequence() && !drop.empty()) {
    YAML::Node left(YAML::NodeType::Sequence);
    for (size_t i = 0; i < routes.size(); ++i) {
      YAML::Node route = routes[i];
      if (!route.IsMap() || !route["channels"] || !route["channels"].IsSequence()) {
        left.push_back(route);
        continue;
      }
      YAML::Node channels(YAML::NodeType::Sequence);
      for (size_t k = 0; k < route["channels"].size(); ++k)
        if (std::find(drop.begin(), drop.end(), route["channels"][k].as<std::string>()) == drop.end())
          channels.push_back(route["channels"][k]);
      if (channels.size() == 0) continue;
      route["channels"] = channels;
      left.push_back(route);
    }
    notify["routes"] = left;
  }
}

}  // namespace

Result<ScratchWorkspace> MakeScratchWorkspace(const fs::path& workspace, const fs::path& scratch,
                                              const std::map<std::string, std::string>& urls,
                                              const std::map<std::string, std::string>& receivers,
                                              const std::map<std::string, std::string>& declared_keys,
                                              const std::map<std::string, std::map<std::string, std::string>>& warehouse_settings) {
  ScratchWorkspace out;
  out.dir = scratch / "workspace";
  std::error_code ec;
  fs::create_directories(scratch, ec);
  if (ec) return Internal("cannot create the scratch folder " + scratch.string() + ": " + ec.message());
  // The store of an earlier run of the same workspace is not part of the story.
  fs::copy(workspace, out.dir, fs::copy_options::recursive, ec);
  if (ec) return Internal("cannot copy the workspace " + workspace.string() + " to " + out.dir.string() + ": " + ec.message());
  fs::remove_all(out.dir / ".dw", ec);
  fs::path file = out.dir / "dataworkers.yaml";
  try {
    YAML::Node root = YAML::LoadFile(file.string());
    if (YAML::Node platforms = root["platforms"]; platforms && platforms.IsMap()) {
      std::vector<std::string> drop;
      for (auto it = platforms.begin(); it != platforms.end(); ++it) {
        std::string name = it->first.as<std::string>();
        auto url = urls.find(name);
        if (url == urls.end()) drop.push_back(name);
        else if (it->second.IsMap()) it->second["url"] = url->second;
      }
      for (const auto& name : drop) platforms.remove(name);
      out.platforms_left_out = drop;
    }
    if (YAML::Node warehouses = root["warehouses"]; warehouses && warehouses.IsMap()) {
      for (auto it = warehouses.begin(); it != warehouses.end(); ++it) {
        const YAML::Node w = it->second;  // a copy: the iterator's value is a temporary
        if (!w.IsMap() || !w["path"] || !w["type"] || w["type"].as<std::string>() != "sqlite") continue;
        fs::path p(w["path"].as<std::string>());
        if (p.is_absolute() || p.lexically_normal().string().rfind("..", 0) == 0)
          return InvalidArgument(workspace.string() + "/dataworkers.yaml: warehouses." + it->first.as<std::string>() +
                                 ".path: the replay writes the world's rows into its warehouses, so a scenario's "
                                 "SQLite warehouse must be a path inside the workspace folder, got " + p.string());
      }
    }
    for (const auto& [name, settings] : warehouse_settings) {
      YAML::Node w = root["warehouses"][name];
      if (!w.IsMap()) return InvalidArgument(workspace.string() + "/dataworkers.yaml: warehouses." + name + ": not a mapping");
      for (const auto& [key, value] : settings) w[key] = value;
    }
    RewriteNotify(root, receivers, &out);
    // The replay's people decide with keys it issued them; the copy declares those keys beside any
    // the workspace declares, as a team does in its own file.
    for (const auto& [email, fingerprint] : declared_keys) {
      YAML::Node person = root["people"][email];
      if (!person.IsMap()) person = YAML::Node(YAML::NodeType::Map);
      person["keys"].push_back(fingerprint);
      root["people"][email] = person;
    }
    root["state"] = (scratch / "state.db").string();
    YAML::Emitter emit;
    emit << root;
    std::ofstream f(file, std::ios::trunc);
    f << "# A scratch copy made by dw replay (the original is " << (workspace / "dataworkers.yaml").string() << ").\n"
      << emit.c_str() << "\n";
    if (!f) return Internal("cannot write " + file.string());
  } catch (const YAML::Exception& e) {
    return InvalidArgument(workspace.string() + "/dataworkers.yaml:" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  return out;
}

}  // namespace dw::replay
