// What one lineage source asserts in one ingestion: assets (with whatever facts the source knows),
// edges between them, and aliases. Readers (notes, dbt, OpenLineage, Kestra) produce batches with
// canonical ids; ContextGraph::Apply stores them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/json.h"

namespace dw::graph {

// Where a fact came from. Bit values: an edge keeps one bit per source that asserted it.
enum class Origin : uint8_t { kNotes = 0, kDbt = 1, kOpenLineage = 2, kKestra = 3 };
inline constexpr int kOriginCount = 4;

// "notes", "dbt", "openlineage" or "kestra".
const char* OriginName(Origin origin);
// Parses a name written by OriginName; nullopt for anything else.
std::optional<Origin> ParseOrigin(std::string_view name);

// What a source says about one asset. Empty strings and unset optionals mean "not asserted".
struct AssetFacts {
  std::string id;  // canonical
  std::string domain;
  std::string owner;
  std::string schedule;  // cron (config/cron.h)
  std::optional<bool> customer_facing;
  std::vector<std::string> tags;
  std::string impact_sql;  // trusted workspace SQL with a :since parameter
  std::string notes;
  std::vector<std::string> aliases;  // other names of the same dataset
  Json columns;                      // [{name, type}] when the source knows the schema; else null
  // Of the schedule (last, so that positional initialisers written before them still hold):
  // the IANA zone its wall-clock times are in (empty: the workspace's `timezone:`), and whether the
  // scheduler will not run it (a disabled trigger or flow: no next run), since when if known.
  std::string schedule_timezone;
  bool schedule_disabled = false;
  std::string disabled_since;  // RFC 3339
};

// Data moves from `src` to `dst` (a job reads src; a job writes dst), or `src` triggers `dst`.
struct EdgeFacts {
  std::string src;  // canonical
  std::string dst;  // canonical
  std::string relation = "feeds";  // "feeds" or "triggers"
  // Column lineage where the source provides it: [{"column": out, "from": [{"asset", "column"}]}].
  Json columns;
};

// A terminal run of a job seen by a source (OpenLineage COMPLETE, FAIL, ABORT), kept as history.
struct JobRun {
  std::string job;  // canonical id
  std::string run_id;
  std::string event_type;  // COMPLETE, FAIL, ABORT
  TimePoint at;
  std::string message;  // errorMessage facet, if any
};

struct SourceBatch {
  Origin origin = Origin::kNotes;
  // Edges of this origin that are not in the batch go stale: every edge of the origin when
  // `stale_scope` is "*" (a source that is read whole: notes, a manifest, a flow folder), only the
  // edges touching that asset when it is an asset id (one job's latest complete run), none when
  // empty (an incremental event).
  std::string stale_scope;
  // More asset ids scoped like stale_scope (ContextGraph::ApplyInOrder keeps each batch's own).
  std::vector<std::string> stale_assets;
  // A source read whole that owns a namespace of ids ("dbt://<project>/" for a manifest,
  // "kestra://<instance>/" for a Kestra instance's flows): edges of the origin touching an asset
  // whose id starts with one of these, and not in the batch, go stale. Unlike "*", two sources of
  // the same origin (two dbt projects) then never stale each other's edges.
  std::vector<std::string> stale_prefixes;
  std::vector<AssetFacts> assets;
  std::vector<EdgeFacts> edges;
  std::vector<JobRun> runs;
};

}  // namespace dw::graph
