// register_stream_schema (dw-connectors): drafts a registration as a proposal of the actions stage,
// and registers only an approved, unexpired one (actions/actions.h, RegisterStreamSchema).
#include "agents/connectors_tools.h"
#include "agents/workspace_guard.h"
#include "actions/actions.h"
#include "schema/schema.h"

namespace dw::agents {

mcp::ToolSpec RegisterStreamSchemaTool(const std::shared_ptr<workspace::Services>& services) {
  mcp::ToolSpec t;
  t.name = "register_stream_schema";
  t.title = "Register a stream schema, after a named approval";
  t.description =
      "Registers a schema version in the Schema Registry (POST /subjects/{subject}/versions), but only through an "
      "approved proposal. Without proposal_id: checks the schema against the subject (refusing what the registry "
      "would refuse), assesses its impact, drafts the registration as a proposal and sends it to the domain's "
      "approvers; nothing is written to the registry and the answer names the approval it waits for. With the "
      "proposal_id of an approved, unexpired proposal: registers the schema the proposal holds and records the "
      "registry's answer in a receipt. No agent can approve; a person decides through the actions stage.";
  t.input_schema = Json::parse(R"({
    "type": "object",
    "properties": {
      "subject": {"type": "string", "minLength": 1, "maxLength": 255, "description": "Registry subject, e.g. orders-value."},
      "schema": {"type": "string", "minLength": 1, "maxLength": 4194304, "description": "The schema to register, as text."},
      "schema_type": {"type": "string", "enum": ["AVRO", "JSON"], "default": "AVRO"},
      "proposal_id": {"type": "string", "minLength": 1, "maxLength": 300,
                      "description": "The approved proposal to carry out; omit to draft one."},
      "domain": {"type": "string", "minLength": 1, "maxLength": 100, "description": "Whose approvers decide; default the topic's domain."},
      "platform": {"type": "string", "minLength": 1, "maxLength": 100}
    },
    "additionalProperties": false
  })");
  t.output_schema = Json::parse(R"({
    "type": "object",
    "required": ["registered", "status", "subject", "proposal", "summary"],
    "properties": {
      "registered": {"type": "boolean"},
      "status": {"type": "string", "enum": ["awaiting_approval", "approved", "registered", "refused_by_registry"]},
      "subject": {"type": "string"}, "proposal": {"type": "object"}, "verdict": {"type": "object"},
      "impact": {"type": "object"}, "impact_error": {"type": "string"}, "registry_answer": {"type": "object"},
      "id": {"type": "integer"}, "version": {"type": "integer"}, "receipt": {"type": "object"}, "summary": {"type": "string"}
    }
  })");
  t.annotations = {.read_only = false, .destructive = true, .idempotent = false, .open_world = true};
  t.handler = WhenWorkspaceLoaded(services, [services](const Json& args, mcp::ToolCall&) {
    if (!args.contains("proposal_id") && (!args.contains("subject") || !args.contains("schema")))
      return mcp::ToolResult::Error("give `subject` and `schema` to draft a registration, or the `proposal_id` of an approved one");
    auto registry = schema::RegistryPlatform(services->workspace().platforms, args.value("platform", ""));
    if (!registry.ok()) return mcp::ToolResult::Error(registry.status().message());
    auto store = services->state();
    if (!store.ok()) return mcp::ToolResult::Error("The state store cannot be opened: " + store.status().message());
    auto format = schema::ParseFormat(args.value("schema_type", "AVRO"));
    if (!format.ok()) return mcp::ToolResult::Error(format.status().message());
    auto graph = services->graph();
    actions::RegisterSchemaRequest req;
    req.subject = args.value("subject", "");
    req.schema = args.value("schema", "");
    req.format = *format;
    req.proposal_id = args.value("proposal_id", "");
    req.domain = args.value("domain", "");
    auto r = actions::RegisterStreamSchema(req, **store, services->workspace(), **registry, services->http(),
                                          graph.ok() ? *graph : nullptr, services->clock());
    if (!r.ok()) return mcp::ToolResult::Error(r.status().message());
    return mcp::ToolResult::Structured(std::move(r).value());
  });
  return t;
}

}  // namespace dw::agents
