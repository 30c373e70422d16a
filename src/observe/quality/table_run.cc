#include "observe/quality/table_run.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "base/clock.h"
#include "config/duration.h"
#include "observe/quality/partitioned_scan.h"
#include "observe/quality/schema_drift.h"

namespace dw::observe::quality {
namespace {

using warehouse::SqlRow;
using warehouse::SqlValue;

constexpr const char* kMasked = "***";

std::optional<double> Number(const SqlValue& v) {
  if (const auto* n = std::get_if<int64_t>(&v)) return static_cast<double>(*n);
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* s = std::get_if<std::string>(&v)) {
    char* end = nullptr;
    double d = std::strtod(s->c_str(), &end);
    if (end != s->c_str() && *end == '\0') return d;
  }
  return std::nullopt;
}

int64_t Count(const SqlValue& v) {
  std::optional<double> n = Number(v);
  return n ? static_cast<int64_t>(std::llround(*n)) : 0;  // sum() over no rows is NULL: zero
}

Json CellJson(const SqlValue& v) {
  if (const auto* n = std::get_if<int64_t>(&v)) return *n;
  if (const auto* d = std::get_if<double>(&v)) return std::isfinite(*d) ? Json(*d) : Json(std::to_string(*d));
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  return nullptr;
}

// A bound or measured number as a person writes it: 0 rather than 0.0.
std::string Num(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15)
    return std::to_string(static_cast<int64_t>(v));
  return Json(v).dump();
}

int64_t Millis(std::chrono::microseconds us) { return (us.count() + 500) / 1000; }

std::string Plural(int64_t n, const std::string& one) {
  return std::to_string(n) + " " + one + (n == 1 ? "" : "s");
}

Json ThresholdOf(const RangeSpec& r) {
  Json t = Json::object();
  if (r.min) t["min"] = *r.min;
  if (r.max) t["max"] = *r.max;
  return t;
}

// The columns that identify a row in samples, without the offending column itself.
std::vector<std::string> SampleKey(const TablePlan& plan, const std::string& column) {
  std::vector<std::string> key;
  for (const std::string& c : plan.runnable.sample_key)
    if (c != column) key.push_back(c);
  return key;
}

// "45s", "12m 5s", "3h 20m", "58d 8h": an age a person reads at a glance.
std::string HumanAge(int64_t ms) {
  int64_t s = ms / 1000;
  auto two = [](int64_t a, const char* ua, int64_t b, const char* ub) {
    return std::to_string(a) + ua + (b ? " " + std::to_string(b) + ub : "");
  };
  if (s < 60) return std::to_string(s) + "s";
  if (s < 3600) return two(s / 60, "m", s % 60, "s");
  if (s < 86400) return two(s / 3600, "h", s / 60 % 60, "m");
  return two(s / 86400, "d", s / 3600 % 24, "h");
}

// The one aggregate scan of `plan`, or nullopt when no selected check needs it.
std::optional<AggregateScan> CompilePlannedScan(const warehouse::Dialect& d, const TablePlan& plan, int64_t now_ms) {
  const TableCheckSpec& r = plan.runnable;
  bool needed = !r.not_null.empty() || r.freshness_max_age || r.volume || !r.accepted_values.empty() ||
                !r.range.empty() || r.row_count_change || !r.unique.empty() || !r.imported.empty();
  if (!needed) return std::nullopt;
  std::optional<int64_t> window_start;
  if (r.volume && r.volume->window) window_start = now_ms - r.volume->window->count();
  return CompileAggregateScan(d, plan.table, r, plan.time, plan.filter, window_start, plan.recency);
}

class TableRunner {
 public:
  TableRunner(warehouse::Warehouse& wh, const TablePlan& plan, const TableRunContext& ctx)
      : wh_(wh), plan_(plan), ctx_(ctx), d_(wh.dialect()) {}

  TableRunResult Run() {
    RunAggregateScan();
    for (const auto& [name, type] : CheckNames(plan_.declared)) {
      auto refused = plan_.refused.find(name);
      if (refused != plan_.refused.end()) {
        Emit(Errored(name, type, refused->second));
        continue;
      }
      Emit(Tuned(Evaluate(name, type)));
    }
    return std::move(result_);
  }

