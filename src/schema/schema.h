// dw::schema, the front door of the schema stage: is a new Avro or JSON Schema compatible with a
// subject's history at a compatibility level, the way Confluent Schema Registry decides it (its
// verdicts, its incompatibility types, its paths, its verbose messages), and what does a change
// reach through the context graph (the topic, the sinks and tables that land it, the dbt models
// and columns that read the changed fields, the consumers that act next, their owners).
//
// Everything here reads (the registry over its REST API through platforms/schema_registry, the
// graph index). Registering a schema is a change outside the state store, so it is a proposal of
// the actions stage (actions/actions.h, RegisterStreamSchema), which sits to this stage's right.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/json.h"
#include "base/status.h"
#include "config/workspace.h"
#include "graph/context_graph.h"
#include "graph/graph_index.h"
#include "net/http_client.h"
#include "platforms/schema_registry/registry_client.h"

namespace dw::schema {

enum class Format { kAvro, kJson };

// "AVRO" or "JSON" (the registry's schemaType; case-insensitive, "JSONSCHEMA" not accepted).
// kInvalidArgument naming the accepted values otherwise.
Result<Format> ParseFormat(std::string_view name);
const char* FormatName(Format f);

enum class Level { kNone, kBackward, kBackwardTransitive, kForward, kForwardTransitive, kFull, kFullTransitive };

// The registry's level names (NONE, BACKWARD, ...). kInvalidArgument whose message carries the
// registry's code 42203 ("invalid compatibility level") for anything else.
Result<Level> ParseLevel(std::string_view name);
const char* LevelName(Level l);

// The registry's error codes this stage answers with, so surfaces and the simulator agree.
inline constexpr int kInvalidSchema = 42201;
inline constexpr int kInvalidLevel = 42203;
inline constexpr int kSubjectNotFound = 40401;
inline constexpr int kVersionNotFound = 40402;
inline constexpr int kIncompatible = 409;

// A schema parsed and validated, ready to be compared. Cheap to copy (shared, immutable).
class ParsedSchema {
 public:
  Format format() const { return format_; }
  const std::string& text() const { return text_; }
  // The top-level field (Avro record) or property (JSON Schema object) names, in order.
  std::vector<std::string> TopLevelFields() const;
  // The type of top-level field `name` as text ("string", "[\"null\",\"string\"]"), or "".
  std::string FieldType(const std::string& name) const;
  // Aliases a top-level Avro field declares (other names it was known by).
  std::vector<std::string> FieldAliases(const std::string& name) const;

  struct Impl;
  std::shared_ptr<const Impl> impl;

