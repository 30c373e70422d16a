#include "schema/json_schema_diff.h"

#include "base/exact_int.h"

#include <algorithm>
#include <functional>
#include <regex>
#include <set>

namespace dw::schema::jsonschema {
namespace {

const std::set<std::string>& CompatibleTypes() {
  static const std::set<std::string> s = {
      "ID_CHANGED", "DESCRIPTION_CHANGED", "TITLE_CHANGED", "DEFAULT_CHANGED", "SCHEMA_REMOVED", "TYPE_EXTENDED",
      "MAX_LENGTH_INCREASED", "MAX_LENGTH_REMOVED", "MIN_LENGTH_DECREASED", "MIN_LENGTH_REMOVED", "PATTERN_REMOVED",
      "MAXIMUM_INCREASED", "MAXIMUM_REMOVED", "MINIMUM_DECREASED", "MINIMUM_REMOVED", "EXCLUSIVE_MAXIMUM_INCREASED",
      "EXCLUSIVE_MAXIMUM_REMOVED", "EXCLUSIVE_MINIMUM_DECREASED", "EXCLUSIVE_MINIMUM_REMOVED", "MULTIPLE_OF_REDUCED",
      "MULTIPLE_OF_REMOVED", "REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED", "REQUIRED_ATTRIBUTE_REMOVED",
      "DEPENDENCY_ARRAY_NARROWED", "DEPENDENCY_ARRAY_REMOVED", "DEPENDENCY_SCHEMA_REMOVED", "MAX_PROPERTIES_INCREASED",
      "MAX_PROPERTIES_REMOVED", "MIN_PROPERTIES_DECREASED", "MIN_PROPERTIES_REMOVED", "ADDITIONAL_PROPERTIES_ADDED",
      "ADDITIONAL_PROPERTIES_EXTENDED", "PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL",
      "REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL", "OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL",
      "PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL", "PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL",
      "PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
      "PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", "MAX_ITEMS_INCREASED", "MAX_ITEMS_REMOVED",
      "MIN_ITEMS_DECREASED", "MIN_ITEMS_REMOVED", "UNIQUE_ITEMS_REMOVED", "ADDITIONAL_ITEMS_ADDED",
      "ADDITIONAL_ITEMS_EXTENDED", "ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL",
      "ITEM_ADDED_TO_CLOSED_CONTENT_MODEL", "ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL",
      "ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL", "ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL",
      "ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL", "ENUM_ARRAY_EXTENDED", "COMBINED_TYPE_EXTENDED",
      "PRODUCT_TYPE_NARROWED", "SUM_TYPE_EXTENDED", "NOT_TYPE_NARROWED"};
  return s;
}

// The class of a schema as the registry compares them: schemas of different classes are a
// TYPE_CHANGED (unless the update accepts everything or the original accepted nothing).
int ClassOf(Kind k) { return static_cast<int>(k); }

class Differ {
 public:
  Differ(const Model& writer, const Model& reader) : o_(writer), u_(reader) {}

  std::vector<Difference> Run() {
    Compare(o_.root, u_.root);
    return std::move(out_);
  }

 private:
  std::string Path() const {
    std::string p = "#";
    for (const auto& s : path_) p += "/" + s;
    return p;
  }
  void Add(const std::string& type) { out_.push_back({type, Path(), "", field_}); }
  void AddAt(const std::string& key, const std::string& type) {
    path_.push_back(key);
    Add(type);
    path_.pop_back();
  }

  // Whether comparing o and u alone yields only compatible differences.
  bool CompatibleAlone(int o, int u, std::vector<Difference>* diffs = nullptr) {
    Differ sub(o_, u_);
    sub.path_ = path_;
    sub.field_ = field_;
    sub.in_progress_ = in_progress_;
    sub.Compare(o, u);
    bool ok = std::all_of(sub.out_.begin(), sub.out_.end(), [](const Difference& d) { return IsCompatibleChange(d.type); });
    if (diffs) *diffs = std::move(sub.out_);
    return ok;
  }

