// Naming for OpenLineage events, shared by the DOM path (openlineage_event.h) and the streaming
// reader (openlineage_reader.h): which canonical id a dataset or job of an event stands for.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "graph/graph_index.h"

namespace dw::graph {

// True for START, RUNNING, COMPLETE, ABORT, FAIL and OTHER.
bool IsRunEventType(std::string_view type);

// The three event types of the spec (2-0-2): a RunEvent (a run of a job), a JobEvent (a job's
// declared inputs and outputs, no run) and a DatasetEvent (one dataset's facets, no job).
enum class OlEventType : uint8_t { kRun, kJob, kDataset, kUnknown };

// The type an event is: the one its schemaURL's fragment names ("...#/$defs/JobEvent",
// "...#/definitions/RunEvent"), else by its members: `run` makes a RunEvent, `job` without `run` a
// JobEvent, `dataset` without either a DatasetEvent; kUnknown when none of these tells it.
OlEventType TellEventType(std::string_view schema_url, bool has_run, bool has_job, bool has_dataset);

// Why an event of kUnknown type is refused (at "$").
inline constexpr const char* kUntoldEventType =
    "cannot tell the event type: a RunEvent has `run` and `job`, a JobEvent `job` without `run`, a "
    "DatasetEvent `dataset` (or say which in `schemaURL`)";

// An eventTime: RFC 3339, or an ISO 8601 date-time without an offset, read as UTC (Marquez reads
// such times too). Fails with kInvalidArgument quoting the text.
Result<TimePoint> ParseEventTime(std::string_view text);

// Why `ns` is not a dataset namespace the naming spec allows, or "" when it is. A namespace is
// `scheme:[//authority]` (`postgres://db:5432`, `s3://bucket`, `bigquery`, `file`), or a plain name
// as Marquez's own examples use (`food_delivery`): never blank, never with whitespace or control
// characters, a scheme before `://` of letters, digits, '+', '-' and '.' starting with a letter,
// and an authority after it (only `file://` may leave it out).
std::string DatasetNamespaceProblem(std::string_view ns);

// A dataset's canonical id and its other names (namespace/name and symlinks that are not the id).
struct ResolvedDataset {
  std::string id;
  std::vector<std::string> aliases;
};

// Resolves the dataset `ns`/`name` with `symlinks` (namespace/name of each symlink identifier)
// against `index`: a known id or alias, a unique asset with the same short name, else an id
// derived from the namespace (kafka://host:port -> kafka://host-port/<topic>; database schemes ->
// table://host-port/<schema.table>). Never `not_this` (the event's job: a dataset the job reads
// or writes is not the job, even where a dbt model and its table share a name): the derived id
// then. The id may not be canonical: callers check.
ResolvedDataset ResolveRunEventDataset(const std::string& ns, const std::string& name,
                                       const std::vector<std::string>& symlinks, const GraphIndex& index,
                                       std::string_view not_this = {});

// "flink", "dbt" or "kestra" from job.facets.jobType.integration, else from
// run.facets.processing_engine.name (case-insensitive); "" when neither names one.
std::string RunEventJobKind(std::string_view integration, std::string_view engine);

// The job's canonical id: a recorded id or alias "ns/name"; for a dbt job, the manifest's model it
// runs (dbt-ol names jobs by the node's unique id, model.<package>.<name>, or
// <database>.<schema>.<package>.<name>); a unique job of that name unless another OpenLineage
// namespace already named it (staging/orders_load and prod/orders_load stay two jobs); else one
// derived from `kind` and the namespace. kInvalidArgument at $.job.name when none can be made.
Result<std::string> ResolveRunEventJob(const std::string& ns, const std::string& name,
                                       const std::string& kind, const GraphIndex& index);

}  // namespace dw::graph
