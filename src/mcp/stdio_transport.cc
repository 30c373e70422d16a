#include "mcp/stdio_transport.h"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <string>
#include <string_view>

#include "base/log.h"
#include "mcp/jsonrpc.h"
#include "net/worker_pool.h"

namespace dw::mcp {
namespace {

constexpr size_t kMaxRunningCalls = 16;
// Calls admitted at once, running or queued; beyond it a request is answered "server busy" so a
// flooding client cannot grow the queue without bound.
constexpr size_t kMaxAdmittedCalls = 64;
// At end of input, how long in-flight calls may finish (and answer) before they are cancelled.
constexpr auto kDrainGrace = std::chrono::seconds(2);
constexpr size_t kReadChunk = 64 * 1024;

// Waits until `fd` is ready for `events`; false on an error other than EINTR.
bool WaitFor(int fd, short events) {
  pollfd p{fd, events, 0};
  for (;;) {
    int r = poll(&p, 1, -1);
    if (r > 0) return true;
    if (r < 0 && errno != EINTR) return false;
  }
}

// Writes messages to a descriptor, one JSON text per line; a write error marks it broken for good.
class FdSink final : public MessageSink {
 public:
  explicit FdSink(int fd) : fd_(fd) {}

  void Send(const Json& message) override {
    // Replace, do not throw, on invalid UTF-8 a tool may have put in its output.
    std::string line = message.dump(-1, ' ', false, Json::error_handler_t::replace);
    line += '\n';
    std::lock_guard lock(mu_);
    if (broken_) return;
    if (!WriteAll(line)) {
      broken_ = true;
      spdlog::warn("stdio: output closed ({}); stopping", std::strerror(errno));
    }
  }

  bool broken() const { return broken_; }

 private:
  bool WriteAll(std::string_view data) {
    while (!data.empty()) {
      ssize_t n = write(fd_, data.data(), data.size());
      if (n > 0) {
        data.remove_prefix(static_cast<size_t>(n));
      } else if (n < 0 && errno == EAGAIN) {
        if (!WaitFor(fd_, POLLOUT)) return false;
      } else if (!(n < 0 && errno == EINTR)) {
        return false;
      }
    }
    return true;
  }

  const int fd_;
  std::mutex mu_;
  std::atomic<bool> broken_{false};
};

// True for requests that run catalog code, which may block for a long time.
bool RunsCatalogCode(const Json& message) {
  auto method = message.find("method");
  if (method == message.end() || !method->is_string() || !message.contains("id")) return false;
  const std::string& m = method->get_ref<const std::string&>();
  return m == "tools/call" || m == "resources/read" || m == "prompts/get" || m == "completion/complete";
}

class StdioServer {
 public:
  StdioServer(std::shared_ptr<const Catalog> catalog, const ServerInfo& info, const Limits& limits,
              int in_fd, int out_fd)
      : limits_(limits),
        in_fd_(in_fd),
        sink_(std::make_shared<FdSink>(out_fd)),
        session_(std::move(catalog), info, limits),
        pool_(1, kMaxRunningCalls, std::chrono::seconds(30)) {
    session_.SetSessionSink(sink_);
  }

  int Run() {
    ReadUntilEnd();
    Drain();
    return 0;
  }

 private:
  void ReadUntilEnd() {
    std::string buf(kReadChunk, '\0');
    while (!sink_->broken()) {
      ssize_t n = read(in_fd_, buf.data(), buf.size());
      if (n == 0) break;
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN && WaitFor(in_fd_, POLLIN)) continue;
        spdlog::warn("stdio: read failed ({}); stopping", std::strerror(errno));
        break;
      }
      Consume(std::string_view(buf.data(), static_cast<size_t>(n)));
    }
    // The client may end without a final newline: what is left is its last message (or garbage,
    // which gets a parse error like any other line).
    if (discarding_) AnswerOversize();
    else if (!pending_.empty()) OnLine(pending_);
    pending_.clear();
  }

  // Splits a chunk into lines. A complete line inside the chunk is handled in place, without a copy.
  void Consume(std::string_view chunk) {
    while (!chunk.empty()) {
      size_t nl = chunk.find('\n');
      if (nl == std::string_view::npos) {
        if (!discarding_) pending_.append(chunk);
        if (pending_.size() > limits_.max_message_bytes) StartDiscarding();
        return;
      }
      std::string_view head = chunk.substr(0, nl);
      chunk.remove_prefix(nl + 1);
      if (discarding_) {
        discarding_ = false;
        AnswerOversize();
      } else if (pending_.empty()) {
        OnLine(head);
      } else {
        pending_.append(head);
        if (pending_.size() > limits_.max_message_bytes) AnswerOversize();
        else OnLine(pending_);
        pending_.clear();
      }
    }
  }

  void StartDiscarding() {
    discarding_ = true;
    pending_.clear();
    pending_.shrink_to_fit();
  }

  void AnswerOversize() {
    sink_->Send(MakeError(nullptr, RpcError{kInvalidRequest,
                                            "message exceeds the limit of " +
                                                std::to_string(limits_.max_message_bytes) + " bytes",
                                            nullptr}));
  }

  void OnLine(std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) return;  // blank lines are not messages
    ParsedMessage parsed = ParseMessage(line, limits_);
    if (!parsed.ok) return sink_->Send(parsed.error);
    if (!RunsCatalogCode(parsed.message)) return session_.Handle(parsed.message, *sink_);
    Admit(std::move(parsed.message));
  }

  void Admit(Json message) {
    {
      std::lock_guard lock(mu_);
      if (admitted_ >= kMaxAdmittedCalls) {
        return sink_->Send(MakeError(message["id"], RpcError{kInternalError, "server busy: too many requests in flight; retry later", nullptr}));
      }
      ++admitted_;
    }
    pool_.Submit([this, message = std::move(message)] {
      session_.Handle(message, *sink_);
      std::lock_guard lock(mu_);
      --admitted_;
      drained_.notify_all();
    });
  }

  void Drain() {
    {
      std::unique_lock lock(mu_);
      drained_.wait_for(lock, kDrainGrace, [this] { return admitted_ == 0; });
    }
    session_.Close();  // cancels what is still running; their responses are suppressed
    pool_.Shutdown();
  }

  const Limits limits_;
  const int in_fd_;
  std::shared_ptr<FdSink> sink_;
  Session session_;
  std::string pending_;     // the start of a line whose newline has not arrived yet
  bool discarding_ = false;  // skipping the rest of an over-long line
  std::mutex mu_;
  std::condition_variable drained_;
  size_t admitted_ = 0;
  net::WorkerPool pool_;  // last: its threads use the members above until Shutdown joins them
};

}  // namespace

int ServeStdio(std::shared_ptr<const Catalog> catalog, const ServerInfo& info, const Limits& limits,
               int in_fd, int out_fd) {
  signal(SIGPIPE, SIG_IGN);
  StdioServer server(std::move(catalog), info, limits, in_fd, out_fd);
  return server.Run();
}

}  // namespace dw::mcp
