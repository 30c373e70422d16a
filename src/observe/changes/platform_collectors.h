// One collector per platform type (one file each); collector.cc runs them. Each reads its
// platform, appends the events it found to `events`, and the cursors to advance to `cursors`;
// the caller writes both in one transaction, so a crash never advances a cursor past events that
// were not stored. A returned error means the platform's list endpoint failed (nothing collected).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "config/workspace.h"
#include "net/http_client.h"
#include "observe/changes/collector.h"
#include "store/state_store.h"

namespace dw::observe::changes {

struct CollectContext {
  const config::Workspace& workspace;
  const config::PlatformConfig& platform;
  net::HttpClient& http;
  store::StateStore& store;
  const Clock& clock;
  const CollectOptions& options;
};

struct Collected {
  std::vector<store::ChangeEvent> events;
  std::map<std::string, std::string> cursors;
};

Status CollectFlink(const CollectContext& ctx, Collected& out, PlatformPass& pass);
Status CollectKestra(const CollectContext& ctx, Collected& out, PlatformPass& pass);
Status CollectKafkaConnect(const CollectContext& ctx, Collected& out, PlatformPass& pass);
Status CollectSchemaRegistry(const CollectContext& ctx, Collected& out, PlatformPass& pass);

using CollectorFn = Status (*)(const CollectContext& ctx, Collected& out, PlatformPass& pass);

// The collector for platforms of `type` (the workspace's `type:`), or nullptr. One registry, in
// collector.cc: a new platform's collector is its own file plus one entry there.
CollectorFn FindCollector(std::string_view type);

// The cursor name "changes/<platform>/<what>".
std::string CursorName(const config::PlatformConfig& platform, const std::string& what);
// The stored cursor parsed as a JSON object ({} when absent or unreadable).
Result<Json> JsonCursor(const CollectContext& ctx, const std::string& what);
// Where the first pass's lookback window starts (Unix ms): now - the initial lookback.
int64_t LookbackStartMs(const CollectContext& ctx);
// The platform's history floor (Unix ms, cursor "history_floor"): what the platform dates before
// it is the baseline, never reported, on the first pass or any later one (a job read again
// because it moved still has its old restore). Set once, by the first pass (`first_pass`: no
// cursor of the platform's yet) to LookbackStartMs; 0 for a platform collected before the floor
// existed. A new floor is added to `out.cursors`.
Result<int64_t> HistoryFloorMs(const CollectContext& ctx, bool first_pass, Collected& out);
// A ChangeEvent with observed_at = now.
store::ChangeEvent MakeEvent(const CollectContext& ctx, std::string dedup_key, std::string asset_id,
                             std::string kind, int64_t happened_ms, Json evidence, double risk,
                             std::string reason);

}  // namespace dw::observe::changes