 private:
  void Emit(CheckOutcome o) { result_.outcomes.push_back(std::move(o)); }

  Result<warehouse::QueryOutcome> Query(const BoundQuery& q) {
    ++result_.queries;
    Result<warehouse::QueryOutcome> out = wh_.Query(q.sql, q.params, {ctx_.timeout, ctx_.labels});
    if (out.ok() && out->bytes_billed) result_.bytes_billed = result_.bytes_billed.value_or(0) + *out->bytes_billed;
    return out;
  }

  void RunAggregateScan() {
    scan_ = CompilePlannedScan(d_, plan_, ctx_.now_ms);
    if (!scan_) return;
    // Split only a full scan that reads columns: an incremental run reads a few rows through the
    // time column's index (a rowid range would make SQLite ignore it), and a bare count(*) is
    // answered from the smallest index, which a rowid range cannot use either.
    const bool reads_columns = !scan_->nulls.empty() || scan_->max_time || scan_->rows_in_window ||
                               !scan_->invalid.empty() || !scan_->min_max.empty() || !scan_->imported.empty();
    const int partitions =
        plan_.filter.where.empty() && reads_columns && !scan_->whole_table ? ctx_.scan_partitions : 1;
    std::optional<Result<warehouse::QueryOutcome>> split = RunPartitionedScan(
        wh_, plan_.table.id, *scan_, {partitions, ctx_.partition_min_rows, ctx_.timeout});
    if (split) ++result_.queries;  // one logical statement, run in parts
    Result<warehouse::QueryOutcome> out = split ? std::move(*split) : Query(scan_->query);
    if (!out.ok()) {
      scan_error_ = out.status();
      return;
    }
    scan_ms_ = Millis(out->duration);
    row_ = out->rows.at(0);
    result_.rows = Count(row_[static_cast<size_t>(scan_->row_count)]);
  }

  // Fills the measurement fields every aggregate outcome shares.
  CheckOutcome Measured(const std::string& name, const std::string& type) {
    CheckOutcome o;
    o.name = name;
    o.type = type;
    o.duration_ms = scan_ms_;
    o.rows_scanned = result_.rows;
    return o;
  }

  const ImportedTest* ImportedNamed(const std::string& name) const {
    for (const ImportedTest& t : plan_.runnable.imported)
      if (t.name == name) return &t;
    return nullptr;
  }

  // Applies the check's tuning: an allowed rate (not_null, accepted_values, range) turns a failure
  // within it into a pass, and a warn level turns a failure into a warning. Imported tests carry
  // their rate in their own evaluation.
  CheckOutcome Tuned(CheckOutcome o) {
    const CheckTuning tuning = plan_.declared.TuningOf(o.name, o.type);
    if (tuning.max_fraction && ImportedNamed(o.name) == nullptr && o.observed.is_object() &&
        (o.verdict == Verdict::kFail || o.verdict == Verdict::kPass)) {
      const char* counted = o.type == "not_null" ? "null_count" : o.type == "accepted_values" ? "invalid_count"
                            : o.type == "range" ? "out_of_range" : nullptr;
      if (counted != nullptr && o.observed.contains(counted) && o.observed[counted].is_number()) {
        const double failing = o.observed[counted].get<double>();
        const double rows = result_.rows ? static_cast<double>(*result_.rows) : 0.0;
        const double fraction = rows > 0 ? failing / rows : 0.0;
        o.observed["failing_fraction"] = fraction;
        o.threshold["max_fraction"] = *tuning.max_fraction;
        if (o.verdict == Verdict::kFail && fraction <= *tuning.max_fraction) {
          o.verdict = Verdict::kPass;
          o.message += ", within the allowed " + FormatRate(*tuning.max_fraction);
          o.sample.reset();
          o.failing_rows_query.reset();
        } else if (o.verdict == Verdict::kFail) {
          o.message += ", over the allowed " + FormatRate(*tuning.max_fraction);
        }
      }
    }
    if (tuning.level == CheckLevel::kWarn && o.threshold.is_object()) o.threshold["level"] = "warn";
    else if (tuning.level == CheckLevel::kWarn) o.threshold = {{"level", "warn"}};
    if (o.verdict == Verdict::kFail && tuning.level == CheckLevel::kWarn) o.verdict = Verdict::kWarn;
    return o;
  }

