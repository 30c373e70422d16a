#include "schema/json_schema_model.h"

#include "base/exact_int.h"

#include <algorithm>
#include <map>
#include <set>

namespace dw::schema::jsonschema {

int Model::Deref(int i) const {
  // Build refuses loops of references, so this ends.
  for (int hops = 0; i >= 0 && nodes[i].kind == Kind::kRef && hops < 1000; ++hops) i = nodes[i].target;
  return i;
}

namespace {

const std::vector<std::string> kArrayKeywords = {"items", "additionalItems", "maxItems", "minItems", "uniqueItems", "contains"};
const std::vector<std::string> kObjectKeywords = {"properties", "required", "additionalProperties", "minProperties",
                                                  "maxProperties", "dependencies", "patternProperties", "propertyNames"};
const std::vector<std::string> kNumberKeywords = {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"};
const std::vector<std::string> kStringKeywords = {"minLength", "maxLength", "pattern", "format"};

struct BuildError {
  std::string path, message;
};

class Builder {
 public:
  explicit Builder(const Json& doc) : doc_(doc) {
    if (doc.is_object())
      if (auto s = doc.find("$schema"); s != doc.end() && s->is_string()) {
        std::string v = s->get<std::string>();
        draft4_ = v.find("draft-04") != std::string::npos;
      }
  }

  Model Run() {
    model_.root = Load(doc_, "#", 0);
    // A reference whose chain never reaches a schema is a loop: refuse it.
    for (size_t i = 0; i < model_.nodes.size(); ++i) {
      int at = static_cast<int>(i);
      std::set<int> seen;
      while (at >= 0 && model_.nodes[at].kind == Kind::kRef) {
        if (!seen.insert(at).second)
          throw BuildError{ref_paths_[static_cast<int>(i)], "the $ref refers to itself without reaching a schema (recursion needs a schema in between)"};
        at = model_.nodes[at].target;
      }
    }
    return std::move(model_);
  }

 private:
  [[noreturn]] static void Fail(const std::string& path, const std::string& message) { throw BuildError{path, message}; }

  int Push(Node n) {
    model_.nodes.push_back(std::move(n));
    return static_cast<int>(model_.nodes.size()) - 1;
  }
  int Bare(Kind k) {
    Node n;
    n.kind = k;
    return Push(std::move(n));
  }

  static std::optional<int64_t> Int(const Json& o, const char* key, const std::string& path) {
    auto it = o.find(key);
    if (it == o.end()) return std::nullopt;
    const std::optional<int64_t> exact =
        it->is_number_float() ? ExactInt64(it->get<double>()) : std::optional<int64_t>();
    if (!it->is_number_integer() && !exact)
      Fail(path + "/" + key, std::string("\"") + key + "\" must be a non-negative integer");
    int64_t v = it->is_number_integer() ? it->get<int64_t>() : *exact;
    if (v < 0) Fail(path + "/" + key, std::string("\"") + key + "\" must be a non-negative integer");
    return v;
  }
  static std::optional<double> Num(const Json& o, const char* key, const std::string& path) {
    auto it = o.find(key);
    if (it == o.end()) return std::nullopt;
    if (!it->is_number()) {
      if (it->is_boolean()) return std::nullopt;  // draft-04 exclusive limits are booleans
      Fail(path + "/" + key, std::string("\"") + key + "\" must be a number");
    }
    return it->get<double>();
  }

  const Json* Pointer(const std::string& fragment) const {
    if (fragment.empty() || fragment == "/") return &doc_;
    if (fragment[0] != '/') return nullptr;
    const Json* at = &doc_;
    size_t start = 1;
    while (true) {
      size_t slash = fragment.find('/', start);
      std::string token = fragment.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
      std::string t;
      for (size_t i = 0; i < token.size(); ++i) {
        if (token[i] == '~' && i + 1 < token.size()) {
          t += token[i + 1] == '1' ? '/' : '~';
          ++i;
        } else if (token[i] == '%' && i + 2 < token.size()) {
          t += static_cast<char>(std::stoi(token.substr(i + 1, 2), nullptr, 16));
          i += 2;
        } else {
          t += token[i];
        }
      }
      if (at->is_object()) {
        auto it = at->find(t);
        if (it == at->end()) return nullptr;
        at = &*it;
      } else if (at->is_array()) {
        if (t.empty() || !std::all_of(t.begin(), t.end(), ::isdigit)) return nullptr;
        size_t idx = std::stoul(t);
        if (idx >= at->size()) return nullptr;
        at = &(*at)[idx];
      } else {
        return nullptr;
      }
      if (slash == std::string::npos) return at;
      start = slash + 1;
    }
  }

  int Ref(const std::string& ref, const std::string& path, int depth) {
    if (ref.empty() || ref[0] != '#')
      Fail(path + "/$ref", "the $ref '" + ref +
                               "' points out of the document; only references inside it (#/definitions/...) can be "
                               "checked (schema references to other subjects are not supported)");
    std::string fragment = ref.substr(1);
    if (auto it = ref_cache_.find(fragment); it != ref_cache_.end()) return it->second;
    const Json* target = Pointer(fragment);
    if (!target) Fail(path + "/$ref", "the $ref '" + ref + "' refers to nothing in the document");
    // A placeholder first, so a recursive reference resolves to this node.
    int idx = Bare(Kind::kRef);
    ref_paths_[idx] = path + "/$ref";
    ref_cache_[fragment] = idx;
    int loaded = Load(*target, "#" + fragment, depth + 1);
    model_.nodes[idx].target = loaded;
    return idx;
  }

  int Load(const Json& j, const std::string& path, int depth) {
    if (depth > kMaxNesting) Fail(path, "the schema nests deeper than " + std::to_string(kMaxNesting) + " levels");
    if (j.is_boolean()) return Bare(j.get<bool>() ? Kind::kTrue : Kind::kFalse);
    if (!j.is_object()) Fail(path, std::string("a schema must be an object or a boolean, not ") + j.type_name());
    Node common;
    auto text = [&](const char* key) -> std::optional<std::string> {
      auto it = j.find(key);
      if (it == j.end() || !it->is_string()) return std::nullopt;
      return it->get<std::string>();
    };
    common.id = text(draft4_ ? "id" : "$id");
    common.title = text("title");
    common.description = text("description");
    if (auto d = j.find("default"); d != j.end()) common.default_value = *d;

    if (auto r = j.find("$ref"); r != j.end()) {
      if (!r->is_string()) Fail(path + "/$ref", "\"$ref\" must be a string");
      Node n = common;
      n.kind = Kind::kRef;
      n.target = Ref(r->get<std::string>(), path, depth);
      return Push(std::move(n));
    }
    std::set<std::string> remaining;
    for (const auto& [k, v] : j.items()) remaining.insert(k);
    auto consume = [&](const std::vector<std::string>& keys) {
      for (const auto& k : keys) remaining.erase(k);
    };
    auto has = [&](const std::vector<std::string>& keys) {
      for (const auto& k : keys)
        if (remaining.count(k)) return true;
      return false;
    };
    std::vector<int> extracted;
    if (auto e = j.find("enum"); e != j.end()) {
      if (!e->is_array()) Fail(path + "/enum", "\"enum\" must be an array");
      Node n;
      n.kind = Kind::kEnum;
      n.values.assign(e->begin(), e->end());
      extracted.push_back(Push(std::move(n)));
      consume({"enum"});
    }
    for (auto [key, crit] : {std::pair{"allOf", Criterion::kAll}, std::pair{"anyOf", Criterion::kAny}, std::pair{"oneOf", Criterion::kOne}}) {
      auto c = j.find(key);
      if (c == j.end()) continue;
      if (!c->is_array() || c->empty()) Fail(path + "/" + key, std::string("\"") + key + "\" must be a non-empty array of schemas");
      Node n;
      n.kind = Kind::kCombined;
      n.criterion = crit;
      std::set<std::string> seen;  // identical subschemas count once, as in the registry
      for (size_t i = 0; i < c->size(); ++i)
        if (seen.insert((*c)[i].dump()).second) n.subs.push_back(Load((*c)[i], path + "/" + key + "/" + std::to_string(i), depth + 1));
      extracted.push_back(Push(std::move(n)));
      consume({key});
    }
    if (auto no = j.find("not"); no != j.end()) {
      Node n;
      n.kind = Kind::kNot;
      n.target = Load(*no, path + "/not", depth + 1);
      extracted.push_back(Push(std::move(n)));
      consume({"not"});
    }
    if (!draft4_)
      if (auto c = j.find("const"); c != j.end()) {
        Node n;
        n.kind = Kind::kConst;
        n.values = {*c};
        extracted.push_back(Push(std::move(n)));
        consume({"const"});
      }
    if (auto t = j.find("type"); t != j.end()) {
      if (t->is_string()) {
        extracted.push_back(Typed(t->get<std::string>(), j, path, depth, remaining));
      } else if (t->is_array()) {
        Node n;
        n.kind = Kind::kCombined;
        n.criterion = Criterion::kAny;
        for (size_t i = 0; i < t->size(); ++i) {
          if (!(*t)[i].is_string()) Fail(path + "/type/" + std::to_string(i), "a type must be a string");
          n.subs.push_back(Typed((*t)[i].get<std::string>(), j, path, depth, remaining));
        }
        extracted.push_back(Push(std::move(n)));
      } else {
        Fail(path + "/type", "\"type\" must be a string or an array of strings");
      }
      consume({"type"});
    }
    // Keywords without a "type" still constrain: the registry reads them as that kind of schema.
    if (has(kArrayKeywords)) {
      extracted.push_back(Array(j, path, depth));
      consume(kArrayKeywords);
    }
    if (has(kObjectKeywords)) {
      extracted.push_back(Object(j, path, depth));
      consume(kObjectKeywords);
    }
    if (has(kNumberKeywords)) {
      extracted.push_back(Number(j, path, false));
      consume(kNumberKeywords);
    }
    if (has(kStringKeywords)) {
      extracted.push_back(String(j, path));
      consume(kStringKeywords);
    }
    Node out = common;
    if (extracted.size() == 1) {
      Node only = model_.nodes[extracted[0]];
      only.id = common.id;
      only.title = common.title;
      only.description = common.description;
      only.default_value = common.default_value;
      return Push(std::move(only));
    }
    if (extracted.size() > 1) {
      out.kind = Kind::kCombined;
      out.criterion = Criterion::kAll;
      out.subs = extracted;
    }
    return Push(std::move(out));
  }

  int Typed(const std::string& t, const Json& o, const std::string& path, int depth, std::set<std::string>& remaining) {
    auto consume = [&](const std::vector<std::string>& keys) {
      for (const auto& k : keys) remaining.erase(k);
    };
    if (t == "string") {
      consume(kStringKeywords);
      return String(o, path);
    }
    if (t == "integer" || t == "number") {
      consume(kNumberKeywords);
      return Number(o, path, t == "integer");
    }
    if (t == "boolean") return Bare(Kind::kBoolean);
    if (t == "null") return Bare(Kind::kNull);
    if (t == "array") {
      consume(kArrayKeywords);
      return Array(o, path, depth);
    }
    if (t == "object") {
      consume(kObjectKeywords);
      return Object(o, path, depth);
    }
    Fail(path + "/type", "unknown type '" + t + "' (string, integer, number, boolean, null, array or object)");
  }

  int String(const Json& o, const std::string& path) {
    Node n;
    n.kind = Kind::kString;
    n.min_length = Int(o, "minLength", path);
    n.max_length = Int(o, "maxLength", path);
    if (auto p = o.find("pattern"); p != o.end()) {
      if (!p->is_string()) Fail(path + "/pattern", "\"pattern\" must be a string");
      n.pattern = p->get<std::string>();
    }
    return Push(std::move(n));
  }

  int Number(const Json& o, const std::string& path, bool integer) {
    Node n;
    n.kind = Kind::kNumber;
    n.integer = integer;
    n.minimum = Num(o, "minimum", path);
    n.maximum = Num(o, "maximum", path);
    if (!draft4_) {
      n.exclusive_minimum = Num(o, "exclusiveMinimum", path);
      n.exclusive_maximum = Num(o, "exclusiveMaximum", path);
    }
    n.multiple_of = Num(o, "multipleOf", path);
    return Push(std::move(n));
  }

  int Array(const Json& o, const std::string& path, int depth) {
    Node n;
    n.kind = Kind::kArray;
    if (auto it = o.find("items"); it != o.end()) {
      if (it->is_array()) {
        for (size_t i = 0; i < it->size(); ++i) n.item_schemas.push_back(Load((*it)[i], path + "/items/" + std::to_string(i), depth + 1));
      } else {
        n.all_items = Load(*it, path + "/items", depth + 1);
      }
    }
    if (auto it = o.find("additionalItems"); it != o.end()) {
      if (it->is_boolean()) n.permits_additional_items = it->get<bool>();
      else n.additional_items = Load(*it, path + "/additionalItems", depth + 1);
    }
    n.min_items = Int(o, "minItems", path);
    n.max_items = Int(o, "maxItems", path);
    if (auto it = o.find("uniqueItems"); it != o.end() && it->is_boolean()) n.unique_items = it->get<bool>();
    return Push(std::move(n));
  }

  int Object(const Json& o, const std::string& path, int depth) {
    Node n;
    n.kind = Kind::kObject;
    if (auto it = o.find("properties"); it != o.end()) {
      if (!it->is_object()) Fail(path + "/properties", "\"properties\" must be an object");
      for (const auto& [k, v] : it->items()) n.properties.push_back({k, Load(v, path + "/properties/" + k, depth + 1)});
    }
    if (auto it = o.find("required"); it != o.end()) {
      if (!it->is_array()) Fail(path + "/required", "\"required\" must be an array of property names");
      for (const auto& r : *it) {
        if (!r.is_string()) Fail(path + "/required", "\"required\" must be an array of property names");
        n.required.push_back(r.get<std::string>());
      }
    }
    if (auto it = o.find("additionalProperties"); it != o.end()) {
      if (it->is_boolean()) n.permits_additional = it->get<bool>();
      else n.additional = Load(*it, path + "/additionalProperties", depth + 1);
    }
    if (auto it = o.find("patternProperties"); it != o.end() && it->is_object())
      for (const auto& [k, v] : it->items()) n.pattern_properties.push_back({k, Load(v, path + "/patternProperties/" + k, depth + 1)});
    n.min_properties = Int(o, "minProperties", path);
    n.max_properties = Int(o, "maxProperties", path);
    return Push(std::move(n));
  }

  const Json& doc_;
  bool draft4_ = false;
  Model model_;
  std::map<std::string, int> ref_cache_;
  std::map<int, std::string> ref_paths_;
};

}  // namespace

Result<Model> BuildModel(const Json& doc) {
  try {
    Builder b(doc);
    return b.Run();
  } catch (const BuildError& e) {
    return InvalidArgument(e.path + ": " + e.message);
  } catch (const std::exception& e) {  // a malformed %-escape in a $ref
    return InvalidArgument(std::string("#: ") + e.what());
  }
}

}  // namespace dw::schema::jsonschema
