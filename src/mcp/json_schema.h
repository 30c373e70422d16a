// Checks a JSON value against the JSON Schema subset our tools declare: type (integer vs number,
// arrays of types), properties, required, additionalProperties (false or a schema), enum, const,
// minimum/maximum (and exclusive forms), minLength/maxLength, pattern, items, minItems/maxItems,
// uniqueItems, oneOf/anyOf/allOf. Other keywords ($schema, title, description, default, ...) are
// ignored, so a schema richer than this subset is checked only as far as the subset goes.
#pragma once

#include <string>

#include "base/json.h"
#include "base/status.h"

namespace dw::mcp {

// Ok iff `value` satisfies `schema`. Otherwise kInvalidArgument with one sentence that starts with
// the offending field's path, rooted at `path`: "arguments.table: expected string, got number".
Status ValidateJson(const Json& schema, const Json& value, const std::string& path);

}  // namespace dw::mcp