  void Compare(int oi, int ui) {
    if (oi < 0 && ui < 0) return;
    if (oi < 0) return Add("SCHEMA_ADDED");
    if (ui < 0) return Add("SCHEMA_REMOVED");
    int o = o_.Deref(oi), u = u_.Deref(ui);
    const Node& on = o_.nodes[o];
    const Node& un = u_.nodes[u];
    // Metadata is read from the referring node when the reference carries it.
    const Node& om = o_.nodes[oi];
    const Node& um = u_.nodes[ui];
    if (un.kind == Kind::kCombined && on.kind != Kind::kCombined) {
      if (un.subs.size() == 1) {
        std::vector<Difference> d;
        if (CompatibleAlone(o, un.subs[0], &d)) return Append(d);
      } else if (un.criterion != Criterion::kAll) {
        for (int s : un.subs) {
          std::vector<Difference> d;
          if (CompatibleAlone(o, s, &d)) {
            Append(d);
            return Add("SUM_TYPE_EXTENDED");
          }
        }
      }
    } else if (on.kind == Kind::kCombined && un.kind != Kind::kCombined) {
      if (on.subs.size() == 1) {
        std::vector<Difference> d;
        if (CompatibleAlone(on.subs[0], u, &d)) return Append(d);
      } else if (on.criterion == Criterion::kAll) {
        for (int s : on.subs) {
          std::vector<Difference> d;
          if (CompatibleAlone(s, u, &d)) {
            Append(d);
            return Add("PRODUCT_TYPE_NARROWED");
          }
        }
      }
    }
    if (ClassOf(on.kind) != ClassOf(un.kind)) {
      bool update_accepts_all = un.kind == Kind::kEmpty || un.kind == Kind::kTrue;
      if (on.kind != Kind::kFalse && !update_accepts_all) Add("TYPE_CHANGED");
      return;
    }
    auto pair = std::make_pair(o, u);
    if (in_progress_.count(pair)) return;  // a recursive schema met again
    in_progress_.insert(pair);
    auto meta = [](const Node& ref, const Node& target, auto member) { return (ref.*member) ? (ref.*member) : (target.*member); };
    if (meta(om, on, &Node::id) != meta(um, un, &Node::id)) Add("ID_CHANGED");
    if (meta(om, on, &Node::title) != meta(um, un, &Node::title)) Add("TITLE_CHANGED");
    if (meta(om, on, &Node::description) != meta(um, un, &Node::description)) Add("DESCRIPTION_CHANGED");
    if (meta(om, on, &Node::default_value) != meta(um, un, &Node::default_value)) Add("DEFAULT_CHANGED");
    switch (on.kind) {
      case Kind::kString:
        Bound("maxLength", on.max_length, un.max_length, "MAX_LENGTH");
        Bound("minLength", on.min_length, un.min_length, "MIN_LENGTH");
        if (on.pattern != un.pattern)
          AddAt("pattern", !on.pattern ? "PATTERN_ADDED" : !un.pattern ? "PATTERN_REMOVED" : "PATTERN_CHANGED");
        break;
      case Kind::kNumber: Numbers(on, un); break;
      case Kind::kEnum:
      case Kind::kConst: Enums(on, un); break;
      case Kind::kCombined: Combined(on, un); break;
      case Kind::kNot: {
        path_.push_back("not");
        // `not` inverts the direction: the update's negated schema must read the original's.
        Differ sub(u_, o_);
        sub.path_ = path_;
        sub.Compare(un.target, on.target);
        bool ok = std::all_of(sub.out_.begin(), sub.out_.end(), [](const Difference& d) { return IsCompatibleChange(d.type); });
        Add(ok ? "NOT_TYPE_NARROWED" : "NOT_TYPE_EXTENDED");
        path_.pop_back();
        break;
      }
      case Kind::kObject: Object(on, un); break;
      case Kind::kArray: Array(on, un); break;
      default: break;
    }
    in_progress_.erase(pair);
  }

