#include "mcp/session.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "mcp/jsonrpc.h"
#include "recording_sink.h"

namespace dw::mcp {
namespace {

using namespace std::chrono_literals;

// A tool that waits (at most 5 s) until its call is cancelled; `started` tells the test it runs.
std::atomic<bool> g_slow_started{false};
std::atomic<bool> g_slow_saw_cancel{false};

ToolSpec MakeTool(std::string name, std::function<ToolResult(const Json&, ToolCall&)> handler,
                  Json input_schema = {{"type", "object"}}) {
  ToolSpec t;
  t.name = std::move(name);
  t.description = "test tool " + t.name;
  t.input_schema = std::move(input_schema);
  t.handler = std::move(handler);
  return t;
}

std::shared_ptr<Catalog> TestCatalog() {
  auto catalog = std::make_shared<Catalog>();
  ToolSpec check = MakeTool(
      "run_check",
      [](const Json& args, ToolCall&) {
        return ToolResult::Structured({{"table", args["table"]}, {"passed", true}});
      },
      Json::parse(R"({"type":"object","properties":{"table":{"type":"string"},
                      "limit":{"type":"integer","minimum":1}},"required":["table"],
                      "additionalProperties":false})"));
  check.title = "Run a check";
  check.output_schema = Json::parse(R"({"type":"object","properties":{"table":{"type":"string"},
      "passed":{"type":"boolean"}},"required":["table","passed"]})");
  check.annotations = {true, false, true, false};
  EXPECT_TRUE(catalog->AddTool(check).ok());

  ToolSpec wrong = MakeTool("wrong_shape", [](const Json&, ToolCall&) { return ToolResult::Structured({{"passed", "yes"}}); });
  wrong.output_schema = check.output_schema;
  EXPECT_TRUE(catalog->AddTool(wrong).ok());
  ToolSpec unstructured = MakeTool("no_structured", [](const Json&, ToolCall&) { return ToolResult::Text("hi"); });
  unstructured.output_schema = check.output_schema;
  EXPECT_TRUE(catalog->AddTool(unstructured).ok());

  EXPECT_TRUE(catalog->AddTool(MakeTool("thrower", [](const Json&, ToolCall&) -> ToolResult {
    throw std::runtime_error("boom");
  })).ok());
  EXPECT_TRUE(catalog->AddTool(MakeTool("slow", [](const Json&, ToolCall& call) {
    g_slow_started = true;
    for (int i = 0; i < 500 && !call.Cancelled(); ++i) std::this_thread::sleep_for(10ms);
    g_slow_saw_cancel = call.Cancelled();
    return ToolResult::Text("finished");
  })).ok());
  EXPECT_TRUE(catalog->AddTool(MakeTool("progress", [](const Json&, ToolCall& call) {
    call.Progress(1, 2, "half");
    call.Progress(2, std::nullopt);
    return ToolResult::Text("done");
  })).ok());
  EXPECT_TRUE(catalog->AddTool(MakeTool("logs", [](const Json&, ToolCall& call) {
    call.Log(LogLevel::kDebug, "debug line");
    call.Log(LogLevel::kInfo, "info line");
    call.Log(LogLevel::kError, {{"detail", "error line"}}, "checker");
    return ToolResult::Text("logged");
  })).ok());
  EXPECT_TRUE(catalog->AddTool(MakeTool("ask", [](const Json& args, ToolCall& call) {
    auto timeout = std::chrono::milliseconds(args.value("timeout_ms", 5000));
    Result<Json> answer = call.Request("elicitation/create", {{"message", "name?"}}, timeout);
    if (!answer.ok()) return ToolResult::Error(std::string(StatusCodeName(answer.status().code())) + ": " + answer.status().message());
    return ToolResult::Text("answer: " + answer->dump());
  })).ok());

  EXPECT_TRUE(catalog->AddResource({"test://a", "a", "A", "first", "text/plain", [](const std::string& uri) -> Result<Json> {
    return Json::array({{{"uri", uri}, {"text", "A"}}});
  }}).ok());
  ResourceTemplateSpec tmpl{"table://{warehouse}/{name}", "table", "Table", "a table", "application/json",
                            [](const std::string& uri, const std::map<std::string, std::string>& v) -> Result<Json> {
                              if (v.at("name") == "missing") return NotFound("no such table");
                              return Json::array({{{"uri", uri}, {"text", v.at("warehouse") + "/" + v.at("name")}}});
                            },
                            [](const std::string& var, const std::string& value) {
                              std::vector<std::string> out;
                              for (int i = 0; i < 150; ++i) out.push_back(var + value + std::to_string(i));
                              return out;
                            }};
  EXPECT_TRUE(catalog->AddResourceTemplate(tmpl).ok());
  PromptSpec prompt{"triage", "Triage", "triage an incident", {{"incident", "the id", true}, {"tone", "", false}},
                    [](const std::map<std::string, std::string>& a) -> Result<Json> {
                      return Json{{"messages", Json::array({{{"role", "user"}, {"content", {{"type", "text"}, {"text", "triage " + a.at("incident")}}}}})}};
                    },
                    [](const std::string& name, const std::string& value) {
                      return name == "incident" ? std::vector<std::string>{value + "-1", value + "-2"} : std::vector<std::string>{};
                    }};
  EXPECT_TRUE(catalog->AddPrompt(prompt).ok());
  return catalog;
}

