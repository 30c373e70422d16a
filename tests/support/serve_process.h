// Test support: `dw ... serve --listen 127.0.0.1:0 ...` as a child process. It reads the first
// line the server prints ("... http://127.0.0.1:PORT/mcp") for the port the kernel chose, and stops
// the server (SIGTERM, then waits for it) when destroyed.
#pragma once

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstddef>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/build_paths.h"

extern char** environ;

namespace dw::testing {

class ServeProcess {
 public:
  // Starts DW_BINARY with `args` (e.g. {"--workspace", DIR, "serve", "--listen", "127.0.0.1:0"}).
  // port() is 0 when the server did not print where it listens.
  explicit ServeProcess(std::vector<std::string> args) {
    args.insert(args.begin(), DW_BINARY);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int out[2];
    EXPECT_EQ(pipe(out), 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_addclose(&fa, out[0]);
    EXPECT_EQ(posix_spawn(&pid_, args[0].c_str(), &fa, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    close(out[1]);
    std::string line;
    char c;
    while (read(out[0], &c, 1) == 1 && c != '\n') line.push_back(c);
    close(out[0]);
    const size_t colon = line.rfind(':'), slash = line.rfind("/mcp");
    if (colon != std::string::npos && slash != std::string::npos && slash > colon)
      port_ = std::stoi(line.substr(colon + 1, slash - colon - 1));
  }
  ~ServeProcess() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      int status = 0;
      waitpid(pid_, &status, 0);
    }
  }
  ServeProcess(const ServeProcess&) = delete;
  ServeProcess& operator=(const ServeProcess&) = delete;

  int port() const { return port_; }

  // The server's peak resident set so far, in bytes (VmHWM in /proc/PID/status), or 0.
  size_t PeakRss() const {
    std::ifstream in("/proc/" + std::to_string(pid_) + "/status");
    std::string key;
    while (in >> key) {
      if (key == "VmHWM:") {
        size_t kb = 0;
        in >> kb;
        return kb * 1024;
      }
      std::string rest;
      std::getline(in, rest);
    }
    return 0;
  }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace dw::testing
