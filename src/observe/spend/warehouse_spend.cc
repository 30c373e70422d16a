#include "observe/spend/warehouse_spend.h"

#include <algorithm>
#include <map>

#include "base/redaction.h"
#include "warehouse/backends.h"

namespace dw::observe::spend {
namespace {

constexpr size_t kMaxQueries = 50000;

// A tag or labels value as key -> value: a JSON object ({"dw": "checks"}), BigQuery's labels as
// [{"key", "value"}], or plain text (no keys).
std::map<std::string, std::string> TagKeys(const std::string& tag) {
  std::map<std::string, std::string> out;
  Json j = Json::parse(tag, nullptr, /*allow_exceptions=*/false);
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) out[k] = v.is_string() ? v.get<std::string>() : v.dump();
  } else if (j.is_array()) {
    for (const Json& l : j)
      if (l.is_object() && l.contains("key") && l["key"].is_string())
        out[l["key"].get<std::string>()] = l.contains("value") && l["value"].is_string() ? l["value"].get<std::string>() : "";
  }
  return out;
}

std::string LabelOf(const warehouse::QuerySpend& q) {
  std::map<std::string, std::string> keys = TagKeys(q.tag);
  if (keys.empty()) return q.tag.empty() ? "(no tag)" : q.tag;
  std::string out;
  for (const auto& [k, v] : keys) out += (out.empty() ? "" : ",") + k + "=" + v;
  return out;
}

std::string KeyOf(const warehouse::QuerySpend& q, const std::string& by) {
  if (by == "user") return q.user.empty() ? "(unknown)" : q.user;
  if (by == "label") return LabelOf(q);
  if (by == "dw") return RanByUs(q) ? "data-workers" : "others";
  const std::string node = DbtNodeOf(q);
  return node.empty() ? "(not dbt)" : node;
}

void Add(SpendGroup& g, const warehouse::QuerySpend& q) {
  ++g.queries;
  g.credits += q.credits;
  g.bytes_billed += q.bytes_billed;
  g.slot_ms += q.slot_ms;
}

Json GroupJson(const SpendGroup& g, const std::string& unit) {
  Json j = {{"key", g.key}, {"queries", g.queries}};
  if (unit == "credits") j["credits"] = g.credits;
  else j["bytes_billed"] = g.bytes_billed, j["slot_ms"] = g.slot_ms;
  return j;
}

}  // namespace

Json SpendReportSchema() {
  const Json group = Json::parse(R"({
    "type": "object",
    "required": ["key", "queries"],
    "properties": {"key": {"type": "string"}, "queries": {"type": "integer"}, "credits": {"type": "number"},
                   "bytes_billed": {"type": "integer"}, "slot_ms": {"type": "integer"}}
  })");
  Json warehouse = Json::parse(R"({
    "type": "object",
    "required": ["warehouse", "type", "unit", "source", "notes"],
    "properties": {
      "warehouse": {"type": "string"}, "type": {"type": "string"}, "unit": {"type": "string"},
      "source": {"type": "string"}, "notes": {"type": "array", "items": {"type": "string"}},
      "error": {"type": "string"}
    }
  })");
  warehouse["properties"]["total"] = group;
  warehouse["properties"]["data_workers"] = group;
  warehouse["properties"]["groups"] = {{"type", "array"}, {"items", group}};
  Json out = Json::parse(R"({
    "type": "object",
    "required": ["since", "until", "by", "warehouses"],
    "properties": {
      "since": {"type": "string"}, "until": {"type": "string"},
      "by": {"type": "string", "enum": ["model", "user", "label", "dw"]}
    }
  })");
  out["properties"]["warehouses"] = {{"type", "array"}, {"items", warehouse}};
  return out;
}

bool IsSpendDimension(const std::string& by) { return by == "model" || by == "user" || by == "label" || by == "dw"; }