class McpSessionTest : public ::testing::Test {
 protected:
  McpSessionTest() : session_(catalog_, ServerInfo{"dw-test", "Test", "1.2.3", "Use the tools."}, SmallPages()) {}

  static Limits SmallPages() {
    Limits l;
    l.tools_page_size = 3;
    return l;
  }

  // Sends a request and returns the response with its id.
  Json Call(const std::string& method, const Json& params = Json::object()) {
    Json id = next_id_++;
    session_.Handle({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}, sink_);
    auto r = sink_.WaitFor([&](const Json& m) { return m.value("id", Json()) == id && !m.contains("method"); }, 0ms);
    EXPECT_TRUE(r) << "no response to " << method;
    return r.value_or(Json::object());
  }

  Json Initialize(const std::string& version = "2025-11-25") {
    Json r = Call("initialize", {{"protocolVersion", version}, {"capabilities", Json::object()},
                                 {"clientInfo", {{"name", "t"}, {"version", "1"}}}});
    session_.Handle({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}, sink_);
    return r;
  }

  Json CallTool(const std::string& name, const Json& arguments = Json::object()) {
    return Call("tools/call", {{"name", name}, {"arguments", arguments}})["result"];
  }

  static int Code(const Json& response) { return response["error"]["code"].get<int>(); }

  std::shared_ptr<Catalog> catalog_ = TestCatalog();
  Session session_;
  RecordingSink sink_;
  int next_id_ = 1;
};