  void Append(std::vector<Difference>& d) {
    for (auto& x : d) out_.push_back(std::move(x));
  }

  template <typename T>
  void Bound(const char* key, const std::optional<T>& o, const std::optional<T>& u, const std::string& stem) {
    if (o == u) return;
    if (!o) return AddAt(key, stem + "_ADDED");
    if (!u) return AddAt(key, stem + "_REMOVED");
    AddAt(key, stem + (*o < *u ? "_INCREASED" : "_DECREASED"));
  }

  void Numbers(const Node& o, const Node& u) {
    Bound("maximum", o.maximum, u.maximum, "MAXIMUM");
    Bound("minimum", o.minimum, u.minimum, "MINIMUM");
    Bound("exclusiveMaximum", o.exclusive_maximum, u.exclusive_maximum, "EXCLUSIVE_MAXIMUM");
    Bound("exclusiveMinimum", o.exclusive_minimum, u.exclusive_minimum, "EXCLUSIVE_MINIMUM");
    if (o.multiple_of != u.multiple_of) {
      if (!o.multiple_of) {
        AddAt("multipleOf", "MULTIPLE_OF_ADDED");
      } else if (!u.multiple_of) {
        AddAt("multipleOf", "MULTIPLE_OF_REMOVED");
      } else {
        // Whole positive multiples compare by divisibility; any other pair (a fraction, a value
        // no int64_t holds) is only known to have changed.
        const std::optional<int64_t> a = ExactInt64(*o.multiple_of), b = ExactInt64(*u.multiple_of);
        const char* code = "MULTIPLE_OF_CHANGED";
        if (a && b && *a > 0 && *b > 0)
          code = *b % *a == 0 ? "MULTIPLE_OF_EXPANDED" : *a % *b == 0 ? "MULTIPLE_OF_REDUCED" : "MULTIPLE_OF_CHANGED";
        AddAt("multipleOf", code);
      }
    }
    if (o.integer != u.integer) Add(o.integer ? "TYPE_EXTENDED" : "TYPE_NARROWED");
  }

  void Enums(const Node& o, const Node& u) {
    auto contains_all = [](const std::vector<Json>& x, const std::vector<Json>& y) {
      return std::all_of(y.begin(), y.end(), [&](const Json& v) { return std::find(x.begin(), x.end(), v) != x.end(); });
    };
    const char* key = o.kind == Kind::kConst ? "const" : "enum";
    if (o.kind == Kind::kConst) {
      if (o.values != u.values) AddAt(key, "ENUM_ARRAY_CHANGED");
      return;
    }
    if (contains_all(o.values, u.values) && contains_all(u.values, o.values)) return;
    if (contains_all(u.values, o.values)) AddAt(key, "ENUM_ARRAY_EXTENDED");
    else if (contains_all(o.values, u.values)) AddAt(key, "ENUM_ARRAY_NARROWED");
    else AddAt(key, "ENUM_ARRAY_CHANGED");
  }

  static const char* CriterionName(Criterion c) {
    return c == Criterion::kAll ? "allOf" : c == Criterion::kAny ? "anyOf" : "oneOf";
  }

