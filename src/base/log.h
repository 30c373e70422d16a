// Logging: everything goes to stderr (stdout belongs to protocol messages and command output).
// The sink redacts every line it writes (base/redaction.h), so a secret that reaches a log message
// is still never printed.
#pragma once

#include <string>
#include <string_view>

#include <spdlog/spdlog.h>

#include "base/redaction.h"  // RedactSecrets, RegisterSecret: callers of the logger use them too

namespace dw {

// Sets up the process logger on stderr at `level` ("trace", "debug", "info", "warn", "error",
// "off"); an unknown level falls back to "info". Safe to call more than once.
void InitLogging(std::string_view level);

}  // namespace dw
