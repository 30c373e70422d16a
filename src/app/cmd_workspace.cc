// `dw init`, `dw validate`, `dw describe`: the workspace commands.
#include <fstream>
#include <iostream>
#include <system_error>

#include "app/command_start.h"
#include "app/commands.h"
#include "workspace/describe.h"
#include "workspace/services.h"
#include "config/inert_keys.h"
#include "config/workspace.h"
#include "platforms/notify/notify.h"

namespace dw::app {
namespace {

// 0 valid, 1 the file has errors (what validate checks), 2 there is no file to check (missing,
// unreadable): the convention of docs/cli.md.
int ValidateExitCode(const workspace::Services& services) {
  if (services.workspace_status().ok()) return 0;
  return services.config_errors().empty() ? 2 : 1;
}

}  // namespace

int CmdInit(const GlobalOptions&, const std::string& dir_arg, const std::string& name_arg) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path dir = fs::absolute(dir_arg, ec);
  fs::path file = dir / config::kWorkspaceFileName;
  if (fs::exists(file, ec)) {
    std::cerr << "dw init: " << file.string() << " already exists; nothing was changed\n";
    return 2;
  }
  fs::create_directories(dir, ec);
  if (ec) {
    std::cerr << "dw init: cannot create " << dir.string() << ": " << ec.message() << "\n";
    return 2;
  }
  std::string name = name_arg.empty() ? dir.filename().string() : name_arg;
  if (name.empty()) name = "workspace";
  // Write to a temporary file and rename, so a failure never leaves half a workspace file.
  fs::path tmp = dir / (std::string(config::kWorkspaceFileName) + ".tmp");
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << config::WorkspaceTemplate(name);
    out.close();
    if (!out) {
      std::cerr << "dw init: cannot write " << tmp.string() << "\n";
      fs::remove(tmp, ec);
      return 2;
    }
  }
  fs::rename(tmp, file, ec);
  if (ec) {
    std::cerr << "dw init: cannot create " << file.string() << ": " << ec.message() << "\n";
    fs::remove(tmp, ec);
    return 2;
  }
  std::cout << "created " << file.string() << "\n"
            << "next: edit it, then run `dw --workspace " << dir.string() << " validate`\n";
  return 0;
}

namespace {

// What `dw validate` warns about in a valid workspace: keys accepted but not acted on, and
// decisions whose requests would reach nobody.
std::vector<config::ConfigError> ValidateWarnings(const workspace::Services& services) {
  const std::filesystem::path file = services.dir() / config::kWorkspaceFileName;
  std::vector<config::ConfigError> out = config::InertKeyWarnings(file);
  for (const auto& [path, message] : platforms::notify::UnroutedDecisionWarnings(services.workspace()))
    out.push_back({file.string(), 0, 0, path, message});
  return out;
}

}  // namespace

int CmdValidate(const GlobalOptions& g, const std::string& format) {
  StartedCommand start = StartCommand(g, "validate", {.require_workspace = false});
  if (!start) return start.exit_code;
  const auto& services = start.services;
  const auto& st = services->workspace_status();
  if (format == "json") {
    Json out = {{"workspace", services->dir().string()}, {"valid", st.ok()}};
    Json errors = Json::array();
    for (const auto& e : services->config_errors())
      errors.push_back({{"file", e.file}, {"line", e.line}, {"column", e.column},
                        {"path", e.path}, {"message", e.message}});
    if (!st.ok() && services->config_errors().empty())
      errors.push_back({{"file", (services->dir() / config::kWorkspaceFileName).string()},
                        {"line", 0}, {"column", 0}, {"path", ""}, {"message", st.message()}});
    out["errors"] = errors;
    Json warnings = Json::array();
    if (st.ok())
      for (const auto& w : ValidateWarnings(*services))
        warnings.push_back({{"file", w.file}, {"line", w.line}, {"column", w.column},
                            {"path", w.path}, {"message", w.message}});
    out["warnings"] = warnings;
    std::cout << out.dump(2) << "\n";
    return ValidateExitCode(*services);
  }
  if (!st.ok()) {
    if (services->config_errors().empty()) {
      std::cerr << "dw validate: " << st.message() << "\n";
    } else {
      for (const auto& e : services->config_errors()) std::cerr << e.ToString() << "\n";
      std::cerr << services->config_errors().size() << " error(s) in "
                << (services->dir() / config::kWorkspaceFileName).string() << "\n";
    }
    return ValidateExitCode(*services);
  }
  const auto& ws = services->workspace();
  std::cout << "workspace " << ws.name << " is valid: " << ws.warehouses.size() << " warehouse(s), "
            << ws.platforms.size() << " platform(s), " << ws.domains.size() << " domain(s), "
            << ws.assets.size() << " asset(s), " << ws.checks.size() << " check block(s), "
            << ws.monitors.size() << " monitor(s)\n";
  for (const auto& w : ValidateWarnings(*services)) std::cerr << "warning: " << w.ToString() << "\n";
  return 0;
}

int CmdDescribe(const GlobalOptions& g, bool probe, const std::string& format) {
  StartedCommand start = StartCommand(g, "describe", {.require_workspace = false});
  if (!start) return start.exit_code;
  const auto& services = start.services;
  workspace::DescribeOptions options;
  options.probe = probe;
  auto d = workspace::DescribeWorkspace(*services, options);
  if (!d.ok()) {
    std::cerr << "dw describe: " << d.status().message() << "\n";
    return 2;
  }
  if (format == "json") {
    std::cout << d->dump(2) << "\n";
  } else {
    std::cout << workspace::DescribeAsText(*d);
  }
  return 0;
}

}  // namespace dw::app
