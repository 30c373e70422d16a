// The change timeline collector: one incremental pass over every platform in the workspace that
// turns what each platform reports into dated, evidenced change events in the state store.
// Kestra executions since the last cursor, Flink restores, skipped state, exceptions and config
// risks not yet seen, connector state transitions, new schema versions. A platform's first pass
// reads the lookback window (changes.initial_lookback) instead of setting a blind baseline. Events carry the time the
// platform gives (or, where a platform keeps no time, the time observed, said so in the
// evidence), a canonical asset id, a kind (change_kinds.h), evidence, and a risk weight with its
// reason. Events are deduplicated across passes by their dedup key; cursors live in the store, so
// a restarted process carries on where the last pass stopped.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/json.h"
#include "config/workspace.h"
#include "net/http_client.h"
#include "store/state_store.h"

namespace dw::observe::changes {

struct CollectOptions {
  size_t max_log_bytes = size_t{256} << 20;  // per JobManager log file per pass
  int kestra_page_size = 500;
  size_t kestra_log_lines = 10;  // log lines kept as evidence of a watched flow's execution
  // How far back the first pass over a platform or a warehouse's history reads (Kestra
  // executions and flow revisions, Flink starts, restores and exceptions, warehouse writes); what
  // is older is the baseline, never reported. Unset: the workspace's changes.initial_lookback.
  std::optional<std::chrono::milliseconds> initial_lookback;
  // The unified diff of a flow revision's source against the revision it replaced is cut to this
  // many bytes (at a line end; the evidence says it was cut).
  size_t max_diff_bytes = 16 * 1024;
};

// What one platform's part of the pass did.
struct PlatformPass {
  std::string platform;  // workspace name
  std::string type;
  bool reachable = true;
  int new_events = 0;
  int duplicates = 0;   // events seen before (dedup key already stored)
  int requests = 0;     // HTTP requests made (approximate: one per client call)
  std::vector<std::string> errors;  // each names the platform and endpoint
  std::vector<std::string> notes;   // e.g. a log read only up to its byte cap
};

struct CollectReport {
  std::vector<PlatformPass> platforms;
  int new_events() const;
  bool any_errors() const;  // an unreachable platform counts
  Json ToJson() const;
};

// Whether a collection pass has anything to read in `workspace`: a platform, a dbt manifest, or a
// warehouse that keeps a history of writes.
bool HasChangeSources(const config::Workspace& workspace);

// Runs one pass over every platform of `workspace`, writing events and cursors to `store`. A
// platform that fails does not stop the others: its failure is in the report, and one that cannot
// be reached also gets a platform_unreachable event (one per outage, not per pass). Returns a
// Status error only when the store fails.
Result<CollectReport> CollectChanges(const config::Workspace& workspace, net::HttpClient& http,
                                     store::StateStore& store, const Clock& clock,
                                     const CollectOptions& options = {});

}  // namespace dw::observe::changes
