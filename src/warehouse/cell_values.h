// Reading one cell of a warehouse's answer as the type a reader of the catalog or accounting views
// expects, without throwing on a cell of another type (those views are untrusted input too).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>

#include "store/sql_connection.h"

namespace dw::warehouse {

// The text of a text cell, "" for any other.
inline std::string CellText(const store::SqlValue& v) {
  const auto* s = std::get_if<std::string>(&v);
  return s == nullptr ? "" : *s;
}

// An integer cell (a double truncated), nullopt for NULL and text.
inline std::optional<int64_t> CellInt(const store::SqlValue& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return *i;
  if (const auto* d = std::get_if<double>(&v)) return static_cast<int64_t>(*d);
  return std::nullopt;
}

// A number cell (exact decimal text read as a double), 0 for NULL.
inline double CellNumber(const store::SqlValue& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* s = std::get_if<std::string>(&v)) return std::strtod(s->c_str(), nullptr);
  return 0;
}

}  // namespace dw::warehouse
