#include "workspace/describe.h"

#include <future>
#include <sstream>

#include "base/log.h"
#include "base/url_redaction.h"
#include "net/http_client.h"
#include "platforms/probe.h"
#include "store/location.h"
#include "warehouse/probe.h"

namespace dw::workspace {
namespace {

Json Strings(const std::vector<std::string>& v) { return Json(v); }

std::string AssetKind(const std::string& id) {
  auto p = id.find("://");
  return p == std::string::npos ? "" : id.substr(0, p);
}

// The check kinds a check block declares, in the order of the workspace reference.
Json CheckKinds(const Json& spec) {
  static const char* kinds[] = {"not_null", "unique", "freshness", "volume", "accepted_values",
                                "range", "schema", "row_count_change", "custom"};
  Json out = Json::array();
  for (const char* k : kinds)
    if (spec.contains(k) && !(spec[k].is_boolean() && !spec[k].get<bool>())) out.push_back(k);
  return out;
}

// Adds the state store's probe result to its section of the description.
void ProbeState(Services& services, Json& s) {
  auto store = services.state();
  s["reachable"] = store.ok();
  if (store.ok()) {
    s["schema_version"] = (*store)->schema_version();
    s["detail"] = "opened; schema version " + std::to_string((*store)->schema_version());
  } else {
    s["detail"] = RedactSecrets(store.status().message());
  }
}

}  // namespace

Json DescribeConfiguration(const config::Workspace& ws) {
  Json out;
  out["workspace"] = {{"name", ws.name},
                      {"dir", ws.dir.string()},
                      {"file", ws.file.string()},
                      {"timezone", ws.timezone},
                      {"probed", false}};
  // A PostgreSQL store may be a URL or a libpq keyword/value string ("host=db dbname=dw
  // password=..."): the store stage decides which, and prints either without its password.
  bool pg = store::IsPostgresLocation(ws.state);
  out["state"] = {{"backend", pg ? "postgresql" : "sqlite"},
                  {"location", pg ? RedactSecrets(store::RedactLocation(ws.state)) : ws.state}};

  Json warehouses = Json::array();
  for (const auto& [name, wh] : ws.warehouses)
    warehouses.push_back({{"name", name}, {"type", wh.type}, {"location", warehouse::DisplayLocation(wh)}});
  out["warehouses"] = std::move(warehouses);

  Json platforms_json = Json::array();
  for (const auto& [name, pf] : ws.platforms)
    platforms_json.push_back({{"name", name}, {"type", pf.type}, {"url", RedactUrl(pf.url)}});
  out["platforms"] = std::move(platforms_json);

  Json domains = Json::array();
  for (const auto& [name, d] : ws.domains)
    domains.push_back({{"name", name},
                       {"autonomy", d.autonomy},
                       {"owners", Strings(d.owners)},
                       {"approvers", Strings(d.approvers)},
                       {"escalate_to", Strings(d.escalate_to)},
                       {"approval_ttl", d.approval_ttl}});
  out["domains"] = std::move(domains);

  Json assets = Json::array();
  for (const auto& a : ws.assets)
    assets.push_back({{"id", a.id},
                      {"kind", AssetKind(a.id)},
                      {"domain", a.domain},
                      {"owner", a.owner},
                      {"reads", Strings(a.reads)},
                      {"writes", Strings(a.writes)},
                      {"schedule", a.schedule},
                      {"customer_facing", a.customer_facing}});
  out["assets"] = std::move(assets);

  Json checks = Json::array();
  for (const auto& c : ws.checks) checks.push_back({{"table", c.table}, {"checks", CheckKinds(c.spec)}});
  out["checks"] = std::move(checks);

  Json monitors = Json::array();
  for (const auto& m : ws.monitors)
    monitors.push_back({{"name", m.name},
                        {"warehouse", m.warehouse},
                        {"every", m.spec.value("every", "")},
                        {"seasonality", m.spec.value("seasonality", "auto")},
                        {"direction", m.spec.value("direction", "both")}});
  out["monitors"] = std::move(monitors);

  out["lineage"] = {{"dbt_manifest", ws.lineage.dbt_manifest},
                    {"openlineage", ws.lineage.openlineage},
                    {"kestra_flows", ws.lineage.kestra_flows}};
  Json notify = Json::array();
  for (const auto& [channel, settings] : ws.notify.items()) notify.push_back(channel);
  out["notify_channels"] = std::move(notify);
  return out;
}

Result<Json> DescribeWorkspace(Services& services, const DescribeOptions& options) {
  if (!services.workspace_status().ok()) return services.workspace_status();
  Json out = services.configuration_description();
  if (!options.probe) return out;
  const auto& ws = services.workspace();

  // Probes run in parallel: several unreachable platforms must not add their timeouts up.
  std::vector<std::future<warehouse::WarehouseProbe>> wh_probes;
  std::vector<std::future<platforms::PlatformProbe>> pf_probes;
  for (const auto& [name, wh] : ws.warehouses)
    wh_probes.push_back(std::async(std::launch::async, [&wh = wh, t = options.timeout, http = &services.http()] {
      return warehouse::ProbeWarehouse(wh, t, http);
    }));
  for (const auto& [name, pf] : ws.platforms)
    pf_probes.push_back(std::async(std::launch::async, [&pf = pf, &services, t = options.timeout] {
      return platforms::ProbePlatform(pf, services.http(), t);
    }));

  out["workspace"]["probed"] = true;
  ProbeState(services, out["state"]);
  // The arrays are in the same (map) order as the probes started above.
  for (size_t i = 0; i < wh_probes.size(); ++i) {
    auto p = wh_probes[i].get();
    Json& w = out["warehouses"][i];
    w["reachable"] = p.reachable;
    w["latency_ms"] = p.latency.count();
    w["detail"] = p.detail;
  }
  for (size_t i = 0; i < pf_probes.size(); ++i) {
    auto r = pf_probes[i].get();
    Json& p = out["platforms"][i];
    p["reachable"] = r.reachable;
    p["healthy"] = r.healthy;
    p["http_status"] = r.http_status;
    p["endpoint"] = r.endpoint;
    p["latency_ms"] = r.latency.count();
    p["detail"] = RedactSecrets(r.detail);
  }
  return out;
}

const Json& DescribeOutputSchema() {
  static const Json schema = Json::parse(R"({
    "type": "object",
    "required": ["workspace", "state", "warehouses", "platforms", "domains", "assets", "checks",
                 "monitors", "lineage", "notify_channels"],
    "properties": {
      "workspace": {"type": "object", "required": ["name", "dir", "file", "timezone", "probed"],
        "properties": {"name": {"type": "string"}, "dir": {"type": "string"},
                       "file": {"type": "string"}, "timezone": {"type": "string"},
                       "probed": {"type": "boolean"}}},
      "state": {"type": "object", "required": ["backend", "location"],
        "properties": {"backend": {"enum": ["sqlite", "postgresql"]}, "location": {"type": "string"},
                       "reachable": {"type": "boolean"}, "schema_version": {"type": "integer"},
                       "detail": {"type": "string"}}},
      "warehouses": {"type": "array", "items": {"type": "object",
        "required": ["name", "type", "location"],
        "properties": {"name": {"type": "string"}, "type": {"type": "string"},
                       "location": {"type": "string"}, "reachable": {"type": "boolean"},
                       "latency_ms": {"type": "integer"}, "detail": {"type": "string"}}}},
      "platforms": {"type": "array", "items": {"type": "object", "required": ["name", "type", "url"],
        "properties": {"name": {"type": "string"}, "type": {"type": "string"},
                       "url": {"type": "string"}, "reachable": {"type": "boolean"},
                       "healthy": {"type": "boolean"}, "http_status": {"type": "integer"},
                       "endpoint": {"type": "string"}, "latency_ms": {"type": "integer"},
                       "detail": {"type": "string"}}}},
      "domains": {"type": "array", "items": {"type": "object", "required": ["name", "autonomy"],
        "properties": {"name": {"type": "string"}, "autonomy": {"type": "string"},
                       "owners": {"type": "array", "items": {"type": "string"}},
                       "approvers": {"type": "array", "items": {"type": "string"}},
                       "escalate_to": {"type": "array", "items": {"type": "string"}},
                       "approval_ttl": {"type": "string"}}}},
      "assets": {"type": "array", "items": {"type": "object", "required": ["id", "kind"],
        "properties": {"id": {"type": "string"}, "kind": {"type": "string"},
                       "domain": {"type": "string"}, "owner": {"type": "string"},
                       "reads": {"type": "array", "items": {"type": "string"}},
                       "writes": {"type": "array", "items": {"type": "string"}},
                       "schedule": {"type": "string"}, "customer_facing": {"type": "boolean"}}}},
      "checks": {"type": "array", "items": {"type": "object", "required": ["table", "checks"],
        "properties": {"table": {"type": "string"},
                       "checks": {"type": "array", "items": {"type": "string"}}}}},
      "monitors": {"type": "array", "items": {"type": "object", "required": ["name", "warehouse"],
        "properties": {"name": {"type": "string"}, "warehouse": {"type": "string"},
                       "every": {"type": "string"}, "seasonality": {"type": "string"},
                       "direction": {"type": "string"}}}},
      "lineage": {"type": "object", "properties": {"dbt_manifest": {"type": "string"},
        "openlineage": {"type": "boolean"}, "kestra_flows": {"type": "string"}}},
      "notify_channels": {"type": "array", "items": {"type": "string"}}
    }
  })");
  return schema;
}

