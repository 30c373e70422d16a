#include "replay/simulator_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "base/json.h"

extern char** environ;

namespace dw::replay {

SimulatorProcess::~SimulatorProcess() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    // Give it a moment to go; then make sure (a simulator holds no state worth a graceful end).
    for (int i = 0; i < 50; ++i) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
  }
  if (out_fd_ >= 0) ::close(out_fd_);
}

Result<std::unique_ptr<SimulatorProcess>> SimulatorProcess::Start(const std::filesystem::path& binary,
                                                                  const std::string& platform,
                                                                  const std::filesystem::path& script) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(binary, ec))
    return Unavailable("the simulator binary dw-sim is not at " + binary.string() +
                       "; build it beside dw (ninja dw-sim)");
  int out[2];
  if (::pipe(out) != 0) return Unavailable("cannot create a pipe for dw-sim");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  std::vector<std::string> args = {binary.string(), platform, "--listen", "127.0.0.1:0", "--script", script.string()};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  auto sim = std::unique_ptr<SimulatorProcess>(new SimulatorProcess());
  sim->out_fd_ = out[0];
  if (rc != 0) return Unavailable("cannot start " + binary.string() + ": " + std::strerror(rc));
  sim->pid_ = pid;
  // dw-sim prints "dw-sim PLATFORM listening on http://127.0.0.1:PORT" once it accepts.
  std::string said;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{sim->out_fd_, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    char buf[512];
    ssize_t n = ::read(sim->out_fd_, buf, sizeof buf);
    if (n <= 0) break;  // it exited
    said.append(buf, static_cast<size_t>(n));
    auto at = said.find("listening on ");
    auto nl = at == std::string::npos ? std::string::npos : said.find('\n', at);
    if (nl != std::string::npos) {
      sim->url_ = said.substr(at + 13, nl - at - 13);
      // Further output is read by TakeOutput (platform simulators write only at start-up and on a
      // fatal error; the SMTP receiver writes one line per message).
      sim->pending_output_ = said.substr(nl + 1);
      return sim;
    }
  }
  while (!said.empty() && said.back() == '\n') said.pop_back();
  return Unavailable("dw-sim " + platform + " did not start from " + script.string() +
                     (said.empty() ? std::string(" (it said nothing)") : ": " + said));
}

std::string SimulatorProcess::TakeOutput() {
  std::string out = std::move(pending_output_);
  pending_output_.clear();
  for (;;) {
    pollfd p{out_fd_, POLLIN, 0};
    if (::poll(&p, 1, 0) <= 0 || !(p.revents & POLLIN)) break;
    char buf[4096];
    ssize_t n = ::read(out_fd_, buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

Status SimulatorProcess::SetClock(net::HttpClient& http, TimePoint t) const {
  net::HttpRequest req;
  req.method = "POST";
  req.url = url_ + "/_sim/clock";
  req.headers = {{"Content-Type", "application/json"}};
  req.body = Json{{"now", FormatRfc3339(t)}}.dump();
  auto res = http.Send(req);
  if (!res.ok()) return res.status();
  if (res->status != 200)
    return Unavailable("the simulator at " + url_ + " refused the clock: HTTP " + std::to_string(res->status) + " " + res->body);
  return Status::Ok();
}

}  // namespace dw::replay
