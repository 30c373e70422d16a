#include "agents/schema_tools.h"
#include "agents/workspace_guard.h"

#include "schema/schema.h"

namespace dw::agents {
namespace {

// The schema argument properties both tools share.
const char* kSchemaProperties = R"(
      "schema": {"type": "string", "minLength": 1, "maxLength": 4194304,
                 "description": "The new (proposed) schema, as text: Avro JSON or a JSON Schema document. check_compatibility with a subject and no schema judges the subject's latest version against the ones before it."},
      "schema_type": {"type": "string", "enum": ["AVRO", "JSON"], "default": "AVRO"},
      "level": {"type": "string", "enum": ["NONE", "BACKWARD", "BACKWARD_TRANSITIVE", "FORWARD", "FORWARD_TRANSITIVE", "FULL", "FULL_TRANSITIVE"],
                "description": "Compatibility level; default: the subject's in the registry (BACKWARD inline)."},
      "version": {"type": "integer", "minimum": 1, "maximum": 2147483647,
                  "description": "Compare with this version of the subject only; default the latest (all for transitive levels)."},
      "platform": {"type": "string", "minLength": 1, "maxLength": 100,
                   "description": "The schema-registry platform of the workspace; needed only when several are configured."})";

Json Schema(const std::string& extra_properties, const char* required) {
  return Json::parse(std::string(R"({"type": "object", "properties": {)") + kSchemaProperties + extra_properties +
                     R"(}, "required": )" + required + R"(, "additionalProperties": false})");
}

const char* kIncompatibilities = R"({"type": "array", "items": {"type": "object",
    "required": ["type", "path", "direction", "description", "message", "version"],
    "properties": {"type": {"type": "string"}, "path": {"type": "string"}, "direction": {"type": "string", "enum": ["backward", "forward"]},
                   "description": {"type": "string"}, "message": {"type": "string"}, "version": {"type": "integer"},
                   "field": {"type": "string"}, "additional_info": {"type": "string"}}}})";

Json VerdictSchema() {
  return Json::parse(std::string(R"({"type": "object",
    "required": ["compatible", "level", "schema_type", "checked_versions", "incompatibilities", "registry_messages", "notes"],
    "properties": {"compatible": {"type": "boolean"}, "level": {"type": "string"}, "schema_type": {"type": "string"},
                   "checked_versions": {"type": "array", "items": {"type": "integer"}},
                   "incompatibilities": )") + kIncompatibilities + R"(,
                   "registry_messages": {"type": "array", "items": {"type": "string"}},
                   "notes": {"type": "array", "items": {"type": "string"}},
                   "mode": {"type": "string", "enum": ["inline", "subject"]}, "subject": {"type": "string"},
                   "summary": {"type": "string"}}})");
}

// The arguments both tools read the same way: format, level and version (the input schema limits
// them to valid names; a bad one that reaches here anyway is refused with the registry's code).
struct SchemaArgs {
  schema::Format format = schema::Format::kAvro;
  std::optional<schema::Level> level;
  std::optional<int64_t> version;
};

Result<SchemaArgs> ReadSchemaArgs(const Json& args) {
  SchemaArgs out;
  auto format = schema::ParseFormat(args.value("schema_type", "AVRO"));
  if (!format.ok()) return format.status();
  out.format = *format;
  if (args.contains("level")) {
    auto level = schema::ParseLevel(args["level"].get<std::string>());
    if (!level.ok()) return level.status();
    out.level = *level;
  }
  if (args.contains("version")) out.version = args["version"].get<int64_t>();
  return out;
}

}  // namespace

