#include "mcp/json_schema.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <regex>

namespace dw::mcp {
namespace {

// std::regex matches recursively; a long subject can exhaust the stack, so strings longer than
// this are refused rather than matched when the schema has a pattern.
constexpr size_t kMaxPatternSubject = 8192;

std::string TypeName(const Json& v) {
  switch (v.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::boolean: return "boolean";
    case Json::value_t::string: return "string";
    case Json::value_t::array: return "array";
    case Json::value_t::object: return "object";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
    case Json::value_t::number_float: return "number";
    default: return "unsupported value";
  }
}

bool IsIntegral(const Json& v) {
  if (v.is_number_integer()) return true;
  if (!v.is_number_float()) return false;
  double d = v.get<double>();
  return std::isfinite(d) && d == static_cast<double>(static_cast<long long>(d));
}

bool HasType(const Json& v, const std::string& type) {
  if (type == "integer") return IsIntegral(v);
  if (type == "number") return v.is_number();
  return TypeName(v) == type;
}

std::string Fail(const std::string& path, const std::string& what) { return path + ": " + what; }

// A value as it appears in an error sentence: JSON, cut short so a huge input stays readable.
std::string Preview(const Json& v) {
  constexpr size_t kMax = 60;
  std::string s = v.dump(-1, ' ', false, Json::error_handler_t::replace);
  return s.size() <= kMax ? s : s.substr(0, kMax) + "...";
}

// Child path: "arguments.table" for identifier-like keys, arguments["odd key"] otherwise.
std::string ChildPath(const std::string& path, const std::string& key) {
  bool plain = !key.empty() && key.size() <= 64;
  for (char c : key) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) plain = false;
  }
  return plain ? path + "." + key : path + "[" + Preview(Json(key)) + "]";
}

