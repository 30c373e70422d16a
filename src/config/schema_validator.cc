#include "config/schema_validator.h"

#include <charconv>
#include <cmath>
#include <set>

#include "base/identifiers.h"
#include "base/log.h"
#include "config/connection_secrets.h"
#include "config/cron.h"
#include "config/duration.h"
#include "config/suggest.h"
#include "config/time_zone.h"

namespace dw::config {
namespace {

// How a node looks, for "expected X, got Y" messages.
std::string Describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Scalar: return "'" + node.Scalar() + "'";
    default: return "nothing";
  }
}

std::string JoinWords(const std::vector<std::string>& words, const std::string& last_sep) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i)
    out += (i == 0 ? "" : (i + 1 == words.size() ? last_sep : ", ")) + words[i];
  return out;
}

std::optional<bool> ParseBool(const std::string& s) {
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  return std::nullopt;
}

std::optional<int64_t> ParseInt(const std::string& s) {
  int64_t v = 0;
  const char* begin = s.data() + (s.starts_with('+') ? 1 : 0);
  auto [end, ec] = std::from_chars(begin, s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || begin == end) return std::nullopt;
  return v;
}

std::optional<double> ParseDouble(const std::string& s) {
  double v = 0;
  const char* begin = s.data() + (s.starts_with('+') ? 1 : 0);
  auto [end, ec] = std::from_chars(begin, s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || begin == end || !std::isfinite(v))
    return std::nullopt;
  return v;
}

// An integer when the text is one (so `must_be: 0` stays 0, not 0.0), else a double.
std::optional<Json> ParseNumber(const std::string& s) {
  if (auto i = ParseInt(s)) return Json(*i);
  if (auto d = ParseDouble(s)) return Json(*d);
  return std::nullopt;
}

bool IsHttpUrl(const std::string& s) {
  for (const char* scheme : {"http://", "https://"}) {
    std::string_view p(scheme);
    if (s.size() > p.size() && s.compare(0, p.size(), p) == 0 && s[p.size()] != '/' &&
        s.find_first_of(" \t\r\n") == std::string::npos)
      return true;
  }
  return false;
}

// True iff the scalar was quoted in the file ('x' or "x"), which makes it a string for kScalar.
bool IsQuoted(const YAML::Node& node) { return node.Tag() == "!"; }

}  // namespace

