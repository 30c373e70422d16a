// Incident: a replay of a Kestra load appends the same rows again (every run green).
#include "replay/families/families_list.h"
#include "replay/families/loaders.h"

namespace dw::replay::families {

Result<Story> KestraReplayDuplicates(uint64_t seed) {
  Rng rng(seed);
  Draft d = Begin("kestra-replay-duplicates", seed, false, rng, 5);
  ShopWorld w = DrawWorld(rng, d);
  d.world_note = "A Kestra flow appends yesterday's " + w.table + " once a day; someone replays a run and it appends them again.";
  std::string ns = w.domain, flow = "load_daily", asset = "kestra://kestra/" + ns + "." + flow;
  int rows = rng.Int(400, 3000);
  TimePoint load = Minutes(d.start, -rng.Int(60, 240));  // this morning's scheduled run
  std::string cron = "0 " + std::to_string(rng.Int(1, 4)) + " * * *";
  d.asset_yaml.push_back("  - id: " + asset + "\n    domain: " + w.domain + "\n    owner: " + w.owner + "\n    writes: [" + w.asset +
                         "]\n    notes: Appends yesterday's rows (INSERT, not MERGE).\n");
  std::string select = "INSERT INTO " + w.table + " SELECT * FROM staging." + w.table + " WHERE day = '{{ trigger.date | dateAdd(-1, 'DAYS') }}'";
  d.kestra["flows"] = Json::array({{{"namespace", ns}, {"id", flow}, {"revision", 4}, {"source", LoaderSource(ns, flow, select, cron)},
                                    {"triggers", Json::array({{{"id", "schedule"}, {"disabled", false}}})}}});
  std::string original = "ld" + std::to_string(seed % 100000) + "Morning";
  d.setup_sql = CreateTableSql(w) + ArrivalsSql(w, load, 4, rows, 0, w.table + "-day");
  TimePoint replay = Minutes(d.start, rng.Int(20, 5 * 60 - 90));
  std::string replay_id = "rp" + std::to_string(seed % 100000) + "Replay";
  auto exec = [&](const std::string& id, TimePoint at, bool is_replay) {
    Json e = {{"id", id}, {"namespace", ns}, {"flowId", flow}, {"flowRevision", 4}, {"state", "SUCCESS"},
              {"start", Ts(at)}, {"end", Ts(at + std::chrono::seconds(6))},
              {"taskRuns", Json::array({{{"taskId", "load"}, {"outputs", {{"rows", rows}}}}})},
              {"logs", Json::array({{{"at", Ts(at + std::chrono::seconds(5))}, {"taskId", "load"},
                                     {"message", "Inserted " + std::to_string(rows) + " rows into " + w.table}}})}};
    if (is_replay) {
      e["originalId"] = original;
      e["histories"] = Json::array({{{"state", "CREATED"}, {"at", Ts(at)}}, {{"state", "RESTARTED"}, {"at", Ts(at)}},
                                    {{"state", "RUNNING"}, {"at", Ts(at)}}, {{"state", "SUCCESS"}, {"at", Ts(at + std::chrono::seconds(6))}}});
      e["logs"].insert(e["logs"].begin(), Json{{"at", Ts(at)}, {"message", "Replay of execution " + original + " from task load"}});
    }
    return e;
  };
  d.kestra["executions"] = Json::array();
  for (int k = 3; k >= 1; --k) d.kestra["executions"].push_back(exec("ld" + std::to_string(seed % 100000) + "Past" + std::to_string(k), Minutes(load, -24 * 60 * k), false));
  d.kestra["executions"].push_back(exec(original, load, false));
  d.kestra["executions"].push_back(exec(replay_id, replay, true));
  d.events.push_back({replay, "Kestra", "Execution " + original + " of " + ns + "." + flow + " is replayed from the UI", "", "", ""});
  TimePoint lands = replay + std::chrono::seconds(6);
  d.events.push_back({lands, "Kestra + warehouse", "The replay appends the same " + std::to_string(rows) + " rows again; SUCCESS",
                      ArrivalsSql(w, lands - std::chrono::seconds(1), 1, rows, 0, w.table + "-day"), "", ""});
  d.check_yaml.push_back("  - table: main." + w.table + "\n    not_null: [id, amount]\n    unique: [id]\n");
  d.story.damaged_asset = w.asset;
  d.story.cause = {{"execution_replay"}, asset};
  d.story.first_bad_write = lands;
  d.story.shape += ", " + std::to_string(rows) + " rows";
  AddDistractors(rng, d, w, lands);
  ExpectIncident(d);
  return Render(std::move(d));
}

}  // namespace dw::replay::families
