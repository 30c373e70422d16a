// The MCP methods that only read the Catalog: listing, resources/read, prompts/get and
// completion/complete. Each takes the request's params and answers the result or the JSON-RPC
// error; catalog callbacks that throw are the caller's to catch.
#pragma once

#include "mcp/catalog.h"
#include "mcp/jsonrpc.h"

namespace dw::mcp {

// tools/list, resources/list, resources/templates/list, prompts/list: one page of at most
// `page_size` items after params.cursor; a cursor we did not issue is -32602.
RpcReply ListTools(const Catalog& catalog, const Json& params, size_t page_size);
RpcReply ListResources(const Catalog& catalog, const Json& params, size_t page_size);
RpcReply ListResourceTemplates(const Catalog& catalog, const Json& params, size_t page_size);
RpcReply ListPrompts(const Catalog& catalog, const Json& params, size_t page_size);

// resources/read of a static resource or a template match; -32002 with data {uri} when none.
RpcReply ReadResource(const Catalog& catalog, const Json& params);
// True iff `uri` names a static resource or matches a template.
bool ResourceExists(const Catalog& catalog, const std::string& uri);

// prompts/get; -32602 for an unknown prompt, a non-string argument or a missing required one.
RpcReply GetPrompt(const Catalog& catalog, const Json& params);

// completion/complete for ref/prompt (an argument) and ref/resource (a template variable);
// at most 100 values, with total and hasMore.
RpcReply Complete(const Catalog& catalog, const Json& params);

}  // namespace dw::mcp
