// The streaming reader of OpenLineage run events: JSON text -> the fields the graph uses, through
// nlohmann's SAX interface, so facets we do not use are skipped without building DOM nodes. It
// keeps the shape of every value the validator looks at, so ValidateRunEventFields answers
// exactly what ValidateRunEvent (openlineage_event.h) answers for the same event, with the same
// JSON paths and messages, and RunEventFieldsBatch builds the same batch as RunEventBatch.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "graph/graph_index.h"
#include "graph/source_batch.h"

namespace dw::graph {

// What a JSON value was, as far as validation cares.
enum class JsonShape : uint8_t { kAbsent, kNull, kString, kObject, kArray, kOther };

// A member the validator reads as a string: its shape, and its text when it is a string.
struct ShapedString {
  JsonShape shape = JsonShape::kAbsent;
  std::string text;
  bool IsNonEmptyString() const { return shape == JsonShape::kString && !text.empty(); }
};

struct OlSchemaField {
  JsonShape shape = JsonShape::kAbsent;
  ShapedString name, type;
};

struct OlIdentifier {
  JsonShape shape = JsonShape::kAbsent;
  ShapedString ns, name;
};

struct OlInputField {
  JsonShape shape = JsonShape::kAbsent;
  ShapedString ns, name, field;
};

struct OlColumnSpec {
  JsonShape shape = JsonShape::kAbsent;
  JsonShape input_fields = JsonShape::kAbsent;
  std::vector<OlInputField> inputs;
};

struct OlDataset {
  JsonShape shape = JsonShape::kAbsent;
  ShapedString ns, name;
  JsonShape facets = JsonShape::kAbsent;
  JsonShape schema = JsonShape::kAbsent, schema_fields = JsonShape::kAbsent;
  std::vector<OlSchemaField> fields;
  JsonShape symlinks = JsonShape::kAbsent, identifiers = JsonShape::kAbsent;
  std::vector<OlIdentifier> idents;
  JsonShape column_lineage = JsonShape::kAbsent, cl_fields = JsonShape::kAbsent;
  std::map<std::string, OlColumnSpec> columns;  // sorted, like a DOM object's members
};

// One event as read (a RunEvent, JobEvent or DatasetEvent). Duplicate keys: the last one wins, as
// in nlohmann's DOM.
struct RunEventFields {
  JsonShape shape = JsonShape::kAbsent;
  ShapedString event_type, event_time, schema_url;
  OlDataset dataset;  // a DatasetEvent's `dataset`
  JsonShape run = JsonShape::kAbsent, run_facets = JsonShape::kAbsent;
  ShapedString run_id;
  JsonShape error_message = JsonShape::kAbsent, processing_engine = JsonShape::kAbsent;
  ShapedString error_text, engine_name;
  JsonShape job = JsonShape::kAbsent, job_facets = JsonShape::kAbsent, job_type = JsonShape::kAbsent;
  ShapedString job_ns, job_name, integration;
  JsonShape inputs = JsonShape::kAbsent, outputs = JsonShape::kAbsent;
  std::vector<OlDataset> in, out;
};

// What ParseRunEventText read: one event, or the elements of a top-level array.
struct RunEventText {
  bool array = false;
  std::vector<RunEventFields> events;  // one element when !array
};

// Why ParseRunEventText failed.
enum class RunEventTextError { kNone, kSyntax, kTooDeep };

// Reads `text` (one event, or a JSON array of events when `allow_array`; else an array is read as
// one event that is not an object). `max_depth` > 0 refuses deeper nesting. Fails with
// kInvalidArgument "not valid JSON" or "JSON nesting deeper than N" (and sets *error when given).
Result<RunEventText> ParseRunEventText(std::string_view text, bool allow_array, int max_depth = 0,
                                       RunEventTextError* error = nullptr);

// ValidateRunEvent for a read event: the same first problem, path and message.
Status ValidateRunEventFields(const RunEventFields& event);

// RunEventBatch for a read event: validates it, then resolves names against `index`.
Result<SourceBatch> RunEventFieldsBatch(const RunEventFields& event, const GraphIndex& index, TimePoint now);

// One event's text -> its batch (ParseRunEventText + RunEventFieldsBatch). kInvalidArgument
// "not valid JSON" or the validator's "$.path: why".
Result<SourceBatch> RunEventTextBatch(std::string_view text, const GraphIndex& index, TimePoint now);

// A line of a JSON-lines text that was refused: its number (1-based, blank lines counted) and why
// ("not valid JSON", "$.run.runId: required").
struct RefusedLine {
  size_t line = 0;
  std::string reason;
};

// What a JSON-lines text gave: the batch of every good line, in line order, and every refused one.
struct EventLines {
  std::vector<SourceBatch> batches;
  std::vector<RefusedLine> refused;
};

// Every non-blank line of `text` (JSON lines) -> its batch, the lines split across `threads`
// threads (1 = this thread only). Each line stands alone: a bad line is refused with its number
// and reason, and every other line is still read. REQUIRES: `index` is not written meanwhile
// (hold the graph's shared lock).
EventLines RunEventLinesBatches(std::string_view text, const GraphIndex& index, TimePoint now, int threads);

}  // namespace dw::graph