  void Combined(const Node& o, const Node& u) {
    if (o.criterion != u.criterion) {
      bool so = o.subs.size() == 1, su = u.subs.size() == 1;
      bool extended = u.criterion == Criterion::kAny || (so && su) || (so && u.criterion == Criterion::kOne) ||
                      (su && o.criterion == Criterion::kAll);
      if (!extended) return Add("COMBINED_TYPE_CHANGED");
      Add("COMBINED_TYPE_EXTENDED");
    }
    if (o.subs.size() < u.subs.size()) Add(u.criterion == Criterion::kAll ? "PRODUCT_TYPE_EXTENDED" : "SUM_TYPE_EXTENDED");
    else if (o.subs.size() > u.subs.size()) Add(o.criterion == Criterion::kAll ? "PRODUCT_TYPE_NARROWED" : "SUM_TYPE_NARROWED");
    // Each original subschema needs a distinct compatible update subschema (a matching).
    std::vector<std::vector<size_t>> edges(o.subs.size());
    for (size_t i = 0; i < o.subs.size(); ++i) {
      path_.push_back(std::string(CriterionName(o.criterion)) + "/" + std::to_string(i));
      for (size_t j = 0; j < u.subs.size(); ++j)
        if (CompatibleAlone(o.subs[i], u.subs[j])) edges[i].push_back(j);
      path_.pop_back();
    }
    std::vector<int> owner(u.subs.size(), -1);
    std::function<bool(size_t, std::vector<bool>&)> augment = [&](size_t l, std::vector<bool>& seen) {
      for (size_t r : edges[l]) {
        if (seen[r]) continue;
        seen[r] = true;
        if (owner[r] < 0 || augment(static_cast<size_t>(owner[r]), seen)) {
          owner[r] = static_cast<int>(l);
          return true;
        }
      }
      return false;
    };
    size_t matched = 0;
    for (size_t l = 0; l < edges.size(); ++l) {
      std::vector<bool> seen(u.subs.size(), false);
      if (augment(l, seen)) ++matched;
    }
    if (matched < std::min(o.subs.size(), u.subs.size())) Add("COMBINED_TYPE_SUBSCHEMAS_CHANGED");
  }

  static int Find(const std::vector<std::pair<std::string, int>>& props, const std::string& key) {
    for (const auto& [k, v] : props)
      if (k == key) return v;
    return -1;
  }
  static bool Has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }
  static bool Open(const Node& n) { return n.pattern_properties.empty() && n.additional < 0 && n.permits_additional; }
  // The schema of a partially open model that covers `key`, or -1.
  static int Partial(const Node& n, const std::string& key) {
    for (const auto& [pattern, schema] : n.pattern_properties) {
      try {
        if (std::regex_search(key, std::regex(pattern, std::regex::ECMAScript))) return schema;
      } catch (const std::regex_error&) {
      }
    }
    return n.additional;
  }
  bool HasDefault(const Model& m, int idx) const {
    return m.nodes[idx].default_value.has_value() || m.nodes[m.Deref(idx)].default_value.has_value();
  }

  void Object(const Node& o, const Node& u) {
    path_.push_back("required");
    for (const auto& [key, oidx] : o.properties) {
      int uidx = Find(u.properties, key);
      if (uidx < 0) continue;
      bool or_ = Has(o.required, key), ur = Has(u.required, key);
      std::string saved = field_;
      field_ = key;
      if (or_ && !ur) AddAt(key, "REQUIRED_ATTRIBUTE_REMOVED");
      else if (!or_ && ur) AddAt(key, HasDefault(u_, uidx) ? "REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED" : "REQUIRED_ATTRIBUTE_ADDED");
      field_ = saved;
    }
    path_.pop_back();

    path_.push_back("properties");
    std::vector<std::string> keys;
    for (const auto& [k, v] : o.properties) keys.push_back(k);
    for (const auto& [k, v] : u.properties)
      if (!Has(keys, k)) keys.push_back(k);
    for (const auto& key : keys) {
      path_.push_back(key);
      std::string saved = field_;
      field_ = field_.empty() ? key : field_ + "." + key;
      int os = Find(o.properties, key), us = Find(u.properties, key);
      if (os >= 0 && us < 0) {
        if (Open(u)) {
          Add("PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL");
        } else if (int partial = Partial(u, key); partial >= 0) {
          std::vector<Difference> d;
          bool ok = CompatibleAlone(os, partial, &d);
          Append(d);
          Add(ok ? "PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL" : "PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL");
        } else if (o_.nodes[o_.Deref(os)].kind == Kind::kFalse) {
          Add("PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL");
        } else {
          Add("PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL");
        }
      } else if (os < 0 && us >= 0) {
        if (Open(o)) {
          Kind k = u_.nodes[u_.Deref(us)].kind;
          Add(k == Kind::kEmpty || k == Kind::kTrue ? "PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL" : "PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL");
        } else {
          if (int partial = Partial(o, key); partial >= 0) {
            std::vector<Difference> d;
            bool ok = CompatibleAlone(partial, us, &d);
            Append(d);
            Add(ok ? "PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL" : "PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL");
          }
          if (Has(u.required, key))
            Add(HasDefault(u_, us) ? "REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL" : "REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL");
          else
            Add("OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL");
        }
      } else {
        Compare(os, us);
      }
      field_ = saved;
      path_.pop_back();
    }
    path_.pop_back();

    path_.push_back("additionalProperties");
    if (o.permits_additional != u.permits_additional) Add(u.permits_additional ? "ADDITIONAL_PROPERTIES_ADDED" : "ADDITIONAL_PROPERTIES_REMOVED");
    else if (o.additional < 0 && u.additional >= 0) Add("ADDITIONAL_PROPERTIES_NARROWED");
    else if (u.additional < 0 && o.additional >= 0) Add("ADDITIONAL_PROPERTIES_EXTENDED");
    else Compare(o.additional, u.additional);
    path_.pop_back();
    Bound("maxProperties", o.max_properties, u.max_properties, "MAX_PROPERTIES");
    Bound("minProperties", o.min_properties, u.min_properties, "MIN_PROPERTIES");
  }

