// Logging: everything goes to stderr (stdout belongs to protocol messages and command output).
// Secrets must never be passed to the logger; use RedactSecrets on anything that might carry one.
#pragma once

#include <string>
#include <string_view>

#include <spdlog/spdlog.h>

namespace dw {

// Sets up the process logger on stderr at `level` ("trace", "debug", "info", "warn", "error",
// "off"); an unknown level falls back to "info". Safe to call more than once.
void InitLogging(std::string_view level);

// Returns `text` with every occurrence of each registered secret replaced by "***".
std::string RedactSecrets(std::string text);

// Registers a secret value (a password, token or webhook URL read from the environment) so that
// RedactSecrets hides it. Values shorter than 4 characters are ignored (they would mask too much).
void RegisterSecret(std::string value);

}  // namespace dw
