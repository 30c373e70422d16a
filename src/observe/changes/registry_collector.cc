// Schema Registry: new versions of each subject. The registry keeps no registration time, so
// happened_at is when the pass saw the version (evidence says time_source: observed). Cursor
// "versions" {subject: latest version seen}; the first pass records a baseline without events.
// Each new version carries the registry's own verdict on it against the version before (POST
// /compatibility/subjects/{s}/versions/{previous}, at the subject's level) and the top-level
// fields it removed and added, so a diagnosis reads "v8 removed customer_email" as evidence.
#include <algorithm>
#include <set>

#include "observe/changes/change_kinds.h"
#include "observe/changes/platform_collectors.h"
#include "platforms/schema_registry/registry_client.h"

namespace dw::observe::changes {
namespace {

// The top-level field names of an Avro record or JSON Schema object (empty for anything else).
std::vector<std::string> TopLevelNames(const std::string& text) {
  std::vector<std::string> out;
  Json j = Json::parse(text, nullptr, false);
  if (!j.is_object()) return out;
  if (auto f = j.find("fields"); f != j.end() && f->is_array()) {
    for (const auto& x : *f)
      if (x.is_object() && x.contains("name") && x["name"].is_string()) out.push_back(x["name"].get<std::string>());
  } else if (auto p = j.find("properties"); p != j.end() && p->is_object()) {
    for (const auto& [k, v] : p->items()) out.push_back(k);
  }
  return out;
}

// Evidence and a reason for version `v` against version `prev`; nothing when either is unreadable.
void JudgeVersion(const platforms::schema_registry::RegistryClient& registry, PlatformPass& pass, const std::string& subject,
                  int64_t v, int64_t prev, Json& evidence, std::string& reason) {
  pass.requests += 3;
  auto now = registry.Schema(subject, std::to_string(v));
  auto before = registry.Schema(subject, std::to_string(prev));
  if (!now.ok() || !before.ok()) {
    pass.errors.push_back(!now.ok() ? now.status().message() : before.status().message());
    return;
  }
  auto a = TopLevelNames(before->schema), b = TopLevelNames(now->schema);
  std::set<std::string> sa(a.begin(), a.end()), sb(b.begin(), b.end());
  Json removed = Json::array(), added = Json::array();
  for (const auto& x : a)
    if (!sb.count(x)) removed.push_back(x);
  for (const auto& x : b)
    if (!sa.count(x)) added.push_back(x);
  evidence["removed_fields"] = removed;
  evidence["added_fields"] = added;
  auto verdict = registry.CheckCompatibility(subject, now->schema, now->schema_type, std::to_string(prev));
  std::string what = "v" + std::to_string(v);
  if (!removed.empty()) what += " removed " + removed[0].get<std::string>() + (removed.size() > 1 ? " (and " + std::to_string(removed.size() - 1) + " more)" : "");
  if (!added.empty()) what += std::string(removed.empty() ? " added " : ", added ") + added[0].get<std::string>() + (added.size() > 1 ? " (and more)" : "");
  if (verdict.ok()) {
    evidence["compatibility"] = {{"against_version", prev}, {"is_compatible", verdict->is_compatible}, {"messages", verdict->messages}};
    reason = what + (verdict->is_compatible ? "; the registry finds it compatible with v" : "; the registry finds it INCOMPATIBLE with v") +
             std::to_string(prev) + " at the subject's level: readers may see a new shape";
  } else {
    pass.errors.push_back(verdict.status().message());
    reason = what + ": readers may see a new shape";
  }
}

}  // namespace


Status CollectSchemaRegistry(const CollectContext& ctx, Collected& out, PlatformPass& pass) {
  platforms::schema_registry::RegistryClient registry(ctx.platform, ctx.http);
  ++pass.requests;
  auto subjects = registry.Subjects();
  if (!subjects.ok()) return subjects.status();
  auto seen = JsonCursor(ctx, "versions");
  if (!seen.ok()) return seen.status();
  Json next = *seen;
  int64_t now = ToUnixMillis(ctx.clock.Now());
  for (const auto& subject : *subjects) {
    ++pass.requests;
    auto versions = registry.Versions(subject);
    if (!versions.ok()) {
      pass.errors.push_back(versions.status().message());
      continue;
    }
    if (versions->empty()) continue;
    int64_t latest = *std::max_element(versions->begin(), versions->end());
    if (seen->contains(subject)) {
      int64_t before = (*seen)[subject].get<int64_t>();
      int64_t prev = 0;  // the version before each new one
      for (int64_t v : *versions) {
        if (v <= before) {
          prev = v;
          continue;
        }
        // The registry keeps no time of a version: it was registered at or before this pass.
        Json evidence = {{"subject", subject}, {"version", v}, {"previous_version", before}, {"time_source", "observed"},
                         {"time_bound", "at_or_before"},
                         {"url", registry.call().Url({"subjects", subject, "versions", std::to_string(v)})}};
        std::string reason = "subject " + subject + " got version " + std::to_string(v) + ": readers may see a new shape";
        if (prev > 0) {
          std::string judged;
          JudgeVersion(registry, pass, subject, v, prev, evidence, judged);
          if (!judged.empty()) reason = "subject " + subject + " " + judged;
        }
        out.events.push_back(MakeEvent(ctx, "registry:" + ctx.platform.name + ":" + subject + ":" + std::to_string(v),
                                       AssetIdFor("schema-registry", ctx.platform.name, subject), kSchemaVersion, now,
                                       evidence, 0.4, reason));
        prev = v;
      }
    }
    next[subject] = latest;
  }
  out.cursors[CursorName(ctx.platform, "versions")] = next.dump();
  return Status::Ok();
}

}  // namespace dw::observe::changes