std::string DbtNodeOf(const warehouse::QuerySpend& q) {
  const size_t start = q.query_text.find_first_not_of(" \t\r\n");
  if (start != std::string::npos && q.query_text.compare(start, 2, "/*") == 0) {
    const size_t end = q.query_text.find("*/", start + 2);
    if (end != std::string::npos) {
      Json comment = Json::parse(q.query_text.substr(start + 2, end - start - 2), nullptr, /*allow_exceptions=*/false);
      if (comment.is_object() && comment.contains("node_id") && comment["node_id"].is_string())
        return comment["node_id"].get<std::string>();
    }
  }
  std::map<std::string, std::string> keys = TagKeys(q.tag);
  for (const char* key : {"node_id", "dbt_node_id", "dbt_model"})
    if (auto it = keys.find(key); it != keys.end() && !it->second.empty()) return it->second;
  return "";
}

bool RanByUs(const warehouse::QuerySpend& q) { return TagKeys(q.tag).count("dw") > 0; }

Json SpendReport::ToJson() const {
  Json out = {{"since", FormatRfc3339(since)}, {"until", FormatRfc3339(until)}, {"by", by}, {"warehouses", Json::array()}};
  for (const WarehouseSpendReport& w : warehouses) {
    Json j = {{"warehouse", w.warehouse}, {"type", w.type}, {"unit", w.unit}, {"source", w.source}, {"notes", w.notes}};
    if (!w.error.empty()) {
      j["error"] = w.error;
    } else {
      j["total"] = GroupJson(w.total, w.unit);
      j["data_workers"] = GroupJson(w.ours, w.unit);
      j["groups"] = Json::array();
      for (const SpendGroup& g : w.groups) j["groups"].push_back(GroupJson(g, w.unit));
    }
    out["warehouses"].push_back(std::move(j));
  }
  return out;
}

Result<SpendReport> ReportSpend(const config::Workspace& ws, HttpClient& http, TimePoint since, TimePoint until,
                                const std::string& by) {
  if (!IsSpendDimension(by)) return InvalidArgument("by: '" + by + "' is not one of model, user, label, dw");
  if (until <= since) return InvalidArgument("since: must be before until");
  SpendReport report;
  report.since = since;
  report.until = until;
  report.by = by;
  for (const auto& [name, wh] : ws.warehouses) {
    const warehouse::WarehouseBackend* backend = warehouse::FindWarehouseBackend(wh.type);
    if (backend == nullptr || backend->spend == nullptr) continue;
    WarehouseSpendReport w;
    w.warehouse = name;
    w.type = wh.type;
    Result<std::unique_ptr<warehouse::WarehouseSpend>> reader = backend->spend(wh, &http);
    Result<std::vector<warehouse::QuerySpend>> queries =
        reader.ok() ? (*reader)->QueriesBetween(ToUnixMillis(since), ToUnixMillis(until), kMaxQueries)
                    : Result<std::vector<warehouse::QuerySpend>>(reader.status());
    if (reader.ok()) {
      w.unit = (*reader)->unit();
      w.source = (*reader)->source();
    }
    if (!queries.ok()) {
      w.error = RedactSecrets(queries.status().message());
      report.warehouses.push_back(std::move(w));
      continue;
    }
    if (queries->size() >= kMaxQueries)
      w.notes.push_back("read the first " + std::to_string(kMaxQueries) + " queries of the window; narrow it for the rest");
    std::map<std::string, SpendGroup> groups;
    w.total.key = "total";
    w.ours.key = "data-workers";
    for (const warehouse::QuerySpend& q : *queries) {
      SpendGroup& g = groups[KeyOf(q, by)];
      Add(g, q);
      Add(w.total, q);
      if (RanByUs(q)) Add(w.ours, q);
    }
    for (auto& [key, g] : groups) {
      g.key = key;
      w.groups.push_back(g);
    }
    std::sort(w.groups.begin(), w.groups.end(), [](const SpendGroup& a, const SpendGroup& b) {
      const double ca = a.credits + static_cast<double>(a.bytes_billed), cb = b.credits + static_cast<double>(b.bytes_billed);
      return ca != cb ? ca > cb : a.key < b.key;
    });
    report.warehouses.push_back(std::move(w));
  }
  return report;
}

}  // namespace dw::observe::spend
