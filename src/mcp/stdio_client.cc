#include "mcp/stdio_client.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace dw::mcp {

StdioClient::~StdioClient() { Stop(); }

Status StdioClient::Start(const std::vector<std::string>& argv, bool quiet) {
  if (argv.empty()) return InvalidArgument("no program to start");
  int in_pipe[2], out_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) != 0) return Internal(std::string("pipe: ") + strerror(errno));
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    close(in_pipe[0]);
    close(in_pipe[1]);
    return Internal(std::string("pipe: ") + strerror(errno));
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = fork();
  if (pid < 0) return Internal(std::string("fork: ") + strerror(errno));
  if (pid == 0) {
    dup2(in_pipe[0], 0);
    dup2(out_pipe[1], 1);
    if (quiet) {
      int devnull = open("/dev/null", O_WRONLY);
      if (devnull >= 0) dup2(devnull, 2);
    }
    execv(args[0], args.data());
    _exit(127);
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  pid_ = pid;
  to_child_ = in_pipe[1];
  from_child_ = out_pipe[0];
  return Status::Ok();
}

Status StdioClient::WriteLine(const std::string& line) {
  if (to_child_ < 0) return FailedPrecondition("server not started");
  std::string data = line + "\n";
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = write(to_child_, data.data() + off, data.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Unavailable(std::string("write to server: ") + strerror(errno));
    }
    off += static_cast<size_t>(n);
  }
  return Status::Ok();
}

Result<std::string> StdioClient::ReadLine(std::chrono::steady_clock::time_point deadline) {
  while (true) {
    auto nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return line;
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return DeadlineExceeded("no answer from the server in time");
    pollfd pfd{from_child_, POLLIN, 0};
    int rc = poll(&pfd, 1, static_cast<int>(left.count()));
    if (rc < 0 && errno == EINTR) continue;
    if (rc <= 0) continue;
    char buf[65536];
    ssize_t n = read(from_child_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Unavailable("the server closed its output");
    buffer_.append(buf, static_cast<size_t>(n));
  }
}

Result<Json> StdioClient::Call(const std::string& method, const Json& params,
                               std::chrono::milliseconds timeout, std::vector<Json>* notifications) {
  long id = next_id_++;
  Json req = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}};
  DW_RETURN_IF_ERROR(WriteLine(req.dump()));
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    auto line = ReadLine(deadline);
    if (!line.ok()) return line.status();
    Json msg = Json::parse(*line, nullptr, false);
    if (msg.is_discarded()) return Internal("the server wrote a line that is not JSON: " + *line);
    if (msg.contains("id") && msg["id"] == id && !msg.contains("method")) return msg;
    if (notifications) notifications->push_back(std::move(msg));
  }
}

Status StdioClient::Notify(const std::string& method, const Json& params) {
  Json n = {{"jsonrpc", "2.0"}, {"method", method}, {"params", params}};
  return WriteLine(n.dump());
}

Result<Json> StdioClient::Initialize(const std::string& client_name,
                                     std::chrono::milliseconds timeout) {
  Json params = {{"protocolVersion", "2025-11-25"},
                 {"capabilities", Json::object()},
                 {"clientInfo", {{"name", client_name}, {"version", DW_VERSION}}}};
  auto resp = Call("initialize", params, timeout);
  if (!resp.ok()) return resp.status();
  if (!resp->contains("result"))
    return Internal("initialize failed: " + resp->dump());
  DW_RETURN_IF_ERROR(Notify("notifications/initialized", Json::object()));
  return (*resp)["result"];
}

int StdioClient::Stop() {
  if (to_child_ >= 0) {
    close(to_child_);
    to_child_ = -1;
  }
  int status = 0;
  if (pid_ > 0) {
    // Give the server a moment to exit on EOF; a server that ignores EOF is killed.
    for (int i = 0; i < 200; ++i) {
      pid_t r = waitpid(pid_, &status, WNOHANG);
      if (r == pid_) break;
      if (i == 199) {
        kill(pid_, SIGKILL);
        waitpid(pid_, &status, 0);
      }
      usleep(10000);
    }
    pid_ = -1;
  }
  if (from_child_ >= 0) {
    close(from_child_);
    from_child_ = -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace dw::mcp