  CheckOutcome Evaluate(const std::string& name, const std::string& type) {
    const ImportedTest* imported = ImportedNamed(name);
    if (imported != nullptr && !scan_error_.ok()) return Unobserved(name, type, scan_error_);
    if (imported != nullptr) return Imported(*imported);
    const bool aggregate = type == "not_null" || type == "freshness" || type == "volume" ||
                           type == "accepted_values" || type == "range" || type == "unique" ||
                           type == "row_count_change";
    if (aggregate && !scan_error_.ok()) return Unobserved(name, type, scan_error_);
    const std::string column = name.substr(name.find(':') + 1);
    if (type == "not_null") return NotNull(name, column);
    if (type == "unique") return Unique(name);
    if (type == "freshness") return Freshness(name);
    if (type == "volume") return Volume(name);
    if (type == "accepted_values") return Accepted(name, column);
    if (type == "range") return InRange(name, column);
    if (type == "schema") return Schema(name);
    if (type == "row_count_change") return RowCountChange(name);
    return Custom(name, column);
  }

  CheckOutcome NotNull(const std::string& name, const std::string& column) {
    CheckOutcome o = Measured(name, "not_null");
    int64_t rows = *result_.rows;
    int64_t nulls = 0;
    for (const auto& [c, i] : scan_->nulls)
      if (c == column) nulls = Count(row_[static_cast<size_t>(i)]);
    double rate = rows > 0 ? static_cast<double>(nulls) / static_cast<double>(rows) : 0.0;
    o.observed = {{"null_count", nulls}, {"null_rate", rate}, {"rows", rows}};
    o.threshold = {{"max_null_count", 0}};
    o.verdict = nulls == 0 ? Verdict::kPass : Verdict::kFail;
    o.message = nulls == 0 ? column + " has no NULL in " + Plural(rows, "row")
                           : column + " is NULL in " + Plural(nulls, "row") + " of " +
                                 std::to_string(rows) + " (" + FormatRate(rate) + ")";
    if (o.verdict == Verdict::kFail) {
      SampleRequest req;
      req.kind = SampleRequest::Kind::kNull;
      req.column = column;
      req.key = SampleKey(plan_, column);
      o.failing_rows_query = FailingRowsQuery(d_, plan_.table, plan_.declared.pii, plan_.filter, req);
      if (req.key.empty()) o.message += "; no sample: declare a unique key to identify rows";
      else AttachSample(o, req);
    }
    return o;
  }

  CheckOutcome Unique(const std::string& name) {
    CheckOutcome o = Measured(name, "unique");
    const std::string key_text = name.substr(name.find(':') + 1);
    std::vector<std::string> key;
    for (const auto& k : plan_.runnable.unique) {
      std::string joined;
      for (const std::string& c : k) joined += (joined.empty() ? "" : ",") + c;
      if (joined == key_text) key = k;
    }
    Result<warehouse::QueryOutcome> out =
        Query(CompileDuplicateKeyCount(d_, plan_.table.id, key, plan_.filter));
    if (!out.ok()) return Unobserved(name, "unique", out.status());
    int64_t dups = Count(out->rows.at(0).at(0));
    o.duration_ms = Millis(out->duration);
    o.observed = {{"duplicated_keys", dups}, {"rows", *result_.rows}};
    o.threshold = {{"max_duplicated_keys", 0}};
    o.verdict = dups == 0 ? Verdict::kPass : Verdict::kFail;
    o.message = dups == 0 ? "every (" + key_text + ") occurs once"
                          : Plural(dups, "key") + " of (" + key_text + ") occur more than once";
    if (dups > 0) {
      SampleRequest req;
      req.kind = SampleRequest::Kind::kDuplicateKey;
      req.key = key;
      AttachSample(o, req);
    }
    return o;
  }

