// The operation a SQL statement performs, for error messages: its leading words up to the first
// parenthesis, VALUES, SET, WHERE or nested SELECT ("INSERT INTO metric_points", "COMMIT",
// "UPDATE outbox"), at most 60 characters. Never a value: the store binds values as parameters,
// so they are not in the statement's text.
#pragma once

#include <string>

namespace dw::store {

std::string SqlOperation(const std::string& sql);

}  // namespace dw::store
