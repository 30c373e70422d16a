// Streamable HTTP: tools/call responses that stream (logging, progress, server-to-client requests).
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>

#include "mcp/http_transport.h"
#include "net/sse.h"
#include "tests/mcp/http_test_server.h"

namespace dw::mcp {
namespace {

using net::FormatSseEvent;
using testing::HttpReply;
using testing::HttpTestServer;
using testing::SseMessages;
using testing::ToolCallRequest;

TEST(McpHttpSse, FormatsEventsWithIdsAndSplitsLines) {
  EXPECT_EQ(FormatSseEvent("7", R"({"a":1})"), "id: 7\nevent: message\ndata: {\"a\":1}\n\n");
  EXPECT_EQ(FormatSseEvent("1", "x\ny\r\nz\rw"),
            "id: 1\nevent: message\ndata: x\ndata: y\ndata: z\ndata: w\n\n");
}

TEST(McpHttpStreaming, ProgressAndLogsArriveBeforeTheResponse) {
  HttpTestServer t;
  t.Initialize();
  HttpReply r = t.Post(ToolCallRequest(7, "progress", Json::object(), {{"progressToken", "tok"}}));
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "text/event-stream");
  std::vector<Json> messages = SseMessages(r.body);
  ASSERT_EQ(messages.size(), 5u) << r.body;
  EXPECT_EQ(messages[0]["method"], "notifications/message");
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(messages[1 + i]["method"], "notifications/progress");
    EXPECT_EQ(messages[1 + i]["params"]["progressToken"], "tok");
    EXPECT_EQ(messages[1 + i]["params"]["progress"], i * 50);
  }
  EXPECT_EQ(messages[4]["id"], 7);
  EXPECT_EQ(messages[4]["result"]["content"][0]["text"], "done");
  // Every event carries an id, and the ids differ.
  EXPECT_NE(r.body.find("id: "), std::string::npos);
  EXPECT_TRUE(t.PingWorks());
}

// A tool that does not declare streams runs on the connection thread: a plain call answers with one
// JSON body, and a log message it sends anyway still arrives, just before the result.
TEST(McpHttpStreaming, AnInlineCallAnswersJsonAndKeepsItsLogMessages) {
  auto catalog = std::make_shared<Catalog>(*testing::TransportTestCatalog());
  ToolSpec chatty;
  chatty.name = "chatty";
  chatty.description = "Logs once, does not declare streams.";
  chatty.input_schema = Json{{"type", "object"}};
  chatty.handler = [](const Json&, ToolCall& call) {
    call.Log(LogLevel::kWarning, "about to answer");
    return ToolResult::Text("answered");
  };
  ASSERT_TRUE(catalog->AddTool(std::move(chatty)).ok());
  HttpTestServer t({}, catalog);
  t.Initialize();

  HttpReply plain = t.Post(ToolCallRequest(3, "echo", {{"text", "hi"}}));
  ASSERT_EQ(plain.status, 200);
  EXPECT_EQ(plain.content_type, "application/json");
  EXPECT_EQ(Json::parse(plain.body)["result"]["content"][0]["text"], "hi");

  HttpReply logged = t.Post(ToolCallRequest(4, "chatty"));
  ASSERT_EQ(logged.status, 200);
  EXPECT_EQ(logged.content_type, "text/event-stream");
  std::vector<Json> messages = SseMessages(logged.body);
  ASSERT_EQ(messages.size(), 2u) << logged.body;
  EXPECT_EQ(messages[0]["method"], "notifications/message");
  EXPECT_EQ(messages[0]["params"]["data"], "about to answer");
  EXPECT_EQ(messages[1]["id"], 4);
  EXPECT_EQ(messages[1]["result"]["content"][0]["text"], "answered");
}

// Reads a POST's SSE stream as it arrives, so a test can answer a server-to-client request while
// the call that sent it is still waiting.
class SseReader {
 public:
  SseReader(const HttpTestServer& t, const Json& message) {
    thread_ = std::thread([this, &t, message] {
      httplib::Client cli = t.NewClient();
      httplib::Request req;
      req.method = "POST";
      req.path = "/mcp";
      req.headers = t.StandardHeaders();
      req.headers.emplace("Content-Type", "application/json");
      req.body = message.dump();
      req.content_receiver = [this](const char* data, size_t n, uint64_t, uint64_t) {
        std::lock_guard<std::mutex> lock(mu_);
        buffer_.append(data, n);
        cv_.notify_all();
        return true;
      };
      auto res = cli.send(req);
      std::lock_guard<std::mutex> lock(mu_);
      status_ = res ? res->status : -1;
      content_type_ = res ? res->get_header_value("Content-Type") : "";
      done_ = true;
      cv_.notify_all();
    });
  }
  ~SseReader() {
    if (thread_.joinable()) thread_.join();
  }

  // The first message satisfying `pred` within 5 s.
  std::optional<Json> WaitFor(const std::function<bool(const Json&)>& pred) {
    std::unique_lock<std::mutex> lock(mu_);
    std::optional<Json> found;
    cv_.wait_for(lock, std::chrono::seconds(5), [&] {
      for (const Json& m : SseMessages(buffer_))
        if (pred(m)) {
          found = m;
          return true;
        }
      return done_;
    });
    return found;
  }

