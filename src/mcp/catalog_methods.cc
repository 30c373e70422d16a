#include "mcp/catalog_methods.h"

#include <algorithm>

#include "mcp/list_cursor.h"
#include "mcp/uri_template.h"

namespace dw::mcp {
namespace {

constexpr size_t kMaxCompletionValues = 100;  // the spec's cap per response

RpcError BadParams(std::string message) { return RpcError{kInvalidParams, std::move(message), nullptr}; }

// Sets `key` in `out` when `value` is not empty: optional fields are omitted, not sent empty.
void SetIfNotEmpty(Json& out, const char* key, const std::string& value) {
  if (!value.empty()) out[key] = value;
}

// params[key] as a string, or nullptr when absent or of another type.
const std::string* StringParam(const Json& params, const char* key) {
  auto it = params.find(key);
  return it != params.end() && it->is_string() ? &it->get_ref<const std::string&>() : nullptr;
}

template <typename T, typename ToJson>
RpcReply Page(const std::vector<T>& items, const char* list, const char* key, const Json& params,
              size_t page_size, ToJson to_json) {
  size_t start = 0;
  if (auto c = params.find("cursor"); c != params.end() && !c->is_null()) {
    std::optional<size_t> offset;
    if (c->is_string()) offset = DecodeListCursor(list, c->get_ref<const std::string&>(), items.size());
    if (!offset) return BadParams("invalid cursor: pass the nextCursor of a previous " + std::string(list) + " page");
    start = *offset;
  }
  size_t end = std::min(items.size(), start + std::max<size_t>(page_size, 1));
  Json page = Json::array();
  for (size_t i = start; i < end; ++i) page.push_back(to_json(items[i]));
  Json result{{key, std::move(page)}};
  if (end < items.size()) result["nextCursor"] = EncodeListCursor(list, end);
  return result;
}

Json ToolJson(const ToolSpec& t) {
  Json j{{"name", t.name}, {"description", t.description}, {"inputSchema", t.input_schema}};
  SetIfNotEmpty(j, "title", t.title);
  if (t.output_schema) j["outputSchema"] = *t.output_schema;
  Json annotations{{"readOnlyHint", t.annotations.read_only},
                   {"destructiveHint", t.annotations.destructive},
                   {"idempotentHint", t.annotations.idempotent},
                   {"openWorldHint", t.annotations.open_world}};
  SetIfNotEmpty(annotations, "title", t.title);
  j["annotations"] = std::move(annotations);
  return j;
}

Json ResourceJson(const ResourceSpec& r) {
  Json j{{"uri", r.uri}, {"name", r.name}};
  SetIfNotEmpty(j, "title", r.title);
  SetIfNotEmpty(j, "description", r.description);
  SetIfNotEmpty(j, "mimeType", r.mime_type);
  return j;
}

Json TemplateJson(const ResourceTemplateSpec& t) {
  Json j{{"uriTemplate", t.uri_template}, {"name", t.name}};
  SetIfNotEmpty(j, "title", t.title);
  SetIfNotEmpty(j, "description", t.description);
  SetIfNotEmpty(j, "mimeType", t.mime_type);
  return j;
}

Json PromptJson(const PromptSpec& p) {
  Json j{{"name", p.name}};
  SetIfNotEmpty(j, "title", p.title);
  SetIfNotEmpty(j, "description", p.description);
  Json args = Json::array();
  for (const PromptArgument& a : p.arguments) {
    Json arg{{"name", a.name}, {"required", a.required}};
    SetIfNotEmpty(arg, "description", a.description);
    args.push_back(std::move(arg));
  }
  j["arguments"] = std::move(args);
  return j;
}

RpcError NotFound(const std::string& uri) {
  return RpcError{kResourceNotFound, "resource not found: " + uri, Json{{"uri", uri}}};
}

// Turns a catalog callback's failure into the JSON-RPC error the client should see.
RpcError FromStatus(const Status& s, const std::string& uri) {
  if (s.code() == StatusCode::kNotFound && !uri.empty()) return NotFound(uri);
  if (s.code() == StatusCode::kInvalidArgument || s.code() == StatusCode::kNotFound) return BadParams(s.message());
  return RpcError{kInternalError, s.message(), nullptr};
}

RpcReply ContentsReply(Result<Json> contents, const std::string& uri) {
  if (!contents.ok()) return FromStatus(contents.status(), uri);
  if (!contents->is_array()) return RpcError{kInternalError, "resource reader for " + uri + " returned no contents array", nullptr};
  return Json{{"contents", std::move(*contents)}};
}

}  // namespace

RpcReply ListTools(const Catalog& catalog, const Json& params, size_t page_size) {
  return Page(catalog.tools(), "tools", "tools", params, page_size, ToolJson);
}

RpcReply ListResources(const Catalog& catalog, const Json& params, size_t page_size) {
  return Page(catalog.resources(), "resources", "resources", params, page_size, ResourceJson);
}

RpcReply ListResourceTemplates(const Catalog& catalog, const Json& params, size_t page_size) {
  return Page(catalog.resource_templates(), "templates", "resourceTemplates", params, page_size,
              TemplateJson);
}

RpcReply ListPrompts(const Catalog& catalog, const Json& params, size_t page_size) {
  return Page(catalog.prompts(), "prompts", "prompts", params, page_size, PromptJson);
}

bool ResourceExists(const Catalog& catalog, const std::string& uri) {
  if (catalog.FindResource(uri)) return true;
  const auto& templates = catalog.resource_templates();
  return std::any_of(templates.begin(), templates.end(), [&](const ResourceTemplateSpec& t) {
    return MatchUriTemplate(t.uri_template, uri).has_value();
  });
}

RpcReply ReadResource(const Catalog& catalog, const Json& params) {
  const std::string* uri = StringParam(params, "uri");
  if (!uri) return BadParams("params.uri must be a string");
  if (const ResourceSpec* r = catalog.FindResource(*uri)) return ContentsReply(r->read(*uri), *uri);
  for (const ResourceTemplateSpec& t : catalog.resource_templates()) {
    if (auto vars = MatchUriTemplate(t.uri_template, *uri)) return ContentsReply(t.read(*uri, *vars), *uri);
  }
  return NotFound(*uri);
}

RpcReply GetPrompt(const Catalog& catalog, const Json& params) {
  const std::string* name = StringParam(params, "name");
  if (!name) return BadParams("params.name must be a string");
  const PromptSpec* prompt = catalog.FindPrompt(*name);
  if (!prompt) return BadParams("unknown prompt: " + *name);
  std::map<std::string, std::string> args;
  if (auto a = params.find("arguments"); a != params.end() && !a->is_null()) {
    if (!a->is_object()) return BadParams("params.arguments must be an object of strings");
    for (const auto& [key, value] : a->items()) {
      if (!value.is_string()) return BadParams("prompt argument " + key + " must be a string");
      args.emplace(key, value.get<std::string>());
    }
  }
  for (const PromptArgument& arg : prompt->arguments) {
    if (arg.required && !args.count(arg.name)) {
      return BadParams("prompt " + prompt->name + " needs argument " + arg.name);
    }
  }
  Result<Json> result = prompt->get(args);
  if (!result.ok()) return FromStatus(result.status(), "");
  if (!result->is_object()) return RpcError{kInternalError, "prompt " + prompt->name + " returned no result object", nullptr};
  return std::move(*result);
}

RpcReply Complete(const Catalog& catalog, const Json& params) {
  auto ref = params.find("ref");
  auto argument = params.find("argument");
  if (ref == params.end() || !ref->is_object()) return BadParams("params.ref must be an object");
  if (argument == params.end() || !argument->is_object()) return BadParams("params.argument must be an object");
  const std::string* arg_name = StringParam(*argument, "name");
  const std::string* arg_value = StringParam(*argument, "value");
  if (!arg_name || !arg_value) return BadParams("params.argument needs string fields name and value");
  const std::string* type = StringParam(*ref, "type");

  std::vector<std::string> values;
  if (type && *type == "ref/prompt") {
    const std::string* name = StringParam(*ref, "name");
    const PromptSpec* prompt = name ? catalog.FindPrompt(*name) : nullptr;
    if (!prompt) return BadParams("unknown prompt: " + (name ? *name : std::string("(no name)")));
    if (prompt->complete) values = prompt->complete(*arg_name, *arg_value);
  } else if (type && *type == "ref/resource") {
    const std::string* uri = StringParam(*ref, "uri");
    if (!uri) return BadParams("params.ref.uri must be a string");
    const ResourceTemplateSpec* tmpl = catalog.FindResourceTemplate(*uri);
    if (!tmpl && !catalog.FindResource(*uri)) return BadParams("unknown resource template: " + *uri);
    if (tmpl && tmpl->complete) values = tmpl->complete(*arg_name, *arg_value);
  } else {
    return BadParams("params.ref.type must be ref/prompt or ref/resource");
  }
  size_t total = values.size();
  if (values.size() > kMaxCompletionValues) values.resize(kMaxCompletionValues);
  return Json{{"completion", {{"values", std::move(values)}, {"total", total}, {"hasMore", total > kMaxCompletionValues}}}};
}

}  // namespace dw::mcp
