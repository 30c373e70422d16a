// One MCP session: the protocol state machine (initialize, capabilities, logging level,
// subscriptions, in-flight requests) over a Catalog, independent of the transport.
//
// Threading contract (both transports rely on it):
//  - Handle() may be called concurrently from several threads for the same session. A tools/call
//    may block inside its handler (waiting for the client's answer to a sampling request) while
//    another thread delivers that answer through Handle().
//  - Everything the server sends because of one inbound request (notifications/message,
//    notifications/progress, server-to-client requests, and finally the response) is delivered to
//    the MessageSink passed with that request, in order, before Handle() returns. On Streamable HTTP
//    that sink is the POST's SSE stream; on stdio it is stdout.
//  - Messages not tied to a request (notifications/resources/updated) go to the session sink set
//    with SetSessionSink, if any; otherwise they are dropped.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/json.h"
#include "mcp/catalog.h"

namespace dw::mcp {

// Receives messages the server sends. Send must be thread-safe.
class MessageSink {
 public:
  virtual ~MessageSink() = default;
  virtual void Send(const Json& message) = 0;
};

struct ServerInfo {
  std::string name;      // e.g. "dw-incidents"
  std::string title;
  std::string version;   // DW_VERSION
  std::string instructions;
};

struct Limits {
  size_t max_message_bytes = 4 * 1024 * 1024;  // 4 MiB
  int max_json_depth = 64;
  size_t tools_page_size = 50;                   // tools/list (and other lists) page size
  std::chrono::milliseconds client_request_timeout{60000};
};

// The protocol revisions we speak, newest first.
inline constexpr const char* kSupportedProtocolVersions[] = {"2025-11-25", "2025-06-18",
                                                             "2025-03-26"};
bool IsSupportedProtocolVersion(std::string_view v);

// Parses one raw inbound message. On success returns the JSON value; on failure returns the
// JSON-RPC error response to send (-32700 for bad JSON or invalid UTF-8, -32600 for a batch array,
// an oversized message or nesting deeper than the limit), with id null.
struct ParsedMessage {
  bool ok = false;
  Json message;  // when ok
  Json error;    // when !ok: the complete error response
};
ParsedMessage ParseMessage(std::string_view raw, const Limits& limits);

class Session {
 public:
  Session(std::shared_ptr<const Catalog> catalog, ServerInfo info, Limits limits = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Handles one inbound message (a request, a notification, or a response to a server-to-client
  // request) as described in the threading contract above. Invalid shapes get the JSON-RPC error
  // they deserve; a request before initialize gets an immediate error (never silence).
  void Handle(const Json& message, MessageSink& sink);

  // Sink for messages not tied to a request; nullptr to clear.
  void SetSessionSink(std::shared_ptr<MessageSink> sink);

  // Ends the session: in-flight tool calls see Cancelled(), pending client requests fail.
  void Close();

  // Sends notifications/resources/updated for `uri` to the session sink when the client
  // subscribed to it; otherwise does nothing.
  void NotifyResourceUpdated(const std::string& uri);

  bool initialized() const;
  // The negotiated revision, empty before initialize.
  std::string protocol_version() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace dw::mcp