std::string JoinPath(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

SchemaValidator::SchemaValidator(std::string file, EnvLookup env, std::vector<ConfigError>* errors,
                                 PositionMap* positions)
    : file_(std::move(file)), env_(std::move(env)), errors_(errors), positions_(positions) {}

void SchemaValidator::Error(const YAML::Mark& mark, const std::string& path, std::string message) {
  ConfigError e;
  e.file = file_;
  if (!mark.is_null()) {
    e.line = mark.line + 1;
    e.column = mark.column + 1;
  }
  e.path = path;
  e.message = std::move(message);
  errors_->push_back(std::move(e));
}

Json SchemaValidator::Validate(const YAML::Node& node, const ValueSchema& schema,
                               const std::string& path) {
  (*positions_)[path] = SourcePos{node.Mark().line + 1, node.Mark().column + 1};
  switch (schema.type) {
    case ValueType::kObject:
      if (schema.or_bool && node.IsScalar()) {
        ValueSchema on_off;
        on_off.type = ValueType::kBool;
        return ValidateScalar(node, on_off, path);
      }
      return ValidateObject(node, schema, path);
    case ValueType::kMap: return ValidateMap(node, schema, path);
    case ValueType::kList: return ValidateList(node, schema, path);
    case ValueType::kColumnSet:
      if (node.IsSequence()) {
        ValueSchema columns;
        columns.type = ValueType::kList;
        columns.element = std::make_shared<const ValueSchema>();
        return ValidateList(node, columns, path);
      }
      if (!node.IsScalar()) {
        Error(node.Mark(), path, "expected " + DescribeType(schema) + ", got " + Describe(node));
        return Json();
      }
      return ValidateScalar(node, ValueSchema{}, path);
    default: return ValidateScalar(node, schema, path);
  }
}

bool SchemaValidator::IsDuplicate(const YAML::Node& key, std::map<std::string, int>* seen,
                                  const std::string& path) {
  auto [it, inserted] = seen->emplace(key.Scalar(), key.Mark().line + 1);
  if (inserted) return false;
  Error(key.Mark(), JoinPath(path, key.Scalar()),
        "duplicate key '" + key.Scalar() + "' (first set on line " + std::to_string(it->second) + ")");
  return true;
}

void SchemaValidator::ForEachEntry(
    const YAML::Node& node, const std::string& path,
    const std::function<void(const YAML::Node&, const YAML::Node&, const std::string&,
                             const std::string&)>& visit) {
  std::map<std::string, int> seen;
  for (auto it = node.begin(); it != node.end(); ++it) {
    // Copies, not references: yaml-cpp's iterator hands out a temporary proxy, and Node is a
    // cheap handle.
    const YAML::Node key = it->first;
    const YAML::Node value = it->second;
    if (!key.IsScalar()) {
      Error(key.Mark(), path, "a key must be a plain name, got " + Describe(key));
      continue;
    }
    if (IsDuplicate(key, &seen, path)) continue;
    visit(key, value, key.Scalar(), JoinPath(path, key.Scalar()));
  }
}

Json SchemaValidator::ValidateObject(const YAML::Node& node, const ValueSchema& schema,
                                     const std::string& path) {
  if (!node.IsMap()) {
    Error(node.Mark(), path, "expected " + DescribeType(schema) + ", got " + Describe(node));
    return Json();
  }
  std::vector<std::string> keys;
  for (const auto& f : schema.fields) keys.push_back(f.key);
  Json out = Json::object();
  std::set<std::string> present;  // keys written with a non-empty value (valid or not)
  ForEachEntry(node, path, [&](const YAML::Node& key, const YAML::Node& value, const std::string& name,
                               const std::string& child) {
    const Field* field = nullptr;
    for (const auto& f : schema.fields)
      if (f.key == name) field = &f;
    if (field == nullptr) {
      std::string hint = DidYouMean(name, keys);
      Error(key.Mark(), child,
            "unknown key '" + name + "'" +
                (!hint.empty() ? hint
                 : keys.empty() ? std::string(" (this mapping takes no keys: write {})")
                                : " (allowed here: " + JoinWords(keys, ", ") + ")"));
      return;
    }
    if (value.IsNull()) {
      // "key:" with nothing after it reads as absent, which is handy for commented-out sections.
      (*positions_)[child] = SourcePos{key.Mark().line + 1, key.Mark().column + 1};
      if (field->required) {
        Error(key.Mark(), child, "'" + name + "' needs a value: " + DescribeType(field->value));
        present.insert(name);
      }
      return;
    }
    present.insert(name);
    Json converted = Validate(value, field->value, child);
    if (!converted.is_null()) out[name] = std::move(converted);
  });
  for (const auto& f : schema.fields)
    if (f.required && !present.count(f.key))
      Error(node.Mark(), JoinPath(path, f.key), "missing required key '" + f.key + "'");
  for (const auto& group : schema.exactly_one_of) {
    size_t n = 0;
    for (const auto& k : group) n += present.count(k);
    if (n != 1)
      Error(node.Mark(), path,
            (n == 0 ? "set one of " : "set only one of ") + JoinWords(group, n == 0 ? " or " : " and "));
  }
  for (const auto& group : schema.at_least_one_of) {
    size_t n = 0;
    for (const auto& k : group) n += present.count(k);
    if (n == 0) Error(node.Mark(), path, "set at least one of " + JoinWords(group, " or "));
  }
  return out;
}

Json SchemaValidator::ValidateMap(const YAML::Node& node, const ValueSchema& schema,
                                  const std::string& path) {
  if (!node.IsMap()) {
    Error(node.Mark(), path, "expected " + DescribeType(schema) + ", got " + Describe(node));
    return Json();
  }
  Json out = Json::object();
  ForEachEntry(node, path, [&](const YAML::Node& key, const YAML::Node& value, const std::string& name,
                               const std::string& child) {
    if (schema.name_keys && !IsValidConfigName(name)) {
      Error(key.Mark(), child,
            "'" + name + "' is not a valid name: start with a letter, then use letters, digits, "
            "'_' or '-'");
      return;
    }
    if (value.IsNull()) {
      (*positions_)[child] = SourcePos{key.Mark().line + 1, key.Mark().column + 1};
      Error(key.Mark(), child, "'" + name + "' needs a value: " + DescribeType(*schema.element));
      return;
    }
    Json converted = Validate(value, *schema.element, child);
    if (!converted.is_null()) out[name] = std::move(converted);
  });
  return out;
}

Json SchemaValidator::ValidateList(const YAML::Node& node, const ValueSchema& schema,
                                   const std::string& path) {
  if (!node.IsSequence()) {
    Error(node.Mark(), path,
          "expected a list (write [a, b] or one '- item' per line), got " + Describe(node));
    return Json();
  }
  if (schema.exact_items >= 0 && node.size() != static_cast<size_t>(schema.exact_items)) {
    Error(node.Mark(), path,
          "expected exactly " + std::to_string(schema.exact_items) + " items, got " +
              std::to_string(node.size()));
    return Json();
  }
  // Invalid items stay as null placeholders so indices keep matching the file's key paths.
  Json out = Json::array();
  for (size_t i = 0; i < node.size(); ++i) {
    const std::string child = path + "[" + std::to_string(i) + "]";
    const YAML::Node item = node[i];
    if (item.IsNull()) {
      (*positions_)[child] = SourcePos{node.Mark().line + 1, node.Mark().column + 1};
      Error(node.Mark(), child, "empty list item");
      out.push_back(Json());
      continue;
    }
    out.push_back(Validate(item, *schema.element, child));
  }
  return out;
}

std::optional<std::string> SchemaValidator::ScalarText(const YAML::Node& node,
                                                       const ValueSchema& schema,
                                                       const std::string& path) {
  auto substituted = SubstituteEnv(node.Scalar(), env_);
  if (!substituted.ok()) {
    Error(node.Mark(), path, substituted.status().message());
    return std::nullopt;
  }
  // What came from the environment into a secret-bearing key is secret: that is why it was kept
  // out of the file. URLs and DSNs stay readable (people debug with the host) except a password.
  if (schema.secret == SecretKind::kWhole || schema.secret == SecretKind::kConnection)
    for (const auto& v : substituted->env_values) RegisterSecret(v);
  if (schema.secret == SecretKind::kWhole) {
    RegisterSecret(substituted->text);
    // A webhook's error may print its path alone (the part that is the credential).
    for (const auto& p : SecretUrlParts(substituted->text)) RegisterSecret(p);
  }
  // A password and the parts of it a driver prints when it misreads it.
  if (schema.secret != SecretKind::kNone)
    for (const auto& p : SecretFragments(substituted->text)) RegisterSecret(p);
  return std::move(substituted->text);
}

Json SchemaValidator::ValidateScalar(const YAML::Node& node, const ValueSchema& schema,
                                     const std::string& path) {
  if (!node.IsScalar()) {
    Error(node.Mark(), path, "expected " + DescribeType(schema) + ", got " + Describe(node));
    return Json();
  }
  std::optional<std::string> text = ScalarText(node, schema, path);
  if (!text) return Json();
  const std::string& s = *text;
  auto fail = [&](const std::string& message) {
    Error(node.Mark(), path, message);
    return Json();
  };
  switch (schema.type) {
    case ValueType::kBool:
      if (auto b = ParseBool(s)) return *b;
      return fail("expected true or false, got '" + s + "'");
    case ValueType::kInt: {
      auto v = ParseInt(s);
      if (!v) return fail("expected a whole number, got '" + s + "'");
      if (schema.minimum && *v < *schema.minimum)
        return fail("must be at least " + std::to_string(static_cast<int64_t>(*schema.minimum)) + ", got " + s);
      return *v;
    }
    case ValueType::kNumber: {
      auto v = ParseNumber(s);
      if (!v) return fail("expected a number, got '" + s + "'");
      if (schema.minimum && v->get<double>() < *schema.minimum)
        return fail("must be at least " + std::to_string(static_cast<int64_t>(*schema.minimum)) + ", got " + s);
      return *v;
    }
    case ValueType::kScalar:
      if (!IsQuoted(node)) {
        if (auto b = ParseBool(s)) return *b;
        if (auto n = ParseNumber(s)) return *n;
      }
      return s;
    case ValueType::kDuration:
      if (auto d = ParseDuration(s); !d.ok()) return fail(d.status().message());
      return s;
    case ValueType::kCron:
      if (auto c = ParseCron(s); !c.ok()) return fail(c.status().message());
      return s;
    case ValueType::kUrl:
      if (!IsHttpUrl(s)) return fail("'" + s + "' is not a URL: expected http://host[:port] or https://...");
      return s;
    case ValueType::kAssetId:
      if (auto id = ParseAssetId(s); !id.ok()) return fail(id.status().message());
      return s;
    case ValueType::kTimeZone:
      if (auto z = TimeZone::Load(s); !z.ok()) return fail(z.status().message());
      return s;
    case ValueType::kEnum:
      for (const auto& c : schema.choices)
        if (c == s) return s;
      return fail("'" + s + "' is not " + DescribeType(schema) + DidYouMean(s, schema.choices));
    default:
      return s;
  }
}

}  // namespace dw::config
