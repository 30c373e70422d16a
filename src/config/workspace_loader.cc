// LoadWorkspace: read the file, parse YAML, validate against the schema, build the Workspace.
// Each step reports into one error list so the user sees every problem in one run.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <tuple>

#include <yaml-cpp/yaml.h>

#include "config/env_substitution.h"
#include "config/schema_validator.h"
#include "config/workspace.h"
#include "config/workspace_builder.h"
#include "config/workspace_schema.h"
#include "config/yaml_budget.h"
#include "config/yaml_documents.h"

namespace dw::config {
namespace {

namespace fs = std::filesystem;

ConfigError FileError(const std::string& file, int line, int column, std::string message) {
  ConfigError e;
  e.file = file;
  e.line = line;
  e.column = column;
  e.message = std::move(message);
  return e;
}

// An absolute, normalized folder path without a trailing separator.
fs::path AbsoluteDir(const fs::path& dir) {
  std::error_code ec;
  fs::path abs = fs::absolute(dir.empty() ? fs::path(".") : dir, ec);
  if (ec) abs = dir;
  abs = abs.lexically_normal();
  if (abs.has_relative_path() && abs.filename().empty()) abs = abs.parent_path();
  return abs;
}

LoadResult Fail(ConfigError e) {
  LoadResult r;
  r.errors.push_back(std::move(e));
  return r;
}

LoadResult Load(const fs::path& dir_in, const EnvLookup& env) {
  const fs::path dir = AbsoluteDir(dir_in);
  const fs::path file_path = dir / kWorkspaceFileName;
  const std::string file = file_path.string();
  const std::string init_hint = "; run `dw init " + dir.string() + "` to create one";
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return Fail(FileError(file, 0, 0, "the workspace folder " + dir.string() + " does not exist" + init_hint));
  if (!fs::exists(file_path, ec))
    return Fail(FileError(file, 0, 0, "no workspace file here" + init_hint));
  std::ifstream in(file_path, std::ios::binary);
  if (!in) return Fail(FileError(file, 0, 0, "cannot read the workspace file (check its permissions)"));
  std::stringstream buffer;
  buffer << in.rdbuf();

  YAML::Node root;
  try {
    std::vector<YAML::Node> documents = LoadYamlDocuments(buffer.str());
    if (documents.size() > 1)
      return Fail(FileError(file, documents[1].Mark().line + 1, 1,
                            "the workspace file holds " + std::to_string(documents.size()) +
                                " YAML documents (separated by ---); keep one"));
    if (!documents.empty()) root = documents[0];
  } catch (const YAML::Exception& e) {
    return Fail(FileError(file, e.mark.is_null() ? 0 : e.mark.line + 1,
                          e.mark.is_null() ? 0 : e.mark.column + 1, "YAML syntax error: " + e.msg));
  }
  if (!root || root.IsNull())
    return Fail(FileError(file, 0, 0, "the workspace file is empty" + init_hint));
  if (!root.IsMap())
    return Fail(FileError(file, root.Mark().line + 1, root.Mark().column + 1,
                          "the workspace file must be a mapping of keys (version: 1, name: ...)"));

  if (!YamlWithinNodeBudget(root))
    return Fail(FileError(file, 0, 0,
                          "the workspace file expands to more than " + std::to_string(kMaxYamlNodes) +
                              " YAML nodes once its aliases (*name) are followed; write the repeated parts out "
                              "or use fewer aliases"));

  LoadResult result;
  PositionMap positions;
  SchemaValidator validator(file, env, &result.errors, &positions);
  Json doc = validator.Validate(root, WorkspaceSchema(), "");
  Workspace ws = BuildWorkspace(doc, positions, dir, file, &result.errors);
  // Errors come from several passes; sort so they read top to bottom like the file.
  std::stable_sort(result.errors.begin(), result.errors.end(),
                   [](const ConfigError& a, const ConfigError& b) {
                     return std::tie(a.line, a.column) < std::tie(b.line, b.column);
                   });
  if (result.errors.empty()) result.workspace = std::move(ws);
  return result;
}

}  // namespace

std::string ConfigError::ToString() const {
  std::string out = file;
  if (line > 0) out += ":" + std::to_string(line) + ":" + std::to_string(column);
  if (!path.empty()) out += ": " + path;
  return out + ": " + message;
}

std::string LoadResult::ErrorText() const {
  std::string out;
  for (const auto& e : errors) out += e.ToString() + "\n";
  return out;
}

LoadResult LoadWorkspace(const fs::path& dir) { return LoadWorkspace(dir, ProcessEnv()); }

LoadResult LoadWorkspace(const fs::path& dir,
                         const std::function<std::optional<std::string>(const std::string&)>& env) {
  // Nothing may escape: a bad file must come back as errors, never as an exception.
  try {
    return Load(dir, env ? env : ProcessEnv());
  } catch (const std::exception& e) {
    return Fail(FileError((AbsoluteDir(dir) / kWorkspaceFileName).string(), 0, 0,
                          std::string("internal error while loading the workspace: ") + e.what()));
  }
}

fs::path ResolveWorkspaceDir(const std::string& flag) {
  if (!flag.empty()) return AbsoluteDir(flag);
  const char* env = std::getenv("DW_WORKSPACE");
  if (env != nullptr && *env != '\0') return AbsoluteDir(env);
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  return AbsoluteDir(ec ? fs::path(".") : cwd);
}

}  // namespace dw::config
