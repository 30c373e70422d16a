// ${ENV} references in workspace string values, so that secrets stay out of the file:
// `${NAME}` is the variable's value (an error when unset), `${NAME:-default}` falls back to
// `default` when NAME is unset or empty, and `$$` is a literal `$`. A `$` followed by anything else
// is kept as written, so SQL such as `$1` passes through untouched.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace dw::config {

// Looks up one environment variable; nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;

// The process environment.
EnvLookup ProcessEnv();

struct Substituted {
  std::string text;
  // The values that came from the environment (not defaults), so the caller can register the
  // secret ones for redaction.
  std::vector<std::string> env_values;
};

// Expands the references in `text`. Fails with kInvalidArgument naming the variable when one is
// unset and has no default, and when a reference is malformed (`${` without `}`, a bad name).
Result<Substituted> SubstituteEnv(std::string_view text, const EnvLookup& env);

}  // namespace dw::config
