#include "observe/changes/collector.h"

#include "observe/changes/dbt_manifest_changes.h"

#include "base/log.h"
#include "observe/changes/change_kinds.h"
#include "observe/changes/platform_collectors.h"
#include "observe/changes/warehouse_writes.h"
#include "warehouse/backends.h"

namespace dw::observe::changes {
namespace {

// What makes a pass an observation gap rather than a bug to report: the platform did not answer,
// not in time, or answered more than can be read (a body over the size cap): either way its
// changes are unknown, not absent.
bool Unreachable(const Status& s) {
  return s.code() == StatusCode::kUnavailable || s.code() == StatusCode::kDeadlineExceeded ||
         s.code() == StatusCode::kResourceExhausted;
}

}  // namespace

int CollectReport::new_events() const {
  int n = 0;
  for (const auto& p : platforms) n += p.new_events;
  return n;
}

bool CollectReport::any_errors() const {
  for (const auto& p : platforms)
    if (!p.reachable || !p.errors.empty()) return true;
  return false;
}

Json CollectReport::ToJson() const {
  Json out = {{"new_events", new_events()}, {"platforms", Json::array()}};
  for (const auto& p : platforms)
    out["platforms"].push_back({{"platform", p.platform}, {"type", p.type}, {"reachable", p.reachable},
                                {"new_events", p.new_events}, {"duplicates", p.duplicates},
                                {"errors", p.errors}, {"notes", p.notes}});
  return out;
}

std::string CursorName(const config::PlatformConfig& platform, const std::string& what) {
  return "changes/" + platform.name + "/" + what;
}

Result<Json> JsonCursor(const CollectContext& ctx, const std::string& what) {
  auto c = ctx.store.GetCursor(CursorName(ctx.platform, what));
  if (!c.ok()) return c.status();
  if (!c->has_value()) return Json::object();
  Json j = Json::parse(**c, nullptr, false);
  return j.is_object() ? j : Json::object();
}

int64_t LookbackStartMs(const CollectContext& ctx) {
  const auto lookback = ctx.options.initial_lookback.value_or(ctx.workspace.changes_initial_lookback);
  return ToUnixMillis(ctx.clock.Now()) - std::chrono::duration_cast<std::chrono::milliseconds>(lookback).count();
}

Result<int64_t> HistoryFloorMs(const CollectContext& ctx, bool first_pass, Collected& out) {
  const std::string name = CursorName(ctx.platform, "history_floor");
  auto c = ctx.store.GetCursor(name);
  if (!c.ok()) return c.status();
  if (c->has_value()) {
    try {
      return std::stoll(**c);
    } catch (const std::exception&) {
    }
  }
  // A store that collected before the floor existed has already reported what it saw: keep it so.
  const int64_t floor = first_pass ? LookbackStartMs(ctx) : 0;
  out.cursors[name] = std::to_string(floor);
  return floor;
}

store::ChangeEvent MakeEvent(const CollectContext& ctx, std::string dedup_key, std::string asset_id,
                             std::string kind, int64_t happened_ms, Json evidence, double risk,
                             std::string reason) {
  store::ChangeEvent e;
  e.dedup_key = std::move(dedup_key);
  e.asset_id = std::move(asset_id);
  e.kind = std::move(kind);
  e.happened_at = FromUnixMillis(happened_ms);
  e.observed_at = ctx.clock.Now();
  e.evidence = std::move(evidence);
  e.risk = risk;
  e.reason = std::move(reason);
  return e;
}

CollectorFn FindCollector(std::string_view type) {
  struct Entry {
    std::string_view type;
    CollectorFn collect;
  };
  static constexpr Entry kCollectors[] = {
      {"flink", CollectFlink},
      {"kestra", CollectKestra},
      {"kafka-connect", CollectKafkaConnect},
      {"schema-registry", CollectSchemaRegistry},
  };
  for (const Entry& e : kCollectors)
    if (e.type == type) return e.collect;
  return nullptr;
}

bool HasChangeSources(const config::Workspace& workspace) {
  if (!workspace.platforms.empty() || !workspace.lineage.dbt_manifest.empty()) return true;
  for (const auto& [name, wh] : workspace.warehouses) {
    const warehouse::WarehouseBackend* backend = warehouse::FindWarehouseBackend(wh.type);
    if (backend != nullptr && backend->history != nullptr) return true;
  }
  return false;
}

Result<CollectReport> CollectChanges(const config::Workspace& workspace, net::HttpClient& http,
                                     store::StateStore& store, const Clock& clock,
                                     const CollectOptions& options) {
  CollectReport report;
  CollectOptions opts = options;
  if (!opts.initial_lookback) opts.initial_lookback = workspace.changes_initial_lookback;
  for (const auto& [name, platform] : workspace.platforms) {
    PlatformPass pass;
    pass.platform = name;
    pass.type = platform.type;
    CollectContext ctx{workspace, platform, http, store, clock, opts};
    Collected got;
    Status s;
    if (CollectorFn collect = FindCollector(platform.type)) s = collect(ctx, got, pass);
    else s = InvalidArgument("platform '" + name + "': no collector for type '" + platform.type + "'");

    // An outage is one observation, from when it began until the platform answers again.
    std::string outage_cursor = CursorName(platform, "unreachable_since");
    auto since = store.GetCursor(outage_cursor);
    if (!since.ok()) return since.status();
    if (!s.ok()) {
      pass.errors.push_back(RedactSecrets(s.message()));
      if (Unreachable(s)) {
        pass.reachable = false;
        int64_t start = ToUnixMillis(clock.Now());
        if (since->has_value()) {
          try {
            start = std::stoll(**since);
          } catch (const std::exception&) {
          }
        }
        got.cursors[outage_cursor] = std::to_string(start);
        got.events.push_back(MakeEvent(
            ctx, "unreachable:" + name + ":" + std::to_string(start),
            PlatformAssetId(platform.type, name), kPlatformUnreachable, start,
            Json{{"platform", name}, {"type", platform.type}, {"error", RedactSecrets(s.message())},
                 {"time_source", "observed"}},
            0.5, "platform '" + name + "' " +
                     (s.code() == StatusCode::kResourceExhausted ? "answered more than can be read"
                                                                 : "could not be reached") +
                     ": its changes since then are unknown, not absent"));
      }
    } else if (since->has_value()) {
      got.cursors[outage_cursor] = "";  // reachable again
    }
    Status written = store.InTransaction([&](store::StateStore& tx) -> Status {
      for (const auto& e : got.events) {
        auto added = tx.AddChangeEvent(e);
        if (!added.ok()) return added.status();
        (*added ? pass.new_events : pass.duplicates)++;
      }
      for (const auto& [cursor, value] : got.cursors) DW_RETURN_IF_ERROR(tx.SetCursor(cursor, value));
      return Status::Ok();
    });
    if (!written.ok()) return written;
    report.platforms.push_back(std::move(pass));
  }
  // The warehouses that keep a history of writes: each write is a change on its table.
  for (const auto& [name, wh] : workspace.warehouses) {
    const warehouse::WarehouseBackend* backend = warehouse::FindWarehouseBackend(wh.type);
    if (backend == nullptr || backend->history == nullptr) continue;
    Result<std::unique_ptr<warehouse::WarehouseHistory>> history = backend->history(wh, &http);
    PlatformPass pass;
    if (!history.ok()) {
      pass.platform = name;
      pass.type = wh.type;
      pass.errors.push_back(RedactSecrets(history.status().message()));
    } else {
      auto got = CollectWarehouseWrites(workspace, wh, **history, store, clock, *opts.initial_lookback);
      if (!got.ok()) return got.status();
      pass = std::move(got).value();
    }
    report.platforms.push_back(std::move(pass));
  }
  // The workspace's own dbt manifest: a model whose checksum moved is a change too.
  if (!workspace.lineage.dbt_manifest.empty()) {
    auto dbt = CollectDbtManifestChanges(workspace, store, clock);
    if (!dbt.ok()) return dbt.status();
    report.platforms.push_back(std::move(dbt).value());
  }
  return report;
}

}  // namespace dw::observe::changes