  CheckOutcome Freshness(const std::string& name) {
    CheckOutcome o = Measured(name, "freshness");
    const auto max_age = *plan_.runnable.freshness_max_age;
    o.threshold = {{"max_age", config::FormatDuration(max_age)}};
    std::optional<int64_t> latest = plan_.time->ToMillis(row_[static_cast<size_t>(*scan_->max_time)]);
    if (!latest) {
      o.observed = {{"latest", nullptr}};
      o.verdict = Verdict::kFail;
      o.message = plan_.since_ms ? "no row has arrived since the start of the incremental window"
                                 : "no row has a value in " + plan_.time->name;
      return o;
    }
    int64_t age_ms = ctx_.now_ms - *latest;
    o.observed = {{"latest", FormatRfc3339(FromUnixMillis(*latest))},
                  {"age_seconds", static_cast<double>(age_ms) / 1000.0}};
    o.verdict = age_ms <= max_age.count() ? Verdict::kPass : Verdict::kFail;
    std::string age = HumanAge(age_ms);
    o.message = "newest " + plan_.time->name + " is " + FormatRfc3339(FromUnixMillis(*latest)) +
                (age_ms >= 0 ? ", " + age + " old" : " (in the future: clock skew?)") +
                (o.verdict == Verdict::kPass ? "" : ", older than " + config::FormatDuration(max_age));
    return o;
  }

  CheckOutcome Volume(const std::string& name) {
    const VolumeSpec& v = *plan_.runnable.volume;
    CheckOutcome o = Measured(name, "volume");
    Json threshold = Json::object();
    if (v.min_rows) threshold["min_rows"] = *v.min_rows;
    if (v.max_rows) threshold["max_rows"] = *v.max_rows;
    if (v.window) threshold["window"] = config::FormatDuration(*v.window);
    o.threshold = threshold;
    if (plan_.since_ms && !v.window) {
      return Skipped(name, "volume",
                     "row-count bounds apply to the whole table; an incremental run reads only new rows");
    }
    int64_t measured = *result_.rows;
    o.observed = {{"rows", *result_.rows}};
    std::string what = "rows";
    if (v.window) {
      measured = Count(row_[static_cast<size_t>(*scan_->rows_in_window)]);
      o.observed["rows_in_window"] = measured;
      what = "rows in the last " + config::FormatDuration(*v.window);
    }
    bool low = v.min_rows && measured < *v.min_rows;
    bool high = v.max_rows && measured > *v.max_rows;
    o.verdict = low || high ? Verdict::kFail : Verdict::kPass;
    o.message = std::to_string(measured) + " " + what +
                (low ? ", fewer than " + std::to_string(*v.min_rows)
                     : high ? ", more than " + std::to_string(*v.max_rows) : "");
    return o;
  }

  CheckOutcome Accepted(const std::string& name, const std::string& column) {
    CheckOutcome o = Measured(name, "accepted_values");
    int64_t invalid = 0;
    for (const auto& [c, i] : scan_->invalid)
      if (c == column) invalid = Count(row_[static_cast<size_t>(i)]);
    std::vector<Json> accepted;
    for (const auto& [c, values] : plan_.runnable.accepted_values)
      if (c == column) accepted = values;
    o.observed = {{"invalid_count", invalid}, {"rows", *result_.rows}};
    o.threshold = {{"values", accepted}};
    o.verdict = invalid == 0 ? Verdict::kPass : Verdict::kFail;
    o.message = invalid == 0 ? "every non-NULL " + column + " is an accepted value"
                             : column + " holds a value outside the accepted list in " +
                                   Plural(invalid, "row");
    if (invalid > 0) {
      SampleRequest req;
      req.kind = SampleRequest::Kind::kNotAccepted;
      req.column = column;
      req.key = SampleKey(plan_, column);
      req.accepted = accepted;
      AttachSample(o, req);
    }
    return o;
  }

