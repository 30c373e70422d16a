#include "mcp/session.h"

#include <algorithm>
#include <deque>
#include <map>
#include <mutex>
#include <set>

#include "base/clock.h"
#include "base/log.h"
#include "mcp/catalog_methods.h"
#include "mcp/client_requests.h"
#include "mcp/http_session_table.h"
#include "mcp/jsonrpc.h"
#include "mcp/tool_invocation.h"

namespace dw::mcp {
namespace {

const char* const kNotInitialized = "session not initialized: send initialize first";
constexpr size_t kMaxCancelledEarly = 256;

Json ServerCapabilities() {
  return Json{{"tools", {{"listChanged", false}}},
              {"resources", {{"subscribe", true}, {"listChanged", false}}},
              {"prompts", {{"listChanged", false}}},
              {"logging", Json::object()},
              {"completions", Json::object()}};
}

RpcError BadParams(std::string message) { return RpcError{kInvalidParams, std::move(message), nullptr}; }

// The session's state, apart from the Session class so the method handlers below can use it.
struct Core {
  Core(std::shared_ptr<const Catalog> c, ServerInfo i, Limits l)
      : catalog(std::move(c)), info(std::move(i)), limits(l) {}

  const std::shared_ptr<const Catalog> catalog;
  const ServerInfo info;
  const Limits limits;
  std::atomic<bool> initialized{false};
  std::atomic<int> log_level{static_cast<int>(LogLevel::kInfo)};
  ClientRequests client;