size_t CodePoints(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

std::string Validate(const Json& schema, const Json& value, const std::string& path);

std::string CheckType(const Json& type, const Json& value, const std::string& path) {
  if (type.is_string()) {
    if (HasType(value, type.get<std::string>())) return "";
    return Fail(path, "expected " + type.get<std::string>() + ", got " + TypeName(value));
  }
  if (!type.is_array()) return "";
  std::string names;
  for (const Json& t : type) {
    if (!t.is_string()) continue;
    if (HasType(value, t.get<std::string>())) return "";
    names += (names.empty() ? "" : " or ") + t.get<std::string>();
  }
  return Fail(path, "expected " + names + ", got " + TypeName(value));
}

std::string CheckObject(const Json& schema, const Json& value, const std::string& path) {
  static const Json kEmpty = Json::object();
  auto props_it = schema.find("properties");
  const Json& props = props_it != schema.end() && props_it->is_object() ? *props_it : kEmpty;
  if (auto req = schema.find("required"); req != schema.end() && req->is_array()) {
    for (const Json& name : *req) {
      if (name.is_string() && !value.contains(name.get<std::string>())) {
        return Fail(ChildPath(path, name.get<std::string>()), "required field is missing");
      }
    }
  }
  auto extra_it = schema.find("additionalProperties");
  for (const auto& [key, child] : value.items()) {
    if (auto p = props.find(key); p != props.end()) {
      if (std::string e = Validate(*p, child, ChildPath(path, key)); !e.empty()) return e;
    } else if (extra_it != schema.end()) {
      if (extra_it->is_boolean() && !extra_it->get<bool>()) {
        std::string allowed;
        for (const auto& [name, _] : props.items()) allowed += (allowed.empty() ? "" : ", ") + name;
        return Fail(ChildPath(path, key),
                    "unknown field" + (allowed.empty() ? "" : " (allowed: " + allowed + ")"));
      }
      if (extra_it->is_object()) {
        if (std::string e = Validate(*extra_it, child, ChildPath(path, key)); !e.empty()) return e;
      }
    }
  }
  return "";
}

std::string CheckArray(const Json& schema, const Json& value, const std::string& path) {
  if (auto m = schema.find("minItems"); m != schema.end() && m->is_number() &&
                                        static_cast<double>(value.size()) < m->get<double>()) {
    return Fail(path, "expected at least " + m->dump() + " items, got " + std::to_string(value.size()));
  }
  if (auto m = schema.find("maxItems"); m != schema.end() && m->is_number() &&
                                        static_cast<double>(value.size()) > m->get<double>()) {
    return Fail(path, "expected at most " + m->dump() + " items, got " + std::to_string(value.size()));
  }
  if (auto items = schema.find("items"); items != schema.end() && (items->is_object() || items->is_boolean())) {
    for (size_t i = 0; i < value.size(); ++i) {
      if (std::string e = Validate(*items, value[i], path + "[" + std::to_string(i) + "]"); !e.empty()) {
        return e;
      }
    }
  }
  if (auto u = schema.find("uniqueItems"); u != schema.end() && u->is_boolean() && u->get<bool>()) {
    // Sorting keeps this O(n log n): arrays come from clients and may be long.
    std::vector<Json> sorted(value.begin(), value.end());
    std::sort(sorted.begin(), sorted.end());
    if (auto dup = std::adjacent_find(sorted.begin(), sorted.end()); dup != sorted.end()) {
      return Fail(path, "items must be unique; " + Preview(*dup) + " repeats");
    }
  }
  return "";
}

std::string CheckString(const Json& schema, const std::string& s, const std::string& path) {
  size_t len = 0;
  bool counted = false;
  auto length = [&] {
    if (!counted) len = CodePoints(s), counted = true;
    return static_cast<double>(len);
  };
  if (auto m = schema.find("minLength"); m != schema.end() && m->is_number() && length() < m->get<double>()) {
    return Fail(path, "expected at least " + m->dump() + " characters, got " + std::to_string(len));
  }
  if (auto m = schema.find("maxLength"); m != schema.end() && m->is_number() && length() > m->get<double>()) {
    return Fail(path, "expected at most " + m->dump() + " characters, got " + std::to_string(len));
  }
  if (auto p = schema.find("pattern"); p != schema.end() && p->is_string()) {
    if (s.size() > kMaxPatternSubject) {
      return Fail(path, "is too long to check against pattern " + p->get<std::string>());
    }
    try {
      if (!std::regex_search(s, std::regex(p->get<std::string>(), std::regex::ECMAScript))) {
        return Fail(path, "does not match pattern " + p->get<std::string>());
      }
    } catch (const std::regex_error&) {
      return Fail(path, "cannot be checked: the schema's pattern " + p->get<std::string>() + " is invalid");
    }
  }
  return "";
}

std::string CheckNumber(const Json& schema, double d, const std::string& path) {
  auto bound = [&](const char* key) -> const Json* {
    auto it = schema.find(key);
    return it != schema.end() && it->is_number() ? &*it : nullptr;
  };
  if (const Json* m = bound("minimum"); m && d < m->get<double>()) return Fail(path, "must be >= " + m->dump());
  if (const Json* m = bound("maximum"); m && d > m->get<double>()) return Fail(path, "must be <= " + m->dump());
  if (const Json* m = bound("exclusiveMinimum"); m && d <= m->get<double>()) return Fail(path, "must be > " + m->dump());
  if (const Json* m = bound("exclusiveMaximum"); m && d >= m->get<double>()) return Fail(path, "must be < " + m->dump());
  return "";
}

// How many of `alternatives` `value` satisfies, stopping at `enough`; the first failure is kept.
int CountMatches(const Json& alternatives, const Json& value, const std::string& path, int enough,
                 std::string* first_error) {
  int matches = 0;
  for (const Json& alt : alternatives) {
    std::string e = Validate(alt, value, path);
    if (e.empty()) {
      if (++matches >= enough) break;
    } else if (first_error->empty()) {
      *first_error = e;
    }
  }
  return matches;
}

std::string CheckCombinators(const Json& schema, const Json& value, const std::string& path) {
  if (auto all = schema.find("allOf"); all != schema.end() && all->is_array()) {
    for (const Json& alt : *all) {
      if (std::string e = Validate(alt, value, path); !e.empty()) return e;
    }
  }
  if (auto any = schema.find("anyOf"); any != schema.end() && any->is_array()) {
    std::string first;
    if (CountMatches(*any, value, path, 1, &first) == 0) {
      return Fail(path, "does not match any allowed form (first: " + first + ")");
    }
  }
  if (auto one = schema.find("oneOf"); one != schema.end() && one->is_array()) {
    std::string first;
    int n = CountMatches(*one, value, path, 2, &first);
    if (n == 0) return Fail(path, "does not match any allowed form (first: " + first + ")");
    if (n > 1) return Fail(path, "matches more than one of the allowed forms");
  }
  return "";
}

// Returns "" when `value` satisfies `schema`, else the error sentence.
std::string Validate(const Json& schema, const Json& value, const std::string& path) {
  if (schema.is_boolean()) return schema.get<bool>() ? "" : Fail(path, "is not allowed");
  if (!schema.is_object()) return "";
  if (auto t = schema.find("type"); t != schema.end()) {
    if (std::string e = CheckType(*t, value, path); !e.empty()) return e;
  }
  if (auto c = schema.find("const"); c != schema.end() && value != *c) {
    return Fail(path, "must be " + Preview(*c) + ", got " + Preview(value));
  }
  if (auto en = schema.find("enum"); en != schema.end() && en->is_array()) {
    bool found = std::find(en->begin(), en->end(), value) != en->end();
    if (!found) {
      std::string allowed;
      for (const Json& v : *en) allowed += (allowed.empty() ? "" : ", ") + Preview(v);
      return Fail(path, "must be one of " + allowed + "; got " + Preview(value));
    }
  }
  std::string e;
  if (value.is_object()) e = CheckObject(schema, value, path);
  else if (value.is_array()) e = CheckArray(schema, value, path);
  else if (value.is_string()) e = CheckString(schema, value.get_ref<const std::string&>(), path);
  else if (value.is_number()) e = CheckNumber(schema, value.get<double>(), path);
  if (!e.empty()) return e;
  return CheckCombinators(schema, value, path);
}

}  // namespace

Status ValidateJson(const Json& schema, const Json& value, const std::string& path) {
  std::string e = Validate(schema, value, path);
  return e.empty() ? Status::Ok() : InvalidArgument(std::move(e));
}

}  // namespace dw::mcp