  CheckOutcome InRange(const std::string& name, const std::string& column) {
    CheckOutcome o = Measured(name, "range");
    RangeSpec spec;
    std::pair<int, int> idx{-1, -1};
    int outside_idx = -1;
    for (const auto& [c, r] : plan_.runnable.range)
      if (c == column) spec = r;
    for (const auto& [c, i] : scan_->min_max)
      if (c == column) idx = i;
    for (const auto& [c, i] : scan_->out_of_range)
      if (c == column) outside_idx = i;
    o.threshold = ThresholdOf(spec);
    static const SqlValue kNone;
    auto cell = [&](int i) -> const SqlValue& { return i < 0 ? kNone : row_[static_cast<size_t>(i)]; };
    const SqlValue& lo_cell = cell(idx.first);
    const SqlValue& hi_cell = cell(idx.second);
    const SqlValue& outside_cell = cell(outside_idx);
    // Only the declared bounds were computed (min for a minimum, max for a maximum).
    const bool no_value = (idx.first < 0 || std::holds_alternative<std::monostate>(lo_cell)) &&
                          (idx.second < 0 || std::holds_alternative<std::monostate>(hi_cell));
    if (no_value) {
      o.observed = {{"out_of_range", 0}};
      if (idx.first >= 0) o.observed["min"] = nullptr;
      if (idx.second >= 0) o.observed["max"] = nullptr;
      o.verdict = Verdict::kPass;
      o.message = column + " holds no value to compare";
      return o;
    }
    std::optional<double> lo = Number(lo_cell), hi = Number(hi_cell);
    if ((idx.first >= 0 && (!lo || std::holds_alternative<std::string>(lo_cell))) ||
        (idx.second >= 0 && (!hi || std::holds_alternative<std::string>(hi_cell)))) {
      return Errored(name, "range", column + " holds non-numeric values (" +
                                        (idx.first >= 0 ? "min " + CellJson(lo_cell).dump() : "") +
                                        (idx.first >= 0 && idx.second >= 0 ? ", " : "") +
                                        (idx.second >= 0 ? "max " + CellJson(hi_cell).dump() : "") +
                                        "); range compares numbers");
    }
    const int64_t outside = Number(outside_cell) ? static_cast<int64_t>(*Number(outside_cell)) : 0;
    // Personal data never leaves the warehouse, not even as an extreme value.
    const bool pii = std::count(plan_.declared.pii.begin(), plan_.declared.pii.end(), column) > 0;
    o.observed = {{"out_of_range", outside}};
    std::string spans;
    if (idx.first >= 0) {
      o.observed["min"] = pii ? Json(kMasked) : CellJson(lo_cell);
      spans += "min " + o.observed["min"].dump();
    }
    if (idx.second >= 0) {
      o.observed["max"] = pii ? Json(kMasked) : CellJson(hi_cell);
      spans += (spans.empty() ? "max " : ", max ") + o.observed["max"].dump();
    }
    o.verdict = outside > 0 ? Verdict::kFail : Verdict::kPass;
    std::string bounds = spec.min && spec.max ? "between " + Num(*spec.min) + " and " + Num(*spec.max)
                         : spec.min           ? "at least " + Num(*spec.min)
                                              : "at most " + Num(*spec.max);
    o.message = outside > 0 ? std::to_string(outside) + " row(s) of " + column + " outside the range (" +
                                  bounds + "; " + spans + ")"
                            : column + " is " + bounds + " in every row (" + spans + ")";
    if (o.verdict == Verdict::kFail) {
      SampleRequest req;
      req.kind = SampleRequest::Kind::kOutOfRange;
      req.column = column;
      req.key = SampleKey(plan_, column);
      req.range = spec;
      AttachSample(o, req);
    }
    return o;
  }

  CheckOutcome Schema(const std::string& name) {
    CheckOutcome o;
    o.name = name;
    o.type = "schema";
    SchemaDrift drift = CompareSchema(ctx_.previous_schema, plan_.table);
    o.observed = drift.ToJson();
    o.threshold = {{"changes", 0}};
    o.verdict = drift.Changed() ? Verdict::kFail : Verdict::kPass;
    o.message = drift.Describe(ctx_.record);
    return o;
  }

