// What every scenario family builds its stories from: a seeded random source, the shared shop
// world (a table landing in a SQLite warehouse, its lineage below it drawn in depth and fan-out),
// the distractor changes that happen around the planted cause, and a draft that renders the
// variant as a scenario folder in the SCENARIOS.md format. A family only says what it plants.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/json.h"
#include "replay/families/family.h"

namespace dw::replay::families {

// Deterministic on every platform (splitmix64; no std distribution, whose results differ between
// standard libraries), so a seed names the same story everywhere.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next();
  // Uniform in [lo, hi]. REQUIRES: lo <= hi.
  int Int(int lo, int hi);
  double Real(double lo, double hi);
  bool Chance(double p) { return Real(0, 1) < p; }
  template <typename T>
  const T& Pick(const std::vector<T>& from) { return from[Int(0, static_cast<int>(from.size()) - 1)]; }

 private:
  uint64_t state_;
};

TimePoint Minutes(TimePoint t, int64_t minutes);
// "2026-11-24T09:10:00Z" (scenario.yaml, dw-sim scripts).
std::string Ts(TimePoint t);
// "2026-11-24T09:10:00" (SQLite's strftime input, as the rows' landed_at is built).
std::string SqlTs(TimePoint t);

// One row of the story's events: a world event with its words and, optionally, a write.
struct DraftEvent {
  TimePoint at;
  std::string system, says;
  std::string sql;        // a write to warehouse main at `at` ("" when none)
  std::string file_path;  // a workspace file replaced at `at` (relative to the workspace)
  std::string file_from;  // its content
};

// The table every family damages or leaves alone, and the world around it.
struct ShopWorld {
  std::string table;   // orders, payments, ...
  std::string asset;   // table://main/<table>
  std::string domain, owner;
  int depth = 1, fanout = 1;          // the lineage drawn below the table
  std::vector<std::string> lineage;   // the downstream asset ids, in depth order
};

// The variant being written: a family fills it, Render() turns it into the folder's files.
struct Draft {
  Story story;
  TimePoint start, end;
  std::string world_note;                  // dataworkers.yaml's opening comment
  std::map<std::string, std::string> domains;  // domain -> its owner
  std::vector<std::string> asset_yaml;     // entries under assets:, each "  - id: ...\n..." text
  std::vector<std::string> check_yaml;     // entries under checks:
  std::vector<std::string> monitor_yaml;   // entries under monitors:
  std::string lineage_yaml;                // the lineage: block (e.g. a dbt manifest), optional
  std::map<std::string, std::string> workspace_files;  // relative to workspace/ (a manifest)
  std::string setup_sql;
  std::map<std::string, std::string> history;  // metric -> csv text ("timestamp,value\n...")
  std::vector<DraftEvent> events;
  Json kestra = Json::object();   // dw-sim scripts; empty objects are left out
  Json connect = Json::object();
  Json flink = Json::object();
  std::vector<std::string> expect_yaml;  // entries under expect:
};

// Draws the table, its owner and the lineage below it (depth 1-3 models, 1-4 consumers of the
// deepest), declares them as assets of the draft, and returns the world.
ShopWorld DrawWorld(Rng& rng, Draft& d);

// The CREATE TABLE of the world's table (id is text and not a key, so a duplicate can land).
std::string CreateTableSql(const ShopWorld& w);

// An INSERT of `count` rows landed evenly over the `seconds` after `from`, ids `prefix`-000000..,
// part `part`, amounts in euros times `amount_scale`, customer ids NULL when `null_customer`.
std::string ArrivalsSql(const ShopWorld& w, TimePoint from, int seconds, int count, int part, const std::string& prefix,
                        double amount_scale = 1, bool null_customer = false);

// Kestra flow source text of a loader (the task's SQL is shown as the flow's source, so a
// revision's diff says what changed).
std::string LoaderSource(const std::string& ns, const std::string& id, const std::string& select, const std::string& cron);

// Adds 0-3 distractor changes drawn from: a routine scheduled run of another Kestra flow at
// `bad_minute` (the same minute as the first bad write), an unrelated revision of another flow,
// a deploy of another Flink job; each one described in story.distractors and on the timeline.
// REQUIRES: draft.start < bad_minute < draft.end.
void AddDistractors(Rng& rng, Draft& d, const ShopWorld& w, TimePoint bad_minute);

// The scenario folder's files (scenario.yaml, workspace/, sim/, sql/, history/, family.json).
// Fails naming the story constraint that broke (an event outside the clock, a first bad write
// that leaves the product no time to see it, a distractor that is the cause itself).
Result<Story> Render(Draft d);

}  // namespace dw::replay::families
