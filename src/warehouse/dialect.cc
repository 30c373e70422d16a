#include "warehouse/dialect.h"

namespace dw::warehouse {

std::string TableId::Display() const {
  return schema.empty() || schema == "main" ? table : schema + "." + table;
}

std::string Dialect::Quote(std::string_view name) const {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string Dialect::CountWhere(const std::string& condition) const {
  return "count(*) FILTER (WHERE " + condition + ")";
}

std::string Dialect::Param(int n) const { return "$" + std::to_string(n); }

}  // namespace dw::warehouse