  void Array(const Node& o, const Node& u) {
    path_.push_back("items");
    Compare(o.all_items, u.all_items);
    path_.pop_back();
    size_t common = std::min(o.item_schemas.size(), u.item_schemas.size());
    for (size_t i = 0; i < common; ++i) {
      path_.push_back("items/" + std::to_string(i));
      Compare(o.item_schemas[i], u.item_schemas[i]);
      path_.pop_back();
    }
    auto open = [](const Node& a) { return a.additional_items < 0 && a.permits_additional_items; };
    for (size_t i = common; i < o.item_schemas.size(); ++i) {
      path_.push_back("items/" + std::to_string(i));
      if (open(u)) {
        Add("ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL");
      } else if (u.additional_items >= 0) {
        std::vector<Difference> d;
        bool ok = CompatibleAlone(o.item_schemas[i], u.additional_items, &d);
        Append(d);
        Add(ok ? "ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL" : "ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL");
      } else if (o_.nodes[o_.Deref(o.item_schemas[i])].kind == Kind::kFalse) {
        Add("ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL");
      } else {
        Add("ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL");
      }
      path_.pop_back();
    }
    for (size_t i = common; i < u.item_schemas.size(); ++i) {
      path_.push_back("items/" + std::to_string(i));
      if (open(o)) {
        Kind k = u_.nodes[u_.Deref(u.item_schemas[i])].kind;
        Add(k == Kind::kEmpty || k == Kind::kTrue ? "ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL" : "ITEM_ADDED_TO_OPEN_CONTENT_MODEL");
      } else if (o.additional_items >= 0) {
        std::vector<Difference> d;
        bool ok = CompatibleAlone(o.additional_items, u.item_schemas[i], &d);
        Append(d);
        Add(ok ? "ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL" : "ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL");
      } else {
        Add("ITEM_ADDED_TO_CLOSED_CONTENT_MODEL");
      }
      path_.pop_back();
    }
    path_.push_back("additionalItems");
    if (o.permits_additional_items != u.permits_additional_items) Add(o.permits_additional_items ? "ADDITIONAL_ITEMS_REMOVED" : "ADDITIONAL_ITEMS_ADDED");
    else if (o.additional_items < 0 && u.additional_items >= 0) Add("ADDITIONAL_ITEMS_NARROWED");
    else if (u.additional_items < 0 && o.additional_items >= 0) Add("ADDITIONAL_ITEMS_EXTENDED");
    else Compare(o.additional_items, u.additional_items);
    path_.pop_back();
    Bound("maxItems", o.max_items, u.max_items, "MAX_ITEMS");
    Bound("minItems", o.min_items, u.min_items, "MIN_ITEMS");
    if (o.unique_items != u.unique_items) AddAt("uniqueItems", o.unique_items ? "UNIQUE_ITEMS_REMOVED" : "UNIQUE_ITEMS_ADDED");
  }

