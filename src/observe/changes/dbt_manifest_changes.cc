#include "observe/changes/dbt_manifest_changes.h"

#include <fstream>
#include <sstream>

#include "base/iso_time.h"
#include "observe/changes/change_kinds.h"

namespace dw::observe::changes {
namespace {

constexpr const char* kCursor = "dbt:manifest:checksums";

// dbt://<package>/<name> for "model.<package>.<name>".
std::string ModelAsset(const std::string& unique_id, const std::string& name) {
  size_t a = unique_id.find('.');
  size_t b = a == std::string::npos ? a : unique_id.find('.', a + 1);
  if (b == std::string::npos) return "";
  return "dbt://" + unique_id.substr(a + 1, b - a - 1) + "/" + name;
}

}  // namespace

Result<PlatformPass> CollectDbtManifestChanges(const config::Workspace& ws, store::StateStore& store,
                                               const Clock& clock) {
  PlatformPass pass;
  pass.platform = "dbt";
  pass.type = "dbt-manifest";
  if (ws.lineage.dbt_manifest.empty()) return pass;
  std::ifstream in(ws.lineage.dbt_manifest);
  if (!in) {
    pass.errors.push_back("lineage.dbt_manifest: cannot read " + ws.lineage.dbt_manifest);
    return pass;
  }
  std::stringstream text;
  text << in.rdbuf();
  Json manifest = Json::parse(text.str(), nullptr, false);
  if (manifest.is_discarded() || !manifest.is_object() || !manifest.contains("nodes") || !manifest["nodes"].is_object()) {
    pass.errors.push_back("lineage.dbt_manifest: " + ws.lineage.dbt_manifest + " is not a dbt manifest (no nodes object)");
    return pass;
  }
  auto seen_text = store.GetCursor(kCursor);
  if (!seen_text.ok()) return seen_text.status();
  Json seen = seen_text->has_value() ? Json::parse(**seen_text, nullptr, false) : Json();
  bool baseline = !seen.is_object();
  Json next = Json::object();
  TimePoint now = clock.Now();
  TimePoint generated = now;
  std::string generated_text;
  if (manifest.contains("metadata") && manifest["metadata"].is_object())
    generated_text = manifest["metadata"].value("generated_at", "");
  // The run that wrote the manifest: its models' events are one change (incidents/change_facets.h),
  // and dbt's query comment names it in the statements the run sent.
  std::string invocation_id;
  if (manifest.contains("metadata") && manifest["metadata"].is_object() && manifest["metadata"].contains("invocation_id") &&
      manifest["metadata"]["invocation_id"].is_string())
    invocation_id = manifest["metadata"]["invocation_id"].get<std::string>();
  if (auto ms = ParseIsoTimeMillis(generated_text); ms && FromUnixMillis(*ms) <= now) generated = FromUnixMillis(*ms);
  std::vector<store::ChangeEvent> events;
  for (const auto& [id, node] : manifest["nodes"].items()) {
    if (!node.is_object() || node.value("resource_type", "") != "model") continue;
    std::string checksum;
    if (node.contains("checksum") && node["checksum"].is_object()) checksum = node["checksum"].value("checksum", "");
    if (checksum.empty()) continue;
    next[id] = checksum;
    if (baseline || !seen.contains(id) || seen[id] == checksum) continue;
    std::string asset = ModelAsset(id, node.value("name", ""));
    if (asset.empty()) continue;
    store::ChangeEvent e;
    e.dedup_key = "dbt:" + id + ":checksum:" + checksum;
    e.asset_id = asset;
    e.kind = kModelChange;
    e.happened_at = generated;
    e.observed_at = now;
    e.evidence = {{"unique_id", id}, {"from_checksum", seen[id]}, {"to_checksum", checksum},
                  {"manifest", ws.lineage.dbt_manifest},
                  {"time_source", generated == now ? "observed" : "manifest generated_at"}};
    if (node.contains("original_file_path")) e.evidence["file"] = node["original_file_path"];
    if (!invocation_id.empty()) e.evidence["invocation_id"] = invocation_id;
    e.risk = 0.4;
    e.reason = "the model's code changed (its manifest checksum moved): what it builds may have changed";
    events.push_back(std::move(e));
  }
  Status written = store.InTransaction([&](store::StateStore& tx) -> Status {
    for (const auto& e : events) {
      auto added = tx.AddChangeEvent(e);
      if (!added.ok()) return added.status();
      (*added ? pass.new_events : pass.duplicates)++;
    }
    return tx.SetCursor(kCursor, next.dump());
  });
  if (!written.ok()) return written;
  return pass;
}

}  // namespace dw::observe::changes