 private:
  friend Result<ParsedSchema> Parse(std::string_view text, Format format);
  Format format_ = Format::kAvro;
  std::string text_;
};

// Parses and validates `text` as `format`: unknown types, duplicate field names, defaults of the
// wrong type, invalid names, references to undefined types, $ref out of the document, nesting
// deeper than 64 levels. kInvalidArgument "Invalid schema (error 42201) at <path>: <what>".
Result<ParsedSchema> Parse(std::string_view text, Format format);

// One incompatibility, as the registry reports it and as a person can act on it.
struct Incompatibility {
  std::string type;         // READER_FIELD_MISSING_DEFAULT_VALUE, TYPE_MISMATCH, PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL, ...
  std::string path;         // where, in the reading schema: "/fields/3" (Avro), "#/properties/email" (JSON Schema)
  std::string description;  // the registry's own description
  std::string additional_info;
  std::string direction;    // "backward" (the new schema reads data of the earlier version) or "forward"
  std::string field;        // the field concerned, when there is one
  int64_t version = 0;      // the earlier version it was found against (0: an inline schema without one)
  std::string advice;       // a sentence a person can act on
  // The registry's verbose line: {errorType:'...', description:'...', additionalInfo:'...'}.
  std::string RegistryMessage() const;
};

// An earlier schema of the subject, oldest first in a history.
struct EarlierSchema {
  int64_t version = 0;  // 0 when not known (inline)
  std::string text;
  Format format = Format::kAvro;
};

struct CompatibilityReport {
  bool compatible = true;
  Level level = Level::kBackward;
  Format format = Format::kAvro;
  std::vector<int64_t> checked_versions;  // in the order checked (newest first)
  std::vector<Incompatibility> incompatibilities;
  // The registry's verbose messages: each incompatibility, then {oldSchemaVersion: N},
  // {oldSchema: '...'} and {validateFields: 'false', compatibility: 'LEVEL'} (empty when compatible).
  std::vector<std::string> registry_messages;
  std::vector<std::string> notes;  // changes the registry accepts that still change what readers see
};

// Checks `schema` (text, `format`) against `history` (oldest first) at `level`, as the registry
// does: BACKWARD reads each earlier version with the new schema, FORWARD the new data with each
// earlier version, FULL both; non-transitive levels check only the latest version; transitive
// levels every version, newest first, stopping at the first that fails; NONE checks nothing. An
// empty history is compatible. An earlier version of another format is "Incompatible because of
// different schema type". Fails (kInvalidArgument, 42201) when the new schema or an earlier one
// does not parse; an earlier one is named by its version.
Result<CompatibilityReport> CheckCompatibility(std::string_view schema, Format format, const std::vector<EarlierSchema>& history,
                                               Level level);

// The report as the tools answer it (see docs/tools.md, check_compatibility).
Json ReportJson(const CompatibilityReport& report);

// A subject's history read from the registry.
struct SubjectHistory {
  std::string subject;
  Level level = Level::kBackward;       // the subject's, or the global one
  std::vector<EarlierSchema> versions;  // oldest first
  std::vector<int64_t> ids;             // the schema id of each version
};

// Reads `subject`'s versions (all of them when `all`, else only the latest, or only `version` when
// given) and its level (GET /config/{subject}?defaultToGlobal=true). A subject the registry does
// not know has no versions. The subject must be valid (ValidateSubject). Errors: the registry's
// (unreachable, a version not found → kNotFound naming 40402).
Result<SubjectHistory> ReadHistory(const platforms::schema_registry::RegistryClient& registry, const std::string& subject,
                                   bool all, std::optional<int64_t> version = std::nullopt);

// Checks a subject name: 1 to 255 characters, no control characters. Names holding "/" or ".."
// are valid; they are percent-encoded as one path segment, never used as a path.
Status ValidateSubject(std::string_view subject);

// check_compatibility against the registry: the subject's history (the latest version, every
// version for the transitive levels, or only `version`), at `level` or the subject's own.
Result<CompatibilityReport> CheckSubject(const platforms::schema_registry::RegistryClient& registry, const std::string& subject,
                                         std::string_view schema, Format format, std::optional<Level> level,
                                         std::optional<int64_t> version = std::nullopt);

// What changes between two versions of a schema, field by field (top level).
struct FieldChange {
  std::string field;
  std::string change;  // "removed", "added", "type_changed", "renamed" (declared by an alias), "likely_renamed"
  std::string from_type, to_type;
  std::string renamed_to;  // for renamed / likely_renamed
};
std::vector<FieldChange> ChangedFields(const ParsedSchema& before, const ParsedSchema& after);

// The topic a subject names under the registry's default TopicNameStrategy ("orders-value" →
// "orders"; "-key" likewise), or "" for other strategies.
std::string TopicOfSubject(const std::string& subject);

struct ImpactOptions {
  std::string timezone = "UTC";  // for the consumers' next runs
  int max_depth = 50;
};

// assess_impact: follows the fields that change between `before` and `after` from the subject's
// topic through the graph: the topic (by TopicNameStrategy, or a kafka asset whose notes tag it
// `schema-subject:<subject>`), sinks and tables that land it, dbt models and columns that read the
// changed fields (column lineage where an edge has it; else columns matched by name, marked
// coarser; else table lineage, coarsest), the consumers that act next and when, and owners.
// kNotFound when no asset of the graph stands for the subject's topic.
Result<Json> AssessImpact(const graph::GraphIndex& index, const std::string& subject, const ParsedSchema& before,
                          int64_t before_version, const ParsedSchema& after, const CompatibilityReport& verdict,
                          const ImpactOptions& options, TimePoint now);

// ---- What the surfaces call (check_compatibility, assess_impact, `dw schema check|impact`) ----

// The schema-registry platform called `name` among `platforms`, or the only one when `name` is
// empty. kNotFound / kInvalidArgument with a sentence naming the configured ones otherwise.
Result<const config::PlatformConfig*> RegistryPlatform(const std::map<std::string, config::PlatformConfig>& platforms,
                                                       const std::string& name);

struct CheckRequest {
  std::string subject;                 // subject mode: the history is read from the registry
  std::string schema;                  // the new schema, as text; "" in subject mode: the latest version
  Format format = Format::kAvro;
  std::optional<std::vector<std::string>> previous;  // inline mode: earlier schemas, oldest first
  std::optional<Level> level;          // default: the subject's (subject mode) or BACKWARD (inline)
  std::optional<int64_t> version;      // subject mode: check against this version only
};

// check_compatibility: inline when `previous` is given (no registry needed; `registry` may be
// null), else against the subject's history read from `registry`; without a schema, the subject's
// latest version is judged against the versions before it ("checked_schema_version"). The answer is ReportJson plus
// "mode", "subject" and the sentence "summary". Errors as CheckCompatibility and ReadHistory.
Result<Json> RunCheck(const CheckRequest& request, const config::PlatformConfig* registry, net::HttpClient& http);

struct ImpactRequest {
  std::string subject;
  std::string schema;
  Format format = Format::kAvro;
  std::optional<int64_t> version;  // compared with this version; default the latest
  std::optional<Level> level;      // for the verdict; default the subject's
};

// assess_impact: reads the compared version and the subject's level from `registry`, checks the
// proposed schema, and follows its changed fields through `graph` (see AssessImpact; the graph's
// read lock is held only for the walk, never during HTTP). kNotFound when the subject has no
// versions to compare with.
Result<Json> RunImpact(const ImpactRequest& request, const config::PlatformConfig& registry, net::HttpClient& http,
                       const graph::ContextGraph& graph, const ImpactOptions& options, TimePoint now);

}  // namespace dw::schema
