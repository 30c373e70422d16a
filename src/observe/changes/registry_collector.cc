// Schema Registry: new versions of each subject. The registry keeps no registration time, so
// happened_at is when the pass saw the version (evidence says time_source: observed). Cursor
// "versions" {subject: latest version seen}; the first pass records a baseline without events.
#include <algorithm>

#include "observe/changes/change_kinds.h"
#include "observe/changes/platform_collectors.h"
#include "platforms/schema_registry/registry_client.h"

namespace dw::observe::changes {

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
      for (int64_t v : *versions) {
        if (v <= before) continue;
        out.events.push_back(MakeEvent(
            ctx, "registry:" + ctx.platform.name + ":" + subject + ":" + std::to_string(v),
            AssetIdFor("schema-registry", ctx.platform.name, subject), kSchemaVersion, now,
            {{"subject", subject}, {"version", v}, {"previous_version", before}, {"time_source", "observed"},
             {"url", registry.call().Url({"subjects", subject, "versions", std::to_string(v)})}},
            0.4, "subject " + subject + " got version " + std::to_string(v) + ": readers may see a new shape"));
      }
    }
    next[subject] = latest;
  }
  out.cursors[CursorName(ctx.platform, "versions")] = next.dump();
  return Status::Ok();
}

}  // namespace dw::observe::changes
