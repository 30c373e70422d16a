// Secrets never reach output. Every path by which text leaves the process redacts what it writes,
// so no message, value or future command can forget to: the logger's sink (base/log.cc), `dw`'s
// stdout and stderr (app/redacted_output.h), every MCP tool result, log notification and JSON-RPC
// error (mcp/tool_invocation.cc, mcp/jsonrpc.cc), and every refusal of an HTTP JSON route
// (mcp/http_transport.cc). Two nets catch a secret:
//   1. Connection strings are recognised wherever they appear, whether or not their password was
//      registered: a URL's `scheme://user:PASSWORD@host`, and `password=VALUE` in a URL query or a
//      libpq keyword/value string (`host=h password='p@ss w0rd!'`), quoted or not, of any length.
//   2. Secret values registered from the workspace (passwords, tokens, webhook URLs, values that
//      came from the environment into a secret key) are replaced wherever they appear, raw or as
//      JSON escapes them.
#pragma once

#include <string>

#include "base/json.h"

namespace dw {

// Registers a secret value so that RedactSecrets hides it, whatever its length. Values of 4
// characters or more are hidden wherever they occur; shorter ones (which would otherwise mask
// parts of unrelated words) where they stand as a whole token, between characters that are not
// letters or digits. Empty values are ignored. Thread-safe.
void RegisterSecret(std::string value);

// Registers what HTTP Basic authentication sends for `user` and `password` (the base64 of
// "user:password", as an Authorization header or a log of one carries it) as a secret, besides
// `password` itself: the encoded form holds the password whole. Nothing when `password` is empty.
void RegisterBasicCredential(const std::string& user, const std::string& password);

// Returns `text` with the password of every connection string in it (see 1. above) replaced by
// "***". Needs no registration: for a connection string that is printed or quoted by a driver.
std::string RedactConnectionPasswords(std::string text);

// Returns `text` with every connection-string password and every registered secret replaced by
// "***". Thread-safe.
std::string RedactSecrets(std::string text);

// Redacts, in place, every string value inside `value` (object keys are the product's own
// vocabulary and are left alone, so the document keeps its shape).
void RedactSecretsIn(Json& value);

}  // namespace dw
