// What an MCP server offers: tools, resources, resource templates and prompts, each with the
// handler that serves it. A Catalog is built once at start-up and read concurrently afterwards.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/status.h"

namespace dw::mcp {

// MCP log levels (RFC 5424 order, lowest first).
enum class LogLevel { kDebug, kInfo, kNotice, kWarning, kError, kCritical, kAlert, kEmergency };
// Parses "debug".."emergency"; nullopt for anything else.
std::optional<LogLevel> ParseLogLevel(std::string_view s);
const char* LogLevelName(LogLevel level);

// Who is calling a tool: the client as it named itself at initialize (clientInfo.name, printable
// and at most 100 characters; "" when it gave none) and this session's label, drawn at random when
// the session began. The label is not the transport's Mcp-Session-Id, which is a credential: it
// may be written to the state store and shown to people. Agents attribute every write to it.
struct CallerInfo {
  std::string client;
  std::string session;
};

// What a tool handler may do while it runs, besides computing its result.
// Every method is safe to call from the handler's thread.
class ToolCall {
 public:
  virtual ~ToolCall() = default;
  // Sends notifications/message if `level` is at or above the session's logging level.
  virtual void Log(LogLevel level, const Json& data, const std::string& logger = "") = 0;
  // Sends notifications/progress when the request carried _meta.progressToken; otherwise nothing.
  virtual void Progress(double progress, std::optional<double> total,
                        const std::string& message = "") = 0;
  // True once the client sent notifications/cancelled for this request (or the session ended).
  virtual bool Cancelled() const = 0;
  // Sends a server-to-client request (sampling/createMessage, elicitation/create, ...) and waits
  // for the client's answer. Returns the JSON-RPC `result`, or an error Status for a JSON-RPC error
  // answer, a timeout (kDeadlineExceeded) or cancellation (kCancelled).
  virtual Result<Json> Request(const std::string& method, const Json& params,
                               std::chrono::milliseconds timeout) = 0;
  // Who made this call (see CallerInfo).
  virtual CallerInfo Caller() const = 0;
};

// The outcome of a tool call. `content` is the MCP content array; `structured` becomes
// `structuredContent`. A failure the user can act on is a result with is_error, not a Status.
struct ToolResult {
  Json content = Json::array();
  std::optional<Json> structured;
  bool is_error = false;

  // A successful result whose structuredContent is `value` and whose text content is the same JSON.
  static ToolResult Structured(Json value);
  // A text-only successful result.
  static ToolResult Text(std::string text);
  // A failed result with one text item: a sentence a person can act on.
  static ToolResult Error(std::string message);
};

struct ToolAnnotations {
  bool read_only = true;
  bool destructive = false;
  bool idempotent = true;
  bool open_world = false;
};

struct ToolSpec {
  std::string name;
  std::string title;
  std::string description;
  Json input_schema;                  // JSON Schema (type: object)
  std::optional<Json> output_schema;  // when set, every non-error result carries matching structuredContent
  ToolAnnotations annotations;
  // The tool may send messages while it runs: log messages, progress, or requests to the client
  // through ToolCall::Request. Over Streamable HTTP such a call (and any call that carries a
  // progressToken) runs on the call pool so its messages reach the client as they happen; any
  // other call runs on the connection thread, saving two thread hand-offs, and a log message it
  // sends anyway arrives just before its result. A tool that calls ToolCall::Request MUST set this
  // (inline, the client could not see the request before the call ends).
  bool streams = false;
  // Runs the tool. `arguments` has already been validated against input_schema.
  std::function<ToolResult(const Json& arguments, ToolCall& call)> handler;
};

struct ResourceSpec {
  std::string uri;
  std::string name;
  std::string title;
  std::string description;
  std::string mime_type;
  // Returns the `contents` array of resources/read for `uri`.
  std::function<Result<Json>(const std::string& uri)> read;
};

struct ResourceTemplateSpec {
  std::string uri_template;  // RFC 6570 level 1, e.g. "test://template/{id}/data"
  std::string name;
  std::string title;
  std::string description;
  std::string mime_type;
  // Returns the `contents` array for `uri`, with the template's variables already extracted.
  std::function<Result<Json>(const std::string& uri, const std::map<std::string, std::string>& vars)>
      read;
  // Optional: completion values for template variable `name` given its partial `value`.
  std::function<std::vector<std::string>(const std::string& name, const std::string& value)> complete;
};

struct PromptArgument {
  std::string name;
  std::string description;
  bool required = false;
};

struct PromptSpec {
  std::string name;
  std::string title;
  std::string description;
  std::vector<PromptArgument> arguments;
  // Returns the prompts/get result ({description?, messages}); missing required arguments are
  // rejected before this is called.
  std::function<Result<Json>(const std::map<std::string, std::string>& arguments)> get;
  // Optional: completion values for argument `name` given its partial `value`.
  std::function<std::vector<std::string>(const std::string& name, const std::string& value)> complete;
};

// The server's offer. Names are unique within each kind; Add* return kAlreadyExists on a clash and
// kInvalidArgument for an item without a name or handler (or a template that is not level 1).
class Catalog {
 public:
  Status AddTool(ToolSpec tool);
  Status AddResource(ResourceSpec resource);
  Status AddResourceTemplate(ResourceTemplateSpec tmpl);
  Status AddPrompt(PromptSpec prompt);
  // Lets `edit` change each tool in place (a wrapper around its handler) while the catalog is
  // being built, before any session shares it.
  void EditTools(const std::function<void(ToolSpec&)>& edit) {
    for (ToolSpec& t : tools_) edit(t);
  }

  // In insertion order (tools/list pages follow this order).
  const std::vector<ToolSpec>& tools() const { return tools_; }
  const std::vector<ResourceSpec>& resources() const { return resources_; }
  const std::vector<ResourceTemplateSpec>& resource_templates() const { return templates_; }
  const std::vector<PromptSpec>& prompts() const { return prompts_; }

  const ToolSpec* FindTool(std::string_view name) const;
  const ResourceSpec* FindResource(std::string_view uri) const;
  const PromptSpec* FindPrompt(std::string_view name) const;
  // The template whose uri_template is exactly `uri_template` (not a URI match), or nullptr.
  const ResourceTemplateSpec* FindResourceTemplate(std::string_view uri_template) const;

 private:
  std::vector<ToolSpec> tools_;
  std::vector<ResourceSpec> resources_;
  std::vector<ResourceTemplateSpec> templates_;
  std::vector<PromptSpec> prompts_;
};

}  // namespace dw::mcp
