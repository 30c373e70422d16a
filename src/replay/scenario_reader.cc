// scenario.yaml into a Scenario. yaml-cpp's exceptions stay in this file; every problem becomes
// "<file>:<line>: <key>: <message>" (the first one found), so a person can fix it in place.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <system_error>

#include "base/rfc3339.h"
#include "config/yaml_budget.h"
#include "config/yaml_documents.h"
#include "replay/replay.h"
#include "replay/yaml_json.h"

namespace dw::replay {
namespace {

namespace fs = std::filesystem;

// The first problem found; thrown inside this file only, caught by ReadScenario.
struct Malformed {
  std::string message;
};

class Reader {
 public:
  Reader(fs::path dir, fs::path file) : dir_(std::move(dir)), file_(std::move(file)) {}

  [[noreturn]] void Fail(const YAML::Node& at, const std::string& key, const std::string& message) const {
    // A missing key has no mark of its own: name the line of the mapping it was missing from.
    int line = at.IsDefined() && at.Mark().line >= 0 ? at.Mark().line + 1 : context_line_;
    throw Malformed{file_.string() + ":" + std::to_string(line) + ": " + key + ": " + message};
  }

  // Fails on any key of `map` not in `allowed` (a typo must not silently mean "not checked").
  void OnlyKeys(const YAML::Node& map, const std::string& where, std::initializer_list<const char*> allowed) const {
    if (!map.IsMap()) Fail(map, where, "expected a mapping");
    context_line_ = map.Mark().line + 1;
    for (auto it = map.begin(); it != map.end(); ++it) {
      std::string k = it->first.as<std::string>();
      bool ok = std::any_of(allowed.begin(), allowed.end(), [&](const char* a) { return k == a; });
      if (!ok) {
        std::string list;
        for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
        Fail(it->first, Key(where, k), "unknown key; expected one of: " + list);
      }
    }
  }

  static std::string Key(const std::string& where, const std::string& k) {
    return where.empty() ? k : where + "." + k;
  }

  std::string String(const YAML::Node& n, const std::string& key) const {
    if (!n.IsDefined() || n.IsNull()) Fail(n, key, "is required");
    if (!n.IsScalar()) Fail(n, key, "expected a string");
    std::string s = n.as<std::string>();
    if (s.empty()) Fail(n, key, "must not be empty");
    return s;
  }
  std::string OptString(const YAML::Node& n, const std::string& key) const {
    if (!n.IsDefined() || n.IsNull()) return "";
    return String(n, key);
  }
  std::vector<std::string> StringList(const YAML::Node& n, const std::string& key, bool allow_scalar) const {
    std::vector<std::string> out;
    if (!n.IsDefined() || n.IsNull()) return out;
    if (n.IsScalar() && allow_scalar) return {String(n, key)};
    if (!n.IsSequence()) Fail(n, key, allow_scalar ? "expected a string or a list of strings" : "expected a list of strings");
    for (size_t i = 0; i < n.size(); ++i) out.push_back(String(n[i], key + "[" + std::to_string(i) + "]"));
    return out;
  }
  TimePoint Time(const YAML::Node& n, const std::string& key) const {
    std::string s = String(n, key);
    auto t = ParseRfc3339(s);
    if (!t.ok()) Fail(n, key, "expected an RFC 3339 time such as 2026-11-24T09:10:00Z, got '" + s + "'");
    return *t;
  }
  bool Bool(const YAML::Node& n, const std::string& key) const {
    if (!n.IsScalar()) Fail(n, key, "expected true or false");
    std::string s = n.as<std::string>();
    if (s == "true") return true;
    if (s == "false") return false;
    Fail(n, key, "expected true or false, got '" + s + "'");
  }
  double Number(const YAML::Node& n, const std::string& key) const {
    if (!n.IsDefined() || n.IsNull()) Fail(n, key, "is required");
    std::string s = n.IsScalar() ? n.as<std::string>() : "";
    try {
      size_t used = 0;
      double v = std::stod(s, &used);
      if (used == s.size() && std::isfinite(v)) return v;
    } catch (const std::exception&) {
    }
    Fail(n, key, "expected a finite number, got '" + s + "'");
  }
  // A path relative to the scenario folder that must name an existing file (or folder).
  fs::path ExistingPath(const YAML::Node& n, const std::string& key, bool folder) const {
    std::string rel = String(n, key);
    fs::path p(rel);
    if (p.is_absolute()) Fail(n, key, "must be relative to the scenario folder, got " + rel);
    fs::path full = (dir_ / p).lexically_normal();
    std::error_code ec;
    bool ok = folder ? fs::is_directory(full, ec) : fs::is_regular_file(full, ec);
    if (!ok) Fail(n, key, std::string("no such ") + (folder ? "folder" : "file") + ": " + full.string());
    return full;
  }
  SqlStep Sql(const YAML::Node& n, const std::string& where) const {
    SqlStep s;
    s.warehouse = String(n["warehouse"], Key(where, "warehouse"));
    bool file = n["sql"].IsDefined(), inline_sql = n["sql_inline"].IsDefined();
    if (file == inline_sql) Fail(n, where, "needs exactly one of sql (a file) or sql_inline");
    if (file) s.sql_file = ExistingPath(n["sql"], Key(where, "sql"), false);
    else s.sql_inline = String(n["sql_inline"], Key(where, "sql_inline"));
    s.user = OptString(n["user"], Key(where, "user"));
    return s;
  }

