#include "observe/quality/check_spec.h"

#include <algorithm>
#include <set>

#include "config/duration.h"
#include "config/suggest.h"
#include "observe/quality/table_plan.h"

namespace dw::observe::quality {
namespace {

const std::vector<std::string>& KnownKeys() {
  static const std::vector<std::string> keys = {
      "table",  "time_column", "not_null",         "unique", "freshness", "volume",
      "accepted_values", "range", "schema", "row_count_change", "custom", "pii", "tune"};
  return keys;
}

Status Bad(const std::string& path, const std::string& message) {
  return InvalidArgument(path + ": " + message);
}

Result<std::string> Column(const Json& v, const std::string& path) {
  if (!v.is_string() || v.get<std::string>().empty())
    return Bad(path, "expected a column name (a non-empty string)");
  return v.get<std::string>();
}

Result<std::vector<std::string>> Columns(const Json& v, const std::string& path) {
  if (!v.is_array()) return Bad(path, "expected a list of column names");
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size(); ++i) {
    Result<std::string> c = Column(v[i], path + "[" + std::to_string(i) + "]");
    if (!c.ok()) return c.status();
    out.push_back(*c);
  }
  return out;
}

Result<std::optional<double>> OptNumber(const Json& obj, const std::string& key,
                                        const std::string& path, bool non_negative) {
  if (!obj.contains(key)) return std::optional<double>();
  const Json& v = obj[key];
  if (!v.is_number()) return Bad(path + "." + key, "expected a number");
  double d = v.get<double>();
  if (non_negative && d < 0) return Bad(path + "." + key, "must be at least 0");
  return std::optional<double>(d);
}

Status OnlyKeys(const Json& obj, const std::string& path, const std::vector<std::string>& keys) {
  for (const auto& [k, _] : obj.items()) {
    bool known = false;
    for (const std::string& key : keys) known = known || key == k;
    if (!known)
      return Bad(path + "." + k, "unknown key (expected one of: " + [&] {
        std::string all;
        for (const std::string& key : keys) all += (all.empty() ? "" : ", ") + key;
        return all;
      }() + ")");
  }
  return Status::Ok();
}

Result<std::chrono::milliseconds> DurationAt(const Json& v, const std::string& path) {
  if (!v.is_string()) return Bad(path, "expected a duration such as 30m");
  Result<std::chrono::milliseconds> d = config::ParseDuration(v.get<std::string>());
  if (!d.ok()) return Bad(path, d.status().message());
  return *d;
}

Result<CheckLevel> LevelAt(const Json& v, const std::string& path) {
  if (v.is_string() && v.get<std::string>() == "fail") return CheckLevel::kFail;
  if (v.is_string() && v.get<std::string>() == "warn") return CheckLevel::kWarn;
  return Bad(path, "expected warn or fail");
}

// A fraction in [0, 1].
Result<double> FractionAt(const Json& v, const std::string& path) {
  if (!v.is_number() || v.get<double>() < 0 || v.get<double>() > 1)
    return Bad(path, "expected a fraction between 0 and 1");
  return v.get<double>();
}

// `tune:` {<check name or type>: {level, max_fraction | mostly}}, each key a check `spec` declares.
Status ParseTune(const Json& value, const std::string& at, TableCheckSpec& spec) {
  if (!value.is_object()) return Bad(at, "expected a mapping of check name or type to {level, max_fraction}");
  std::vector<std::string> known;
  for (const auto& [name, type] : CheckNames(spec)) {
    known.push_back(name);
    if (std::find(known.begin(), known.end(), type) == known.end()) known.push_back(type);
  }
  for (const auto& [key, t] : value.items()) {
    const std::string kat = at + "." + key;
    if (std::find(known.begin(), known.end(), key) == known.end())
      return Bad(kat, "no check of this table is called so" + config::DidYouMean(key, known));
    if (!t.is_object()) return Bad(kat, "expected {level, max_fraction}");
    DW_RETURN_IF_ERROR(OnlyKeys(t, kat, {"level", "max_fraction", "mostly"}));
    CheckTuning tuning;
    if (t.contains("level")) {
      Result<CheckLevel> l = LevelAt(t["level"], kat + ".level");
      if (!l.ok()) return l.status();
      tuning.level = *l;
    }
    if (t.contains("max_fraction") && t.contains("mostly"))
      return Bad(kat, "give max_fraction or mostly (1 - max_fraction), not both");
    for (const char* rate : {"max_fraction", "mostly"}) {
      if (!t.contains(rate)) continue;
      const std::string type = key.substr(0, key.find(':'));
      if (type != "not_null" && type != "accepted_values" && type != "range")
        return Bad(kat + "." + rate, "allowed rates apply to not_null, accepted_values and range");
      Result<double> f = FractionAt(t[rate], kat + "." + rate);
      if (!f.ok()) return f.status();
      tuning.max_fraction = std::string(rate) == "mostly" ? 1.0 - *f : *f;
    }
    spec.tune.emplace_back(key, tuning);
  }
  return Status::Ok();
}

}  // namespace