  mutable std::mutex mu;  // guards the fields below
  std::string protocol_version;
  Json client_capabilities;
  std::set<std::string> subscriptions;
  std::map<std::string, ToolInvocation*> in_flight;  // running tools/call by request id (as JSON text)
  // Ids cancelled before their call started (it may still wait in a transport's queue), oldest
  // first; bounded because a client may cancel requests that already finished.
  std::deque<std::string> cancelled_early;
  std::shared_ptr<MessageSink> session_sink;
  bool closed = false;
  CallerInfo caller;  // client from initialize; session label from construction
};

// The client's declared name as it may be recorded: printable ASCII, at most 100 characters (a
// client names itself; what it says is kept, not trusted, and never breaks a line of the log).
std::string DeclaredClientName(const Json& params) {
  auto info = params.find("clientInfo");
  if (info == params.end() || !info->is_object()) return "";
  auto name = info->find("name");
  if (name == info->end() || !name->is_string()) return "";
  std::string out;
  for (unsigned char c : name->get_ref<const std::string&>()) {
    if (out.size() == 100) break;
    out += c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '?';
  }
  return out;
}

RpcReply Initialize(Core& core, const Json& params) {
  auto requested = params.find("protocolVersion");
  if (requested == params.end() || !requested->is_string()) {
    return BadParams("params.protocolVersion must be a string");
  }
  const std::string& wanted = requested->get_ref<const std::string&>();
  std::string version = IsSupportedProtocolVersion(wanted) ? wanted : kSupportedProtocolVersions[0];
  {
    std::lock_guard lock(core.mu);
    if (core.initialized) return RpcError{kInvalidRequest, "session already initialized", nullptr};
    core.protocol_version = version;
    core.client_capabilities = params.value("capabilities", Json::object());
    core.caller.client = DeclaredClientName(params);
    core.initialized = true;
  }
  Json server_info{{"name", core.info.name}, {"version", core.info.version}};
  if (!core.info.title.empty()) server_info["title"] = core.info.title;
  Json result{{"protocolVersion", version},
              {"capabilities", ServerCapabilities()},
              {"serverInfo", std::move(server_info)}};
  if (!core.info.instructions.empty()) result["instructions"] = core.info.instructions;
  return result;
}

RpcReply SetLogLevel(Core& core, const Json& params) {
  auto level = params.find("level");
  std::optional<LogLevel> parsed;
  if (level != params.end() && level->is_string()) parsed = ParseLogLevel(level->get_ref<const std::string&>());
  if (!parsed) {
    return BadParams("params.level must be one of debug, info, notice, warning, error, critical, alert, emergency");
  }
  core.log_level = static_cast<int>(*parsed);
  return Json::object();
}

RpcReply Subscribe(Core& core, const Json& params, bool subscribe) {
  auto uri = params.find("uri");
  if (uri == params.end() || !uri->is_string()) return BadParams("params.uri must be a string");
  const std::string& u = uri->get_ref<const std::string&>();
  if (subscribe && !ResourceExists(*core.catalog, u)) {
    return RpcError{kResourceNotFound, "resource not found: " + u, Json{{"uri", u}}};
  }
  std::lock_guard lock(core.mu);
  if (subscribe) core.subscriptions.insert(u);
  else core.subscriptions.erase(u);
  return Json::object();
}

using Method = RpcReply (*)(Core&, const Json&);

// Requests answered from the catalog or the session state, without running a tool.
const std::map<std::string, Method, std::less<>>& Methods() {
  static const auto* methods = new std::map<std::string, Method, std::less<>>{
      {"tools/list", [](Core& c, const Json& p) { return ListTools(*c.catalog, p, c.limits.tools_page_size); }},
      {"resources/list", [](Core& c, const Json& p) { return ListResources(*c.catalog, p, c.limits.tools_page_size); }},
      {"resources/templates/list", [](Core& c, const Json& p) { return ListResourceTemplates(*c.catalog, p, c.limits.tools_page_size); }},
      {"prompts/list", [](Core& c, const Json& p) { return ListPrompts(*c.catalog, p, c.limits.tools_page_size); }},
      {"resources/read", [](Core& c, const Json& p) { return ReadResource(*c.catalog, p); }},
      {"resources/subscribe", [](Core& c, const Json& p) { return Subscribe(c, p, true); }},
      {"resources/unsubscribe", [](Core& c, const Json& p) { return Subscribe(c, p, false); }},
      {"prompts/get", [](Core& c, const Json& p) { return GetPrompt(*c.catalog, p); }},
      {"completion/complete", [](Core& c, const Json& p) { return Complete(*c.catalog, p); }},
      {"logging/setLevel", SetLogLevel},
  };
  return *methods;
}

void Reply(MessageSink& sink, const Json& id, RpcReply reply) {
  if (auto* error = std::get_if<RpcError>(&reply)) {
    sink.Send(MakeError(id, *error));
  } else {
    sink.Send(MakeResult(id, std::move(std::get<Json>(reply))));
  }
}

// Runs a tools/call to completion. The response is suppressed when the call was cancelled, as the
// spec asks: the client has already stopped waiting for it.
void CallTool(Core& core, const Json& id, const Json& params, MessageSink& sink) {
  auto name = params.find("name");
  if (name == params.end() || !name->is_string()) return Reply(sink, id, BadParams("params.name must be a string"));
  const ToolSpec* tool = core.catalog->FindTool(name->get_ref<const std::string&>());
  if (!tool) return Reply(sink, id, BadParams("unknown tool: " + name->get<std::string>()));

  Json progress_token;
  if (auto meta = params.find("_meta"); meta != params.end() && meta->is_object()) {
    if (auto t = meta->find("progressToken"); t != meta->end() && (t->is_string() || t->is_number_integer())) {
      progress_token = *t;
    }
  }
  static const Json kNoArguments = Json::object();
  auto args = params.find("arguments");
  const Json& arguments = args == params.end() || args->is_null() ? kNoArguments : *args;

  CallerInfo caller;
  {
    std::lock_guard lock(core.mu);
    caller = core.caller;
  }
  ToolInvocation call(sink, std::move(progress_token), core.log_level, core.client,
                      core.limits.client_request_timeout, std::move(caller));
  const std::string key = id.dump();
  {
    std::lock_guard lock(core.mu);
    if (core.in_flight.count(key)) {
      return Reply(sink, id, RpcError{kInvalidRequest, "request id " + key + " is already in use by a running call", nullptr});
    }
    auto early = std::find(core.cancelled_early.begin(), core.cancelled_early.end(), key);
    if (early != core.cancelled_early.end()) {
      core.cancelled_early.erase(early);
      return;  // cancelled while queued: nobody waits for it, so it does not run at all
    }
    if (core.closed) return;
    core.in_flight.emplace(key, &call);
  }
  Json result = RunTool(*tool, arguments, call);
  {
    std::lock_guard lock(core.mu);
    core.in_flight.erase(key);
  }
  if (call.Cancelled()) return;
  sink.Send(MakeResult(id, std::move(result)));
}

void HandleRequest(Core& core, const Json& id, const std::string& method, const Json& params,
                   MessageSink& sink) {
  if (method == "ping") return sink.Send(MakeResult(id, Json::object()));
  if (method == "initialize") return Reply(sink, id, Initialize(core, params));
  const auto& methods = Methods();
  auto m = methods.find(method);
  if (m == methods.end() && method != "tools/call") {
    return Reply(sink, id, RpcError{kMethodNotFound, "method not found: " + method, nullptr});
  }
  if (!core.initialized) return Reply(sink, id, RpcError{kInvalidRequest, kNotInitialized, nullptr});
  try {
    if (m == methods.end()) return CallTool(core, id, params, sink);
    Reply(sink, id, m->second(core, params));
  } catch (const std::exception& e) {
    // Catalog callbacks are ours, but a bug in one must not take the session down.
    spdlog::error("{} failed: {}", method, e.what());
    Reply(sink, id, RpcError{kInternalError, "internal error while handling " + method, nullptr});
  } catch (...) {
    spdlog::error("{} failed with a non-standard exception", method);
    Reply(sink, id, RpcError{kInternalError, "internal error while handling " + method, nullptr});
  }
}

void HandleNotification(Core& core, const std::string& method, const Json& params) {
  if (method != "notifications/cancelled") return;  // initialized, roots/list_changed, ...: nothing to do
  auto request_id = params.find("requestId");
  if (request_id == params.end() || !IsValidRequestId(*request_id)) return;
  std::string key = request_id->dump();
  std::lock_guard lock(core.mu);
  if (auto it = core.in_flight.find(key); it != core.in_flight.end()) return it->second->Cancel();
  core.cancelled_early.push_back(std::move(key));
  if (core.cancelled_early.size() > kMaxCancelledEarly) core.cancelled_early.pop_front();
}

}  // namespace

bool IsSupportedProtocolVersion(std::string_view v) {
  for (const char* s : kSupportedProtocolVersions) {
    if (v == s) return true;
  }
  return false;
}

struct Session::State {
  State(std::shared_ptr<const Catalog> catalog, ServerInfo info, Limits limits)
      : core(std::move(catalog), std::move(info), limits) {}
  Core core;
};

Session::Session(std::shared_ptr<const Catalog> catalog, ServerInfo info, Limits limits)
    : state_(std::make_unique<State>(std::move(catalog), std::move(info), limits)) {
  // A fresh random label (not the transport's session id); should the generator fail, the calls
  // are still told apart from other sessions' by the time the session began.
  Result<std::string> random = NewSessionId();
  state_->core.caller.session =
      random.ok() ? random->substr(0, 12) : "t" + std::to_string(ToUnixMillis(SystemClock().Now()));
}

Session::~Session() { Close(); }

void Session::Handle(const Json& message, MessageSink& sink) {
  Core& core = state_->core;
  if (!message.is_object()) {
    return sink.Send(MakeError(nullptr, RpcError{kInvalidRequest, "a message must be a JSON object", nullptr}));
  }
  auto id = message.find("id");
  const bool has_id = id != message.end();
  const Json reply_id = has_id && IsValidRequestId(*id) ? *id : Json(nullptr);
  auto invalid = [&](const char* why) {
    sink.Send(MakeError(reply_id, RpcError{kInvalidRequest, why, nullptr}));
  };
  auto version = message.find("jsonrpc");
  if (version == message.end() || *version != "2.0") return invalid("jsonrpc must be \"2.0\"");
  auto method = message.find("method");
  if (method == message.end()) {
    if (has_id && (message.contains("result") || message.contains("error"))) {
      if (!core.client.Deliver(message)) spdlog::debug("dropped a client response nobody waits for");
      return;
    }
    return invalid("a request needs a method");
  }
  if (!method->is_string()) return invalid("method must be a string");
  static const Json kNoParams = Json::object();
  auto params = message.find("params");
  if (params != message.end() && !params->is_object()) return invalid("params must be an object");
  const Json& p = params == message.end() ? kNoParams : *params;
  const std::string& name = method->get_ref<const std::string&>();
  if (!has_id) return HandleNotification(core, name, p);
  if (!IsValidRequestId(*id)) return invalid("id must be a string or an integer");
  HandleRequest(core, *id, name, p, sink);
}

void Session::SetSessionSink(std::shared_ptr<MessageSink> sink) {
  std::lock_guard lock(state_->core.mu);
  state_->core.session_sink = std::move(sink);
}

void Session::Close() {
  Core& core = state_->core;
  {
    std::lock_guard lock(core.mu);
    core.closed = true;
    for (auto& [_, call] : core.in_flight) call->Cancel();
  }
  core.client.Close();
}

void Session::NotifyResourceUpdated(const std::string& uri) {
  std::shared_ptr<MessageSink> sink;
  {
    std::lock_guard lock(state_->core.mu);
    if (!state_->core.subscriptions.count(uri)) return;
    sink = state_->core.session_sink;
  }
  if (sink) sink->Send(MakeNotification("notifications/resources/updated", {{"uri", uri}}));
}

bool Session::initialized() const { return state_->core.initialized; }

std::string Session::protocol_version() const {
  std::lock_guard lock(state_->core.mu);
  return state_->core.protocol_version;
}

}  // namespace dw::mcp
