// Helpers for workspace tests: a throwaway workspace folder, a fake environment, and a matcher
// that finds one reported error by its key path.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "config/workspace.h"

namespace dw::config::testing {

// A fresh folder under the system temp dir, removed when the object dies.
class TempWorkspace {
 public:
  TempWorkspace() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "dw-config-XXXXXX").string();
    dir_ = mkdtemp(tmpl.data());
  }
  ~TempWorkspace() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  TempWorkspace(const TempWorkspace&) = delete;
  TempWorkspace& operator=(const TempWorkspace&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  std::string file() const { return (dir_ / kWorkspaceFileName).string(); }

  // Writes `yaml` as dataworkers.yaml and loads it with `env` as the whole environment.
  LoadResult Load(const std::string& yaml, std::map<std::string, std::string> env = {}) {
    std::ofstream(dir_ / kWorkspaceFileName) << yaml;
    return LoadWorkspace(dir_, [env](const std::string& name) -> std::optional<std::string> {
      auto it = env.find(name);
      if (it == env.end()) return std::nullopt;
      return it->second;
    });
  }

 private:
  std::filesystem::path dir_;
};

// The smallest valid workspace; tests append sections to it. Lines 1-4.
inline const char* kMinimal =
    "version: 1\n"
    "name: test\n"
    "warehouses:\n"
    "  main: {type: sqlite, path: warehouse.db}\n";

// Asserts that `result` reports an error at `path` on `line` whose message contains `message`.
inline void ExpectError(const LoadResult& result, const std::string& path, int line,
                        const std::string& message) {
  for (const auto& e : result.errors) {
    if (e.path != path) continue;
    EXPECT_EQ(e.line, line) << e.ToString();
    EXPECT_NE(e.message.find(message), std::string::npos)
        << "message: " << e.message << "\nexpected to contain: " << message;
    EXPECT_FALSE(result.workspace.has_value());
    return;
  }
  ADD_FAILURE() << "no error at path '" << path << "'; got:\n" << result.ErrorText();
}

}  // namespace dw::config::testing
