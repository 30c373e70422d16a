// The printed timeline (the seed pages' table) and the JSON form of a replay.
#include <algorithm>

#include "replay/replay.h"

namespace dw::replay {
namespace {

// "HH:MM", or "Tue 14:00" for a row on a later day than the first row.
std::string RowTime(TimePoint t, TimePoint first) {
  std::string iso = FormatRfc3339(t);  // 2026-11-24T14:02:00.000Z
  if (iso.substr(0, 10) == FormatRfc3339(first).substr(0, 10)) return iso.substr(11, 5);
  return iso.substr(5, 5) + " " + iso.substr(11, 5);
}

std::string Cell(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::replace(s.begin(), s.end(), '|', '/');
  return s;
}

}  // namespace

bool ReplayReport::passed() const {
  return !verdicts.empty() &&
         std::all_of(verdicts.begin(), verdicts.end(), [](const Verdict& v) { return v.ok; });
}

std::string ReplayReport::ToText() const {
  std::string out = "Scenario " + scenario + "\n\n| Time | System | What happens |\n|---|---|---|\n";
  for (const auto& r : rows)
    out += "| " + RowTime(r.at, rows.front().at) + " | " + Cell(r.system) + " | " + Cell(r.what) + " |\n";
  if (!seed.empty()) {
    out += "\nThe seed page beside this replay (Seed: the time " + seed_page +
           " tells; Ours: when this replay did the same, - when it has no counterpart)\n\n"
           "| Seed | Ours | System | What happens (the seed page) |\n|---|---|---|---|\n";
    for (const auto& c : seed)
      out += "| " + RowTime(c.seed.at, rows.empty() ? c.seed.at : rows.front().at) + " | " +
             (c.ours ? RowTime(*c.ours, rows.empty() ? *c.ours : rows.front().at) : std::string("-")) + " | " +
             Cell(c.seed.system) + " | " + Cell(c.seed.what) + " |\n";
  }
  if (!errors.empty()) {
    out += "\nWhile replaying:\n";
    for (const auto& e : errors) out += "  " + e + "\n";
  }
  out += "\n";
  for (const auto& v : verdicts)
    out += (v.ok ? "ok      " : "FAILED  ") + v.expectation + " (scenario.yaml:" + std::to_string(v.line) + ")" +
           (v.ok ? ": " + v.detail.substr(4) : "\n        " + v.detail.substr(8)) + "\n";
  size_t failed = static_cast<size_t>(std::count_if(verdicts.begin(), verdicts.end(), [](const Verdict& v) { return !v.ok; }));
  out += "\n" + std::to_string(verdicts.size() - failed) + " of " + std::to_string(verdicts.size()) +
         " expectation(s) hold; replayed in " + std::to_string(wall_ms) + " ms\n";
  return out;
}

Json ReplayReport::ToJson() const {
  Json rows_json = Json::array();
  for (const auto& r : rows)
    rows_json.push_back({{"at", FormatRfc3339(r.at)}, {"system", r.system}, {"what", r.what},
                         {"by", r.product ? "data_workers" : "world"}});
  Json verdicts_json = Json::array();
  for (const auto& v : verdicts) {
    Json j = {{"expectation", v.expectation}, {"line", v.line}, {"ok", v.ok}, {"detail", v.detail}};
    if (v.opened_at) j["opened_at"] = FormatRfc3339(*v.opened_at);
    if (v.cause_rank >= 0) j["cause_rank"] = v.cause_rank;
    verdicts_json.push_back(std::move(j));
  }
  Json seed_json = Json::array();
  for (const auto& c : seed)
    seed_json.push_back({{"seed_at", FormatRfc3339(c.seed.at)}, {"system", c.seed.system}, {"what", c.seed.what},
                         {"ours_at", c.ours ? Json(FormatRfc3339(*c.ours)) : Json()}, {"ours_row", c.ours_row}});
  return Json{{"scenario", scenario}, {"passed", passed()}, {"rows", rows_json}, {"seed", seed_json}, {"verdicts", verdicts_json},
              {"errors", errors}, {"log", log}, {"wall_ms", wall_ms}};
}

}  // namespace dw::replay