bool TableCheckSpec::Empty() const {
  return not_null.empty() && unique.empty() && !freshness_max_age && !volume &&
         accepted_values.empty() && range.empty() && !schema && !row_count_change &&
         custom.empty() && imported.empty();
}

CheckTuning TableCheckSpec::TuningOf(const std::string& name, const std::string& type) const {
  for (const ImportedTest& t : imported)
    if (t.name == name) return t.tuning;
  const CheckTuning* by_type = nullptr;
  for (const auto& [key, tuning] : tune) {
    if (key == name) return tuning;
    if (key == type) by_type = &tuning;
  }
  if (type == "custom")
    for (const CustomSpec& c : custom)
      if ("custom:" + c.name == name) {
        CheckTuning t = by_type ? *by_type : CheckTuning{};
        if (c.level == CheckLevel::kWarn) t.level = CheckLevel::kWarn;
        return t;
      }
  return by_type ? *by_type : CheckTuning{};
}

Result<TableCheckSpec> ParseCheckSpec(const Json& block, const std::string& path,
                                      SpecSource source) {
  if (!block.is_object()) return Bad(path, "expected a mapping of check names to settings");
  TableCheckSpec spec;
  for (const auto& [key, value] : block.items()) {
    const std::string at = path + "." + key;
    auto known = std::find(KnownKeys().begin(), KnownKeys().end(), key) != KnownKeys().end();
    if (!known) return Bad(at, "unknown check" + config::DidYouMean(key, KnownKeys()));
    if (key == "table" || key == "tune") continue;  // tune names checks: read after them
    if (key == "time_column") {
      Result<std::string> c = Column(value, at);
      if (!c.ok()) return c.status();
      spec.time_column = *c;
    } else if (key == "not_null") {
      Result<std::vector<std::string>> c = Columns(value, at);
      if (!c.ok()) return c.status();
      spec.not_null = *c;
    } else if (key == "pii") {
      Result<std::vector<std::string>> c = Columns(value, at);
      if (!c.ok()) return c.status();
      spec.pii = *c;
    } else if (key == "unique") {
      if (!value.is_array()) return Bad(at, "expected a list of columns or column lists");
      for (size_t i = 0; i < value.size(); ++i) {
        const std::string item = at + "[" + std::to_string(i) + "]";
        if (value[i].is_array()) {
          Result<std::vector<std::string>> c = Columns(value[i], item);
          if (!c.ok()) return c.status();
          if (c->empty()) return Bad(item, "a key needs at least one column");
          spec.unique.push_back(*c);
        } else {
          Result<std::string> c = Column(value[i], item);
          if (!c.ok()) return c.status();
          spec.unique.push_back({*c});
        }
      }
    } else if (key == "freshness") {
      if (!value.is_object() || !value.contains("max_age"))
        return Bad(at, "expected {max_age: <duration>}");
      DW_RETURN_IF_ERROR(OnlyKeys(value, at, {"max_age"}));
      Result<std::chrono::milliseconds> d = DurationAt(value["max_age"], at + ".max_age");
      if (!d.ok()) return d.status();
      spec.freshness_max_age = *d;
    } else if (key == "volume") {
      if (!value.is_object()) return Bad(at, "expected {min_rows, max_rows, window}");
      DW_RETURN_IF_ERROR(OnlyKeys(value, at, {"min_rows", "max_rows", "window"}));
      VolumeSpec v;
      for (const char* bound : {"min_rows", "max_rows"}) {
        if (!value.contains(bound)) continue;
        const Json& n = value[bound];
        if (!n.is_number_integer() || n.get<int64_t>() < 0)
          return Bad(at + "." + bound, "expected a whole number of rows, at least 0");
        (std::string(bound) == "min_rows" ? v.min_rows : v.max_rows) = n.get<int64_t>();
      }
      if (!v.min_rows && !v.max_rows) return Bad(at, "needs min_rows or max_rows");
      if (v.min_rows && v.max_rows && *v.min_rows > *v.max_rows)
        return Bad(at, "min_rows is larger than max_rows");
      if (value.contains("window")) {
        Result<std::chrono::milliseconds> d = DurationAt(value["window"], at + ".window");
        if (!d.ok()) return d.status();
        v.window = *d;
      }
      spec.volume = v;
    } else if (key == "accepted_values") {
      if (!value.is_object()) return Bad(at, "expected a mapping of column to a list of values");
      for (const auto& [column, values] : value.items()) {
        if (column.empty()) return Bad(at, "a column name is empty");
        if (!values.is_array() || values.empty())
          return Bad(at + "." + column, "expected a non-empty list of values");
        std::vector<Json> list;
        for (size_t i = 0; i < values.size(); ++i) {
          const Json& v = values[i];
          if (!v.is_string() && !v.is_number() && !v.is_boolean())
            return Bad(at + "." + column + "[" + std::to_string(i) + "]",
                       "expected a string, number or true/false");
          list.push_back(v);
        }
        spec.accepted_values.emplace_back(column, std::move(list));
      }
    } else if (key == "range") {
      if (!value.is_object()) return Bad(at, "expected a mapping of column to {min, max}");
      for (const auto& [column, bounds] : value.items()) {
        const std::string cat = at + "." + column;
        if (column.empty()) return Bad(at, "a column name is empty");
        if (!bounds.is_object()) return Bad(cat, "expected {min, max}");
        DW_RETURN_IF_ERROR(OnlyKeys(bounds, cat, {"min", "max"}));
        RangeSpec r;
        Result<std::optional<double>> lo = OptNumber(bounds, "min", cat, false);
        if (!lo.ok()) return lo.status();
        Result<std::optional<double>> hi = OptNumber(bounds, "max", cat, false);
        if (!hi.ok()) return hi.status();
        r.min = *lo;
        r.max = *hi;
        if (!r.min && !r.max) return Bad(cat, "needs min or max");
        if (r.min && r.max && *r.min > *r.max) return Bad(cat, "min is larger than max");
        spec.range.emplace_back(column, r);
      }
    } else if (key == "schema") {
      if (!value.is_boolean()) return Bad(at, "expected true or false");
      spec.schema = value.get<bool>();
    } else if (key == "row_count_change") {
      if (!value.is_object()) return Bad(at, "expected {max_drop_pct, max_growth_pct}");
      DW_RETURN_IF_ERROR(OnlyKeys(value, at, {"max_drop_pct", "max_growth_pct"}));
      RowCountChangeSpec r;
      Result<std::optional<double>> drop = OptNumber(value, "max_drop_pct", at, true);
      if (!drop.ok()) return drop.status();
      Result<std::optional<double>> growth = OptNumber(value, "max_growth_pct", at, true);
      if (!growth.ok()) return growth.status();
      r.max_drop_pct = *drop;
      r.max_growth_pct = *growth;
      if (!r.max_drop_pct && !r.max_growth_pct) return Bad(at, "needs max_drop_pct or max_growth_pct");
      spec.row_count_change = r;
    } else if (key == "custom") {
      if (source == SpecSource::kInline)
        return Bad(at, "inline checks cannot carry SQL; declare custom checks in the workspace file");
      if (!value.is_array()) return Bad(at, "expected a list of {name, sql, must_be | between}");
      std::set<std::string> names;
      for (size_t i = 0; i < value.size(); ++i) {
        const Json& c = value[i];
        const std::string item = at + "[" + std::to_string(i) + "]";
        if (!c.is_object()) return Bad(item, "expected {name, sql, must_be | between}");
        DW_RETURN_IF_ERROR(OnlyKeys(c, item, {"name", "sql", "must_be", "between", "level", "failing_rows"}));
        CustomSpec cs;
        if (!c.contains("name") || !c["name"].is_string() || c["name"].get<std::string>().empty())
          return Bad(item + ".name", "expected a non-empty name");
        if (!c.contains("sql") || !c["sql"].is_string() || c["sql"].get<std::string>().empty())
          return Bad(item + ".sql", "expected a query returning one number");
        cs.name = c["name"].get<std::string>();
        cs.sql = c["sql"].get<std::string>();
        if (!names.insert(cs.name).second) return Bad(item + ".name", "'" + cs.name + "' is used twice");
        Result<std::optional<double>> must = OptNumber(c, "must_be", item, false);
        if (!must.ok()) return must.status();
        cs.must_be = *must;
        if (c.contains("between")) {
          const Json& b = c["between"];
          if (!b.is_array() || b.size() != 2 || !b[0].is_number() || !b[1].is_number())
            return Bad(item + ".between", "expected [low, high]");
          cs.between = std::make_pair(b[0].get<double>(), b[1].get<double>());
          if (cs.between->first > cs.between->second)
            return Bad(item + ".between", "low is larger than high");
        }
        if (c.contains("level")) {
          Result<CheckLevel> l = LevelAt(c["level"], item + ".level");
          if (!l.ok()) return l.status();
          cs.level = *l;
        }
        if (c.contains("failing_rows")) {
          if (!c["failing_rows"].is_string() || c["failing_rows"].get<std::string>().empty())
            return Bad(item + ".failing_rows", "expected a query listing the failing rows");
          cs.failing_rows = c["failing_rows"].get<std::string>();
        }
        if (cs.must_be.has_value() == cs.between.has_value())
          return Bad(item, "needs exactly one of must_be and between");
        spec.custom.push_back(std::move(cs));
      }
    }
  }
  if (block.contains("tune")) DW_RETURN_IF_ERROR(ParseTune(block["tune"], path + ".tune", spec));
  if (!spec.unique.empty()) spec.sample_key = spec.unique.front();
  if (spec.freshness_max_age && !spec.time_column)
    return Bad(path + ".freshness", "needs time_column: the column that says when a row landed");
  if (spec.volume && spec.volume->window && !spec.time_column)
    return Bad(path + ".volume.window", "needs time_column: the column that says when a row landed");
  return spec;
}

}  // namespace dw::observe::quality
