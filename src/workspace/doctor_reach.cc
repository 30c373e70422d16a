// `dw doctor` on what lives on other machines: the warehouses (and whether each checked table can
// be read), the platforms (with their tokens) and the desk. Each wait is bounded by the options'
// timeout and the warehouses are asked side by side.
#include <future>
#include <map>

#include "base/identifiers.h"
#include "base/url_redaction.h"
#include "platforms/probe.h"
#include "warehouse/probe.h"
#include "warehouse/warehouse.h"
#include "workspace/doctor_checks.h"

namespace dw::workspace::doctor {
namespace {

std::string Ms(std::chrono::milliseconds d) { return std::to_string(d.count()) + " ms"; }

// Whether the warehouse's user can read `ref`'s table: the table is in the catalog, and a
// statement that reads no row runs (BigQuery prices it with a dry run instead, which checks the
// same permissions and bills nothing).
DoctorFinding TableAccess(warehouse::Warehouse& wh, const TableRef& ref, const DoctorOptions& options) {
  const warehouse::Dialect& dialect = wh.dialect();
  const warehouse::TableId id = dialect.TableOf(ref.schema, ref.table);
  const std::string subject = wh.name() + "." + id.Display();
  const std::string grant = "grant " + dialect.ReadGrant(id);
  Result<std::optional<warehouse::TableSchema>> schema = wh.DescribeTable(id);
  if (!schema.ok())
    return Found("warehouse", subject, Verdict::kProblem, "its catalog could not be read: " + schema.status().message(),
                 schema.status().code() == StatusCode::kPermissionDenied ? grant : "see the error above");
  if (!schema->has_value())
    return Found("warehouse", subject, Verdict::kProblem,
                 "a check names this table, which the warehouse's user cannot see (missing, or no grant to see it)",
                 "fix the check's `table:`, or " + grant);
  const std::string probe = "SELECT 1 FROM " + dialect.Table(id) + " WHERE 1 = 0";
  Result<std::optional<int64_t>> priced = wh.EstimateBytesBilled(probe, {});
  Status read = priced.status();
  std::string how = "read by a dry run";
  if (priced.ok() && !priced->has_value()) {
    warehouse::QueryOptions q;
    q.timeout = options.timeout;
    q.labels = {{"dw", "doctor"}};
    read = wh.Query(probe, {}, q).status();
    how = "a statement reading no row ran";
  }
  if (read.ok()) return Found("warehouse", subject, Verdict::kOk, "readable (" + how + ")");
  if (read.code() == StatusCode::kPermissionDenied)
    return Found("warehouse", subject, Verdict::kProblem, "the warehouse's user cannot read it: " + read.message(), grant);
  if (read.code() == StatusCode::kDeadlineExceeded)
    return Found("warehouse", subject, Verdict::kProblem,
                 "no answer within " + Ms(options.timeout) + " to a statement that reads no row: " + read.message(),
                 "see why the warehouse is slow (locks, a suspended warehouse, load)");
  return Found("warehouse", subject, Verdict::kProblem, "could not be read: " + read.message(), "see the error above");
}

// One warehouse: it answers, then each table its checks name.
std::vector<DoctorFinding> OneWarehouse(const config::Workspace& ws, const config::WarehouseConfig& cfg,
                                        HttpClient* http, const DoctorOptions& options) {
  std::vector<DoctorFinding> out;
  warehouse::WarehouseProbe probe = warehouse::ProbeWarehouse(cfg, options.timeout, http);
  const std::string where = warehouse::DisplayLocation(cfg);
  if (!probe.reachable) {
    out.push_back(Found("warehouse", cfg.name, Verdict::kProblem, cfg.type + " at " + where + ": " + probe.detail,
                        "check warehouses." + cfg.name + " and that the warehouse runs and lets this machine in"));
    return out;
  }
  out.push_back(Found("warehouse", cfg.name, Verdict::kOk, cfg.type + " at " + where + " answered in " + Ms(probe.latency)));
  std::vector<TableRef> tables;
  for (const config::CheckConfig& c : ws.checks) {
    if (c.warehouse != cfg.name) continue;
    Result<TableRef> ref = ParseTableRef(c.table);
    if (ref.ok()) tables.push_back(*ref);
  }
  if (tables.empty()) return out;
  Result<std::unique_ptr<warehouse::Warehouse>> wh = warehouse::OpenWarehouse(cfg, http);
  if (!wh.ok()) {
    out.push_back(Found("warehouse", cfg.name, Verdict::kProblem, "answered its probe but did not open: " + wh.status().message(),
                        "check warehouses." + cfg.name));
    return out;
  }
  for (const TableRef& ref : tables) out.push_back(TableAccess(**wh, ref, options));
  return out;
}

}  // namespace

std::vector<DoctorFinding> CheckWarehouses(Services& services, const DoctorOptions& options) {
  const config::Workspace& ws = services.workspace();
  std::vector<std::future<std::vector<DoctorFinding>>> each;
  for (const auto& [name, cfg] : ws.warehouses)
    each.push_back(std::async(std::launch::async, [&ws, &cfg = cfg, http = &services.http(), &options] {
      return OneWarehouse(ws, cfg, http, options);
    }));
  std::vector<DoctorFinding> out;
  for (auto& f : each)
    for (DoctorFinding& d : f.get()) out.push_back(std::move(d));
  if (ws.warehouses.empty())
    out.push_back(Found("warehouse", "-", Verdict::kNotChecked, "the workspace names no warehouse"));
  return out;
}

std::vector<DoctorFinding> CheckPlatforms(Services& services, const DoctorOptions& options) {
  const config::Workspace& ws = services.workspace();
  std::vector<std::future<platforms::PlatformProbe>> each;
  for (const auto& [name, pf] : ws.platforms)
    each.push_back(std::async(std::launch::async, [&pf = pf, &services, &options] {
      return platforms::ProbePlatform(pf, services.http(), options.timeout);
    }));
  std::vector<DoctorFinding> out;
  size_t i = 0;
  for (const auto& [name, pf] : ws.platforms) {
    platforms::PlatformProbe p = each[i++].get();
    const std::string what = pf.type + " at " + p.endpoint;
    if (p.healthy) {
      out.push_back(Found("platform", name, Verdict::kOk, what + " answered " + p.detail + " in " + Ms(p.latency)));
    } else if (p.http_status == 401 || p.http_status == 403) {
      out.push_back(Found("platform", name, Verdict::kProblem, what + ": " + p.detail,
                          "renew the credentials of platforms." + name +
                              " (an expired or revoked token, or one without read access to what the collector reads)"));
    } else if (p.reachable) {
      out.push_back(Found("platform", name, Verdict::kProblem, what + ": " + p.detail,
                          "check platforms." + name + ".url (the path, the tenant) and the service's health"));
    } else {
      out.push_back(Found("platform", name, Verdict::kProblem, what + ": no answer: " + p.detail,
                          "check platforms." + name + ".url and that the service runs and lets this machine in"));
    }
  }
  return out;
}

std::vector<DoctorFinding> CheckDesk(Services& services, const DoctorOptions& options) {
  const config::Workspace& ws = services.workspace();
  if (ws.desk.url.empty())
    return {Found("desk", "desk.url", Verdict::kNotChecked,
                  "not set: approval messages say how to decide from the command line instead of carrying links")};
  net::HttpRequest req;
  req.url = ws.desk.url + "/";
  req.timeout = options.timeout;
  req.connect_timeout = std::min(options.timeout, std::chrono::milliseconds(2000));
  req.max_response_bytes = 1024 * 1024;
  auto r = services.http().Send(req);
  const std::string shown = RedactUrl(ws.desk.url);
  if (!r.ok())
    return {Found("desk", shown, Verdict::kProblem, "no answer: " + r.status().message(),
                  "start `dw serve` where desk.url points, or correct desk.url (approval links open it)")};
  if (r->status >= 200 && r->status < 400)
    return {Found("desk", shown, Verdict::kOk, "answered HTTP " + std::to_string(r->status) + " in " + Ms(r->elapsed))};
  return {Found("desk", shown, Verdict::kProblem, "answered HTTP " + std::to_string(r->status),
                "check that desk.url points at `dw serve` (approval links open it)")};
}

}  // namespace dw::workspace::doctor
