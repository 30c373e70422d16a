#include "config/inert_keys.h"

#include <algorithm>
#include <tuple>

#include <yaml-cpp/yaml.h>

namespace dw::config {
namespace {

std::vector<std::string> Split(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t dot = path.find('.'); ; dot = path.find('.', start)) {
    parts.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts;
}

// Appends a warning for every key under `node` matching `parts[i..]`.
void Match(const YAML::Node& node, const std::vector<std::string>& parts, size_t i,
           const std::string& prefix, const InertKey& key, const std::string& file,
           std::vector<ConfigError>* out) {
  if (!node.IsMap()) return;
  for (const auto& kv : node) {
    const std::string name = kv.first.as<std::string>("");
    if (parts[i] != "*" && parts[i] != name) continue;
    const std::string path = prefix.empty() ? name : prefix + "." + name;
    if (i + 1 < parts.size()) {
      Match(kv.second, parts, i + 1, path, key, file, out);
      continue;
    }
    ConfigError w;
    w.file = file;
    w.line = kv.first.Mark().line + 1;
    w.column = kv.first.Mark().column + 1;
    w.path = path;
    w.message = "accepted but not acted on: " + key.not_built;
    out->push_back(std::move(w));
  }
}

}  // namespace

const std::vector<InertKey>& InertKeys() {
  // Empty: every key the schema accepts is acted on in this build. A key that is accepted before
  // its feature lands is listed here with what is missing, so validate says so at its line.
  static const std::vector<InertKey> keys = {};
  return keys;
}

std::vector<ConfigError> InertKeyWarnings(const std::filesystem::path& file) {
  std::vector<ConfigError> out;
  try {
    YAML::Node root = YAML::LoadFile(file.string());
    for (const InertKey& key : InertKeys()) Match(root, Split(key.path), 0, "", key, file.string(), &out);
  } catch (const YAML::Exception&) {
    return {};  // LoadWorkspace reports the file's problems
  }
  std::stable_sort(out.begin(), out.end(), [](const ConfigError& a, const ConfigError& b) {
    return std::tie(a.line, a.column) < std::tie(b.line, b.column);
  });
  return out;
}

}  // namespace dw::config