  CheckOutcome RowCountChange(const std::string& name) {
    const RowCountChangeSpec& spec = *plan_.runnable.row_count_change;
    CheckOutcome o = Measured(name, "row_count_change");
    Json threshold = Json::object();
    if (spec.max_drop_pct) threshold["max_drop_pct"] = *spec.max_drop_pct;
    if (spec.max_growth_pct) threshold["max_growth_pct"] = *spec.max_growth_pct;
    o.threshold = threshold;
    if (plan_.since_ms) {
      return Skipped(name, "row_count_change",
                     "compares whole-table row counts between runs; an incremental run reads only new rows");
    }
    int64_t now = *result_.rows;
    o.observed = {{"rows", now}, {"previous_rows", nullptr}, {"change_pct", nullptr}};
    if (!ctx_.previous_rows) {
      o.verdict = Verdict::kPass;
      o.message = ctx_.record ? "first run: " + Plural(now, "row") + " recorded as the baseline"
                              : "first run: " + Plural(now, "row") + "; not recorded, so no baseline is set";
      return o;
    }
    int64_t before = *ctx_.previous_rows;
    o.observed["previous_rows"] = before;
    if (before == 0) {
      bool grew = now > 0 && spec.max_growth_pct.has_value();
      o.verdict = grew ? Verdict::kFail : Verdict::kPass;
      o.message = now == 0 ? "still empty" : "grew from 0 to " + std::to_string(now) + " rows";
      return o;
    }
    double pct = 100.0 * static_cast<double>(now - before) / static_cast<double>(before);
    o.observed["change_pct"] = pct;
    bool dropped = spec.max_drop_pct && -pct > *spec.max_drop_pct;
    bool grew = spec.max_growth_pct && pct > *spec.max_growth_pct;
    o.verdict = dropped || grew ? Verdict::kFail : Verdict::kPass;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%+.1f%%", pct);
    o.message = std::to_string(before) + " -> " + std::to_string(now) + " rows (" + buf + ")" +
                (dropped ? ", a larger drop than " + Num(*spec.max_drop_pct) + "%"
                 : grew  ? ", a larger growth than " + Num(*spec.max_growth_pct) + "%"
                         : "");
    return o;
  }

  CheckOutcome Custom(const std::string& name, const std::string& custom_name) {
    const CustomSpec* spec = nullptr;
    for (const CustomSpec& c : plan_.runnable.custom)
      if (c.name == custom_name) spec = &c;
    CheckOutcome o;
    o.name = name;
    o.type = "custom";
    o.threshold = spec->must_be ? Json{{"must_be", *spec->must_be}}
                                : Json{{"between", {spec->between->first, spec->between->second}}};
    Result<warehouse::QueryOutcome> out = Query({spec->sql, {}});
    if (!out.ok()) return Unobserved(name, "custom", out.status());
    o.duration_ms = Millis(out->duration);
    if (out->rows.size() != 1 || out->rows[0].size() != 1)
      return Errored(name, "custom", "the query must return one row with one number; it returned " +
                                         Plural(static_cast<int64_t>(out->rows.size()), "row"));
    const SqlValue& cell = out->rows[0][0];
    std::optional<double> value = Number(cell);
    if (!value || std::holds_alternative<std::monostate>(cell))
      return Errored(name, "custom", "the query must return a number; it returned " + CellJson(cell).dump());
    o.observed = {{"value", CellJson(cell)}};
    bool ok = spec->must_be ? std::fabs(*value - *spec->must_be) <= 1e-9 * std::max(1.0, std::fabs(*spec->must_be))
                            : *value >= spec->between->first && *value <= spec->between->second;
    o.verdict = ok ? Verdict::kPass : Verdict::kFail;
    std::string why;
    if (!ok) o.failing_rows_query = CustomFailingRows(*spec, &why);
    o.message = custom_name + " returned " + CellJson(cell).dump() +
                (ok ? "" : spec->must_be ? ", expected " + Num(*spec->must_be)
                                         : ", expected between " + Num(spec->between->first) +
                                               " and " + Num(spec->between->second));
    if (!why.empty()) o.message += "; no failing-rows query: " + why;
    return o;
  }

