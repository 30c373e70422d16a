#include "config/workspace_builder.h"

#include <set>

#include "base/identifiers.h"
#include "base/ip_range.h"
#include "base/person_identity.h"
#include "base/redaction.h"
#include "config/duration.h"
#include "config/state_location.h"
#include "config/suggest.h"
#include "config/watch_settings.h"

namespace dw::config {
namespace {

namespace fs = std::filesystem;

class Builder {
 public:
  Builder(const PositionMap& positions, fs::path dir, std::string file,
          std::vector<ConfigError>* errors)
      : positions_(positions), dir_(std::move(dir)), file_(std::move(file)), errors_(errors) {}

  Workspace Build(const Json& doc);

 private:
  void CheckNotifyRoutes(const Workspace& ws);
  void BuildWarehouses(const Json& doc, Workspace* ws);
  void BuildPlatforms(const Json& doc, Workspace* ws);
  void BuildDomains(const Json& doc, Workspace* ws);
  void BuildPeople(const Json& doc, Workspace* ws);
  void BuildAssets(const Json& doc, Workspace* ws);
  void BuildLineage(const Json& doc, Workspace* ws);
  void BuildChecks(const Json& doc, Workspace* ws);
  void BuildMonitors(const Json& doc, Workspace* ws);
  void BuildDesk(const Json& doc, Workspace* ws);
  void BuildAutoMonitor(const Json& doc, Workspace* ws);

  // Reports `message` at the position of `path`, or of its nearest recorded parent.
  void Error(const std::string& path, std::string message);
  int LineOf(const std::string& path) const;
  // An absolute path for a path written relative to the workspace folder.
  std::string Resolve(const std::string& p) const;
  // Checks that a {min, max} pair, if both are set, is in order.
  void CheckMinMax(const Json& pair, const std::string& path);

