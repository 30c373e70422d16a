#include "observe/quality/quality_run.h"

#include <cctype>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <thread>

#include "base/identifiers.h"
#include "base/log.h"
#include "config/suggest.h"
#include "observe/quality/check_spec.h"
#include "observe/quality/dbt_tests.h"
#include "observe/quality/table_plan.h"
#include "observe/quality/table_run.h"
#include "warehouse/warehouse.h"

namespace dw::observe::quality {
namespace {

using SteadyClock = std::chrono::steady_clock;

// One table to check with one spec.
struct Target {
  TableRef ref;
  std::string asset_id;
  const config::WarehouseConfig* warehouse = nullptr;
  TableCheckSpec spec;
  bool named = false;  // the caller named this table (an unknown one then fails the run)
  bool samples = true;  // failed checks may carry sample rows (see InlineCheckTable)
  TableReport report;
  std::optional<TablePlan> plan;
};

std::string NewRunId() {
  std::random_device rd;
  std::uniform_int_distribution<uint32_t> dist;
  char buf[32];
  std::snprintf(buf, sizeof buf, "chk-%08x%08x", dist(rd), dist(rd));
  return buf;
}

std::vector<std::string> WarehouseNames(const config::Workspace& ws) {
  std::vector<std::string> out;
  for (const auto& [name, _] : ws.warehouses) out.push_back(name);
  return out;
}

std::vector<std::string> ConfiguredTables(const config::Workspace& ws) {
  std::vector<std::string> out;
  for (const config::CheckConfig& c : ws.checks) out.push_back(c.asset_id);
  return out;
}

// Every check of `spec` as an error with `status`'s message and what to do about it (the table
// could not be checked at all).
void FailAll(TableReport& report, const TableCheckSpec& spec, const Status& status) {
  for (const auto& [name, type] : CheckNames(spec)) report.outcomes.push_back(Unobserved(name, type, status));
  if (report.outcomes.empty()) report.notes.push_back(status.message() + WhatToDo(status));
}

// True iff `ref` names a database's own catalog (SQLite's sqlite_* tables; PostgreSQL's pg_catalog,
// information_schema and pg_* relations): an inline check never reads one.
bool IsSystemCatalog(const TableRef& ref) {
  auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  const std::string schema = lower(ref.schema);
  const std::string table = lower(ref.table);
  return table.starts_with("sqlite_") || table.starts_with("pg_") || schema == "pg_catalog" ||
         schema == "information_schema" || schema.starts_with("pg_");
}

// The rule for inline checks (a check an MCP client writes, on a table it names): they run only
// on tables the team has told the workspace about, in a `checks:` block or an `assets:` note
// (id, reads or writes), never on a system catalog; and they return sample rows only for a table
// with a `checks:` block, because that is where the team declares which columns are personal
// (`pii`). Returns whether samples are allowed, or the refusal.
Result<bool> InlineCheckTable(const config::Workspace& ws, const TableRef& ref, const std::string& text) {
  const std::string asset_id = ref.AssetIdString();
  if (IsSystemCatalog(ref))
    return InvalidArgument("'" + text + "' is a system catalog; inline checks run only on the " +
                           "workspace's own tables");
  for (const config::CheckConfig& c : ws.checks)
    if (c.asset_id == asset_id) return true;
  std::vector<std::string> known = ConfiguredTables(ws);
  for (const config::AssetNote& a : ws.assets) {
    std::vector<std::string> ids = {a.id};
    ids.insert(ids.end(), a.reads.begin(), a.reads.end());
    ids.insert(ids.end(), a.writes.begin(), a.writes.end());
    for (const std::string& id : ids) {
      if (id == asset_id) return false;
      if (id.starts_with("table://")) known.push_back(id);
    }
  }
  return NotFound("inline checks run only on tables the workspace knows (a `checks:` block or an "
                  "`assets:` note), and " + asset_id + " is in neither" +
                  config::ClosestList(asset_id, known));
}

// Adds the imported dbt tests of `dbt` to `targets`: onto the target of the same table (one scan
// per table), else as a table of their own. With `names` set, only those tables.
Status AddDbtTests(const config::Workspace& ws, const QualityRequest& req, const DbtTestImport& dbt,
                   const std::set<std::string>* names, std::vector<Target>& targets) {
  for (const DbtTestsOfTable& table : dbt.tables) {
    const std::string asset_id = table.ref.AssetIdString();
    if (names != nullptr && !names->count(asset_id)) continue;
    if (!ws.warehouses.count(table.ref.warehouse)) continue;
    Target* into = nullptr;
    for (Target& t : targets)
      if (t.asset_id == asset_id) into = &t;
    TableCheckSpec selected;
    for (const ImportedTest& t : table.tests)
      if (req.checks.empty() || std::find(req.checks.begin(), req.checks.end(), t.name) != req.checks.end() ||
          std::find(req.checks.begin(), req.checks.end(), t.test) != req.checks.end())
        selected.imported.push_back(t);
    if (into != nullptr) {
      for (ImportedTest& t : selected.imported) into->spec.imported.push_back(std::move(t));
      continue;
    }
    Target t;
    t.ref = table.ref;
    t.asset_id = asset_id;
    t.warehouse = &ws.warehouses.at(table.ref.warehouse);
    t.spec = std::move(selected);
    t.named = names != nullptr;
    targets.push_back(std::move(t));
  }
  return Status::Ok();
}

// With dbt tests in the run: drops the tables left without a selected check, and refuses a
// selection entry that names no check of any table.
Status CheckSelection(const QualityRequest& req, std::vector<Target>& targets) {
  std::vector<std::string> all;
  for (const Target& t : targets)
    for (const auto& [name, type] : CheckNames(t.spec)) {
      all.push_back(name);
      all.push_back(type);
    }
  for (const std::string& s : req.checks)
    if (std::find(all.begin(), all.end(), s) == all.end())
      return InvalidArgument("no configured check or dbt test is called '" + s + "'" + config::ClosestList(s, all));
  std::erase_if(targets, [](const Target& t) { return CheckNames(t.spec).empty(); });
  return Status::Ok();
}

Result<std::vector<Target>> ResolveTargets(const config::Workspace& ws, const QualityRequest& req,
                                           const std::optional<DbtTestImport>& dbt) {
  std::vector<Target> targets;
  if (req.inline_check && req.tables.size() != 1)
    return InvalidArgument("an inline check applies to exactly one table; name it in `table`");
  if (req.inline_check && !req.checks.empty())
    return InvalidArgument("give either `checks` (configured checks to run) or `check` (an inline "
                           "check), not both");
  auto add_config = [&](const config::CheckConfig& c, bool named) -> Status {
    Target t;
    Result<TableRef> ref = ParseTableRef(c.table);
    if (!ref.ok()) return ref.status();
    t.ref = *ref;
    t.asset_id = c.asset_id;
    t.warehouse = &ws.warehouses.at(c.warehouse);
    Result<TableCheckSpec> spec = ParseCheckSpec(c.spec, "checks[" + std::to_string(c.line) + "]",
                                                 SpecSource::kWorkspace);
    if (!spec.ok()) return spec.status();
    std::vector<std::string> own = req.checks;
    if (dbt) {
      // With dbt tests, a selection entry may name only dbt tests: it selects nothing here, and
      // one that names nothing anywhere is refused once every table is known (CheckSelection).
      std::vector<std::pair<std::string, std::string>> names = CheckNames(*spec);
      std::erase_if(own, [&](const std::string& s) {
        return std::none_of(names.begin(), names.end(), [&](const auto& n) { return n.first == s || n.second == s; });
      });
    }
    Result<TableCheckSpec> selected = dbt && own.empty() && !req.checks.empty()
                                          ? Result<TableCheckSpec>(TableCheckSpec{})
                                          : SelectChecks(*spec, own);
    if (!selected.ok())
      return Status(selected.status().code(), c.asset_id + ": " + selected.status().message());
    selected->pii = spec->pii;
    selected->sample_key = spec->sample_key;
    t.spec = *selected;
    t.named = named;
    targets.push_back(std::move(t));
    return Status::Ok();
  };
  if (req.tables.empty()) {
    if (ws.checks.empty() && (!dbt || dbt->tables.empty()))
      return InvalidArgument("the workspace configures no checks (see `checks:` in docs/workspace.md)");
    for (const config::CheckConfig& c : ws.checks) DW_RETURN_IF_ERROR(add_config(c, false));
    if (dbt) DW_RETURN_IF_ERROR(AddDbtTests(ws, req, *dbt, nullptr, targets));
    if (dbt) DW_RETURN_IF_ERROR(CheckSelection(req, targets));
    return targets;
  }
  for (const std::string& text : req.tables) {
    Result<TableRef> ref = ParseTableRef(text);
    if (!ref.ok()) return InvalidArgument("'" + text + "' is not a table name: " + ref.status().message());
    if (!ws.warehouses.count(ref->warehouse)) {
      return NotFound("'" + text + "' names warehouse '" + ref->warehouse +
                      "', which the workspace does not configure" +
                      config::ClosestList(ref->warehouse, WarehouseNames(ws)));
    }
    const std::string asset_id = ref->AssetIdString();
    bool configured = false;
    if (!req.inline_check) {
      for (const config::CheckConfig& c : ws.checks) {
        if (c.asset_id != asset_id) continue;
        configured = true;
        DW_RETURN_IF_ERROR(add_config(c, true));
      }
      if (dbt) {
        const std::set<std::string> one = {asset_id};
        DW_RETURN_IF_ERROR(AddDbtTests(ws, req, *dbt, &one, targets));
        for (const DbtTestsOfTable& d : dbt->tables) configured = configured || d.ref.AssetIdString() == asset_id;
      }
      if (!configured) {
        return NotFound("no checks are configured for " + asset_id +
                        config::ClosestList(asset_id, ConfiguredTables(ws)) +
                        "; pass an inline check or add one under `checks:`");
      }
      continue;
    }
    Result<bool> samples = InlineCheckTable(ws, *ref, text);
    if (!samples.ok()) return samples.status();
    Target t;
    t.ref = *ref;
    t.asset_id = asset_id;
    t.warehouse = &ws.warehouses.at(ref->warehouse);
    t.named = true;
    t.samples = *samples;
    if (!t.samples)
      t.report.notes.push_back("no sample rows: an inline check shows failed rows only on a table "
                               "with a `checks:` block, where its personal columns are declared");
    Result<TableCheckSpec> spec = ParseCheckSpec(*req.inline_check, "check", SpecSource::kInline);
    if (!spec.ok()) return spec.status();
    if (spec->Empty()) return InvalidArgument("check: declares no check to run");
    t.spec = *spec;
    // What the workspace knows about the table still holds: personal data stays masked, and the
    // configured time column is the default.
    for (const config::CheckConfig& c : ws.checks) {
      if (c.asset_id != asset_id) continue;
      Result<TableCheckSpec> configured_spec = ParseCheckSpec(c.spec, "checks", SpecSource::kWorkspace);
      if (!configured_spec.ok()) continue;
      t.spec.pii.insert(t.spec.pii.end(), configured_spec->pii.begin(), configured_spec->pii.end());
      if (!t.spec.time_column) t.spec.time_column = configured_spec->time_column;
    }
    targets.push_back(std::move(t));
  }
  if (dbt && !req.inline_check) DW_RETURN_IF_ERROR(CheckSelection(req, targets));
  return targets;
}

std::vector<std::string> TableNames(const std::vector<warehouse::TableId>& tables) {
  std::vector<std::string> out;
  for (const warehouse::TableId& t : tables) out.push_back(t.Display());
  return out;
}

// A metric name from parts, with characters metric names do not allow replaced by '_'.
std::string MetricName(const std::string& text) {
  std::string out = text;
  for (char& c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != ':' && c != '/' &&
        c != '-')
      c = '_';
  return out.substr(0, 200);
}

// The series a full run feeds, so every checked table gets volume, null-rate, duplicate and
// freshness baselines without configuring a monitor: quality:<table>:rows,
// quality:<table>:null_rate:<column>, quality:<table>:duplicated_keys:<key>,
// quality:<table>:freshness_age_seconds.
std::vector<std::pair<std::string, double>> SeriesOf(const TableReport& t) {
  std::vector<std::pair<std::string, double>> out;
  const std::string prefix = "quality:" + t.asset_id + ":";
  if (t.rows) out.emplace_back(MetricName(prefix + "rows"), static_cast<double>(*t.rows));
  for (const CheckOutcome& o : t.outcomes) {
    if (o.verdict == Verdict::kError || o.verdict == Verdict::kSkipped || !o.observed.is_object()) continue;
    const std::string column = o.name.substr(o.name.find(':') + 1);
    auto number = [&](const char* key) -> std::optional<double> {
      if (o.observed.contains(key) && o.observed[key].is_number()) return o.observed[key].get<double>();
      return std::nullopt;
    };
    if (o.type == "not_null" && number("null_rate"))
      out.emplace_back(MetricName(prefix + "null_rate:" + column), *number("null_rate"));
    if (o.type == "unique" && number("duplicated_keys"))
      out.emplace_back(MetricName(prefix + "duplicated_keys:" + column), *number("duplicated_keys"));
    if (o.type == "freshness" && number("age_seconds"))
      out.emplace_back(MetricName(prefix + "freshness_age_seconds"), *number("age_seconds"));
  }
  return out;
}

}  // namespace

int QualityReport::Count(Verdict v) const {
  int n = 0;
  for (const TableReport& t : tables)
    for (const CheckOutcome& o : t.outcomes) n += o.verdict == v ? 1 : 0;
  return n;
}

int QualityReport::ExitCode() const {
  if (Count(Verdict::kError) > 0) return 2;
  for (const TableReport& t : tables)
    if (t.outcomes.empty() && !t.notes.empty()) return 2;
  return Count(Verdict::kFail) > 0 ? 1 : 0;
}

Json QualityReport::ToJson() const {
  Json tables_json = Json::array();
  for (const TableReport& t : tables) {
    Json checks = Json::array();
    for (const CheckOutcome& o : t.outcomes) checks.push_back(o.ToJson());
    tables_json.push_back({{"table", t.asset_id},
                           {"warehouse", t.warehouse},
                           {"name", t.table},
                           {"rows_scanned", t.rows ? Json(*t.rows) : Json()},
                           {"estimated_rows", t.estimated_rows ? Json(*t.estimated_rows) : Json()},
                           {"estimated_bytes", t.estimated_bytes ? Json(*t.estimated_bytes) : Json()},
                           {"bytes_billed", t.bytes_billed ? Json(*t.bytes_billed) : Json()},
                           {"queries", t.queries},
                           {"duration_ms", t.duration_ms},
                           {"notes", t.notes},
                           {"checks", checks}});
  }
  const char* status = ExitCode() == 2 ? "error" : ExitCode() == 1 ? "fail" : "pass";
  Json j = {{"run_id", run_id},
            {"started_at", FormatRfc3339(started_at)},
            {"incremental", incremental},
            {"status", status},
            {"summary",
             {{"tables", static_cast<int>(tables.size())},
              {"checks", Count(Verdict::kPass) + Count(Verdict::kFail) + Count(Verdict::kError) +
                             Count(Verdict::kSkipped) + Count(Verdict::kWarn)},
              {"passed", Count(Verdict::kPass)},
              {"failed", Count(Verdict::kFail)},
              {"errors", Count(Verdict::kError)},
              {"skipped", Count(Verdict::kSkipped)},
              {"warned", Count(Verdict::kWarn)}}},
            {"tables", tables_json},
            {"recorded", !record_error.has_value()}};
  if (record_error) j["record_error"] = *record_error;
  if (dbt) {
    Json refused = Json::array();
    for (const DbtTestNotImported& n : dbt->not_imported)
      refused.push_back({{"test", n.name}, {"unique_id", n.unique_id}, {"model", n.model}, {"reason", n.reason}});
    j["dbt"] = {{"manifest", dbt->manifest}, {"project", dbt->project}, {"tests", dbt->tests},
                {"imported", dbt->imported}, {"not_imported", refused}};
  }
  return j;
}

Result<QualityReport> RunQuality(const config::Workspace& ws, store::StateStore* store,
                                 const Clock& clock, const QualityRequest& req,
                                 const QualityProgress& progress) {
  std::optional<DbtTestImport> dbt;
  if (ws.lineage.dbt_tests && !req.inline_check) {
    Result<DbtTestImport> imported = ImportDbtTestsFile(ws.lineage.dbt_manifest, DbtRelationPlacesOf(ws));
    if (!imported.ok()) return Status(imported.status().code(), "lineage.dbt_tests: " + imported.status().message());
    dbt = std::move(*imported);
  }
  Result<std::vector<Target>> resolved = ResolveTargets(ws, req, dbt);
  if (!resolved.ok()) return resolved.status();
  std::vector<Target>& targets = *resolved;
  QualityReport report;
  report.run_id = NewRunId();
  report.started_at = clock.Now();
  report.incremental = req.since.has_value();
  if (dbt) {
    DbtReport d;
    d.manifest = ws.lineage.dbt_manifest;
    d.project = dbt->project;
    d.tests = dbt->tests;
    for (const DbtTestsOfTable& t : dbt->tables) d.imported += static_cast<int>(t.tests.size());
    d.not_imported = dbt->not_imported;
    report.dbt = std::move(d);
  }
  std::optional<int64_t> since_ms;
  if (req.since) since_ms = ToUnixMillis(*req.since);

  // Plan every table before running any: names, time columns and the budget are settled first.
  std::map<std::string, Result<std::unique_ptr<warehouse::Warehouse>>> open;
  auto warehouse_for = [&](const config::WarehouseConfig& cfg) -> Result<warehouse::Warehouse*> {
    auto it = open.find(cfg.name);
    if (it == open.end()) it = open.emplace(cfg.name, warehouse::OpenWarehouse(cfg, req.http)).first;
    if (!it->second.ok()) return it->second.status();
    return it->second->get();
  };
  for (Target& t : targets) {
    t.report.asset_id = t.asset_id;
    t.report.warehouse = t.warehouse->name;
    t.report.table = t.ref.QualifiedName();
    Result<warehouse::Warehouse*> wh = warehouse_for(*t.warehouse);
    if (!wh.ok()) {
      FailAll(t.report, t.spec, wh.status());
      continue;
    }
    warehouse::TableId id = (*wh)->dialect().TableOf(t.ref.schema, t.ref.table);
    Result<std::optional<warehouse::TableSchema>> schema = (*wh)->DescribeTable(id);
    if (!schema.ok()) {
      FailAll(t.report, t.spec, schema.status());
      continue;
    }
    if (!schema->has_value()) {
      Result<std::vector<warehouse::TableId>> all = (*wh)->ListTables();
      std::string message = "table '" + id.Display() + "' not found in warehouse '" +
                            t.warehouse->name + "'" +
                            (all.ok() ? config::ClosestList(id.Display(), TableNames(*all)) : "");
      if (t.named) return NotFound(message);
      FailAll(t.report, t.spec, NotFound(message));
      continue;
    }
    Result<TablePlan> plan = PlanTable(**wh, **schema, t.spec, since_ms);
    if (!plan.ok()) {
      if (t.named && plan.status().code() == StatusCode::kInvalidArgument) return plan.status();
      FailAll(t.report, t.spec, plan.status());
      continue;
    }
    if (auto pii = plan->refused.find("pii"); pii != plan->refused.end())
      t.report.notes.push_back("pii: " + pii->second);
    t.plan = std::move(*plan);
  }

  // The scan budget: estimated rows per pass times the passes, per warehouse and for the run.
  bool budgeted = req.max_scan_rows.has_value();
  for (const Target& t : targets) budgeted = budgeted || t.warehouse->max_scan_rows.has_value();
  if (budgeted) {
    std::map<std::string, int64_t> per_warehouse;
    int64_t total = 0;
    std::string detail;
    for (Target& t : targets) {
      if (!t.plan || t.plan->scans == 0) continue;
      warehouse::Warehouse* wh = *warehouse_for(*t.warehouse);
      Result<std::optional<int64_t>> estimate =
          wh->EstimateRowsRead(t.plan->table.id, t.plan->filter.where, t.plan->filter.params);
      if (!estimate.ok()) return estimate.status();
      if (!estimate->has_value()) {
        return FailedPrecondition("cannot estimate the rows " + t.asset_id +
                                  " would scan, so the scan budget cannot be enforced; run without "
                                  "a budget or ANALYZE the table");
      }
      t.report.estimated_rows = **estimate;
      int64_t rows = **estimate * t.plan->scans;
      per_warehouse[t.warehouse->name] += rows;
      total += rows;
      detail += (detail.empty() ? "" : ", ") + t.asset_id + ": ~" + std::to_string(**estimate) +
                " rows x " + std::to_string(t.plan->scans) + " scan" + (t.plan->scans == 1 ? "" : "s");
    }
    const std::string hint = req.since ? "" : "; check only new rows with since, ";
    if (req.max_scan_rows && total > *req.max_scan_rows) {
      return ResourceExhausted("the run would scan about " + std::to_string(total) +
                               " rows, over its budget of " + std::to_string(*req.max_scan_rows) +
                               " (" + detail + ")" + (hint.empty() ? "; " : hint) +
                               "name fewer tables or checks, or raise the budget");
    }
    for (const auto& [name, rows] : per_warehouse) {
      const config::WarehouseConfig& cfg = ws.warehouses.at(name);
      if (cfg.max_scan_rows && rows > *cfg.max_scan_rows) {
        return ResourceExhausted("the run would scan about " + std::to_string(rows) +
                                 " rows on warehouse '" + name + "', over its max_scan_rows of " +
                                 std::to_string(*cfg.max_scan_rows) + " (" + detail + ")" +
                                 (hint.empty() ? "; " : hint) + "name fewer tables or checks");
      }
    }
  }

  // The byte budget: each table's statements priced by the warehouse (a dry run) before any runs.
  bool byte_budget = req.max_scan_bytes.has_value();
  for (const Target& t : targets) byte_budget = byte_budget || t.warehouse->max_scan_bytes.has_value();
  if (byte_budget) {
    const int64_t now_ms = ToUnixMillis(clock.Now());
    std::map<std::string, int64_t> per_warehouse;
    int64_t total = 0;
    std::string detail;
    for (Target& t : targets) {
      if (!t.plan) continue;
      warehouse::Warehouse* wh = *warehouse_for(*t.warehouse);
      const std::vector<BoundQuery> statements = PlannedStatements(wh->dialect(), *t.plan, now_ms);
      int64_t bytes = 0;
      bool priced = true;
      for (const BoundQuery& q : statements) {
        Result<std::optional<int64_t>> estimate = wh->EstimateBytesBilled(q.sql, q.params);
        if (!estimate.ok()) return Status(estimate.status().code(), t.asset_id + ": pricing its checks: " + estimate.status().message());
        if (!estimate->has_value()) {
          priced = false;
          break;
        }
        bytes += **estimate;
      }
      if (!priced) continue;  // a warehouse that does not bill by bytes read has no byte budget
      t.report.estimated_bytes = bytes;
      per_warehouse[t.warehouse->name] += bytes;
      total += bytes;
      detail += (detail.empty() ? "" : ", ") + t.asset_id + ": ~" + std::to_string(bytes) + " bytes";
    }
    if (req.max_scan_bytes && total > *req.max_scan_bytes)
      return ResourceExhausted("the run would bill about " + std::to_string(total) + " bytes, over its budget of " +
                               std::to_string(*req.max_scan_bytes) + " (" + detail +
                               "); check only new rows with since, name fewer tables or checks, or raise the budget");
    for (const auto& [name, bytes] : per_warehouse) {
      const config::WarehouseConfig& cfg = ws.warehouses.at(name);
      if (cfg.max_scan_bytes && bytes > *cfg.max_scan_bytes)
        return ResourceExhausted("the run would bill about " + std::to_string(bytes) + " bytes on warehouse '" + name +
                                 "', over its max_scan_bytes of " + std::to_string(*cfg.max_scan_bytes) + " (" + detail +
                                 "); check only new rows with since, or name fewer tables or checks");
    }
  }

  // Each table's context, read from the store here, on this thread.
  std::vector<TableRunContext> contexts(targets.size());
  for (size_t i = 0; i < targets.size(); ++i) {
    Target& t = targets[i];
    if (!t.plan) continue;
    TableRunContext& ctx = contexts[i];
    ctx.now_ms = ToUnixMillis(clock.Now());
    ctx.timeout = t.warehouse->query_timeout;
    ctx.labels = {{"dw_run", report.run_id}, {"dw_table", t.ref.QualifiedName()}};
    ctx.record = req.record && store != nullptr;
    if (!t.samples) ctx.sample_limit = 0;
    // SQLite scans one statement on one core: large tables are split across the machine's cores.
    ctx.scan_partitions = static_cast<int>(std::min(4u, std::max(1u, std::thread::hardware_concurrency())));
    if (store != nullptr) {
      Result<std::optional<store::CheckResultRow>> schema = store->LatestCheckResult(t.asset_id, "schema");
      if (schema.ok() && schema->has_value()) ctx.previous_schema = (*schema)->observed;
      Result<std::optional<store::CheckResultRow>> rows =
          store->LatestCheckResult(t.asset_id, "row_count_change");
      if (rows.ok() && rows->has_value() && (*rows)->observed.is_object() &&
          (*rows)->observed.contains("rows") && (*rows)->observed["rows"].is_number_integer())
        ctx.previous_rows = (*rows)->observed["rows"].get<int64_t>();
    }
  }

  // The tables run warehouse by warehouse, as many at once as the warehouse takes statements at
  // once (one on a SQLite or PostgreSQL connection; a REST warehouse's calls mostly wait on the
  // network). Progress is reported here, on this thread, as each table finishes.
  auto run_one = [&](size_t i, warehouse::Warehouse* wh) {
    Target& t = targets[i];
    if (!t.plan || wh == nullptr) return;
    auto start = SteadyClock::now();
    TableRunResult run = RunTablePlan(*wh, *t.plan, contexts[i]);
    t.report.outcomes = std::move(run.outcomes);
    t.report.rows = run.rows;
    t.report.queries = run.queries;
    t.report.bytes_billed = run.bytes_billed;
    t.report.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(SteadyClock::now() - start).count();
  };
  size_t done = 0;
  std::map<std::string, std::vector<size_t>> by_warehouse;
  for (size_t i = 0; i < targets.size(); ++i) by_warehouse[targets[i].warehouse->name].push_back(i);
  for (const auto& entry : by_warehouse) {
    // Named, not a structured binding: the workers' lambda captures it (clang 14 cannot capture one).
    const std::vector<size_t>& indices = entry.second;
    Result<warehouse::Warehouse*> opened = warehouse_for(ws.warehouses.at(entry.first));
    warehouse::Warehouse* wh = opened.ok() ? *opened : nullptr;  // none: its tables failed in planning
    const size_t parallel =
        wh != nullptr ? static_cast<size_t>(std::max(1, std::min(wh->ParallelStatements(), req.max_parallel.value_or(INT32_MAX)))) : 1;
    if (parallel == 1 || indices.size() == 1) {
      for (size_t i : indices) {
        run_one(i, wh);
        if (progress) progress(++done, targets.size(), targets[i].report);
      }
      continue;
    }
    std::mutex mu;
    std::condition_variable finished;
    std::deque<size_t> completed;
    size_t next = 0;
    std::vector<std::thread> workers;
    for (size_t w = 0; w < std::min(parallel, indices.size()); ++w)
      workers.emplace_back([&] {
        for (;;) {
          size_t i;
          {
            std::lock_guard<std::mutex> lock(mu);
            if (next == indices.size()) return;
            i = indices[next++];
          }
          run_one(i, wh);
          std::lock_guard<std::mutex> lock(mu);
          completed.push_back(i);
          finished.notify_one();
        }
      });
    for (size_t reported = 0; reported < indices.size(); ++reported) {
      size_t i;
      {
        std::unique_lock<std::mutex> lock(mu);
        finished.wait(lock, [&] { return !completed.empty(); });
        i = completed.front();
        completed.pop_front();
      }
      if (progress) progress(++done, targets.size(), targets[i].report);
    }
    for (std::thread& w : workers) w.join();
  }
  for (Target& t : targets) report.tables.push_back(std::move(t.report));

  if (req.record && store != nullptr) {
    std::vector<store::CheckResultRow> rows;
    const TimePoint at = clock.Now();
    for (const TableReport& t : report.tables) {
      for (const CheckOutcome& o : t.outcomes) {
        if (o.verdict == Verdict::kSkipped) continue;  // not run: nothing to record
        store::CheckResultRow r;
        r.run_id = report.run_id;
        r.table_ref = t.asset_id;
        r.check_name = o.name;
        r.status = o.verdict == Verdict::kPass   ? store::CheckStatus::kPass
                   : o.verdict == Verdict::kFail ? store::CheckStatus::kFail
                                                 : store::CheckStatus::kError;
        // A warning is recorded as a failure whose threshold says level: warn (the store knows
        // pass, fail and error); the incidents stage opens nothing for it (signal_gathering.cc).
        if (o.verdict == Verdict::kWarn) r.status = store::CheckStatus::kFail;
        r.observed = o.observed;
        if (o.failing_rows_query) {
          if (!r.observed.is_object()) r.observed = Json::object();
          r.observed["failing_rows_query"] = *o.failing_rows_query;
        }
        r.threshold = o.threshold;
        r.rows_scanned = o.rows_scanned.value_or(-1);
        r.duration_ms = o.duration_ms;
        r.message = o.message;
        r.observed_at = at;
        rows.push_back(std::move(r));
      }
    }
    Status recorded = store->RecordCheckResults(rows);
    // An incremental run measures only new rows: its counts are not the table's, so they feed no
    // series.
    for (const TableReport& t : report.tables) {
      if (!recorded.ok() || report.incremental) break;
      for (const auto& [metric, value] : SeriesOf(t)) {
        recorded = store->UpsertMetricPoints(metric, {store::MetricPoint{at, value}});
        if (!recorded.ok()) break;
      }
    }
    if (!recorded.ok()) {
      report.record_error = recorded.message();
      spdlog::warn("check results of run {} were not recorded: {}", report.run_id,
                   RedactSecrets(recorded.message()));
    }
  } else if (req.record) {
    report.record_error = "no state store";
  }
  return report;
}

const Json& QualityReportSchema() {
  static const Json schema = Json::parse(R"({
    "type": "object",
    "required": ["run_id", "started_at", "incremental", "status", "summary", "tables", "recorded"],
    "properties": {
      "run_id": {"type": "string"},
      "started_at": {"type": "string"},
      "incremental": {"type": "boolean"},
      "status": {"enum": ["pass", "fail", "error"]},
      "dbt": {
        "type": "object",
        "required": ["manifest", "project", "tests", "imported", "not_imported"],
        "properties": {
          "manifest": {"type": "string"}, "project": {"type": "string"},
          "tests": {"type": "integer"}, "imported": {"type": "integer"},
          "not_imported": {"type": "array", "items": {"type": "object",
            "required": ["test", "unique_id", "model", "reason"]}}
        }
      },
      "summary": {
        "type": "object",
        "required": ["tables", "checks", "passed", "failed", "errors", "skipped"],
        "properties": {
          "tables": {"type": "integer"}, "checks": {"type": "integer"},
          "passed": {"type": "integer"}, "failed": {"type": "integer"},
          "errors": {"type": "integer"}, "skipped": {"type": "integer"}
        }
      },
      "tables": {
        "type": "array",
        "items": {
          "type": "object",
          "required": ["table", "warehouse", "name", "queries", "duration_ms", "notes", "checks"],
          "properties": {
            "table": {"type": "string"},
            "warehouse": {"type": "string"},
            "name": {"type": "string"},
            "rows_scanned": {"type": ["integer", "null"]},
            "estimated_rows": {"type": ["integer", "null"]},
            "estimated_bytes": {"type": ["integer", "null"]},
            "bytes_billed": {"type": ["integer", "null"]},
            "queries": {"type": "integer"},
            "duration_ms": {"type": "integer"},
            "notes": {"type": "array", "items": {"type": "string"}},
            "checks": {
              "type": "array",
              "items": {
                "type": "object",
                "required": ["name", "type", "status", "observed", "threshold", "message",
                             "duration_ms", "rows_scanned"],
                "properties": {
                  "name": {"type": "string"},
                  "type": {"type": "string"},
                  "status": {"enum": ["pass", "fail", "error", "skipped", "warn"]},
                  "failing_rows_query": {"type": "string"},
                  "message": {"type": "string"},
                  "duration_ms": {"type": "integer"},
                  "rows_scanned": {"type": ["integer", "null"]},
                  "sample": {"type": "array", "items": {"type": "object"}}
                }
              }
            }
          }
        }
      },
      "recorded": {"type": "boolean"},
      "record_error": {"type": "string"}
    }
  })");
  return schema;
}

}  // namespace dw::observe::quality
