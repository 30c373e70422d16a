// The one JSON library of the project (nlohmann::json), under one name.
#pragma once

#include <nlohmann/json.hpp>

namespace dw {
using Json = nlohmann::json;
}  // namespace dw