std::string DescribeAsText(const Json& d) {
  std::ostringstream o;
  const auto& w = d["workspace"];
  o << "workspace " << w["name"].get<std::string>() << " (" << w["file"].get<std::string>() << ")\n";
  auto reach = [](const Json& x) -> std::string {
    if (!x.contains("reachable")) return "";
    return x["reachable"].get<bool>() ? "  [reachable]" : "  [UNREACHABLE]";
  };
  const auto& s = d["state"];
  o << "state: " << s["backend"].get<std::string>() << " " << s["location"].get<std::string>()
    << reach(s) << "\n";
  o << "warehouses: " << d["warehouses"].size() << "\n";
  for (const auto& x : d["warehouses"])
    o << "  " << x["name"].get<std::string>() << " (" << x["type"].get<std::string>() << ") "
      << x["location"].get<std::string>() << reach(x)
      << (x.contains("detail") ? " " + x["detail"].get<std::string>() : "") << "\n";
  o << "platforms: " << d["platforms"].size() << "\n";
  for (const auto& x : d["platforms"])
    o << "  " << x["name"].get<std::string>() << " (" << x["type"].get<std::string>() << ") "
      << x["url"].get<std::string>() << reach(x)
      << (x.contains("detail") ? " " + x["detail"].get<std::string>() : "") << "\n";
  o << "domains: " << d["domains"].size() << "\n";
  for (const auto& x : d["domains"])
    o << "  " << x["name"].get<std::string>() << " autonomy " << x["autonomy"].get<std::string>()
      << "\n";
  o << "assets: " << d["assets"].size() << "\n";
  for (const auto& x : d["assets"]) {
    o << "  " << x["id"].get<std::string>();
    if (!x["schedule"].get<std::string>().empty()) o << "  schedule " << x["schedule"].get<std::string>();
    if (x["customer_facing"].get<bool>()) o << "  customer-facing";
    o << "\n";
  }
  o << "checks: " << d["checks"].size() << " table(s)\n";
  for (const auto& x : d["checks"]) {
    o << "  " << x["table"].get<std::string>() << ":";
    for (const auto& k : x["checks"]) o << " " << k.get<std::string>();
    o << "\n";
  }
  o << "monitors: " << d["monitors"].size() << "\n";
  for (const auto& x : d["monitors"])
    o << "  " << x["name"].get<std::string>() << " on " << x["warehouse"].get<std::string>()
      << " every " << x["every"].get<std::string>() << "\n";
  return o.str();
}

}  // namespace dw::workspace