  const Model& o_;
  const Model& u_;
  std::vector<std::string> path_;
  std::string field_;
  std::set<std::pair<int, int>> in_progress_;
  std::vector<Difference> out_;
};

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::vector<Difference> Differences(const Model& reader, const Model& writer) { return Differ(writer, reader).Run(); }

bool IsCompatibleChange(const std::string& type) { return CompatibleTypes().count(type) > 0; }

std::vector<Difference> ReadDifferences(const Model& reader, const Model& writer) {
  std::vector<Difference> out;
  for (auto& d : Differences(reader, writer))
    if (!IsCompatibleChange(d.type)) out.push_back(std::move(d));
  return out;
}

std::string Describe(const Difference& d, const std::string& a, const std::string& b) {
  const std::string& t = d.type;
  const std::string p = "'" + d.path + "'";
  if (t == "PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL" || t == "ITEM_ADDED_TO_OPEN_CONTENT_MODEL")
    return "The " + a + " schema has an open content model and has a property or item at path " + p + " which is missing in the " + b + " schema";
  if (t == "REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL")
    return "The " + a + " schema has an unopen content model and has a required property at path " + p + " which is missing in the " + b + " schema";
  if (t == "PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL" || t == "ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL")
    return "The " + a + " has a closed content model and is missing a property or item present at path " + p + " in the " + b + " schema";
  if (EndsWith(t, "_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL"))
    return t.find("REMOVED") != std::string::npos
               ? "A property or item is missing in the " + a + " schema but present at path " + p + " in the " + b + " schema and is not covered by its partially open content model"
               : "The " + a + " schema has a property or item at path " + p + " which is missing in the " + b + " schema and is not covered by its partially open content model";
  if (t == "TYPE_CHANGED" || t == "TYPE_NARROWED" || t == "COMBINED_TYPE_CHANGED" || t == "COMBINED_TYPE_SUBSCHEMAS_CHANGED" || t == "ENUM_ARRAY_CHANGED")
    return "A type at path " + p + " is different between the " + a + " schema and the " + b + " schema";
  if (t == "ENUM_ARRAY_NARROWED" || t == "SUM_TYPE_NARROWED" || t == "ADDITIONAL_PROPERTIES_NARROWED" || t == "ADDITIONAL_ITEMS_NARROWED")
    return "An array or combined type at path " + p + " has fewer elements in the " + a + " schema than the " + b + " schema";
  if (t == "PRODUCT_TYPE_EXTENDED" || t == "NOT_TYPE_EXTENDED" || t == "DEPENDENCY_ARRAY_EXTENDED")
    return "An array or combined type at path " + p + " has more elements in the " + a + " schema than the " + b + " schema";
  if (EndsWith(t, "_INCREASED") || t == "MULTIPLE_OF_EXPANDED")
    return "The value at path " + p + " in the " + a + " schema is more than its value in the " + b + " schema";
  if (EndsWith(t, "_DECREASED")) return "The value at path " + p + " in the " + a + " schema is less than its value in the " + b + " schema";
  if (EndsWith(t, "_CHANGED")) return "The value at path " + p + " is different between the " + a + " and " + b + " schema";
  if (EndsWith(t, "_ADDED") || t == "ADDITIONAL_PROPERTIES_REMOVED" || t == "ADDITIONAL_ITEMS_REMOVED")
    return "The keyword at path " + p + " in the " + a + " schema is not present in the " + b + " schema";
  return "A difference of type " + t + " at path " + p + " between the " + a + " and the " + b + " schema";
}

}  // namespace dw::schema::jsonschema
