#include "replay/families/story_kit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace dw::replay::families {

uint64_t Rng::Next() {
  uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

int Rng::Int(int lo, int hi) {
  return lo + static_cast<int>(Next() % static_cast<uint64_t>(hi - lo + 1));
}

double Rng::Real(double lo, double hi) { return lo + (hi - lo) * static_cast<double>(Next() >> 11) / 9007199254740992.0; }

TimePoint Minutes(TimePoint t, int64_t minutes) { return t + std::chrono::minutes(minutes); }

std::string Ts(TimePoint t) { return FormatRfc3339(t); }

std::string SqlTs(TimePoint t) {
  std::string s = FormatRfc3339(t);  // 2026-11-24T09:10:00Z
  if (!s.empty() && s.back() == 'Z') s.pop_back();
  return s;
}

namespace {

std::string Q(const std::string& s) { return Json(s).dump(); }  // a YAML double-quoted scalar

const std::vector<std::string> kTables = {"orders", "payments", "shipments", "invoices", "bookings", "signups"};
const std::vector<std::string> kOwners = {"ana", "lea", "maya", "omar", "jon", "ines"};
const std::vector<std::string> kWords = {"stock", "fx_rates", "campaigns", "carriers", "tariffs", "returns", "leads"};

std::string Hex(Rng& rng, int n) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < n; ++i) out += kDigits[rng.Next() % 16];
  return out;
}

}  // namespace

ShopWorld DrawWorld(Rng& rng, Draft& d) {
  ShopWorld w;
  w.table = rng.Pick(kTables);
  w.asset = "table://main/" + w.table;
  w.domain = w.table;
  w.owner = rng.Pick(kOwners) + "@example.com";
  w.depth = rng.Int(1, 3);
  w.fanout = rng.Int(1, 4);
  d.domains[w.domain] = w.owner;
  d.asset_yaml.push_back("  - id: " + w.asset + "\n    domain: " + w.domain + "\n    owner: " + w.owner + "\n");
  const std::vector<std::string> models = {"dbt://shop/stg_" + w.table, "dbt://shop/int_" + w.table + "_daily",
                                           "dbt://shop/fct_" + w.table};
  std::string above = w.asset;
  for (int i = 0; i < w.depth; ++i) {
    d.asset_yaml.push_back("  - id: " + models[i] + "\n    domain: " + w.domain + "\n    reads: [" + above + "]\n");
    w.lineage.push_back(models[i]);
    above = models[i];
  }
  const std::vector<std::string> consumers = {"dashboard://superset/" + w.table, "sync://finance/" + w.table + "-export",
                                              "dashboard://metabase/" + w.table + "-kpis", "sync://crm/" + w.table + "-to-hubspot"};
  for (int i = 0; i < w.fanout; ++i) {
    std::string extra = consumers[i].rfind("sync://", 0) == 0 ? "    schedule: \"0 18 * * *\"\n" : "";
    d.asset_yaml.push_back("  - id: " + consumers[i] + "\n    reads: [" + above + "]\n" + extra);
    w.lineage.push_back(consumers[i]);
  }
  d.story.shape = "table " + w.table + ", lineage depth " + std::to_string(w.depth) + " fan-out " + std::to_string(w.fanout);
  return w;
}

std::string CreateTableSql(const ShopWorld& w) {
  return "DROP TABLE IF EXISTS " + w.table + ";\nCREATE TABLE " + w.table +
         " (id TEXT NOT NULL, part INTEGER NOT NULL, customer_id INTEGER, amount REAL NOT NULL, landed_at TEXT NOT NULL);\n";
}

std::string ArrivalsSql(const ShopWorld& w, TimePoint from, int seconds, int count, int part, const std::string& prefix,
                        double amount_scale, bool null_customer) {
  if (count <= 0) return "";
  char scale[32];
  std::snprintf(scale, sizeof scale, "%.2f", amount_scale);
  return "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < " + std::to_string(count - 1) +
         ")\nINSERT INTO " + w.table + " SELECT printf('" + prefix + "-%06d', i), " + std::to_string(part) + ", " +
         (null_customer ? std::string("NULL") : std::string("1 + (i * 7919) % 5000")) + ", (5 + (i * 37) % 495) * " + scale +
         ", strftime('%Y-%m-%dT%H:%M:%fZ', '" + SqlTs(from) + "', printf('+%d seconds', i * " + std::to_string(seconds) +
         " / " + std::to_string(count) + ")) FROM n;\n";
}