  // Runs the sample query for a failed check and attaches its rows, pii columns masked. A sample
  // that cannot be fetched is noted in the message; the verdict stands.
  void AttachSample(CheckOutcome& o, const SampleRequest& req) {
    o.failing_rows_query = FailingRowsQuery(d_, plan_.table, plan_.declared.pii, plan_.filter, req);
    if (ctx_.sample_limit <= 0) return;  // samples withheld for this table (quality_run.cc)
    Result<warehouse::QueryOutcome> out =
        Query(CompileSample(d_, plan_.table.id, req, plan_.filter, ctx_.sample_limit));
    if (!out.ok()) {
      o.message += "; the sample could not be read: " + out.status().message();
      return;
    }
    std::vector<std::string> columns = req.key;
    if (req.kind == SampleRequest::Kind::kDuplicateKey) columns.push_back("count");
    else columns.push_back(req.column);
    std::set<std::string> pii(plan_.declared.pii.begin(), plan_.declared.pii.end());
    Json rows = Json::array();
    for (const SqlRow& r : out->rows) {
      Json row = Json::object();
      for (size_t i = 0; i < r.size() && i < columns.size(); ++i) {
        bool masked = pii.count(columns[i]) > 0 && !std::holds_alternative<std::monostate>(r[i]);
        row[columns[i]] = masked ? Json(kMasked) : CellJson(r[i]);
      }
      rows.push_back(std::move(row));
    }
    o.sample = std::move(rows);
  }

  // A custom check's failing rows: its own `failing_rows`, else its count folded into a listing
  // ("SELECT count(*) FROM <rest>" becomes "SELECT <columns> FROM <rest>", pii masked), else
  // nothing, with why in `why`.
  std::optional<std::string> CustomFailingRows(const CustomSpec& c, std::string* why) const {
    if (!c.failing_rows.empty()) return c.failing_rows;
    std::string lower;
    for (char ch : c.sql) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    size_t at = lower.find_first_not_of(" \t\r\n");
    const std::string head = "select count(*) from ";
    std::string compact;  // the head with runs of blanks as one space
    size_t i = at == std::string::npos ? lower.size() : at;
    for (; i < lower.size() && compact.size() < head.size(); ++i) {
      const bool blank = std::isspace(static_cast<unsigned char>(lower[i])) != 0;
      if (blank && (compact.empty() || compact.back() == ' ')) continue;
      compact += blank ? ' ' : lower[i];
    }
    for (const char* word : {" group by ", " having ", " union ", " limit ", ";"}) {
      if (lower.find(word) != std::string::npos) {
        *why = std::string("its query has") + (word[0] == ';' ? " several statements" : std::string(word).substr(0, std::string(word).size() - 1)) +
               ", so its count cannot be turned into the rows it counts; add failing_rows to the check";
        return std::nullopt;
      }
    }
    if (compact != head) {
      *why = "its query is not SELECT count(*) FROM ..., so the rows it counts cannot be listed from it; "
             "add failing_rows to the check";
      return std::nullopt;
    }
    std::string cols;
    for (const std::string& name : plan_.table.ColumnNames()) {
      const bool masked = std::count(plan_.declared.pii.begin(), plan_.declared.pii.end(), name) > 0;
      cols += (cols.empty() ? "" : ", ") + (masked ? "'***' AS " + d_.Quote(name) : d_.Quote(name));
    }
    return "SELECT " + cols + " FROM " + c.sql.substr(i);
  }

