// The graph stage's front door for ingestion: "ingest this source" in, "what changed" out. Every
// surface that feeds the context graph (`dw ingest`, the workspace's own sources on first use, the
// OpenLineage HTTP intake) calls Ingest() and only translates its arguments and its answer.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "base/json.h"
#include "base/status.h"
#include "config/workspace.h"
#include "graph/context_graph.h"
#include "graph/kestra_api_ingest.h"
#include "graph/kestra_flows.h"
#include "graph/openlineage_reader.h"
#include "net/http_client.h"

namespace dw::graph {

// One source of lineage and asset facts.
struct IngestSource {
  enum class Kind {
    kWorkspace,        // the workspace's notes, lineage.dbt_manifest and lineage.kestra_flows
    kDbtManifestFile,  // a dbt manifest.json at `path`
    kOpenLineageFile,  // one OpenLineage event per line of `path` (blank lines skipped)
    kOpenLineageBody,  // an HTTP body: one event or a JSON array of them
    kKestraApi,        // the flows of a Kestra instance, read through its REST API
  };
  Kind kind = Kind::kWorkspace;
  std::filesystem::path path;  // kDbtManifestFile, kOpenLineageFile
  std::string_view body;       // kOpenLineageBody; must outlive the call
  int max_json_depth = 0;      // kOpenLineageBody: nesting limit (0: none)
  KestraFlowIngestOptions kestra;  // kKestraApi

  static IngestSource Workspace() { return {}; }
  static IngestSource DbtManifestFile(std::filesystem::path p);
  static IngestSource OpenLineageFile(std::filesystem::path p);
  static IngestSource OpenLineageBody(std::string_view text, int max_depth);
  static IngestSource KestraApi(KestraFlowIngestOptions options);
};

// Ingests `source` into `graph` and says what changed: the apply summary (SummaryJson) plus what
// the kind adds: "events" (OpenLineage), "refused_count" and "refused" (a file: the lines refused,
// [{line, error}], the first 100 listed), "group_events" (an HTTP body: the counts are of the whole
// commit group it joined), "platform"/"flows"/"disabled"/"flows_read"/"flows_skipped"/"flows_partly_read" and
// "warnings" (Kestra API: a flow that cannot be read is skipped, not fatal), "warnings" (kWorkspace:
// one sentence per source that failed, and per Kestra flow skipped or partly read; the others are
// still ingested, so this kind only fails when nothing could be tried).
// Errors: kNotFound for an unreadable file; kInvalidArgument naming the file and line or the JSON
// path of the problem ("FILE:LINE: $.path: why", "$[2].inputs[0].name: required"); a platform's
// own error code for the Kestra API. On error nothing of the source is stored. A file of
// OpenLineage events is read line by line: every good line is stored and each bad one listed in
// "refused"; it fails only when no line could be read. A body is all or nothing.
// `http` is used by kKestraApi only.
Result<Json> Ingest(const config::Workspace& ws, net::HttpClient& http, ContextGraph& graph,
                    const IngestSource& source);

// The warehouse that tables named by dbt sources and Kestra SQL live in: the only configured one,
// else "main" when configured, else the first by name ("main" when none is configured).
std::string DefaultWarehouse(const config::Workspace& ws);

// How the Kestra reader places the flows of platform `instance` of `ws`: tables in the default
// warehouse unless a task's JDBC url names another of the workspace's warehouses (or one of its own).
KestraFlowOptions KestraOptionsOf(const config::Workspace& ws, const std::string& instance);

// The workspace's warehouses as the graph's readers match names against them (name, type, the
// database their tables carry).
std::vector<KnownWarehouse> KnownWarehousesOf(const config::Workspace& ws);

// {added, refreshed, ...} of one Apply.
Json SummaryJson(const ApplySummary& s);

// The OpenLineage intake's hot path in two halves, so that a body is read before the graph is
// opened (no lock held while parsing; a bad body is refused even when the graph is unavailable),
// and the reply written without building a document. Ingest(kOpenLineageBody) is the two together.

// The events of an HTTP body, or kInvalidArgument naming what is wrong with it ("$: the body is
// empty; ..." for a JSON null, the nesting limit, "the body is not valid JSON").
Result<RunEventText> ReadOpenLineageBody(std::string_view text, int max_depth);

// What one intake stored: the summary of its commit group, its own events, the group's.
struct IngestedEvents {
  ApplySummary applied;
  size_t events = 0;
  size_t group_events = 0;
};

// Resolves the events under the shared lock and stores them by group commit with whatever other
// requests queued meanwhile. kInvalidArgument names the JSON path ("$[2]..." inside an array);
// other codes are the commit's (kUnavailable: retry). Nothing of the body is stored on error.
Result<IngestedEvents> IngestRunEvents(ContextGraph& graph, const RunEventText& read);

// SummaryJson plus "events" and "group_events", as JSON text (the same keys in the same sorted
// order as the Json would be written).
std::string IngestedEventsText(const IngestedEvents& in);

}  // namespace dw::graph