std::string LoaderSource(const std::string& ns, const std::string& id, const std::string& select, const std::string& cron) {
  return "id: " + id + "\nnamespace: " + ns +
         "\ntasks:\n  - id: load\n    type: io.kestra.plugin.jdbc.sqlite.Query\n    sql: " + select +
         "\ntriggers:\n  - id: schedule\n    type: io.kestra.plugin.core.trigger.Schedule\n    cron: \"" + cron + "\"\n";
}

namespace {

Json& Array(Json& script, const char* key) {
  if (!script.contains(key)) script[key] = Json::array();
  return script[key];
}

Json Execution(const std::string& id, const std::string& ns, const std::string& flow, int revision, TimePoint at,
               int rows, const std::string& log) {
  return {{"id", id}, {"namespace", ns}, {"flowId", flow}, {"flowRevision", revision}, {"state", "SUCCESS"},
          {"start", Ts(at)}, {"end", Ts(at + std::chrono::seconds(4))},
          {"histories", Json::array({{{"state", "CREATED"}, {"at", Ts(at)}}, {{"state", "RUNNING"}, {"at", Ts(at)}},
                                     {{"state", "SUCCESS"}, {"at", Ts(at + std::chrono::seconds(4))}}})},
          {"taskRuns", Json::array({{{"taskId", "load"}, {"outputs", {{"rows", rows}}}}})},
          {"logs", Json::array({{{"at", Ts(at + std::chrono::seconds(3))}, {"taskId", "load"}, {"message", log}}})}};
}

}  // namespace

void AddDistractors(Rng& rng, Draft& d, const ShopWorld& w, TimePoint bad_minute) {
  int n = rng.Int(0, 3);
  std::vector<std::string> used;
  for (int i = 0; i < n; ++i) {
    int kind = rng.Int(0, 2);
    std::string word = rng.Pick(kWords);
    if (std::find(used.begin(), used.end(), word) != used.end()) continue;  // one distractor per word
    used.push_back(word);
    if (kind == 0) {
      // A routine run of another flow at the very minute of the first bad write, as every hour.
      std::string ns = "ops", flow = "refresh_" + word, asset = "kestra://kestra/ops." + flow;
      TimePoint run = std::chrono::time_point_cast<std::chrono::minutes>(bad_minute);
      int mm = static_cast<int>((ToUnixMillis(run) / 60000) % 60);
      Array(d.kestra, "flows").push_back({{"namespace", ns}, {"id", flow}, {"revision", 2},
                                          {"source", LoaderSource(ns, flow, "INSERT INTO " + word + "_snapshot SELECT * FROM staging." + word, std::to_string(mm) + " * * * *")},
                                          {"triggers", Json::array({{{"id", "schedule"}, {"disabled", false}}})}});
      for (int k = 4; k >= 0; --k) {
        TimePoint at = Minutes(run, -60 * k);
        Array(d.kestra, "executions").push_back(Execution("rt" + Hex(rng, 14), ns, flow, 2, at, 40 + rng.Int(0, 20),
                                                          "Inserted rows into " + word + "_snapshot"));
      }
      d.asset_yaml.push_back("  - id: " + asset + "\n    writes: [table://main/" + word + "_snapshot]\n    schedule: \"" +
                             std::to_string(mm) + " * * * *\"\n");
      d.events.push_back({run, "Kestra", "ops." + flow + " runs as scheduled (every hour at :" + (mm < 10 ? "0" : "") + std::to_string(mm) + ")", "", "", ""});
      d.story.distractors.push_back("a routine hourly run of " + asset + " at " + Ts(run) + " (the minute of the first bad write)");
    } else if (kind == 1) {
      // An unrelated revision of another flow, somewhere in the story.
      std::string ns = "ops", flow = word + "_sync", asset = "kestra://kestra/ops." + flow;
      TimePoint at = Minutes(d.start, rng.Int(5, static_cast<int>((ToUnixMillis(d.end) - ToUnixMillis(d.start)) / 60000) - 20));
      std::string select = "INSERT INTO " + word + "_sync SELECT * FROM staging." + word;
      Array(d.kestra, "flows").push_back({{"namespace", ns}, {"id", flow}, {"revision", 3},
                                          {"source", LoaderSource(ns, flow, select, "0 3 * * *")},
                                          {"revisions", Json::array({{{"revision", 4}, {"at", Ts(at)},
                                                                      {"source", LoaderSource(ns, flow, select + " WHERE active", "0 3 * * *")}}})},
                                          {"triggers", Json::array({{{"id", "schedule"}, {"disabled", false}}})}});
      d.asset_yaml.push_back("  - id: " + asset + "\n    writes: [table://main/" + word + "_sync]\n");
      d.events.push_back({at, "Kestra", "Revision 4 of ops." + flow + " is saved (an unrelated filter)", "", "", ""});
      d.story.distractors.push_back("an unrelated revision of " + asset + " at " + Ts(at));
    } else {
      // A deploy of another Flink job.
      std::string name = word + "-enricher", asset = "flink://flink/" + name;
      TimePoint at = Minutes(d.start, rng.Int(5, static_cast<int>((ToUnixMillis(d.end) - ToUnixMillis(d.start)) / 60000) - 20));
      Json vertices = Json::array({{{"id", Hex(rng, 32)}, {"name", "Source: " + word}, {"parallelism", 2}},
                                   {{"id", Hex(rng, 32)}, {"name", "Sink: " + word + "-enriched"}, {"parallelism", 2}}});
      Array(d.flink, "jobs").push_back({{"jid", Hex(rng, 32)}, {"name", name}, {"state", "FINISHED"},
                                        {"start_time", Ts(Minutes(d.start, -7 * 24 * 60))}, {"end_time", Ts(Minutes(at, -1))},
                                        {"vertices", vertices}, {"checkpoints", {{"completed", 900}, {"failed", 0}}}});
      Array(d.flink, "jobs").push_back({{"jid", Hex(rng, 32)}, {"name", name}, {"state", "RUNNING"}, {"start_time", Ts(at)},
                                        {"vertices", vertices}, {"checkpoints", {{"completed", 0}, {"failed", 0}}}});
      d.asset_yaml.push_back("  - id: " + asset + "\n    writes: [kafka://prod/" + word + "-enriched]\n");
      d.events.push_back({at, "Flink", name + " is redeployed (a new release of another job)", "", "", ""});
      d.story.distractors.push_back("a deploy of " + asset + " at " + Ts(at));
    }
  }
  (void)w;
}