  CheckOutcome Imported(const ImportedTest& t) {
    using Kind = ImportedTest::Kind;
    CheckOutcome o = Measured(t.name, t.test);
    const AggregateScan::Imported* m = nullptr;
    for (const AggregateScan::Imported& x : scan_->imported)
      if (x.name == t.name) m = &x;
    const int64_t rows = Count(row_[static_cast<size_t>(m->rows)]);
    const SqlValue& cell = row_[static_cast<size_t>(m->measure)];
    Json threshold = {{"dbt_test", t.test}, {"model", t.model}};
    if (!t.where.empty()) threshold["where"] = t.where;
    const std::string scope = t.where.empty() ? "" : " (where " + t.where + ")";
    bool failed = false;
    if (t.kind == Kind::kUniqueKey) {
      const int64_t dups = Count(cell);
      std::string key;
      for (const std::string& c : t.key) key += (key.empty() ? "" : ",") + c;
      o.observed = {{"duplicated_keys", dups}, {"rows", rows}};
      threshold["max_duplicated_keys"] = 0;
      failed = dups > 0;
      o.message = failed ? Plural(dups, "key") + " of (" + key + ") occur more than once" + scope
                         : "every (" + key + ") occurs once" + scope;
    } else if (t.kind == Kind::kAtLeastOne) {
      const int64_t present = Count(cell);
      o.observed = {{"non_null_rows", present}, {"rows", rows}};
      threshold["min_non_null_rows"] = 1;
      failed = present == 0;
      o.message = failed ? t.column + " has no non-NULL value in " + Plural(rows, "row") + scope
                         : t.column + " has a value in " + Plural(present, "row") + scope;
    } else if (t.kind == Kind::kRecency) {
      std::optional<int64_t> latest = plan_.recency.at(t.name).ToMillis(cell);
      threshold["max_age"] = config::FormatDuration(t.max_age);
      if (!latest) {
        o.observed = {{"latest", nullptr}};
        failed = true;
        o.message = "no row has a value in " + t.column + scope;
      } else {
        const int64_t age = ctx_.now_ms - *latest;
        o.observed = {{"latest", FormatRfc3339(FromUnixMillis(*latest))}, {"age_seconds", static_cast<double>(age) / 1000.0}};
        failed = age > t.max_age.count();
        o.message = "newest " + t.column + " is " + HumanAge(std::max<int64_t>(age, 0)) + " old" +
                    (failed ? ", older than " + config::FormatDuration(t.max_age) : "") + scope;
      }
    } else {
      const int64_t failing = Count(cell);
      const double fraction = rows > 0 ? static_cast<double>(failing) / static_cast<double>(rows) : 0.0;
      o.observed = {{"failing_rows", failing}, {"rows", rows}, {"failing_fraction", fraction}};
      const double allowed = t.tuning.max_fraction.value_or(0.0);
      threshold["max_fraction"] = allowed;
      failed = allowed > 0 ? fraction > allowed : failing > 0;
      o.message = failing == 0 ? "no row fails, of " + Plural(rows, "row") + scope
                               : Plural(failing, "row") + " of " + std::to_string(rows) + " fail (" + FormatRate(fraction) +
                                     (allowed > 0 ? failed ? ", over the allowed " : ", within the allowed " : "") +
                                     (allowed > 0 ? FormatRate(allowed) : "") + ")" + scope;
    }
    o.threshold = threshold;
    o.verdict = failed ? Verdict::kFail : Verdict::kPass;
    if (failed) o.failing_rows_query = ImportedFailingRowsQuery(d_, plan_.table, plan_.declared.pii, plan_.filter, t);
    return o;
  }

  static std::string FormatRate(double rate) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f%%", rate * 100.0);
    return buf;
  }

  warehouse::Warehouse& wh_;
  const TablePlan& plan_;
  const TableRunContext& ctx_;
  const warehouse::Dialect& d_;
  TableRunResult result_;
  std::optional<AggregateScan> scan_;
  Status scan_error_ = Status::Ok();
  int64_t scan_ms_ = 0;
  SqlRow row_;
};

}  // namespace

TableRunResult RunTablePlan(warehouse::Warehouse& wh, const TablePlan& plan,
                            const TableRunContext& context) {
  return TableRunner(wh, plan, context).Run();
}

std::vector<BoundQuery> PlannedStatements(const warehouse::Dialect& d, const TablePlan& plan, int64_t now_ms) {
  std::vector<BoundQuery> out;
  if (std::optional<AggregateScan> scan = CompilePlannedScan(d, plan, now_ms)) out.push_back(scan->query);
  for (const auto& key : plan.runnable.unique) out.push_back(CompileDuplicateKeyCount(d, plan.table.id, key, plan.filter));
  for (const CustomSpec& c : plan.runnable.custom) out.push_back({c.sql, {}});
  return out;
}

}  // namespace dw::observe::quality