TEST_F(McpSessionTest, NegotiatesEverySupportedVersion) {
  for (const char* version : kSupportedProtocolVersions) {
    Session s(catalog_, ServerInfo{"n", "", "1", ""});
    RecordingSink sink;
    s.Handle({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"}, {"params", {{"protocolVersion", version}}}}, sink);
    ASSERT_EQ(sink.messages().size(), 1u);
    EXPECT_EQ(sink.messages()[0]["result"]["protocolVersion"], version);
    EXPECT_EQ(s.protocol_version(), version);
    EXPECT_TRUE(s.initialized());
  }
}

TEST_F(McpSessionTest, AnswersOurLatestToAnUnsupportedVersion) {
  EXPECT_EQ(Initialize("1999-01-01")["result"]["protocolVersion"], "2025-11-25");
  EXPECT_EQ(Initialize("2025-06-18")["error"]["code"], kInvalidRequest);  // a session initializes once
}

TEST_F(McpSessionTest, InitializeDescribesTheServer) {
  Json result = Initialize()["result"];
  EXPECT_EQ(result["capabilities"], Json::parse(R"({"tools":{"listChanged":false},
      "resources":{"subscribe":true,"listChanged":false},"prompts":{"listChanged":false},
      "logging":{},"completions":{}})"));
  EXPECT_EQ(result["serverInfo"], Json::parse(R"({"name":"dw-test","title":"Test","version":"1.2.3"})"));
  EXPECT_EQ(result["instructions"], "Use the tools.");
  EXPECT_EQ(Code(Call("initialize", {{"protocolVersion", 20251125}})), kInvalidParams);
}

TEST_F(McpSessionTest, RefusesRequestsBeforeInitialize) {
  Json early = Call("tools/list");
  EXPECT_EQ(Code(early), kInvalidRequest);
  EXPECT_EQ(early["error"]["message"], "session not initialized: send initialize first");
  EXPECT_EQ(Code(Call("server/discover")), kMethodNotFound);
  EXPECT_EQ(Call("ping")["result"], Json::object());
  EXPECT_FALSE(session_.initialized());
}

TEST_F(McpSessionTest, UnknownMethodsAndNotifications) {
  Initialize();
  EXPECT_EQ(Code(Call("tools/destroy")), kMethodNotFound);
  size_t before = sink_.messages().size();
  session_.Handle({{"jsonrpc", "2.0"}, {"method", "notifications/whatever"}}, sink_);
  session_.Handle({{"jsonrpc", "2.0"}, {"method", "tools/list"}}, sink_);  // a notification: no answer
  EXPECT_EQ(sink_.messages().size(), before);
}

TEST_F(McpSessionTest, PagesToolsWithOpaqueCursors) {
  Initialize();
  std::vector<std::string> names;
  Json params = Json::object();
  int pages = 0;
  for (;; ++pages) {
    Json result = Call("tools/list", params)["result"];
    for (const Json& t : result["tools"]) names.push_back(t["name"]);
    if (!result.contains("nextCursor")) break;
    params = {{"cursor", result["nextCursor"]}};
  }
  EXPECT_EQ(pages, 2);  // 8 tools, 3 per page
  std::vector<std::string> expected;
  for (const ToolSpec& t : catalog_->tools()) expected.push_back(t.name);
  EXPECT_EQ(names, expected);

  EXPECT_EQ(Code(Call("tools/list", {{"cursor", "not-a-cursor"}})), kInvalidParams);
  EXPECT_EQ(Code(Call("tools/list", {{"cursor", 3}})), kInvalidParams);
  Json tools_cursor = Call("tools/list")["result"]["nextCursor"];
  EXPECT_EQ(Code(Call("prompts/list", {{"cursor", tools_cursor}})), kInvalidParams);
}

TEST_F(McpSessionTest, ListsToolsWithSchemasAndAnnotations) {
  Initialize();
  Json tool = Call("tools/list")["result"]["tools"][0];
  EXPECT_EQ(tool["name"], "run_check");
  EXPECT_EQ(tool["title"], "Run a check");
  EXPECT_EQ(tool["inputSchema"]["required"], Json::array({"table"}));
  EXPECT_EQ(tool["outputSchema"]["type"], "object");
  EXPECT_EQ(tool["annotations"], Json::parse(R"({"title":"Run a check","readOnlyHint":true,
      "destructiveHint":false,"idempotentHint":true,"openWorldHint":false})"));
}

TEST_F(McpSessionTest, CallsAToolWithStructuredContent) {
  Initialize();
  Json result = CallTool("run_check", {{"table", "loyalty.balances"}});
  EXPECT_EQ(result["structuredContent"], Json::parse(R"({"table":"loyalty.balances","passed":true})"));
  EXPECT_EQ(Json::parse(result["content"][0]["text"].get<std::string>()), result["structuredContent"]);
  EXPECT_FALSE(result.contains("isError"));
}

TEST_F(McpSessionTest, UnknownToolIsAnInvalidParamsError) {
  Initialize();
  EXPECT_EQ(Code(Call("tools/call", {{"name", "nope"}})), kInvalidParams);
  EXPECT_EQ(Code(Call("tools/call", {{"name", 7}})), kInvalidParams);
}

TEST_F(McpSessionTest, InvalidArgumentsAreToolErrorsNamingTheField) {
  Initialize();
  struct Case {
    Json arguments;
    std::string text;
  } cases[] = {
      {{{"table", 5}}, "Invalid arguments: arguments.table: expected string, got number"},
      {Json::object(), "Invalid arguments: arguments.table: required field is missing"},
      {{{"table", "t"}, {"limit", 0}}, "Invalid arguments: arguments.limit: must be >= 1"},
      {{{"table", "t"}, {"extra", 1}}, "Invalid arguments: arguments.extra: unknown field (allowed: limit, table)"},
      {"a string", "Invalid arguments: arguments: expected object, got string"},
  };
  for (const Case& c : cases) {
    Json result = CallTool("run_check", c.arguments);
    EXPECT_EQ(result["isError"], true);
    EXPECT_EQ(result["content"][0]["text"], c.text);
  }
}

TEST_F(McpSessionTest, EnforcesTheOutputSchema) {
  Initialize();
  Json wrong = CallTool("wrong_shape");
  EXPECT_EQ(wrong["isError"], true);
  EXPECT_FALSE(wrong.contains("structuredContent"));
  EXPECT_NE(wrong["content"][0]["text"].get<std::string>().find("Internal error: the tool wrong_shape"), std::string::npos);
  EXPECT_NE(wrong["content"][0]["text"].get<std::string>().find("structuredContent.table: required field is missing"), std::string::npos);
  Json none = CallTool("no_structured");
  EXPECT_EQ(none["isError"], true);
  EXPECT_NE(none["content"][0]["text"].get<std::string>().find("no structuredContent"), std::string::npos);
}

TEST_F(McpSessionTest, AThrowingHandlerBecomesAToolError) {
  Initialize();
  Json result = CallTool("thrower");
  EXPECT_EQ(result["isError"], true);
  EXPECT_EQ(result["content"][0]["text"], "The tool thrower failed unexpectedly: boom");
}

TEST_F(McpSessionTest, CancellationSuppressesTheResponse) {
  Initialize();
  g_slow_started = false;
  g_slow_saw_cancel = false;
  std::thread call([&] {
    session_.Handle({{"jsonrpc", "2.0"}, {"id", "slow-1"}, {"method", "tools/call"}, {"params", {{"name", "slow"}}}}, sink_);
  });
  while (!g_slow_started) std::this_thread::sleep_for(1ms);
  session_.Handle({{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"},
                   {"params", {{"requestId", "slow-1"}, {"reason", "user"}}}}, sink_);
  call.join();
  EXPECT_TRUE(g_slow_saw_cancel);
  EXPECT_FALSE(sink_.WaitFor([](const Json& m) { return m.value("id", Json()) == "slow-1"; }, 0ms));
}

TEST_F(McpSessionTest, ACallCancelledBeforeItStartsNeverRuns) {
  Initialize();
  g_slow_started = false;
  session_.Handle({{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", "queued"}}}}, sink_);
  RecordingSink sink;
  session_.Handle({{"jsonrpc", "2.0"}, {"id", "queued"}, {"method", "tools/call"}, {"params", {{"name", "slow"}}}}, sink);
  EXPECT_FALSE(g_slow_started);
  EXPECT_TRUE(sink.messages().empty());
}

TEST_F(McpSessionTest, CloseCancelsRunningCalls) {
  Initialize();
  g_slow_started = false;
  std::thread call([&] {
    session_.Handle({{"jsonrpc", "2.0"}, {"id", 99}, {"method", "tools/call"}, {"params", {{"name", "slow"}}}}, sink_);
  });
  while (!g_slow_started) std::this_thread::sleep_for(1ms);
  auto start = std::chrono::steady_clock::now();
  session_.Close();
  call.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  EXPECT_TRUE(g_slow_saw_cancel);
}

TEST_F(McpSessionTest, SendsProgressOnlyWithAToken) {
  Initialize();
  for (Json token : {Json("tok-1"), Json(42)}) {
    RecordingSink sink;
    session_.Handle({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "tools/call"},
                     {"params", {{"name", "progress"}, {"_meta", {{"progressToken", token}}}}}}, sink);
    std::vector<Json> progress = sink.WithMethod("notifications/progress");
    ASSERT_EQ(progress.size(), 2u);
    EXPECT_EQ(progress[0]["params"], Json({{"progressToken", token}, {"progress", 1.0}, {"total", 2.0}, {"message", "half"}}));
    EXPECT_EQ(progress[1]["params"], Json({{"progressToken", token}, {"progress", 2.0}}));
    EXPECT_EQ(sink.messages().back()["id"], 1);  // the response comes last
  }
  RecordingSink sink;
  session_.Handle({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/call"}, {"params", {{"name", "progress"}}}}, sink);
  EXPECT_TRUE(sink.WithMethod("notifications/progress").empty());
}

TEST_F(McpSessionTest, LogLevelFiltersToolLogs) {
  Initialize();
  CallTool("logs");
  std::vector<Json> logs = sink_.WithMethod("notifications/message");
  ASSERT_EQ(logs.size(), 2u);  // info is the default level: debug is dropped
  EXPECT_EQ(logs[0]["params"], Json({{"level", "info"}, {"data", "info line"}}));
  EXPECT_EQ(logs[1]["params"], Json({{"level", "error"}, {"data", {{"detail", "error line"}}}, {"logger", "checker"}}));

  EXPECT_EQ(Call("logging/setLevel", {{"level", "error"}})["result"], Json::object());
  RecordingSink quiet;
  session_.Handle({{"jsonrpc", "2.0"}, {"id", "q"}, {"method", "tools/call"}, {"params", {{"name", "logs"}}}}, quiet);
  ASSERT_EQ(quiet.WithMethod("notifications/message").size(), 1u);

  EXPECT_EQ(Call("logging/setLevel", {{"level", "debug"}})["result"], Json::object());
  RecordingSink loud;
  session_.Handle({{"jsonrpc", "2.0"}, {"id", "l"}, {"method", "tools/call"}, {"params", {{"name", "logs"}}}}, loud);
  EXPECT_EQ(loud.WithMethod("notifications/message").size(), 3u);

  EXPECT_EQ(Code(Call("logging/setLevel", {{"level", "verbose"}})), kInvalidParams);
  EXPECT_EQ(Code(Call("logging/setLevel")), kInvalidParams);
}

// The tool waits on one thread while another thread delivers the client's answer.
TEST_F(McpSessionTest, RoutesClientAnswersToAWaitingTool) {
  Initialize();
  for (bool error_answer : {false, true}) {
    RecordingSink sink;
    std::thread call([&] {
      session_.Handle({{"jsonrpc", "2.0"}, {"id", "ask"}, {"method", "tools/call"}, {"params", {{"name", "ask"}}}}, sink);
    });
    auto request = sink.WaitFor([](const Json& m) { return m.value("method", "") == "elicitation/create"; });
    ASSERT_TRUE(request);
    EXPECT_EQ((*request)["params"]["message"], "name?");
    Json answer = error_answer
        ? Json{{"jsonrpc", "2.0"}, {"id", (*request)["id"]}, {"error", {{"code", -32601}, {"message", "no elicitation"}}}}
        : Json{{"jsonrpc", "2.0"}, {"id", (*request)["id"]}, {"result", {{"action", "accept"}, {"content", {{"name", "Ana"}}}}}};
    session_.Handle(answer, sink_);  // answers may arrive on any sink
    call.join();
    Json response = sink.messages().back();
    if (error_answer) {
      EXPECT_EQ(response["result"]["isError"], true);
      EXPECT_EQ(response["result"]["content"][0]["text"],
                "unavailable: the client answered elicitation/create with error -32601: no elicitation");
    } else {
      EXPECT_EQ(response["result"]["content"][0]["text"], R"(answer: {"action":"accept","content":{"name":"Ana"}})");
    }
  }
}

TEST_F(McpSessionTest, AClientRequestTimesOutAndIsCancelled) {
  Initialize();
  RecordingSink sink;
  session_.Handle({{"jsonrpc", "2.0"}, {"id", "t"}, {"method", "tools/call"},
                   {"params", {{"name", "ask"}, {"arguments", {{"timeout_ms", 20}}}}}}, sink);
  std::vector<Json> cancelled = sink.WithMethod("notifications/cancelled");
  ASSERT_EQ(cancelled.size(), 1u);
  EXPECT_EQ(cancelled[0]["params"]["reason"], "timed out");
  EXPECT_NE(sink.messages().back()["result"]["content"][0]["text"].get<std::string>().find("deadline_exceeded"), std::string::npos);
  // A late answer is dropped without a reply.
  size_t before = sink_.messages().size();
  session_.Handle({{"jsonrpc", "2.0"}, {"id", sink.WithMethod("elicitation/create")[0]["id"]}, {"result", Json::object()}}, sink_);
  EXPECT_EQ(sink_.messages().size(), before);
}

TEST_F(McpSessionTest, RefusesADuplicateInFlightId) {
  Initialize();
  g_slow_started = false;
  std::thread call([&] {
    session_.Handle({{"jsonrpc", "2.0"}, {"id", 7}, {"method", "tools/call"}, {"params", {{"name", "slow"}}}}, sink_);
  });
  while (!g_slow_started) std::this_thread::sleep_for(1ms);
  RecordingSink sink;
  session_.Handle({{"jsonrpc", "2.0"}, {"id", 7}, {"method", "tools/call"}, {"params", {{"name", "progress"}}}}, sink);
  EXPECT_EQ(sink.messages().at(0)["error"]["code"], kInvalidRequest);
  session_.Handle({{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 7}}}}, sink_);
  call.join();
}

TEST_F(McpSessionTest, ReadsResourcesAndTemplates) {
  Initialize();
  Json list = Call("resources/list")["result"];
  EXPECT_EQ(list["resources"], Json::parse(R"([{"uri":"test://a","name":"a","title":"A","description":"first","mimeType":"text/plain"}])"));
  Json templates = Call("resources/templates/list")["result"];
  EXPECT_EQ(templates["resourceTemplates"][0]["uriTemplate"], "table://{warehouse}/{name}");
  EXPECT_EQ(Call("resources/read", {{"uri", "test://a"}})["result"]["contents"][0]["text"], "A");
  EXPECT_EQ(Call("resources/read", {{"uri", "table://main/balances"}})["result"]["contents"][0]["text"], "main/balances");

  Json missing = Call("resources/read", {{"uri", "test://nope"}});
  EXPECT_EQ(Code(missing), kResourceNotFound);
  EXPECT_EQ(missing["error"]["data"], Json({{"uri", "test://nope"}}));
  EXPECT_EQ(Code(Call("resources/read", {{"uri", "table://main/missing"}})), kResourceNotFound);
  EXPECT_EQ(Code(Call("resources/read", {{"uri", 1}})), kInvalidParams);
}

TEST_F(McpSessionTest, SubscriptionsGateResourceUpdates) {
  Initialize();
  auto updates = std::make_shared<RecordingSink>();
  session_.SetSessionSink(updates);
  session_.NotifyResourceUpdated("test://a");
  EXPECT_TRUE(updates->messages().empty());
  EXPECT_EQ(Call("resources/subscribe", {{"uri", "test://a"}})["result"], Json::object());
  session_.NotifyResourceUpdated("test://a");
  ASSERT_EQ(updates->messages().size(), 1u);
  EXPECT_EQ(updates->messages()[0], Json::parse(R"({"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"test://a"}})"));
  EXPECT_EQ(Call("resources/unsubscribe", {{"uri", "test://a"}})["result"], Json::object());
  session_.NotifyResourceUpdated("test://a");
  EXPECT_EQ(updates->messages().size(), 1u);
  EXPECT_EQ(Code(Call("resources/subscribe", {{"uri", "test://nope"}})), kResourceNotFound);
}

TEST_F(McpSessionTest, GetsPrompts) {
  Initialize();
  Json list = Call("prompts/list")["result"]["prompts"];
  EXPECT_EQ(list[0]["arguments"], Json::parse(R"([{"name":"incident","description":"the id","required":true},
                                                  {"name":"tone","required":false}])"));
  Json got = Call("prompts/get", {{"name", "triage"}, {"arguments", {{"incident", "INC-1"}}}})["result"];
  EXPECT_EQ(got["messages"][0]["content"]["text"], "triage INC-1");
  EXPECT_EQ(Code(Call("prompts/get", {{"name", "nope"}})), kInvalidParams);
  EXPECT_EQ(Code(Call("prompts/get", {{"name", "triage"}})), kInvalidParams);
  EXPECT_EQ(Code(Call("prompts/get", {{"name", "triage"}, {"arguments", {{"incident", 1}}}})), kInvalidParams);
}

TEST_F(McpSessionTest, CompletesPromptArgumentsAndTemplateVariables) {
  Initialize();
  Json prompt = Call("completion/complete", {{"ref", {{"type", "ref/prompt"}, {"name", "triage"}}},
                                             {"argument", {{"name", "incident"}, {"value", "INC"}}}})["result"];
  EXPECT_EQ(prompt, Json::parse(R"({"completion":{"values":["INC-1","INC-2"],"total":2,"hasMore":false}})"));
  Json tmpl = Call("completion/complete", {{"ref", {{"type", "ref/resource"}, {"uri", "table://{warehouse}/{name}"}}},
                                           {"argument", {{"name", "name"}, {"value", "x"}}}})["result"]["completion"];
  EXPECT_EQ(tmpl["values"].size(), 100u);
  EXPECT_EQ(tmpl["total"], 150);
  EXPECT_EQ(tmpl["hasMore"], true);
  EXPECT_EQ(Code(Call("completion/complete", {{"ref", {{"type", "ref/prompt"}, {"name", "nope"}}},
                                              {"argument", {{"name", "a"}, {"value", ""}}}})), kInvalidParams);
  EXPECT_EQ(Code(Call("completion/complete", {{"ref", {{"type", "ref/tool"}}}, {"argument", {{"name", "a"}, {"value", ""}}}})), kInvalidParams);
  EXPECT_EQ(Code(Call("completion/complete", {{"ref", {{"type", "ref/prompt"}, {"name", "triage"}}}})), kInvalidParams);
}

TEST_F(McpSessionTest, RejectsWrongShapesWithTheIdWhenValid) {
  struct Case {
    Json message;
    Json id;  // the id the error must carry
  } cases[] = {
      {{{"id", 1}, {"method", "ping"}}, 1},                                               // no jsonrpc
      {{{"jsonrpc", "1.0"}, {"id", "a"}, {"method", "ping"}}, "a"},                       // wrong version
      {{{"jsonrpc", "2.0"}, {"id", 2}, {"method", 5}}, 2},                                // method not a string
      {{{"jsonrpc", "2.0"}, {"id", 3}, {"method", "ping"}, {"params", {1, 2}}}, 3},       // params an array
      {{{"jsonrpc", "2.0"}, {"id", nullptr}, {"method", "ping"}}, nullptr},               // null id
      {{{"jsonrpc", "2.0"}, {"id", 1.5}, {"method", "ping"}}, nullptr},                   // float id
      {{{"jsonrpc", "2.0"}, {"id", true}, {"method", "ping"}}, nullptr},                  // bool id
      {{{"jsonrpc", "2.0"}, {"id", {{"a", 1}}}, {"method", "ping"}}, nullptr},            // object id
      {{{"jsonrpc", "2.0"}, {"id", 4}}, 4},                                               // neither method nor result
      {Json::array(), nullptr},                                                            // not an object
  };
  for (const Case& c : cases) {
    RecordingSink sink;
    session_.Handle(c.message, sink);
    ASSERT_EQ(sink.messages().size(), 1u) << c.message.dump();
    EXPECT_EQ(sink.messages()[0]["error"]["code"], kInvalidRequest) << c.message.dump();
    EXPECT_EQ(sink.messages()[0]["id"], c.id) << c.message.dump();
  }
}

}  // namespace
}  // namespace dw::mcp

namespace dw::mcp {
namespace {

// Who a tool call comes from: the client's declared name (printable, bounded) and a random label
// per session, the same for every call of one session and different between sessions. Agents
// attribute writes to it, so it must not be the transport's credential (it never is: the HTTP
// session id is drawn elsewhere).
TEST(McpCallerTest, ACallKnowsTheDeclaredClientAndItsSessionsLabel) {
  auto catalog = std::make_shared<Catalog>();
  ASSERT_TRUE(catalog->AddTool(MakeTool("whoami", [](const Json&, ToolCall& call) {
    const CallerInfo c = call.Caller();
    return ToolResult::Structured({{"client", c.client}, {"session", c.session}});
  })).ok());
  auto whoami = [&](Session& session, const Json& client_info) {
    RecordingSink sink;
    Json init = {{"protocolVersion", "2025-11-25"}, {"capabilities", Json::object()}};
    if (!client_info.is_null()) init["clientInfo"] = client_info;
    session.Handle({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"}, {"params", init}}, sink);
    std::vector<Json> answers;
    for (int id = 2; id <= 3; ++id) {
      session.Handle({{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"},
                      {"params", {{"name", "whoami"}, {"arguments", Json::object()}}}}, sink);
      auto r = sink.WaitFor([&](const Json& m) { return m.value("id", Json()) == id && !m.contains("method"); }, 0ms);
      EXPECT_TRUE(r);
      answers.push_back(r ? (*r)["result"]["structuredContent"] : Json());
    }
    EXPECT_EQ(answers[0], answers[1]) << "two calls of one session, one caller";
    return answers[0];
  };
  Session first(catalog, ServerInfo{"dw-test", "Test", "1", ""});
  Session second(catalog, ServerInfo{"dw-test", "Test", "1", ""});
  Session third(catalog, ServerInfo{"dw-test", "Test", "1", ""});
  const Json a = whoami(first, {{"name", "claude-code"}, {"version", "2"}});
  const Json b = whoami(second, {{"name", std::string("evil\nname\x01") + std::string(300, 'x')}, {"version", "1"}});
  const Json c = whoami(third, nullptr);
  EXPECT_EQ(a["client"], "claude-code");
  const std::string cleaned = b["client"].get<std::string>();
  EXPECT_EQ(cleaned.size(), 100u);
  EXPECT_EQ(cleaned.substr(0, 11), "evil?name?x");
  EXPECT_EQ(c["client"], "");
  for (const Json& x : {a, b, c}) {
    const std::string label = x["session"].get<std::string>();
    EXPECT_EQ(label.size(), 12u) << label;
    EXPECT_EQ(label.find_first_not_of("0123456789abcdef"), std::string::npos) << label;
  }
  EXPECT_NE(a["session"], b["session"]);
  EXPECT_NE(b["session"], c["session"]);
}

}  // namespace
}  // namespace dw::mcp