  const fs::path& dir() const { return dir_; }
  const fs::path& file() const { return file_; }

 private:
  fs::path dir_, file_;
  mutable int context_line_ = 0;
};

CauseExpectation ReadCause(const Reader& r, const YAML::Node& n, const std::string& where) {
  r.OnlyKeys(n, where, {"kind", "asset", "evidence_contains"});
  CauseExpectation c;
  c.kinds = r.StringList(n["kind"], Reader::Key(where, "kind"), true);
  c.asset = r.OptString(n["asset"], Reader::Key(where, "asset"));
  c.evidence_contains = r.StringList(n["evidence_contains"], Reader::Key(where, "evidence_contains"), true);
  if (c.kinds.empty() && c.asset.empty()) r.Fail(n, where, "needs a kind or an asset");
  return c;
}

std::string CauseText(const CauseExpectation& c) {
  std::string kinds;
  for (const auto& k : c.kinds) kinds += (kinds.empty() ? "" : "|") + k;
  return (kinds.empty() ? std::string("any change") : kinds) + (c.asset.empty() ? "" : " on " + c.asset);
}

IncidentExpectation ReadIncident(const Reader& r, const YAML::Node& n, const std::string& w) {
  r.OnlyKeys(n, w, {"asset", "opened_by", "cause", "second_cause", "ranked_below_cause",
                    "blast_radius_includes", "severity", "acts_next", "proposals", "verified", "receipt",
                    "holds", "impact"});
  IncidentExpectation e;
  e.asset = r.String(n["asset"], w + ".asset");
  if (n["opened_by"]) e.opened_by = r.Time(n["opened_by"], w + ".opened_by");
  if (n["cause"]) e.cause = ReadCause(r, n["cause"], w + ".cause");
  if (n["second_cause"]) e.second_cause = ReadCause(r, n["second_cause"], w + ".second_cause");
  e.ranked_below_cause = r.StringList(n["ranked_below_cause"], w + ".ranked_below_cause", false);
  e.blast_radius_includes = r.StringList(n["blast_radius_includes"], w + ".blast_radius_includes", false);
  if (n["severity"]) {
    e.severity = r.String(n["severity"], w + ".severity");
    if (e.severity != "SEV1" && e.severity != "SEV2" && e.severity != "SEV3")
      r.Fail(n["severity"], w + ".severity", "expected SEV1, SEV2 or SEV3, got '" + e.severity + "'");
  }
  if (n["acts_next"]) {
    const YAML::Node& a = n["acts_next"];
    r.OnlyKeys(a, w + ".acts_next", {"asset", "at"});
    e.acts_next = std::make_pair(r.String(a["asset"], w + ".acts_next.asset"), r.Time(a["at"], w + ".acts_next.at"));
  }
  e.holds = r.StringList(n["holds"], w + ".holds", false);
  if (const YAML::Node impact = n["impact"]) {
    if (!impact.IsSequence()) r.Fail(impact, w + ".impact", "expected a list of {asset, at_least, at_most}");
    for (size_t i = 0; i < impact.size(); ++i) {
      std::string k = w + ".impact[" + std::to_string(i) + "]";
      r.OnlyKeys(impact[i], k, {"asset", "at_least", "at_most"});
      IncidentExpectation::Impact x;
      x.asset = r.String(impact[i]["asset"], k + ".asset");
      if (impact[i]["at_least"]) x.at_least = static_cast<int64_t>(r.Number(impact[i]["at_least"], k + ".at_least"));
      if (impact[i]["at_most"]) x.at_most = static_cast<int64_t>(r.Number(impact[i]["at_most"], k + ".at_most"));
      if (!x.at_least && !x.at_most) r.Fail(impact[i], k, "needs at_least or at_most");
      e.impact.push_back(x);
    }
  }
  e.proposals = r.StringList(n["proposals"], w + ".proposals", false);
  if (n["verified"]) e.verified = r.Bool(n["verified"], w + ".verified");
  if (n["receipt"]) e.receipt = r.Bool(n["receipt"], w + ".receipt");
  return e;
}

// The notification events a message expectation may name (platforms::notify::EventKind).
const std::set<std::string>& EventNames() {
  static const std::set<std::string> kEvents = {"open", "severity_raised", "approval_requested", "approved",
                                                "escalated", "verified", "resolved", "attention_requested"};
  return kEvents;
}

std::optional<int> Count(const Reader& r, const YAML::Node& n, const std::string& key) {
  if (!n.IsDefined() || n.IsNull()) return std::nullopt;
  double v = r.Number(n, key);
  if (v < 0 || v != static_cast<double>(static_cast<int>(v)))
    r.Fail(n, key, "expected a whole number of 0 or more, got '" + n.as<std::string>() + "'");
  return static_cast<int>(v);
}

MessageExpectation ReadMessage(const Reader& r, const YAML::Node& n, const std::string& w) {
  r.OnlyKeys(n, w, {"channel", "event", "count", "contains", "to", "cc"});
  MessageExpectation m;
  m.channel = r.String(n["channel"], w + ".channel");
  m.event = r.OptString(n["event"], w + ".event");
  if (!m.event.empty() && !EventNames().count(m.event))
    r.Fail(n["event"], w + ".event",
           "expected open, severity_raised, approval_requested, approved, escalated, verified, resolved or "
           "attention_requested, got '" +
               m.event + "'");
  m.count = Count(r, n["count"], w + ".count");
  m.contains = r.StringList(n["contains"], w + ".contains", false);
  m.to = r.StringList(n["to"], w + ".to", false);
  m.cc = r.StringList(n["cc"], w + ".cc", false);
  return m;
}

AlertExpectation ReadAlert(const Reader& r, const YAML::Node& n, const std::string& w) {
  r.OnlyKeys(n, w, {"channel", "state", "count", "note_contains"});
  AlertExpectation a;
  a.channel = r.String(n["channel"], w + ".channel");
  a.state = r.String(n["state"], w + ".state");
  if (a.channel == "opsgenie") {
    if (a.state != "open" && a.state != "closed")
      r.Fail(n["state"], w + ".state", "an Opsgenie alert is open or closed, got '" + a.state + "'");
  } else if (a.channel == "pagerduty") {
    if (a.state != "triggered" && a.state != "acknowledged" && a.state != "resolved")
      r.Fail(n["state"], w + ".state", "a PagerDuty incident is triggered, acknowledged or resolved, got '" + a.state + "'");
  } else {
    r.Fail(n["channel"], w + ".channel", "alerts are kept by opsgenie or pagerduty, got '" + a.channel + "'");
  }
  a.count = Count(r, n["count"], w + ".count");
  a.note_contains = r.StringList(n["note_contains"], w + ".note_contains", false);
  if (!a.note_contains.empty() && a.channel != "opsgenie")
    r.Fail(n["note_contains"], w + ".note_contains", "only Opsgenie alerts carry notes");
  return a;
}

std::string MessageText(const MessageExpectation& m) {
  std::string s = (m.count ? std::to_string(*m.count) : std::string("a")) + " " + m.channel + " message" +
                  (m.count && *m.count == 1 ? "" : m.count ? "s" : "");
  if (!m.event.empty()) s += " (" + m.event + ")";
  return s;
}

Expectation ReadExpectation(const Reader& r, const YAML::Node& n, size_t i) {
  std::string w = "expect[" + std::to_string(i) + "]";
  if (!n.IsMap() || n.size() != 1)
    r.Fail(n, w, "expected one of incident:, no_incident:, change:, tool:, message: or alert: (exactly one key)");
  Expectation x;
  x.line = n.Mark().line + 1;
  std::string kind = n.begin()->first.as<std::string>();
  const YAML::Node body = n.begin()->second;
  w += "." + kind;
  if (kind == "incident") {
    x.incident = ReadIncident(r, body, w);
    x.text = "incident on " + x.incident->asset;
    if (x.incident->cause) x.text += ", cause " + CauseText(*x.incident->cause) + " ranked first";
  } else if (kind == "no_incident") {
    NoIncidentExpectation e;
    if (!body.IsNull()) {
      r.OnlyKeys(body, w, {"asset"});
      e.asset = r.OptString(body["asset"], w + ".asset");
    }
    x.text = e.asset.empty() ? "no incident at all" : "no incident on " + e.asset;
    x.no_incident = e;
  } else if (kind == "change") {
    r.OnlyKeys(body, w, {"kind", "asset", "present"});
    ChangeExpectation e;
    e.kind = r.String(body["kind"], w + ".kind");
    e.asset = r.String(body["asset"], w + ".asset");
    if (body["present"]) e.present = r.Bool(body["present"], w + ".present");
    x.text = std::string(e.present ? "a " : "no ") + e.kind + " change on " + e.asset;
    x.change = e;
  } else if (kind == "tool") {
    r.OnlyKeys(body, w, {"agent", "name", "arguments", "result_contains", "result_excludes"});
    ToolExpectation e;
    e.agent = r.String(body["agent"], w + ".agent");
    e.name = r.String(body["name"], w + ".name");
    if (body["arguments"]) {
      if (!body["arguments"].IsMap()) r.Fail(body["arguments"], w + ".arguments", "expected a mapping");
      e.arguments = YamlToJson(body["arguments"]);
    }
    e.result_contains = r.StringList(body["result_contains"], w + ".result_contains", false);
    e.result_excludes = r.StringList(body["result_excludes"], w + ".result_excludes", false);
    x.text = "tool " + e.agent + "/" + e.name;
    x.tool = e;
  } else if (kind == "message") {
    x.message = ReadMessage(r, body, w);
    x.text = MessageText(*x.message);
  } else if (kind == "alert") {
    x.alert = ReadAlert(r, body, w);
    x.text = (x.alert->count ? std::to_string(*x.alert->count) : std::string("an")) + " " + x.alert->channel +
             " alert " + x.alert->state;
  } else {
    r.Fail(n.begin()->first, w, "unknown expectation; expected incident, no_incident, change, tool, message or alert");
  }
  return x;
}

Event ReadEvent(const Reader& r, const YAML::Node& n, size_t i) {
  std::string w = "events[" + std::to_string(i) + "]";
  r.OnlyKeys(n, w, {"at", "system", "says", "warehouse", "sql", "sql_inline", "user", "metric", "person", "file", "openlineage"});
  Event e;
  e.line = n.Mark().line + 1;
  e.at = r.Time(n["at"], w + ".at");
  e.system = r.OptString(n["system"], w + ".system");
  e.says = r.OptString(n["says"], w + ".says");
  int acts = 0;
  if (n["warehouse"] || n["sql"] || n["sql_inline"] || n["user"]) {
    e.sql = r.Sql(n, w);
    ++acts;
  }
  if (n["metric"]) {
    const YAML::Node& m = n["metric"];
    r.OnlyKeys(m, w + ".metric", {"name", "value"});
    e.metric = MetricPointEvent{r.String(m["name"], w + ".metric.name"), r.Number(m["value"], w + ".metric.value")};
    ++acts;
  }
  if (n["person"]) {
    const YAML::Node& p = n["person"];
    r.OnlyKeys(p, w + ".person", {"as", "does", "proposal", "incident", "reason"});
    PersonEvent a;
    a.as = r.String(p["as"], w + ".person.as");
    a.does = r.String(p["does"], w + ".person.does");
    static const std::set<std::string> kDoes = {"approve", "deny", "acknowledge", "resolve", "fix"};
    if (!kDoes.count(a.does))
      r.Fail(p["does"], w + ".person.does", "expected approve, deny, acknowledge, resolve or fix, got '" + a.does + "'");
    a.proposal = r.OptString(p["proposal"], w + ".person.proposal");
    a.incident = r.OptString(p["incident"], w + ".person.incident");
    a.reason = r.OptString(p["reason"], w + ".person.reason");
    if ((a.does == "approve" || a.does == "deny") && a.proposal.empty())
      r.Fail(p, w + ".person.proposal", "is required when a person does " + a.does);
    e.person = a;
    // `fix` is a world change: its sql travels in the same event.
    if (a.does != "fix" || !e.sql) ++acts;
  }
  if (n["file"]) {
    const YAML::Node& f = n["file"];
    r.OnlyKeys(f, w + ".file", {"path", "from"});
    FileEvent fe;
    fe.path = r.String(f["path"], w + ".file.path");
    fs::path p(fe.path);
    if (p.is_absolute() || p.lexically_normal().string().rfind("..", 0) == 0)
      r.Fail(f["path"], w + ".file.path", "must be a path inside the workspace folder, got " + fe.path);
    fe.from = r.ExistingPath(f["from"], w + ".file.from", false);
    e.file = fe;
    ++acts;
  }
  if (n["openlineage"]) {
    e.openlineage = r.ExistingPath(n["openlineage"], w + ".openlineage", false);
    ++acts;
  }
  if (acts == 0 && e.says.empty())
    r.Fail(n, w, "does nothing: give says:, or one of sql, metric, person, file, openlineage");
  if (e.system.empty()) e.system = e.person ? "Owner" : e.sql ? "Warehouse" : e.metric ? "Metrics" : "World";
  return e;
}

Scenario ReadAll(const Reader& r, const YAML::Node& root) {
  if (!root.IsMap()) r.Fail(root, "(top level)", "expected a mapping with version, name, workspace, clock, ...");
  r.OnlyKeys(root, "", {"version", "name", "story", "workspace", "clock", "setup", "history", "platforms", "warehouses", "receivers", "events", "expect", "seed_timeline"});
  Scenario s;
  s.dir = r.dir();
  s.file = r.file();
  if (!root["version"]) r.Fail(root, "version", "is required (version: 1)");
  if (r.String(root["version"], "version") != "1") r.Fail(root["version"], "version", "only version 1 is known");
  s.name = r.String(root["name"], "name");
  static const std::regex kName("[a-z0-9-]+");
  if (!std::regex_match(s.name, kName)) r.Fail(root["name"], "name", "must match [a-z0-9-]+, got '" + s.name + "'");
  s.story = r.String(root["story"], "story");
  s.workspace = r.ExistingPath(root["workspace"], "workspace", true);
  s.workspace_line = root["workspace"].Mark().line + 1;
  std::error_code ec;
  if (!fs::is_regular_file(s.workspace / "dataworkers.yaml", ec))
    r.Fail(root["workspace"], "workspace", "no dataworkers.yaml in " + s.workspace.string());
  const YAML::Node clock = root["clock"];
  if (!clock) r.Fail(root, "clock", "is required (start: and end:)");
  r.OnlyKeys(clock, "clock", {"start", "end"});
  s.start = r.Time(clock["start"], "clock.start");
  s.end = r.Time(clock["end"], "clock.end");
  if (s.end <= s.start) r.Fail(clock["end"], "clock.end", "must be later than clock.start");

  if (const YAML::Node setup = root["setup"]) {
    if (!setup.IsSequence()) r.Fail(setup, "setup", "expected a list");
    for (size_t i = 0; i < setup.size(); ++i) {
      std::string w = "setup[" + std::to_string(i) + "]";
      r.OnlyKeys(setup[i], w, {"warehouse", "sql", "sql_inline", "user"});
      s.setup.push_back({r.Sql(setup[i], w), setup[i].Mark().line + 1});
    }
  }
  if (const YAML::Node history = root["history"]) {
    if (!history.IsSequence()) r.Fail(history, "history", "expected a list");
    for (size_t i = 0; i < history.size(); ++i) {
      std::string w = "history[" + std::to_string(i) + "]";
      r.OnlyKeys(history[i], w, {"metric", "csv"});
      s.history.push_back({r.String(history[i]["metric"], w + ".metric"),
                           r.ExistingPath(history[i]["csv"], w + ".csv", false), history[i].Mark().line + 1});
    }
  }
  if (const YAML::Node platforms = root["platforms"]) {
    if (!platforms.IsMap()) r.Fail(platforms, "platforms", "expected a mapping of workspace platform name to dw-sim script");
    for (auto it = platforms.begin(); it != platforms.end(); ++it) {
      std::string name = it->first.as<std::string>();
      s.platforms[name] = r.ExistingPath(it->second, "platforms." + name, false);
      s.platform_lines[name] = it->first.Mark().line + 1;
    }
  }
  if (const YAML::Node warehouses = root["warehouses"]) {
    if (!warehouses.IsMap()) r.Fail(warehouses, "warehouses", "expected a mapping of workspace warehouse name to dw-sim script");
    for (auto it = warehouses.begin(); it != warehouses.end(); ++it) {
      std::string name = it->first.as<std::string>();
      s.warehouses[name] = r.ExistingPath(it->second, "warehouses." + name, false);
      s.warehouse_lines[name] = it->first.Mark().line + 1;
    }
  }
  if (const YAML::Node receivers = root["receivers"]) {
    if (!receivers.IsMap())
      r.Fail(receivers, "receivers", "expected a mapping of workspace notify channel to dw-sim receiver script");
    static const std::set<std::string> kChannels = {"slack", "teams", "opsgenie", "pagerduty", "email"};
    for (auto it = receivers.begin(); it != receivers.end(); ++it) {
      std::string name = it->first.as<std::string>();
      std::string key = "receivers." + name;
      if (!kChannels.count(name))
        r.Fail(it->first, key, "not a notification channel; expected slack, teams, opsgenie, pagerduty or email");
      ReceiverSpec spec;
      spec.line = it->first.Mark().line + 1;
      if (it->second.IsMap()) spec.inline_script = YamlToJson(it->second);
      else if (it->second.IsScalar()) spec.script = r.ExistingPath(it->second, key, false);
      else r.Fail(it->second, key, "expected a dw-sim script: a file relative to the scenario folder, or a mapping ({} for the defaults)");
      s.receivers[name] = std::move(spec);
    }
  }
  if (const YAML::Node events = root["events"]) {
    if (!events.IsSequence()) r.Fail(events, "events", "expected a list");
    for (size_t i = 0; i < events.size(); ++i) {
      Event e = ReadEvent(r, events[i], i);
      std::string w = "events[" + std::to_string(i) + "].at";
      if (e.at < s.start || e.at > s.end)
        r.Fail(events[i]["at"], w, FormatRfc3339(e.at) + " is outside the clock (" + FormatRfc3339(s.start) +
                                       " to " + FormatRfc3339(s.end) + ")");
      if (!s.events.empty() && e.at < s.events.back().at)
        r.Fail(events[i]["at"], w, FormatRfc3339(e.at) + " is earlier than the event before it (" +
                                       FormatRfc3339(s.events.back().at) + "); events are in time order");
      s.events.push_back(std::move(e));
    }
  }
  if (const YAML::Node seed = root["seed_timeline"]) {
    r.OnlyKeys(seed, "seed_timeline", {"page", "rows"});
    s.seed_page = r.String(seed["page"], "seed_timeline.page");
    const YAML::Node rows = seed["rows"];
    if (!rows || !rows.IsSequence()) r.Fail(rows ? rows : seed, "seed_timeline.rows", "expected a list");
    for (size_t i = 0; i < rows.size(); ++i) {
      std::string w = "seed_timeline.rows[" + std::to_string(i) + "]";
      r.OnlyKeys(rows[i], w, {"at", "system", "what", "ours"});
      SeedRow row;
      row.line = rows[i].Mark().line + 1;
      row.at = r.Time(rows[i]["at"], w + ".at");
      row.system = r.String(rows[i]["system"], w + ".system");
      row.what = r.String(rows[i]["what"], w + ".what");
      row.ours = r.OptString(rows[i]["ours"], w + ".ours");
      s.seed_timeline.push_back(std::move(row));
    }
  }
  const YAML::Node expect = root["expect"];
  if (!expect || !expect.IsSequence() || expect.size() == 0)
    r.Fail(expect ? expect : root, "expect", "is required: a list of at least one expectation");
  for (size_t i = 0; i < expect.size(); ++i) {
    Expectation x = ReadExpectation(r, expect[i], i);
    // A message or an alert is read from a receiver, so the scenario must start one for it.
    const std::string channel = x.message ? x.message->channel : x.alert ? x.alert->channel : "";
    if (!channel.empty() && !s.receivers.count(channel)) {
      std::string names;
      for (const auto& [k, v] : s.receivers) names += (names.empty() ? "" : ", ") + k;
      r.Fail(expect[i].begin()->second["channel"],
             "expect[" + std::to_string(i) + "]." + expect[i].begin()->first.as<std::string>() + ".channel",
             "no receiver '" + channel + "' in the scenario (receivers: " + (names.empty() ? "none" : names) + ")");
    }
    if (x.incident && x.incident->opened_by && (*x.incident->opened_by < s.start || *x.incident->opened_by > s.end))
      r.Fail(expect[i].begin()->second["opened_by"], "expect[" + std::to_string(i) + "].incident.opened_by",
             "is outside the clock (" + FormatRfc3339(s.start) + " to " + FormatRfc3339(s.end) + ")");
    s.expect.push_back(std::move(x));
  }
  return s;
}

}  // namespace

Result<Scenario> ReadScenario(const std::filesystem::path& dir) {
  std::error_code ec;
  fs::path abs = fs::absolute(dir, ec).lexically_normal();
  if (ec) abs = dir;
  fs::path file = abs / "scenario.yaml";
  if (!fs::is_regular_file(file, ec))
    return InvalidArgument(file.string() + ":0: (file): no scenario.yaml in " + abs.string());
  Reader r(abs, file);
  try {
    std::ifstream in(file, std::ios::binary);
    if (!in) return InvalidArgument(file.string() + ":0: (file): cannot be read (check its permissions)");
    std::stringstream text;
    text << in.rdbuf();
    config::RequireUtf8Text(text.str());
    YAML::Node root = YAML::Load(text.str());
    if (!config::YamlWithinNodeBudget(root))
      return InvalidArgument(file.string() + ":0: (file): the scenario expands to more than " +
                             std::to_string(config::kMaxYamlNodes) +
                             " YAML nodes once its aliases (*name) are followed; write the repeated parts out");
    return ReadAll(r, root);
  } catch (const Malformed& m) {
    return InvalidArgument(m.message);
  } catch (const YAML::Exception& e) {
    return InvalidArgument(file.string() + ":" + std::to_string(e.mark.line + 1) + ": (syntax): " + e.msg);
  }
}

}  // namespace dw::replay