  // Waits for the stream to end; returns every message it carried.
  std::vector<Json> Finish() {
    thread_.join();
    return SseMessages(buffer_);
  }
  int status() const { return status_; }
  const std::string& content_type() const { return content_type_; }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::string buffer_;
  bool done_ = false;
  int status_ = 0;
  std::string content_type_;
  std::thread thread_;
};

TEST(McpHttpStreaming, SamplingRoundTripOverASecondPost) {
  HttpTestServer t;
  t.Initialize();
  SseReader call(t, ToolCallRequest(11, "ask", {{"prompt", "capital of France?"}}));
  std::optional<Json> sampling = call.WaitFor(
      [](const Json& m) { return m.value("method", "") == "sampling/createMessage"; });
  ASSERT_TRUE(sampling.has_value());
  EXPECT_EQ((*sampling)["params"]["messages"][0]["content"]["text"], "capital of France?");
  ASSERT_TRUE(sampling->contains("id"));

  HttpReply answer = t.Post(Json{{"jsonrpc", "2.0"},
                                 {"id", (*sampling)["id"]},
                                 {"result",
                                  {{"role", "assistant"},
                                   {"content", {{"type", "text"}, {"text", "Paris"}}},
                                   {"model", "test-model"}}}});
  EXPECT_EQ(answer.status, 202) << answer.body;

  std::vector<Json> messages = call.Finish();
  EXPECT_EQ(call.status(), 200);
  EXPECT_EQ(call.content_type(), "text/event-stream");
  ASSERT_FALSE(messages.empty());
  EXPECT_EQ(messages.back()["id"], 11);
  EXPECT_EQ(messages.back()["result"]["content"][0]["text"], "LLM said: Paris");
  EXPECT_TRUE(t.PingWorks());
}

TEST(McpHttpStreaming, SamplingErrorAnswerBecomesAToolError) {
  HttpTestServer t;
  t.Initialize();
  SseReader call(t, ToolCallRequest(12, "ask", {{"prompt", "x"}}));
  std::optional<Json> sampling = call.WaitFor(
      [](const Json& m) { return m.value("method", "") == "sampling/createMessage"; });
  ASSERT_TRUE(sampling.has_value());
  HttpReply answer = t.Post(Json{{"jsonrpc", "2.0"},
                                 {"id", (*sampling)["id"]},
                                 {"error", {{"code", -1}, {"message", "User rejected sampling"}}}});
  EXPECT_EQ(answer.status, 202);
  std::vector<Json> messages = call.Finish();
  ASSERT_FALSE(messages.empty());
  EXPECT_EQ(messages.back()["result"]["isError"], true);
}

TEST(McpHttpStreaming, NotificationsCancelledEndsTheStreamWithoutResponse) {
  HttpTestServer t;
  t.Initialize();
  HttpReply call;
  std::thread caller([&] { call = t.Post(ToolCallRequest(21, "wait_cancel")); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  HttpReply cancel = t.Post(Json{{"jsonrpc", "2.0"},
                                 {"method", "notifications/cancelled"},
                                 {"params", {{"requestId", 21}, {"reason", "test"}}}});
  EXPECT_EQ(cancel.status, 202);
  caller.join();
  EXPECT_EQ(call.status, 200);
  EXPECT_TRUE(SseMessages(call.body).empty()) << call.body;
  EXPECT_TRUE(t.PingWorks());
}

TEST(McpHttpStreaming, ConcurrentCallsOnOneSessionStreamIndependently) {
  HttpTestServer t;
  t.Initialize();
  std::vector<std::thread> threads;
  std::vector<HttpReply> replies(8);
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      replies[static_cast<size_t>(i)] =
          t.Post(ToolCallRequest(100 + i, i % 2 ? "progress" : "echo", i % 2 ? Json::object() : Json{{"text", "e"}},
                                 {{"progressToken", i}}));
    });
  }
  for (auto& th : threads) th.join();
  for (int i = 0; i < 8; ++i) {
    const HttpReply& r = replies[static_cast<size_t>(i)];
    ASSERT_EQ(r.status, 200);
    Json last = r.content_type == "text/event-stream" ? SseMessages(r.body).back() : r.json;
    EXPECT_EQ(last["id"], 100 + i);
    for (const Json& m : SseMessages(r.body)) {
      if (m.value("method", "") == "notifications/progress") {
        EXPECT_EQ(m["params"]["progressToken"], i);
      }
    }
  }
}

TEST(McpHttpStreaming, StopEndsOpenStreams) {
  auto t = std::make_unique<HttpTestServer>();
  t->Initialize();
  HttpReply call;
  std::thread caller([&] { call = t->Post(ToolCallRequest(31, "ask", {{"prompt", "never answered"}})); });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  auto started = std::chrono::steady_clock::now();
  t->server().Stop();
  caller.join();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(3));
}

}  // namespace
}  // namespace dw::mcp