Result<Story> Render(Draft d) {
  Story& s = d.story;
  auto broke = [&](const std::string& constraint) {
    return InvalidArgument("family " + s.family + ", seed " + std::to_string(s.seed) + ": the story breaks a constraint: " + constraint);
  };
  std::stable_sort(d.events.begin(), d.events.end(), [](const DraftEvent& a, const DraftEvent& b) { return a.at < b.at; });
  if (!(d.start < d.end)) return broke("clock.end must be after clock.start");
  for (const auto& e : d.events)
    if (e.at < d.start || e.at > d.end)
      return broke("the event \"" + e.says + "\" at " + Ts(e.at) + " falls outside the clock (" + Ts(d.start) + " to " + Ts(d.end) + ")");
  if (!s.benign) {
    if (!s.first_bad_write) return broke("an incident story needs the time of its first bad write");
    if (*s.first_bad_write < d.start || Minutes(*s.first_bad_write, 60) > d.end)
      return broke("the first bad write (" + Ts(*s.first_bad_write) + ") must leave at least 60 minutes of clock before " + Ts(d.end));
    for (const auto& x : s.distractors)
      if (x.find(s.cause.asset + " ") != std::string::npos)
        return broke("a distractor (" + x + ") is the planted cause itself");
  }
  for (const auto& [metric, csv] : d.history) {
    size_t last = csv.rfind('\n', csv.size() - 2);
    std::string row = csv.substr(last + 1, 20);
    if (row >= Ts(d.start).substr(0, 20)) return broke("the history of " + metric + " reaches " + row + ", not before clock.start");
  }

  std::string platforms;
  std::string yaml_platforms;
  auto platform = [&](const char* name, const Json& script, const char* config) {
    if (script.empty()) return;
    s.files[std::string("sim/") + name + ".json"] = script.dump(1) + "\n";
    platforms += std::string("  ") + name + ": sim/" + name + ".json\n";
    yaml_platforms += std::string("  ") + name + ": " + config + "\n";
    s.shape += std::string(", ") + name;
  };
  if (!d.kestra.empty()) d.kestra["tenant"] = "main";
  platform("kestra", d.kestra, "{type: kestra, url: \"http://127.0.0.1:18080\", tenant: main}");
  platform("connect", d.connect, "{type: kafka-connect, url: \"http://127.0.0.1:18083\"}");
  platform("flink", d.flink, "{type: flink, url: \"http://127.0.0.1:18081\"}");

  std::string ws = "# " + d.world_note + "\n# Generated by dw replay --family " + s.family + " --seed " + std::to_string(s.seed) +
                   ".\nversion: 1\nname: " + s.name + "\ntimezone: UTC\n\nwarehouses:\n  main: {type: sqlite, path: warehouse.db}\n";
  if (!yaml_platforms.empty()) ws += "\nplatforms:\n" + yaml_platforms;
  if (!d.domains.empty()) ws += "\ndomains:\n";
  for (const auto& [domain, owner] : d.domains) ws += "  " + domain + ":\n    owners: [" + owner + "]\n";
  ws += "\nassets:\n";
  for (const auto& a : d.asset_yaml) ws += a;
  if (!d.lineage_yaml.empty()) ws += "\n" + d.lineage_yaml;
  if (!d.check_yaml.empty()) {
    ws += "\nchecks:\n";
    for (const auto& c : d.check_yaml) ws += c;
  }
  if (!d.monitor_yaml.empty()) {
    ws += "\nmonitors:\n";
    for (const auto& m : d.monitor_yaml) ws += m;
  }
  s.files["workspace/dataworkers.yaml"] = ws;
  for (const auto& [path, text] : d.workspace_files) s.files["workspace/" + path] = text;

  std::string y = "version: 1\nname: " + s.name + "\nstory: " + Q(s.family + " (seed " + std::to_string(s.seed) + "): " + d.world_note) +
                  "\nworkspace: workspace\nclock:\n  start: " + Ts(d.start) + "\n  end:   " + Ts(d.end) + "\n";
  if (!d.setup_sql.empty()) {
    s.files["sql/setup.sql"] = d.setup_sql;
    y += "setup:\n  - warehouse: main\n    sql: sql/setup.sql\n";
  }
  if (!d.history.empty()) {
    y += "history:\n";
    for (const auto& [metric, csv] : d.history) {
      s.files["history/" + metric + ".csv"] = csv;
      y += "  - metric: " + metric + "\n    csv: history/" + metric + ".csv\n";
    }
  }
  if (!platforms.empty()) y += "platforms:\n" + platforms;
  if (!d.events.empty()) y += "events:\n";
  for (size_t i = 0; i < d.events.size(); ++i) {
    const DraftEvent& e = d.events[i];
    y += "  - at: " + Ts(e.at) + "\n    system: " + Q(e.system) + "\n    says: " + Q(e.says) + "\n";
    char num[24];
    std::snprintf(num, sizeof num, "%03zu", i);
    if (!e.sql.empty()) {
      std::string file = std::string("sql/") + num + ".sql";
      s.files[file] = e.sql;
      y += "    warehouse: main\n    sql: " + file + "\n";
    }
    if (!e.file_path.empty()) {
      std::string from = std::string("files/") + num + "-" + e.file_path.substr(e.file_path.rfind('/') + 1);
      s.files[from] = e.file_from;
      y += "    file: {path: " + e.file_path + ", from: " + from + "}\n";
    }
  }
  y += "expect:\n";
  for (const auto& x : d.expect_yaml) y += x;
  s.files["scenario.yaml"] = y;

  Json kinds = Json::array();
  for (const auto& k : s.cause.kinds) kinds.push_back(k);
  Json family = {{"family", s.family}, {"seed", s.seed}, {"benign", s.benign}, {"shape", s.shape},
                 {"distractors", s.distractors}};
  if (!s.benign) {
    family["damaged_asset"] = s.damaged_asset;
    family["cause"] = {{"kinds", kinds}, {"asset", s.cause.asset}};
    family["first_bad_write"] = Ts(*s.first_bad_write);
  }
  s.files["family.json"] = family.dump(1) + "\n";
  return std::move(d.story);
}

}  // namespace dw::replay::families
