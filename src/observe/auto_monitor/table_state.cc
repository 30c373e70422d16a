#include "observe/auto_monitor/table_state.h"

#include "base/json.h"

namespace dw::observe::auto_monitor {
namespace {

Json OptInt(const std::optional<int64_t>& v) { return v ? Json(*v) : Json(); }
std::optional<int64_t> ReadOptInt(const Json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
}

}  // namespace

std::string EncodeTableState(const TableState& s) {
  Json j = {{"v", 1},
            {"first_seen", s.first_seen_ms},
            {"last_pass", s.last_pass_ms},
            {"view", s.view},
            {"gone", s.gone},
            {"token", s.token},
            {"row_count", OptInt(s.row_count)},
            {"exact", s.row_count_exact},
            {"ins", OptInt(s.inserted)},
            {"upd", OptInt(s.updated)},
            {"del", OptInt(s.deleted)},
            {"changes", s.changes},
            {"rows_last_load", OptInt(s.rows_last_load)},
            {"lateness", s.lateness ? Json(*s.lateness) : Json()},
            {"verdict", s.verdict},
            {"sentence", s.sentence},
            {"verdict_at", s.verdict_at_ms}};
  if (s.columns) {
    Json cols = Json::array();
    for (const auto& [name, type] : *s.columns) cols.push_back({name, type});
    j["columns"] = std::move(cols);
  }
  return j.dump();
}

Result<TableState> DecodeTableState(const std::string& text, const std::string& asset_id) {
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || j.value("v", 0) != 1)
    return DataLoss("the automatic monitors' state of " + asset_id + " is unreadable (not a version 1 state)");
  TableState s;
  try {
    s.first_seen_ms = j.value("first_seen", int64_t{0});
    s.last_pass_ms = j.value("last_pass", int64_t{0});
    s.view = j.value("view", false);
    s.gone = j.value("gone", false);
    s.token = j.value("token", std::string());
    s.row_count = ReadOptInt(j, "row_count");
    s.row_count_exact = j.value("exact", false);
    s.inserted = ReadOptInt(j, "ins");
    s.updated = ReadOptInt(j, "upd");
    s.deleted = ReadOptInt(j, "del");
    for (const Json& c : j.value("changes", Json::array()))
      if (c.is_number_integer()) s.changes.push_back(c.get<int64_t>());
    s.rows_last_load = ReadOptInt(j, "rows_last_load");
    if (j.contains("lateness") && j["lateness"].is_number()) s.lateness = j["lateness"].get<double>();
    s.verdict = j.value("verdict", std::string());
    s.sentence = j.value("sentence", std::string());
    s.verdict_at_ms = j.value("verdict_at", int64_t{0});
    if (j.contains("columns") && j["columns"].is_array()) {
      s.columns.emplace();
      for (const Json& c : j["columns"])
        if (c.is_array() && c.size() == 2 && c[0].is_string() && c[1].is_string())
          s.columns->emplace_back(c[0].get<std::string>(), c[1].get<std::string>());
    }
  } catch (const Json::exception& e) {
    return DataLoss("the automatic monitors' state of " + asset_id + " is unreadable: " + e.what());
  }
  return s;
}

}  // namespace dw::observe::auto_monitor