mcp::ToolSpec CheckCompatibilityTool(const std::shared_ptr<workspace::Services>& services) {
  mcp::ToolSpec t;
  t.name = "check_compatibility";
  t.title = "Schema compatibility, as Schema Registry decides it";
  t.description =
      "Is a new Avro or JSON Schema compatible with a subject's history at a level (NONE, BACKWARD, FORWARD, FULL "
      "and their _TRANSITIVE forms)? Decided offline by the registry's own rules: against the subject's versions "
      "read from the Schema Registry (`subject`), or inline against `previous` (earlier schemas as text, oldest "
      "first; BACKWARD means the new schema reads data written with them). Each incompatibility comes with the "
      "registry's type (READER_FIELD_MISSING_DEFAULT_VALUE, TYPE_MISMATCH, ...), its path, the version it was "
      "found against and a sentence saying what to do. Read-only: nothing is registered.";
  t.input_schema = Schema(R"(,
      "subject": {"type": "string", "minLength": 1, "maxLength": 255, "description": "Registry subject, e.g. orders-value."},
      "previous": {"type": "array", "maxItems": 1000, "items": {"type": "string", "minLength": 1, "maxLength": 4194304},
                   "description": "Inline mode: earlier schemas as text, oldest first."})",
                          "[]");
  t.output_schema = VerdictSchema();
  (*t.output_schema)["properties"]["checked_schema_version"] = {{"type", "integer"}};
  t.annotations = {.read_only = true, .destructive = false, .idempotent = true, .open_world = true};
  t.handler = [services](const Json& args, mcp::ToolCall&) {
    if (!services->workspace_status().ok() && !args.contains("previous"))
      return mcp::ToolResult::Error(services->workspace_status().message());
    schema::CheckRequest req;
    req.subject = args.value("subject", "");
    req.schema = args.value("schema", "");
    auto common = ReadSchemaArgs(args);
    if (!common.ok()) return mcp::ToolResult::Error(common.status().message());
    req.format = common->format;
    req.level = common->level;
    req.version = common->version;
    if (req.schema.empty() && (args.contains("previous") || req.subject.empty()))
      return mcp::ToolResult::Error("give the new `schema` (with `previous` or a `subject`), or a `subject` alone to judge its latest version");
    if (args.contains("previous")) req.previous = args["previous"].get<std::vector<std::string>>();
    const config::PlatformConfig* registry = nullptr;
    if (!req.previous) {
      auto p = schema::RegistryPlatform(services->workspace().platforms, args.value("platform", ""));
      if (!p.ok()) return mcp::ToolResult::Error(p.status().message());
      registry = *p;
    }
    auto r = schema::RunCheck(req, registry, services->http());
    if (!r.ok()) return mcp::ToolResult::Error(r.status().message());
    return mcp::ToolResult::Structured(std::move(r).value());
  };
  return t;
}

mcp::ToolSpec AssessImpactTool(const std::shared_ptr<workspace::Services>& services) {
  mcp::ToolSpec t;
  t.name = "assess_impact";
  t.title = "What a schema change reaches";
  t.description =
      "Follows the fields a proposed schema removes, renames or retypes (compared with the subject's latest version, "
      "or `version`) through the context graph: the topic (TopicNameStrategy <topic>-value/-key, or a kafka asset "
      "tagged schema-subject:<subject>), the sinks and tables that land it, the dbt models and columns that read the "
      "fields (column lineage where the graph has it; column names or table lineage, marked coarser, where it does "
      "not), the consumers that act next and when, and the owners to involve; with the registry's verdict at the "
      "subject's level. Read-only.";
  t.input_schema = Schema(R"(,
      "subject": {"type": "string", "minLength": 1, "maxLength": 255, "description": "Registry subject, e.g. orders-value."})",
                          R"(["subject", "schema"])");
  Json asset_list = {{"type", "array"}, {"items", {{"type", "object"}, {"required", {"asset", "kind", "depth", "fields", "lineage", "coarser"}}}}};
  t.output_schema = {{"type", "object"},
                     {"required", {"subject", "topics", "compared_with_version", "verdict", "changed_fields", "fields_followed", "reached",
                                   "sinks", "tables", "models", "consumers", "owners", "not_affected", "truncated", "summary"}},
                     {"properties",
                      {{"subject", {{"type", "string"}}},
                       {"topics", {{"type", "array"}, {"items", {{"type", "string"}}}}},
                       {"compared_with_version", {{"type", "integer"}}},
                       {"verdict", VerdictSchema()},
                       {"changed_fields", {{"type", "array"}}},
                       {"fields_followed", {{"type", "array"}, {"items", {{"type", "string"}}}}},
                       {"reached", asset_list},
                       {"sinks", asset_list},
                       {"tables", asset_list},
                       {"models", asset_list},
                       {"consumers", asset_list},
                       {"owners", {{"type", "array"}}},
                       {"not_affected", {{"type", "array"}}},
                       {"table_lineage_only", {{"type", "array"}}},
                       {"truncated", {{"type", "boolean"}}},
                       {"summary", {{"type", "string"}}}}}};
  t.annotations = {.read_only = true, .destructive = false, .idempotent = true, .open_world = true};
  t.handler = WhenWorkspaceLoaded(services, [services](const Json& args, mcp::ToolCall&) {
    auto registry = schema::RegistryPlatform(services->workspace().platforms, args.value("platform", ""));
    if (!registry.ok()) return mcp::ToolResult::Error(registry.status().message());
    auto graph = services->graph();
    if (!graph.ok()) return mcp::ToolResult::Error("The context graph cannot be loaded: " + graph.status().message());
    schema::ImpactRequest req;
    req.subject = args["subject"].get<std::string>();
    req.schema = args["schema"].get<std::string>();
    auto common = ReadSchemaArgs(args);
    if (!common.ok()) return mcp::ToolResult::Error(common.status().message());
    req.format = common->format;
    req.level = common->level;
    req.version = common->version;
    schema::ImpactOptions options;
    options.timezone = services->workspace().timezone;
    auto r = schema::RunImpact(req, **registry, services->http(), **graph, options, services->clock().Now());
    if (!r.ok()) return mcp::ToolResult::Error(r.status().message());
    return mcp::ToolResult::Structured(std::move(r).value());
  });
  return t;
}

}  // namespace dw::agents
