#include "mcp/stdio_transport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>

#include "mcp/conformance_fixtures.h"
#include "mcp/jsonrpc.h"
#include "stdio_peer.h"

namespace dw::mcp {
namespace {

using namespace std::chrono_literals;

std::atomic<int> g_waiting{0};

// The fixtures plus a tool that runs until cancelled (at most 10 s).
std::shared_ptr<const Catalog> StdioCatalog() {
  auto catalog = std::make_shared<Catalog>();
  AddConformanceFixtures(*catalog);
  ToolSpec wait;
  wait.name = "wait_for_cancel";
  wait.description = "runs until cancelled";
  wait.input_schema = {{"type", "object"}};
  wait.handler = [](const Json&, ToolCall& call) {
    ++g_waiting;
    for (int i = 0; i < 1000 && !call.Cancelled(); ++i) std::this_thread::sleep_for(10ms);
    --g_waiting;
    return ToolResult::Text(call.Cancelled() ? "cancelled" : "gave up waiting");
  };
  EXPECT_TRUE(catalog->AddTool(std::move(wait)).ok());
  return catalog;
}

Json CallTool(const Json& id, const std::string& name, const Json& arguments = Json::object(), Json meta = nullptr) {
  Json params{{"name", name}, {"arguments", arguments}};
  if (!meta.is_null()) params["_meta"] = meta;
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", "tools/call"}, {"params", params}};
}

void WaitUntil(const std::function<bool()>& cond) {
  for (int i = 0; i < 500 && !cond(); ++i) std::this_thread::sleep_for(10ms);
}

TEST(McpStdioTest, ServesASessionAndExitsCleanlyAtEndOfInput) {
  StdioPeer peer(StdioCatalog());
  auto init = peer.Initialize();
  ASSERT_TRUE(init);
  EXPECT_EQ((*init)["result"]["protocolVersion"], "2025-11-25");
  EXPECT_EQ((*init)["result"]["serverInfo"]["name"], "dw-test");
  auto list = peer.Call(2, "tools/list");
  ASSERT_TRUE(list);
  EXPECT_EQ((*list)["result"]["tools"].size(), 13u);
  ASSERT_TRUE(peer.Send(CallTool(3, "test_simple_text")));
  auto text = peer.ReadResponse(3);
  ASSERT_TRUE(text);
  EXPECT_EQ((*text)["result"]["content"][0]["text"], "This is a simple text response for testing.");
  peer.CloseWrite();
  EXPECT_EQ(peer.WaitExit(), 0);
}

TEST(McpStdioTest, StreamsProgressAndLogsBeforeTheResponse) {
  StdioPeer peer(StdioCatalog());
  ASSERT_TRUE(peer.Initialize());
  ASSERT_TRUE(peer.Send(CallTool("p", "test_tool_with_progress", Json::object(), {{"progressToken", 7}})));
  std::vector<Json> before;
  ASSERT_TRUE(peer.ReadResponse("p", &before));
  ASSERT_EQ(before.size(), 3u);
  for (const Json& m : before) {
    EXPECT_EQ(m["method"], "notifications/progress");
    EXPECT_EQ(m["params"]["progressToken"], 7);
  }
  ASSERT_TRUE(peer.Send(CallTool("l", "test_tool_with_logging")));
  before.clear();
  ASSERT_TRUE(peer.ReadResponse("l", &before));
  EXPECT_EQ(before.size(), 3u);
}

TEST(McpStdioTest, ClientAnswersReachTheToolWhileItRuns) {
  StdioPeer peer(StdioCatalog());
  ASSERT_TRUE(peer.Initialize());
  ASSERT_TRUE(peer.Send(CallTool("s", "test_sampling", {{"prompt", "hi"}})));
  auto request = peer.Read();
  ASSERT_TRUE(request);
  ASSERT_EQ((*request)["method"], "sampling/createMessage");
  // A ping in between is answered although the tool is still waiting.
  auto pong = peer.Call("between", "ping");
  ASSERT_TRUE(pong);
  EXPECT_EQ((*pong)["result"], Json::object());
  peer.Send({{"jsonrpc", "2.0"}, {"id", (*request)["id"]},
             {"result", {{"role", "assistant"}, {"content", {{"type", "text"}, {"text", "hello"}}}, {"model", "m"}}}});
  auto result = peer.ReadResponse("s");
  ASSERT_TRUE(result);
  EXPECT_EQ((*result)["result"]["content"][0]["text"], "LLM response: hello");
}

TEST(McpStdioTest, CancelledCallsGetNoResponse) {
  StdioPeer peer(StdioCatalog());
  ASSERT_TRUE(peer.Initialize());
  g_waiting = 0;
  ASSERT_TRUE(peer.Send(CallTool("w", "wait_for_cancel")));
  WaitUntil([] { return g_waiting == 1; });
  peer.Send({{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", "w"}}}});
  WaitUntil([] { return g_waiting == 0; });
  EXPECT_EQ(g_waiting, 0);
  // The next thing on the wire is the ping's answer, not the cancelled call's.
  ASSERT_TRUE(peer.Send({{"jsonrpc", "2.0"}, {"id", "after"}, {"method", "ping"}}));
  auto next = peer.Read();
  ASSERT_TRUE(next);
  EXPECT_EQ((*next)["id"], "after");
}

TEST(McpStdioTest, EndOfInputLetsShortCallsAnswer) {
  StdioPeer peer(StdioCatalog());
  ASSERT_TRUE(peer.Initialize());
  ASSERT_TRUE(peer.Send(CallTool("late", "test_tool_with_progress")));
  peer.CloseWrite();
  auto response = peer.ReadResponse("late");
  ASSERT_TRUE(response);
  EXPECT_EQ((*response)["result"]["content"][0]["text"], "Tool with progress executed successfully");
  EXPECT_EQ(peer.WaitExit(), 0);
}

TEST(McpStdioTest, EndOfInputCancelsLongCalls) {
  StdioPeer peer(StdioCatalog());
  ASSERT_TRUE(peer.Initialize());
  g_waiting = 0;
  ASSERT_TRUE(peer.Send(CallTool("long", "wait_for_cancel")));
  WaitUntil([] { return g_waiting == 1; });
  auto start = std::chrono::steady_clock::now();
  peer.CloseWrite();
  EXPECT_EQ(peer.WaitExit(5s), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 4s);
  EXPECT_FALSE(peer.ReadResponse("long", nullptr, 100ms));
}

TEST(McpStdioTest, AFloodOfCallsIsRefusedBeyondTheAdmissionLimit) {
  StdioPeer peer(StdioCatalog());
  ASSERT_TRUE(peer.Initialize());
  g_waiting = 0;
  for (int i = 0; i < 64; ++i) ASSERT_TRUE(peer.Send(CallTool(i, "wait_for_cancel")));
  ASSERT_TRUE(peer.Send(CallTool("one-too-many", "wait_for_cancel")));
  auto busy = peer.ReadResponse("one-too-many");
  ASSERT_TRUE(busy);
  EXPECT_EQ((*busy)["error"]["code"], kInternalError);
  WaitUntil([] { return g_waiting == 16; });
  EXPECT_EQ(g_waiting.load(), 16);  // the others wait in the queue
  // Cancelling reaches running and queued calls alike; none of them answers.
  for (int i = 0; i < 64; ++i) {
    peer.Send({{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", i}}}});
  }
  WaitUntil([] { return g_waiting == 0; });
  ASSERT_TRUE(peer.Send({{"jsonrpc", "2.0"}, {"id", "after"}, {"method", "ping"}}));
  auto next = peer.Read();
  ASSERT_TRUE(next);
  EXPECT_EQ((*next)["id"], "after");
  auto start = std::chrono::steady_clock::now();
  peer.CloseWrite();
  EXPECT_EQ(peer.WaitExit(), 0);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
}

}  // namespace
}  // namespace dw::mcp
