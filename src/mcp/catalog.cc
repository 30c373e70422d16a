#include "mcp/catalog.h"

#include <algorithm>
#include <array>

#include "mcp/uri_template.h"

namespace dw::mcp {
namespace {

constexpr std::array<const char*, 8> kLogLevelNames = {
    "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"};

template <typename Spec, typename Key>
const Spec* FindBy(const std::vector<Spec>& items, std::string_view wanted, Key key) {
  auto it = std::find_if(items.begin(), items.end(),
                         [&](const Spec& s) { return key(s) == wanted; });
  return it == items.end() ? nullptr : &*it;
}

Status AlreadyExists(std::string what) {
  return Status(StatusCode::kAlreadyExists, std::move(what) + " is already in the catalog");
}

}  // namespace

std::optional<LogLevel> ParseLogLevel(std::string_view s) {
  for (size_t i = 0; i < kLogLevelNames.size(); ++i) {
    if (s == kLogLevelNames[i]) return static_cast<LogLevel>(i);
  }
  return std::nullopt;
}

const char* LogLevelName(LogLevel level) { return kLogLevelNames[static_cast<size_t>(level)]; }

ToolResult ToolResult::Structured(Json value) {
  ToolResult r;
  // Clients that ignore structuredContent still see the data, as the spec recommends.
  r.content.push_back({{"type", "text"}, {"text", value.dump()}});
  r.structured = std::move(value);
  return r;
}

ToolResult ToolResult::Text(std::string text) {
  ToolResult r;
  r.content.push_back({{"type", "text"}, {"text", std::move(text)}});
  return r;
}

ToolResult ToolResult::Error(std::string message) {
  ToolResult r = Text(std::move(message));
  r.is_error = true;
  return r;
}

Status Catalog::AddTool(ToolSpec tool) {
  if (tool.name.empty() || !tool.handler) return InvalidArgument("a tool needs a name and a handler");
  if (!tool.input_schema.is_object()) {
    return InvalidArgument("tool " + tool.name + ": input_schema must be a JSON object");
  }
  if (FindTool(tool.name)) return AlreadyExists("tool " + tool.name);
  tools_.push_back(std::move(tool));
  return Status::Ok();
}

Status Catalog::AddResource(ResourceSpec resource) {
  if (resource.uri.empty() || !resource.read) return InvalidArgument("a resource needs a uri and a reader");
  if (FindResource(resource.uri)) return AlreadyExists("resource " + resource.uri);
  resources_.push_back(std::move(resource));
  return Status::Ok();
}

Status Catalog::AddResourceTemplate(ResourceTemplateSpec tmpl) {
  if (!tmpl.read) return InvalidArgument("resource template " + tmpl.uri_template + " needs a reader");
  DW_RETURN_IF_ERROR(CheckUriTemplate(tmpl.uri_template));
  if (FindResourceTemplate(tmpl.uri_template)) return AlreadyExists("resource template " + tmpl.uri_template);
  templates_.push_back(std::move(tmpl));
  return Status::Ok();
}

Status Catalog::AddPrompt(PromptSpec prompt) {
  if (prompt.name.empty() || !prompt.get) return InvalidArgument("a prompt needs a name and a getter");
  if (FindPrompt(prompt.name)) return AlreadyExists("prompt " + prompt.name);
  prompts_.push_back(std::move(prompt));
  return Status::Ok();
}

const ToolSpec* Catalog::FindTool(std::string_view name) const {
  return FindBy(tools_, name, [](const ToolSpec& t) -> const std::string& { return t.name; });
}

const ResourceSpec* Catalog::FindResource(std::string_view uri) const {
  return FindBy(resources_, uri, [](const ResourceSpec& r) -> const std::string& { return r.uri; });
}

const PromptSpec* Catalog::FindPrompt(std::string_view name) const {
  return FindBy(prompts_, name, [](const PromptSpec& p) -> const std::string& { return p.name; });
}

const ResourceTemplateSpec* Catalog::FindResourceTemplate(std::string_view uri_template) const {
  return FindBy(templates_, uri_template,
                [](const ResourceTemplateSpec& t) -> const std::string& { return t.uri_template; });
}

}  // namespace dw::mcp
