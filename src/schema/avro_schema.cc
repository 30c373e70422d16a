#include "schema/avro_schema.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <optional>
#include <set>

namespace dw::schema::avro {

const char* TypeName(Type t) {
  switch (t) {
    case Type::kNull: return "NULL";
    case Type::kBoolean: return "BOOLEAN";
    case Type::kInt: return "INT";
    case Type::kLong: return "LONG";
    case Type::kFloat: return "FLOAT";
    case Type::kDouble: return "DOUBLE";
    case Type::kBytes: return "BYTES";
    case Type::kString: return "STRING";
    case Type::kRecord: return "RECORD";
    case Type::kEnum: return "ENUM";
    case Type::kArray: return "ARRAY";
    case Type::kMap: return "MAP";
    case Type::kUnion: return "UNION";
    case Type::kFixed: return "FIXED";
  }
  return "UNKNOWN";
}

const Node* Schema::Named(const std::string& full) const {
  auto it = named_.find(full);
  return it == named_.end() ? nullptr : it->second;
}

namespace {

const std::map<std::string, Type>& Primitives() {
  static const std::map<std::string, Type> p = {
      {"null", Type::kNull},   {"boolean", Type::kBoolean}, {"int", Type::kInt},       {"long", Type::kLong},
      {"float", Type::kFloat}, {"double", Type::kDouble},   {"bytes", Type::kBytes}, {"string", Type::kString}};
  return p;
}

// Avro names: [A-Za-z_][A-Za-z0-9_]*.
bool ValidName(const std::string& s) {
  if (s.empty()) return false;
  if (!(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

bool ValidNamespace(const std::string& s) {
  if (s.empty()) return true;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    if (!ValidName(s.substr(start, dot == std::string::npos ? std::string::npos : dot - start))) return false;
    if (dot == std::string::npos) return true;
    start = dot + 1;
  }
}

struct ParseError {
  std::string path, message;
};

// A JSON Pointer built only when an error needs it: a chain of segments on the stack (a key, or an
// array index when key is null), so parsing a wide record allocates no path strings.
struct Where {
  const Where* up = nullptr;
  const char* key = nullptr;
  int index = -1;
  std::string Str() const {
    std::string out = up ? up->Str() : "";
    if (!up && !key && index < 0) return out;
    return out + "/" + (key ? std::string(key) : std::to_string(index));
  }
};

}  // namespace

// Builds a Schema; throws ParseError internally (caught in ParseJson, never escapes the stage).
class Parser {
 public:
  explicit Parser(Schema* out) : out_(out) {}

  const Node* Type_(const Json& j, const Where& path, const std::string& space, int depth) {
    if (depth > kMaxNesting)
      Fail(path, "the schema nests deeper than " + std::to_string(kMaxNesting) + " levels");
    if (j.is_string()) return Reference(j.get<std::string>(), path, space);
    if (j.is_array()) return Union(j, path, space, depth);
    if (!j.is_object()) Fail(path, "a type must be a name, an object or an array (a union), not " + std::string(j.type_name()));
    auto t = j.find("type");
    if (t == j.end()) Fail(path, "the object has no \"type\"");
    if (!t->is_string()) {
      // {"type": {...}} wraps another type; Avro accepts it.
      return Type_(*t, Where{&path, "type"}, space, depth + 1);
    }
    std::string kind = t->get<std::string>();
    if (auto p = Primitives().find(kind); p != Primitives().end()) {
      Node* n = New(p->second);
      Logical(j, n);
      return n;
    }
    if (kind == "record" || kind == "error") return Record(j, path, space, depth);
    if (kind == "enum") return Enum(j, path, space);
    if (kind == "fixed") return Fixed(j, path, space);
    if (kind == "array" || kind == "map") {
      const char* key = kind == "array" ? "items" : "values";
      if (!j.contains(key)) Fail(path, "an " + kind + " needs \"" + key + "\"");
      Node* n = New(kind == "array" ? Type::kArray : Type::kMap);
      n->items = Type_(j[key], Where{&path, key}, space, depth + 1);
      return n;
    }
    // A named type referenced through {"type": "Name"}.
    return Reference(kind, Where{&path, "type"}, space);
  }

 private:
  [[noreturn]] static void Fail(const Where& path, const std::string& message) {
    std::string p = path.Str();
    throw ParseError{p.empty() ? "/" : p, message};
  }
  [[noreturn]] static void Fail(const Where& path, const char* key, const std::string& message) { Fail(Where{&path, key}, message); }

  Node* New(Type t) {
    out_->nodes_.push_back(std::make_unique<Node>());
    out_->nodes_.back()->type = t;
    return out_->nodes_.back().get();
  }

  // j[key] as an int: `missing` when absent, nullopt when not an integer in int's range.
  static std::optional<int> IntAttribute(const Json& j, const char* key, int missing) {
    auto it = j.find(key);
    if (it == j.end()) return missing;
    if (it->is_number_unsigned()) {
      if (it->get<uint64_t>() > static_cast<uint64_t>(INT_MAX)) return std::nullopt;
      return static_cast<int>(it->get<uint64_t>());
    }
    if (!it->is_number_integer() || it->get<int64_t>() < INT_MIN || it->get<int64_t>() > INT_MAX) return std::nullopt;
    return static_cast<int>(it->get<int64_t>());
  }

  static void Logical(const Json& j, Node* n) {
    auto lt = j.find("logicalType");
    if (lt == j.end() || !lt->is_string()) return;
    // Avro ignores a logical type it does not know or whose attributes are invalid: the value is
    // read as the underlying type.
    std::string name = lt->get<std::string>();
    if (name == "decimal") {
      if (n->type != Type::kBytes && n->type != Type::kFixed) return;
      // An attribute that is not an integer in int's range is invalid (as the Java implementation,
      // which reads only an Integer there); converting 3e25 to int would be undefined behaviour.
      const auto precision = IntAttribute(j, "precision", 0), scale = IntAttribute(j, "scale", 0);
      if (!precision || !scale || *precision <= 0 || *scale < 0 || *scale > *precision) return;
      n->precision = *precision;
      n->scale = *scale;
    }
    n->logical_type = name;
  }

  const Node* Reference(const std::string& name, const Where& path, const std::string& space) {
    if (auto p = Primitives().find(name); p != Primitives().end()) return New(p->second);
    std::string full = name.find('.') == std::string::npos && !space.empty() ? space + "." + name : name;
    if (const Node* n = out_->Named(full)) return n;
    if (const Node* n = out_->Named(name)) return n;
    Fail(path, "unknown type '" + name + "'" +
                   (name == "record" || name == "enum" || name == "array" || name == "map" || name == "fixed"
                        ? " (a complex type is written as an object: {\"type\": \"" + name + "\", ...})"
                        : "; a named type must be defined before it is used (recursion needs a named record)"));
  }

  const Node* Union(const Json& j, const Where& path, const std::string& space, int depth) {
    Node* n = New(Type::kUnion);
    std::set<std::string> seen;
    for (size_t i = 0; i < j.size(); ++i) {
      Where at{&path, nullptr, static_cast<int>(i)};
      const Node* b = Type_(j[i], at, space, depth + 1);
      if (b->type == Type::kUnion) Fail(at, "a union may not directly contain another union");
      std::string key = b->named() ? b->full_name() : TypeName(b->type);
      if (!seen.insert(key).second) Fail(at, "the union holds " + key + " twice");
      n->branches.push_back(b);
    }
    return n;
  }

  std::pair<std::string, std::string> Name(const Json& j, const Where& path, const std::string& space) {
    auto nm = j.find("name");
    if (nm == j.end() || !nm->is_string()) Fail(path, "a named type needs a \"name\" string");
    std::string name = nm->get<std::string>(), ns = space;
    if (auto s = j.find("namespace"); s != j.end()) {
      if (!s->is_string() && !s->is_null()) Fail(Where{&path, "namespace"}, "the namespace must be a string");
      ns = s->is_string() ? s->get<std::string>() : "";
    }
    if (auto dot = name.rfind('.'); dot != std::string::npos) {
      ns = name.substr(0, dot);
      name = name.substr(dot + 1);
    }
    if (!ValidName(name)) Fail(Where{&path, "name"}, "'" + name + "' is not a valid Avro name ([A-Za-z_][A-Za-z0-9_]*)");
    if (!ValidNamespace(ns)) Fail(Where{&path, "namespace"}, "'" + ns + "' is not a valid Avro namespace");
    if (Primitives().count(name) && ns.empty()) Fail(Where{&path, "name"}, "'" + name + "' is a primitive type and cannot be redefined");
    return {name, ns};
  }

  void Register(Node* n, const Json& j, const Where& path) {
    std::string full = n->full_name();
    if (out_->named_.count(full)) Fail(Where{&path, "name"}, "the type " + full + " is defined twice");
    out_->named_[full] = n;
    if (auto a = j.find("aliases"); a != j.end()) {
      if (!a->is_array()) Fail(Where{&path, "aliases"}, "aliases must be an array of names");
      for (const auto& x : *a) {
        if (!x.is_string()) Fail(Where{&path, "aliases"}, "aliases must be an array of names");
        std::string alias = x.get<std::string>();
        n->aliases.push_back(alias.find('.') == std::string::npos && !n->space.empty() ? n->space + "." + alias : alias);
      }
    }
  }

  const Node* Record(const Json& j, const Where& path, const std::string& space, int depth) {
    Node* n = New(Type::kRecord);
    std::tie(n->name, n->space) = Name(j, path, space);
    Register(n, j, path);  // before the fields: a record may refer to itself
    auto fs = j.find("fields");
    if (fs == j.end() || !fs->is_array()) Fail(path, "a record needs a \"fields\" array");
    Where fields_at{&path, "fields"};
    n->fields.reserve(fs->size());
    for (size_t i = 0; i < fs->size(); ++i) {
      const Json& f = (*fs)[i];
      Where at{&fields_at, nullptr, static_cast<int>(i)};
      if (!f.is_object()) Fail(at, "a field must be an object");
      auto fn = f.find("name");
      if (fn == f.end() || !fn->is_string()) Fail(at, "a field needs a \"name\" string");
      Field field;
      field.name = fn->get<std::string>();
      field.position = static_cast<int>(i);
      if (!ValidName(field.name)) Fail(Where{&at, "name"}, "'" + field.name + "' is not a valid Avro field name");
      if (n->field_index.count(field.name)) Fail(Where{&at, "name"}, "duplicate field '" + field.name + "' in record " + n->full_name());
      if (!f.contains("type")) Fail(at, "field '" + field.name + "' has no \"type\"");
      field.type = Type_(f["type"], Where{&at, "type"}, n->space, depth + 1);
      if (auto a = f.find("aliases"); a != f.end() && a->is_array())
        for (const auto& x : *a)
          if (x.is_string()) field.aliases.push_back(x.get<std::string>());
      if (auto d = f.find("default"); d != f.end()) {
        field.has_default = true;
        field.default_value = *d;
        std::string why;
        if (!ValidDefault(*field.type, *d, 0, &why))
          Fail(Where{&at, "default"}, "the default " + Short(*d) + " of field '" + field.name + "' is not a " + Describe(*field.type) + why);
      }
      n->field_index[field.name] = field.position;
      n->fields.push_back(std::move(field));
    }
    return n;
  }

  const Node* Enum(const Json& j, const Where& path, const std::string& space) {
    Node* n = New(Type::kEnum);
    std::tie(n->name, n->space) = Name(j, path, space);
    auto s = j.find("symbols");
    if (s == j.end() || !s->is_array()) Fail(path, "an enum needs a \"symbols\" array");
    std::set<std::string> seen;
    Where symbols_at{&path, "symbols"};
    for (size_t i = 0; i < s->size(); ++i) {
      Where at{&symbols_at, nullptr, static_cast<int>(i)};
      if (!(*s)[i].is_string() || !ValidName((*s)[i].get<std::string>())) Fail(at, "an enum symbol must be a valid Avro name");
      if (!seen.insert((*s)[i].get<std::string>()).second) Fail(at, "duplicate enum symbol " + (*s)[i].get<std::string>());
      n->symbols.push_back((*s)[i].get<std::string>());
    }
    if (auto d = j.find("default"); d != j.end()) {
      if (!d->is_string() || !seen.count(d->get<std::string>()))
        Fail(Where{&path, "default"}, "the enum default must be one of its symbols");
      n->enum_default = d->get<std::string>();
    }
    Register(n, j, path);
    return n;
  }

  const Node* Fixed(const Json& j, const Where& path, const std::string& space) {
    Node* n = New(Type::kFixed);
    std::tie(n->name, n->space) = Name(j, path, space);
    auto s = j.find("size");
    if (s == j.end() || !s->is_number_integer() || s->get<int64_t>() < 0 || s->get<int64_t>() > INT_MAX)
      Fail(Where{&path, "size"}, "a fixed type needs a non-negative integer \"size\"");
    n->size = s->get<int64_t>();
    Logical(j, n);
    Register(n, j, path);
    return n;
  }

  static std::string Short(const Json& j) {
    std::string s = j.dump();
    return s.size() > 60 ? s.substr(0, 57) + "..." : s;
  }

  static std::string Describe(const Node& t) {
    std::string name = TypeName(t.type);
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (t.type == Type::kUnion && !t.branches.empty())
      return "value of the union's first branch (" + Describe(*t.branches[0]) + ")";
    return t.named() ? name + " " + t.full_name() : name;
  }

  // Avro's rule (as the registry applies it): a default must be a value of the field's type; for a
  // union, of its first branch.
  static bool ValidDefault(const Node& t, const Json& d, int depth, std::string* why) {
    if (depth > kMaxNesting) return true;
    switch (t.type) {
      case Type::kNull: return d.is_null();
      case Type::kBoolean: return d.is_boolean();
      case Type::kInt:
        return d.is_number_integer() && d.get<int64_t>() >= INT32_MIN && d.get<int64_t>() <= INT32_MAX;
      case Type::kLong: return d.is_number_integer();
      case Type::kFloat:
      case Type::kDouble: return d.is_number();
      case Type::kBytes:
      case Type::kString:
      case Type::kFixed: return d.is_string();
      case Type::kEnum: return d.is_string() && std::find(t.symbols.begin(), t.symbols.end(), d.get<std::string>()) != t.symbols.end();
      case Type::kArray:
        if (!d.is_array()) return false;
        for (const auto& x : d)
          if (!ValidDefault(*t.items, x, depth + 1, why)) return false;
        return true;
      case Type::kMap:
        if (!d.is_object()) return false;
        for (const auto& [k, x] : d.items())
          if (!ValidDefault(*t.items, x, depth + 1, why)) return false;
        return true;
      case Type::kUnion:
        if (t.branches.empty()) return false;
        if (!ValidDefault(*t.branches[0], d, depth + 1, why)) {
          for (size_t i = 1; i < t.branches.size(); ++i)
            if (ValidDefault(*t.branches[i], d, depth + 1, nullptr)) {
              if (why) *why = " (a union's default must match its first branch; put that branch first)";
              return false;
            }
          return false;
        }
        return true;
      case Type::kRecord:
        if (!d.is_object()) return false;
        for (const auto& f : t.fields) {
          auto it = d.find(f.name);
          if (it == d.end()) {
            if (!f.has_default) return false;
            continue;
          }
          if (!ValidDefault(*f.type, *it, depth + 1, why)) return false;
        }
        return true;
    }
    return false;
  }

  Schema* out_;
};

Result<std::shared_ptr<const Schema>> ParseJson(const Json& doc) {
  auto schema = std::make_shared<Schema>();
  Parser parser(schema.get());
  try {
    schema->root_ = parser.Type_(doc, Where{}, "", 0);
  } catch (const ParseError& e) {
    return InvalidArgument(e.path + ": " + e.message);
  }
  return std::shared_ptr<const Schema>(schema);
}

Result<std::shared_ptr<const Schema>> Parse(std::string_view text) {
  Json doc = Json::parse(text, nullptr, false);
  if (doc.is_discarded()) {
    // A bare name ("string", "com.acme.Order") is not JSON but Avro's parser accepts it.
    std::string t(text);
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.pop_back();
    size_t b = 0;
    while (b < t.size() && std::isspace(static_cast<unsigned char>(t[b]))) ++b;
    t = t.substr(b);
    if (Primitives().count(t)) return ParseJson(Json(t));
    return InvalidArgument("/: the schema is not valid JSON");
  }
  return ParseJson(doc);
}

}  // namespace dw::schema::avro