  const PositionMap& positions_;
  fs::path dir_;
  std::string file_;
  std::vector<ConfigError>* errors_;
};

template <typename Map>
std::vector<std::string> Names(const Map& m) {
  std::vector<std::string> names;
  for (const auto& [k, v] : m) names.push_back(k);
  return names;
}

std::vector<std::string> Strings(const Json& list) {
  std::vector<std::string> out;
  if (!list.is_array()) return out;
  for (const auto& s : list)
    if (s.is_string()) out.push_back(s.get<std::string>());
  return out;
}

std::string Str(const Json& obj, const char* key, const std::string& fallback = "") {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : fallback;
}

const Json& Section(const Json& doc, const char* key, const Json& empty) {
  auto it = doc.find(key);
  return it != doc.end() ? *it : empty;
}

std::string Index(const std::string& list, size_t i) { return list + "[" + std::to_string(i) + "]"; }

}  // namespace

void Builder::Error(const std::string& path, std::string message) {
  ConfigError e;
  e.file = file_;
  e.path = path;
  e.message = std::move(message);
  for (std::string p = path;; ) {
    auto it = positions_.find(p);
    if (it != positions_.end()) {
      e.line = it->second.line;
      e.column = it->second.column;
      break;
    }
    size_t cut = p.find_last_of(".[");
    if (cut == std::string::npos) break;
    p = p.substr(0, cut);
  }
  errors_->push_back(std::move(e));
}

int Builder::LineOf(const std::string& path) const {
  auto it = positions_.find(path);
  return it == positions_.end() ? 0 : it->second.line;
}

std::string Builder::Resolve(const std::string& p) const {
  if (p.empty()) return p;
  fs::path path(p);
  return (path.is_absolute() ? path : dir_ / path).lexically_normal().string();
}

void Builder::CheckMinMax(const Json& pair, const std::string& path) {
  if (pair.is_object() && pair.contains("min") && pair.contains("max") &&
      pair["min"].get<double>() > pair["max"].get<double>())
    Error(path + ".max", "max is below min");
}

Workspace Builder::Build(const Json& doc) {
  Workspace ws;
  ws.dir = dir_;
  ws.file = file_;
  if (doc.contains("version")) {
    ws.version = static_cast<int>(doc["version"].get<int64_t>());
    if (doc["version"].get<int64_t>() != 1)
      Error("version", "unsupported version " + doc["version"].dump() +
                           "; this build of dw reads version 1");
  }
  ws.name = Str(doc, "name");
  if (doc.contains("name") && ws.name.empty()) Error("name", "the workspace name is empty");
  ws.timezone = Str(doc, "timezone", "UTC");
  const std::string state = Str(doc, "state");
  switch (ClassifyStateLocation(state)) {
    case StateLocationForm::kPostgresUrl:
    case StateLocationForm::kPostgresKeywords:
      ws.state = state;
      break;
    case StateLocationForm::kUnknownScheme:
      // Only the scheme is echoed: the rest may hold a password.
      Error("state", "'" + LocationScheme(state) +
                         "://' is not a state store: `state` is a SQLite file path, a "
                         "postgresql:// URL or a libpq keyword/value string" +
                         DidYouMean(LocationScheme(state), {"postgresql", "postgres"}));
      break;
    case StateLocationForm::kSqlitePath:
      ws.state = state.empty() ? (dir_ / ".dw" / "state.db").string() : Resolve(state);
      break;
  }
  BuildWarehouses(doc, &ws);
  BuildPlatforms(doc, &ws);
  BuildDomains(doc, &ws);
  BuildPeople(doc, &ws);
  BuildAssets(doc, &ws);
  BuildLineage(doc, &ws);
  BuildChecks(doc, &ws);
  BuildMonitors(doc, &ws);
  if (doc.contains("metrics") && doc["metrics"].is_object() && doc["metrics"].contains("retention")) {
    auto r = ParseDuration(Str(doc["metrics"], "retention"));
    if (r.ok() && r->count() > 0) ws.metric_retention = *r;
    else if (r.ok()) Error("metrics.retention", "must be longer than zero");
  }
  if (doc.contains("incidents") && doc["incidents"].is_object() && doc["incidents"].contains("group_window")) {
    auto w = ParseDuration(Str(doc["incidents"], "group_window"));
    if (w.ok() && w->count() > 0) ws.incident_group_window = *w;
    else if (w.ok()) Error("incidents.group_window", "must be longer than zero");
  }
  if (doc.contains("changes") && doc["changes"].is_object() && doc["changes"].contains("initial_lookback")) {
    auto l = ParseDuration(Str(doc["changes"], "initial_lookback"));
    if (l.ok() && l->count() > 0) ws.changes_initial_lookback = *l;
    else if (l.ok()) Error("changes.initial_lookback", "must be longer than zero");
  }
  if (doc.contains("watch") && doc["watch"].is_object() && doc["watch"].contains("lease_history")) {
    auto h = ParseDuration(Str(doc["watch"], "lease_history"));
    if (h.ok() && *h >= kMinLeaseHistory) ws.watch_lease_history = *h;
    else if (h.ok())
      Error("watch.lease_history",
            "must be at least 10m (--status and the accounting of each job slot's run need recent history)");
  }
  if (doc.contains("mcp") && doc["mcp"].is_object() && doc["mcp"].contains("max_scan_bytes") &&
      doc["mcp"]["max_scan_bytes"].is_number_integer())
    ws.mcp_max_scan_bytes = doc["mcp"]["max_scan_bytes"].get<int64_t>();
  BuildAutoMonitor(doc, &ws);
  BuildDesk(doc, &ws);
  auto notify = doc.find("notify");
  if (notify != doc.end() && notify->is_object()) {
    ws.notify = *notify;
    CheckNotifyRoutes(ws);
  }
  return ws;
}

// desk.url: where people open the desk (the signed approval links point under it); https unless
// on loopback, no query or fragment. desk.trusted_proxies: CIDR ranges.
void Builder::BuildDesk(const Json& doc, Workspace* ws) {
  auto desk = doc.find("desk");
  if (desk == doc.end() || !desk->is_object()) return;
  std::string url = Str(*desk, "url");
  if (!url.empty()) {
    const bool https = url.rfind("https://", 0) == 0;
    const std::string rest = url.substr(url.find("://") + 3);
    const std::string host = rest.substr(0, rest.find_first_of(":/"));
    const bool loopback = host == "localhost" || host.rfind("127.", 0) == 0 || host == "[::1]";
    if (!https && !loopback)
      Error("desk.url", "must be an https:// URL (the approval links it carries are credentials); http:// only on loopback");
    else if (url.find_first_of("?#") != std::string::npos)
      Error("desk.url", "must not carry a query or a fragment: the links are made by appending /approve/<token>");
    while (!url.empty() && url.back() == '/') url.pop_back();
    ws->desk.url = url;
  }
  const Json& proxies = desk->value("trusted_proxies", Json::array());
  for (size_t i = 0; i < proxies.size(); ++i) {
    if (!proxies[i].is_string()) continue;
    auto range = ParseIpRange(proxies[i].get<std::string>());
    if (!range.ok()) Error(Index("desk.trusted_proxies", i), range.status().message());
    else ws->desk.trusted_proxies.push_back(range->text);
  }
}

// auto_monitor: true/false, or {enabled, exclude, every, learning}.
void Builder::BuildAutoMonitor(const Json& doc, Workspace* ws) {
  auto am = doc.find("auto_monitor");
  if (am == doc.end()) return;
  if (am->is_boolean()) {
    ws->auto_monitor.enabled = am->get<bool>();
    return;
  }
  if (!am->is_object()) return;
  if (am->contains("enabled") && (*am)["enabled"].is_boolean()) ws->auto_monitor.enabled = (*am)["enabled"].get<bool>();
  const Json& exclude = am->value("exclude", Json::array());
  for (size_t i = 0; i < exclude.size(); ++i) {
    if (!exclude[i].is_string()) continue;
    std::string pattern = exclude[i].get<std::string>();
    if (pattern.empty()) Error(Index("auto_monitor.exclude", i), "must not be empty (a glob such as main.staging_*)");
    else ws->auto_monitor.exclude.push_back(std::move(pattern));
  }
  if (am->contains("every")) {
    auto every = ParseDuration(Str(*am, "every"));
    if (every.ok() && *every >= std::chrono::minutes(1)) ws->auto_monitor.every = *every;
    else if (every.ok()) Error("auto_monitor.every", "must be at least 1m (each pass reads every table's metadata)");
  }
  if (am->contains("learning")) {
    auto learning = ParseDuration(Str(*am, "learning"));
    if (learning.ok()) ws->auto_monitor.learning = *learning;
  }
}

// A route names channels configured under notify: and domains the workspace defines.
void Builder::CheckNotifyRoutes(const Workspace& ws) {
  if (!ws.notify.contains("routes") || !ws.notify["routes"].is_array()) return;
  const Json& routes = ws.notify["routes"];
  for (size_t i = 0; i < routes.size(); ++i) {
    const std::string path = "notify.routes[" + std::to_string(i) + "]";
    for (const Json& c : routes[i].value("channels", Json::array()))
      if (c.is_string() && !ws.notify.contains(c.get<std::string>()))
        Error(path + ".channels", "channel '" + c.get<std::string>() + "' is not configured under notify:");
    for (const Json& d : routes[i].value("domains", Json::array()))
      if (d.is_string() && !ws.domains.count(d.get<std::string>()))
        Error(path + ".domains", "domain '" + d.get<std::string>() + "' is not defined under domains:");
  }
}

void Builder::BuildWarehouses(const Json& doc, Workspace* ws) {
  const Json empty = Json::object();
  for (const auto& [name, w] : Section(doc, "warehouses", empty).items()) {
    const std::string path = "warehouses." + name;
    WarehouseConfig wc;
    wc.name = name;
    wc.type = Str(w, "type");
    if (wc.type == "sqlite") {
      if (!w.contains("path")) Error(path, "a sqlite warehouse needs 'path' (e.g. path: warehouse.db)");
      if (w.contains("dsn")) Error(path + ".dsn", "'dsn' applies to postgres warehouses; sqlite uses 'path'");
      std::string p = Str(w, "path");
      wc.path = (p == ":memory:") ? p : Resolve(p);
    } else if (wc.type == "postgres") {
      if (!w.contains("dsn"))
        Error(path, "a postgres warehouse needs 'dsn' (e.g. dsn: \"postgresql://user@host:5432/db\")");
      if (w.contains("path")) Error(path + ".path", "'path' applies to sqlite warehouses; postgres uses 'dsn'");
      wc.dsn = Str(w, "dsn");
    } else if (wc.type == "bigquery") {
      if (!w.contains("project")) Error(path, "a bigquery warehouse needs 'project' (e.g. project: my-project)");
      if (!w.contains("credentials"))
        Error(path, "a bigquery warehouse needs 'credentials', the path of a service-account JSON key "
                    "(e.g. credentials: \"${GOOGLE_APPLICATION_CREDENTIALS}\")");
      for (const char* other : {"path", "dsn"})
        if (w.contains(other)) Error(path + "." + other, std::string("'") + other + "' does not apply to bigquery warehouses");
      wc.project = Str(w, "project");
      wc.location = w.contains("location") ? Str(w, "location") : "US";
      if (w.contains("credentials")) wc.credentials = Resolve(Str(w, "credentials"));
      wc.api_url = w.contains("api_url") ? Str(w, "api_url") : "https://bigquery.googleapis.com";
      if (w.contains("token_url")) wc.token_url = Str(w, "token_url");
    } else if (wc.type == "snowflake") {
      for (const char* key : {"account", "user", "private_key", "database"})
        if (!w.contains(key))
          Error(path, std::string("a snowflake warehouse needs '") + key + "'" +
                          (std::string(key) == "private_key"
                               ? " (the path of the user's PKCS#8 private key, e.g. private_key: \"${SNOWFLAKE_PRIVATE_KEY_PATH}\")"
                               : ""));
      for (const char* other : {"path", "dsn", "project", "location", "credentials", "token_url"})
        if (w.contains(other)) Error(path + "." + other, std::string("'") + other + "' does not apply to snowflake warehouses");
      wc.account = Str(w, "account");
      wc.user = Str(w, "user");
      if (w.contains("private_key")) wc.private_key = Resolve(Str(w, "private_key"));
      wc.database = Str(w, "database");
      wc.default_schema = w.contains("schema") ? Str(w, "schema") : "PUBLIC";
      wc.compute_warehouse = Str(w, "warehouse");
      wc.role = Str(w, "role");
      wc.api_url = w.contains("api_url") ? Str(w, "api_url") : "https://" + wc.account + ".snowflakecomputing.com";
    }
    if (wc.type != "snowflake")
      for (const char* key : {"account", "user", "private_key", "database", "schema", "warehouse", "role"})
        if (w.contains(key)) Error(path + "." + key, std::string("'") + key + "' applies to snowflake warehouses");
    if (w.contains("max_scan_rows")) wc.max_scan_rows = w["max_scan_rows"].get<int64_t>();
    for (const char* key : {"max_scan_bytes", "max_bytes_billed"})
      if (w.contains(key) && wc.type != "bigquery")
        Error(path + "." + key, std::string("'") + key + "' applies to bigquery warehouses, which bill by bytes read");
    if (w.contains("max_scan_bytes")) wc.max_scan_bytes = w["max_scan_bytes"].get<int64_t>();
    if (w.contains("max_bytes_billed")) wc.max_bytes_billed = w["max_bytes_billed"].get<int64_t>();
    if (w.contains("query_timeout")) {
      auto t = ParseDuration(w["query_timeout"].get<std::string>());
      if (t.ok()) wc.query_timeout = *t;
    }
    ws->warehouses[name] = wc;
  }
}

void Builder::BuildPlatforms(const Json& doc, Workspace* ws) {
  const Json empty = Json::object();
  for (const auto& [name, p] : Section(doc, "platforms", empty).items()) {
    const std::string path = "platforms." + name;
    PlatformConfig pc;
    pc.name = name;
    pc.type = Str(p, "type");
    pc.url = Str(p, "url");
    // A trailing slash would double up when clients append "/v1/...".
    while (pc.url.size() > 1 && pc.url.back() == '/') pc.url.pop_back();
    pc.username = Str(p, "username");
    pc.password = Str(p, "password");
    pc.token = Str(p, "token");
    // What the Basic credential becomes on the wire is as secret as the password in it.
    RegisterBasicCredential(pc.username, pc.password);
    if (p.contains("tenant") && !pc.type.empty() && pc.type != "kestra")
      Error(path + ".tenant", "'tenant' applies to kestra platforms only");
    pc.tenant = pc.type == "kestra" ? Str(p, "tenant", "main") : "";
    if (p.contains("manifests") && !pc.type.empty() && pc.type != "flink")
      Error(path + ".manifests", "'manifests' applies to flink platforms only");
    pc.manifests = Resolve(Str(p, "manifests"));
    if (p.contains("password") && !p.contains("username"))
      Error(path + ".password", "'password' needs 'username' (basic auth)");
    if (p.contains("token") && p.contains("password"))
      Error(path + ".token", "set 'token' (bearer) or 'username'/'password' (basic), not both");
    if (p.contains("timeout")) {
      auto d = ParseDuration(Str(p, "timeout"));
      if (d.ok()) pc.timeout = *d;
    }
    ws->platforms[name] = pc;
  }
}

void Builder::BuildDomains(const Json& doc, Workspace* ws) {
  const Json empty = Json::object();
  for (const auto& [name, d] : Section(doc, "domains", empty).items()) {
    DomainConfig dc;
    dc.name = name;
    dc.autonomy = Str(d, "autonomy", dc.autonomy);
    dc.owners = Strings(d.value("owners", Json::array()));
    dc.approvers = Strings(d.value("approvers", Json::array()));
    dc.escalate_to = Strings(d.value("escalate_to", Json::array()));
    dc.approval_ttl = Str(d, "approval_ttl", dc.approval_ttl);
    ws->domains[name] = dc;
  }
}

namespace {

bool IsKeyFingerprint(const std::string& f) {
  if (f.size() != 7 + 64 || f.rfind("sha256:", 0) != 0) return false;
  for (size_t i = 7; i < f.size(); ++i)
    if (!((f[i] >= '0' && f[i] <= '9') || (f[i] >= 'a' && f[i] <= 'f'))) return false;
  return true;
}

}  // namespace

void Builder::BuildPeople(const Json& doc, Workspace* ws) {
  const Json empty = Json::object();
  std::map<std::string, std::string> owner_of;  // fingerprint -> the person who declared it first
  for (const auto& [email, p] : Section(doc, "people", empty).items()) {
    const std::string path = "people." + email;
    if (!LooksLikePersonEmail(email)) {
      Error(path, "'" + email.substr(0, 120) + "' is not a person's email (name@domain); keys are declared for people, never agents");
      continue;
    }
    PersonConfig pc;
    pc.email = email;
    pc.keys = Strings(p.value("keys", Json::array()));
    for (size_t i = 0; i < pc.keys.size(); ++i) {
      const std::string& f = pc.keys[i];
      const std::string at = Index(path + ".keys", i);
      if (!IsKeyFingerprint(f)) {
        Error(at, "'" + f.substr(0, 80) + "' is not a key fingerprint: write sha256: and the 64 lower-case hex "
                  "characters dw keys issue printed");
        continue;
      }
      auto [it, fresh] = owner_of.emplace(f, email);
      if (!fresh)
        Error(at, "key " + f.substr(0, 19) + "... is also declared for " + it->second +
                      ": a key belongs to one person, or a decision could not say whose it is");
    }
    ws->people[email] = std::move(pc);
  }
}

void Builder::BuildAssets(const Json& doc, Workspace* ws) {
  const Json empty = Json::array();
  const Json& assets = Section(doc, "assets", empty);
  std::map<std::string, int> first_line;
  for (size_t i = 0; i < assets.size(); ++i) {
    const Json& a = assets[i];
    if (!a.is_object()) continue;
    const std::string path = Index("assets", i);
    AssetNote note;
    note.id = Str(a, "id");
    note.domain = Str(a, "domain");
    note.owner = Str(a, "owner");
    note.reads = Strings(a.value("reads", Json::array()));
    note.writes = Strings(a.value("writes", Json::array()));
    note.schedule = Str(a, "schedule");
    note.customer_facing = a.value("customer_facing", false);
    note.tags = Strings(a.value("tags", Json::array()));
    note.impact_sql = Str(a, "impact_sql");
    note.notes = Str(a, "notes");
    note.line = LineOf(path);
    if (!note.id.empty()) {
      auto [it, inserted] = first_line.emplace(note.id, LineOf(path + ".id"));
      if (!inserted)
        Error(path + ".id", "asset '" + note.id + "' is already described on line " +
                                std::to_string(it->second) + "; merge the two notes");
    }
    if (!note.domain.empty() && !ws->domains.count(note.domain))
      Error(path + ".domain", "unknown domain '" + note.domain + "'" +
                                  DidYouMean(note.domain, Names(ws->domains)) +
                                  (ws->domains.empty() ? " (no domains are configured)" : ""));
    ws->assets.push_back(std::move(note));
  }
}

void Builder::BuildLineage(const Json& doc, Workspace* ws) {
  const Json empty = Json::object();
  const Json& l = Section(doc, "lineage", empty);
  ws->lineage.dbt_manifest = Resolve(Str(l, "dbt_manifest"));
  ws->lineage.openlineage = l.value("openlineage", false);
  ws->lineage.dbt_tests = l.value("dbt_tests", false);
  if (ws->lineage.dbt_tests && ws->lineage.dbt_manifest.empty())
    Error("lineage.dbt_tests", "needs lineage.dbt_manifest: the manifest whose tests become checks");
  ws->lineage.kestra_flows = Resolve(Str(l, "kestra_flows"));
}

void Builder::BuildChecks(const Json& doc, Workspace* ws) {
  const Json empty = Json::array();
  const Json& checks = Section(doc, "checks", empty);
  for (size_t i = 0; i < checks.size(); ++i) {
    const Json& c = checks[i];
    if (!c.is_object()) continue;
    const std::string path = Index("checks", i);
    CheckConfig cc;
    cc.table = Str(c, "table");
    cc.spec = c;
    cc.line = LineOf(path);
    if (!cc.table.empty()) {
      auto ref = ParseTableRef(cc.table);
      if (!ref.ok()) {
        Error(path + ".table", ref.status().message());
      } else if (!ws->warehouses.count(ref->warehouse)) {
        Error(path + ".table", "unknown warehouse '" + ref->warehouse + "' in table '" + cc.table +
                                   "'" + DidYouMean(ref->warehouse, Names(ws->warehouses)) +
                                   " (the first part names a warehouse under 'warehouses:')");
      } else {
        cc.warehouse = ref->warehouse;
        cc.asset_id = ref->AssetIdString();
        if (ref->schema.empty() && ws->warehouses[ref->warehouse].type == "postgres")
          Error(path + ".table", "postgres tables are named warehouse.schema.table, e.g. '" +
                                     ref->warehouse + ".public." + ref->table + "'");
      }
    }
    const bool has_time = c.contains("time_column");
    if (c.contains("freshness") && !has_time)
      Error(path + ".freshness", "freshness needs 'time_column' (the column that says when a row landed)");
    if (c.contains("volume") && c["volume"].contains("window") && !has_time)
      Error(path + ".volume.window", "a volume window needs 'time_column'");
    if (c.contains("volume") && c["volume"].contains("min_rows") && c["volume"].contains("max_rows") &&
        c["volume"]["min_rows"].get<int64_t>() > c["volume"]["max_rows"].get<int64_t>())
      Error(path + ".volume.max_rows", "max_rows is below min_rows");
    if (c.contains("range"))
      for (const auto& [col, mm] : c["range"].items()) CheckMinMax(mm, path + ".range." + col);
    if (c.contains("custom")) {
      std::set<std::string> names;
      for (size_t k = 0; k < c["custom"].size(); ++k) {
        const Json& q = c["custom"][k];
        const std::string qpath = Index(path + ".custom", k);
        if (!q.is_object()) continue;
        if (q.contains("name") && !names.insert(q["name"].get<std::string>()).second)
          Error(qpath + ".name", "another custom check in this block is already named '" +
                                     q["name"].get<std::string>() + "'");
        if (q.contains("between") && q["between"].is_array() && q["between"].size() == 2 &&
            q["between"][0].is_number() && q["between"][1].is_number() &&
            q["between"][0].get<double>() > q["between"][1].get<double>())
          Error(qpath + ".between", "write [low, high]: the first bound is above the second");
      }
    }
    ws->checks.push_back(std::move(cc));
  }
}

void Builder::BuildMonitors(const Json& doc, Workspace* ws) {
  const Json empty = Json::array();
  const Json& monitors = Section(doc, "monitors", empty);
  std::map<std::string, int> first_line;
  for (size_t i = 0; i < monitors.size(); ++i) {
    const Json& m = monitors[i];
    if (!m.is_object()) continue;
    const std::string path = Index("monitors", i);
    MonitorConfig mc;
    mc.name = Str(m, "name");
    mc.warehouse = Str(m, "warehouse");
    mc.spec = m;
    mc.line = LineOf(path);
    if (!mc.name.empty()) {
      auto [it, inserted] = first_line.emplace(mc.name, LineOf(path + ".name"));
      if (!inserted)
        Error(path + ".name", "a monitor named '" + mc.name + "' is already defined on line " +
                                  std::to_string(it->second));
    }
    if (m.contains("warehouse") && !ws->warehouses.count(mc.warehouse))
      Error(path + ".warehouse", "unknown warehouse '" + mc.warehouse + "'" +
                                     DidYouMean(mc.warehouse, Names(ws->warehouses)));
    if (m.contains("expected")) CheckMinMax(m["expected"], path + ".expected");
    ws->monitors.push_back(std::move(mc));
  }
}

Workspace BuildWorkspace(const Json& doc, const PositionMap& positions, const fs::path& dir,
                         const std::string& file, std::vector<ConfigError>* errors) {
  return Builder(positions, dir, file, errors).Build(doc.is_object() ? doc : Json::object());
}

}  // namespace dw::config
