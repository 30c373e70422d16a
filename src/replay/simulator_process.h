// A dw-sim child process serving one platform of a scenario on a free loopback port, stopped (by
// its pid, SIGTERM then SIGKILL) when the object goes away. Inside the replay stage only.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <string>

#include "base/clock.h"
#include "base/status.h"
#include "net/http_client.h"

namespace dw::replay {

class SimulatorProcess {
 public:
  ~SimulatorProcess();
  SimulatorProcess(const SimulatorProcess&) = delete;
  SimulatorProcess& operator=(const SimulatorProcess&) = delete;

  // Starts `binary` PLATFORM --listen 127.0.0.1:0 --script SCRIPT and waits (up to 10 s) for the
  // line that names its URL. kUnavailable with dw-sim's own message when it exits or says nothing.
  static Result<std::unique_ptr<SimulatorProcess>> Start(const std::filesystem::path& binary,
                                                         const std::string& platform,
                                                         const std::filesystem::path& script);

  const std::string& url() const { return url_; }

  // Everything the process printed after its start-up line and not returned before, read without
  // waiting (the SMTP receiver prints each message it accepted as one JSON line). Reading it also
  // keeps the pipe from filling up, which would stall the process.
  std::string TakeOutput();

  // POST /_sim/clock {"now": t}: the simulator answers from then on with what had happened by t.
  Status SetClock(net::HttpClient& http, TimePoint t) const;

 private:
  SimulatorProcess() = default;
  pid_t pid_ = -1;
  int out_fd_ = -1;
  std::string url_;
  std::string pending_output_;  // printed with the start-up line, not yet taken
};

}  // namespace dw::replay
