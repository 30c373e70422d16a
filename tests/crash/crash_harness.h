// The crash-consistency harness (docs/RELIABILITY.md): a writer runs as a child process and is
// killed with SIGKILL at a seeded random moment; the test then reopens the store and checks what
// the writer had acknowledged. Two kinds of child: a forked copy of the test running product code
// (the store's own writers), and the real `dw` binary (`dw serve`, `dw check`, `dw collect`,
// `dw watch --once`, `dw approve`, `dw incidents resolve`, `dw incidents verify`, `dw incidents
// propose`, `dw keys issue`), alone or as a sequence of runs.
//
// Repeatable: DW_CRASH_SEED (default 20261201) seeds the kill moments, DW_CRASH_KILLS (default
// the CI count each test passes) sets how many kills a test makes; bench/crash.sh runs 200. A
// failure names the seed and the kill, so `DW_CRASH_SEED=S DW_CRASH_KILLS=N` replays it.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace dw::crash {

inline int KillCount(int ci_default) {
  const char* v = std::getenv("DW_CRASH_KILLS");
  return v != nullptr && std::atoi(v) > 0 ? std::atoi(v) : ci_default;
}

inline uint64_t Seed() {
  const char* v = std::getenv("DW_CRASH_SEED");
  return v != nullptr && *v ? std::strtoull(v, nullptr, 10) : 20261201;
}

// The kill moments of one test: uniform in [0, max) microseconds, from the seed and the test's
// own salt (so two tests with the same seed do not kill at the same moments).
class KillClock {
 public:
  KillClock(uint64_t seed, uint64_t salt) : rng_(seed ^ (salt * 0x9E3779B97F4A7C15ull)) {}
  std::chrono::microseconds Next(std::chrono::microseconds max) {
    return std::chrono::microseconds(static_cast<int64_t>(rng_() % static_cast<uint64_t>(max.count() + 1)));
  }

 private:
  std::mt19937_64 rng_;
};

// What a killed child left: the acknowledgements it wrote (one per line) and how it ended.
struct KilledChild {
  std::vector<std::string> acks;  // whole lines only: a line cut by the kill is not an ack
  bool killed = false;            // false when it finished before the kill moment
  int exit_code = -1;             // when it finished
};

// Reads every whole line from `fd` until EOF.
inline void ReadLines(int fd, std::string* pending, std::vector<std::string>* lines) {
  char buf[4096];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n <= 0) break;
    pending->append(buf, static_cast<size_t>(n));
  }
  size_t start = 0;
  for (size_t nl; (nl = pending->find('\n', start)) != std::string::npos; start = nl + 1)
    lines->push_back(pending->substr(start, nl - start));
  pending->erase(0, start);
}

// Waits for `pid` until `after` has passed, then SIGKILLs it (unless it ended first); reaps it.
inline void KillAt(pid_t pid, std::chrono::steady_clock::time_point after, KilledChild* out) {
  int status = 0;
  for (;;) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      out->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      return;
    }
    if (std::chrono::steady_clock::now() >= after) break;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  out->killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
  if (!out->killed) out->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Forks; the child runs `writer(ack)` (ack writes one line to the parent) and exits 0; the parent
// kills it `delay` after the fork. The child must use only objects it makes itself.
inline KilledChild ForkAndKill(const std::function<void(const std::function<void(const std::string&)>&)>& writer,
                               std::chrono::microseconds delay) {
  int fds[2];
  KilledChild out;
  if (pipe(fds) != 0) return out;
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    const int w = fds[1];
    writer([w](const std::string& line) {
      std::string l = line + "\n";
      // One write per ack (under PIPE_BUF: atomic), made after the acknowledged call returned.
      if (write(w, l.data(), l.size()) != static_cast<ssize_t>(l.size())) _exit(3);
    });
    _exit(0);
  }
  close(fds[1]);
  KillAt(pid, start + delay, &out);
  std::string pending;
  ReadLines(fds[0], &pending, &out.acks);
  close(fds[0]);
  return out;
}

// Spawns `args` (args[0] the program) with stdout to a pipe read by the caller; stderr to a pipe
// of its own in *err_fd when given (what a failed run said, for the test's message), to the
// stdout pipe with `stderr_too` (a test that checks everything a run said), else to /dev/null.
// Returns the pid, and the read end in *out_fd.
inline pid_t Spawn(const std::vector<std::string>& args, int* out_fd, bool stderr_too = false,
                   int* err_fd = nullptr) {
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  int fds[2];
  if (pipe(fds) != 0) return -1;
  int errs[2] = {-1, -1};
  if (err_fd != nullptr && !stderr_too && pipe(errs) != 0) {
    close(fds[0]);
    close(fds[1]);
    return -1;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  if (stderr_too) {
    posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
  } else if (errs[1] >= 0) {
    posix_spawn_file_actions_adddup2(&fa, errs[1], 2);
    posix_spawn_file_actions_addclose(&fa, errs[0]);
  } else {
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  }
  pid_t pid = -1;
  if (posix_spawn(&pid, copy[0].c_str(), &fa, nullptr, argv.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  *out_fd = fds[0];
  if (errs[1] >= 0) {
    close(errs[1]);
    *err_fd = errs[0];
  }
  return pid;
}

// A thread that reads `fd` into *into until its writers are gone, then closes it.
inline std::thread DrainInto(int fd, std::string* into) {
  return std::thread([fd, into] {
    char buf[4096];
    for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) into->append(buf, static_cast<size_t>(n));
    close(fd);
  });
}

// One run of a binary: what it printed on stdout and on stderr (empty with `stderr_too`, which
// puts both in `out`), and how it ended. A test's message for a failed run shows both.
struct BinaryRun {
  std::string out;
  std::string err;
  KilledChild child;
};

// Runs `args` and kills it at `kill_at` unless it ended first (time_point::max(): never killed);
// with `stderr_too`, run.out holds what it wrote to stderr as well.
inline BinaryRun RunBinary(const std::vector<std::string>& args, std::chrono::steady_clock::time_point kill_at,
                           bool stderr_too = false) {
  BinaryRun run;
  int fd = -1, err_fd = -1;
  pid_t pid = Spawn(args, &fd, stderr_too, &err_fd);
  if (pid <= 0) return run;
  std::thread out_reader = DrainInto(fd, &run.out);
  std::thread err_reader = err_fd >= 0 ? DrainInto(err_fd, &run.err) : std::thread();
  KillAt(pid, kill_at, &run.child);
  out_reader.join();
  if (err_reader.joinable()) err_reader.join();
  return run;
}

// What a person or a script does at a prompt: `argv_of(0)`, `argv_of(1)`, ... up to `count` runs,
// one after another, the next started when the one before ended; the run going on when
// `kill_after` has passed since the first started is killed, and no run follows it. Returns every
// run started, the killed one last.
inline std::vector<BinaryRun> RunSequenceUntilKilled(const std::function<std::vector<std::string>(int)>& argv_of,
                                                     int count, std::chrono::microseconds kill_after,
                                                     bool stderr_too = false) {
  std::vector<BinaryRun> runs;
  const auto kill_at = std::chrono::steady_clock::now() + kill_after;
  for (int i = 0; i < count; ++i) {
    runs.push_back(RunBinary(argv_of(i), kill_at, stderr_too));
    if (runs.back().child.killed || std::chrono::steady_clock::now() >= kill_at) break;
  }
  return runs;
}

}  // namespace dw::crash
