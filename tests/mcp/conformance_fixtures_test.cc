#include "mcp/conformance_fixtures.h"

#include <gtest/gtest.h>

#include <thread>

#include "mcp/session.h"
#include "recording_sink.h"

namespace dw::mcp {
namespace {

using namespace std::chrono_literals;

class McpFixturesTest : public ::testing::Test {
 protected:
  McpFixturesTest() {
    auto catalog = std::make_shared<Catalog>();
    AddConformanceFixtures(*catalog);
    catalog_ = catalog;
    session_ = std::make_unique<Session>(catalog_, ServerInfo{"fixtures", "", "1", ""});
    Handle({{"jsonrpc", "2.0"}, {"id", 0}, {"method", "initialize"}, {"params", {{"protocolVersion", "2025-11-25"}}}});
  }

  Json Handle(const Json& message, RecordingSink* sink = nullptr) {
    RecordingSink local;
    RecordingSink& s = sink ? *sink : local;
    session_->Handle(message, s);
    return s.messages().empty() ? Json() : s.messages().back();
  }

  Json Request(const std::string& method, const Json& params, RecordingSink* sink = nullptr) {
    return Handle({{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", params}}, sink)["result"];
  }

  Json CallTool(const std::string& name, const Json& arguments = Json::object()) {
    return Request("tools/call", {{"name", name}, {"arguments", arguments}})["content"];
  }

  // Calls `tool`, answers its one client request with `answer`, returns the request and the result.
  std::pair<Json, Json> CallWithAnswer(const std::string& tool, const Json& arguments, const Json& answer) {
    RecordingSink sink;
    std::thread call([&] { Request("tools/call", {{"name", tool}, {"arguments", arguments}}, &sink); });
    auto request = sink.WaitFor([](const Json& m) { return m.contains("method"); });
    EXPECT_TRUE(request);
    Handle({{"jsonrpc", "2.0"}, {"id", request.value_or(Json{{"id", 0}})["id"]}, {"result", answer}});
    call.join();
    return {request.value_or(Json()), sink.messages().back()["result"]};
  }

  std::shared_ptr<const Catalog> catalog_;
  std::unique_ptr<Session> session_;
};

TEST_F(McpFixturesTest, ListsExactlyTheSuiteFixtures) {
  std::vector<std::string> tools, resources, prompts;
  for (const ToolSpec& t : catalog_->tools()) tools.push_back(t.name);
  for (const ResourceSpec& r : catalog_->resources()) resources.push_back(r.uri);
  for (const PromptSpec& p : catalog_->prompts()) prompts.push_back(p.name);
  EXPECT_EQ(tools, (std::vector<std::string>{
                       "test_simple_text", "test_image_content", "test_audio_content", "test_embedded_resource",
                       "test_multiple_content_types", "test_error_handling", "test_tool_with_logging",
                       "test_tool_with_progress", "test_sampling", "test_elicitation",
                       "test_elicitation_sep1034_defaults", "test_elicitation_sep1330_enums"}));
  EXPECT_EQ(resources, (std::vector<std::string>{"test://static-text", "test://static-binary", "test://watched-resource"}));
  ASSERT_EQ(catalog_->resource_templates().size(), 1u);
  EXPECT_EQ(catalog_->resource_templates()[0].uri_template, "test://template/{id}/data");
  EXPECT_EQ(prompts, (std::vector<std::string>{"test_simple_prompt", "test_prompt_with_arguments",
                                                "test_prompt_with_embedded_resource", "test_prompt_with_image"}));
  for (const ToolSpec& t : catalog_->tools()) EXPECT_FALSE(t.description.empty()) << t.name;
}

TEST_F(McpFixturesTest, ContentToolsReturnTheExactContent) {
  EXPECT_EQ(CallTool("test_simple_text"),
            Json::parse(R"([{"type":"text","text":"This is a simple text response for testing."}])"));
  Json image = CallTool("test_image_content")[0];
  EXPECT_EQ(image["type"], "image");
  EXPECT_EQ(image["mimeType"], "image/png");
  EXPECT_EQ(image["data"], kFixturePngBase64);
  EXPECT_EQ(std::string(kFixturePngBase64).substr(0, 8), "iVBORw0K");  // base64 of the PNG signature
  Json audio = CallTool("test_audio_content")[0];
  EXPECT_EQ(audio, Json({{"type", "audio"}, {"data", kFixtureWavBase64}, {"mimeType", "audio/wav"}}));
  EXPECT_EQ(std::string(kFixtureWavBase64).substr(0, 4), "UklG");  // base64 of "RIFF"
  EXPECT_EQ(CallTool("test_embedded_resource"), Json::parse(R"([{"type":"resource","resource":{
      "uri":"test://embedded-resource","mimeType":"text/plain","text":"This is an embedded resource content."}}])"));
  Json mixed = CallTool("test_multiple_content_types");
  ASSERT_EQ(mixed.size(), 3u);
  EXPECT_EQ(mixed[0], Json::parse(R"({"type":"text","text":"Multiple content types test:"})"));
  EXPECT_EQ(mixed[1]["type"], "image");
  EXPECT_EQ(mixed[2], Json::parse(R"({"type":"resource","resource":{"uri":"test://mixed-content-resource",
      "mimeType":"application/json","text":"{\"test\":\"data\",\"value\":123}"}})"));
  Json error = Request("tools/call", {{"name", "test_error_handling"}});
  EXPECT_EQ(error["isError"], true);
  EXPECT_EQ(error["content"][0]["text"], "This tool intentionally returns an error for testing");
}

TEST_F(McpFixturesTest, LoggingToolSendsThreeSpacedMessages) {
  Request("logging/setLevel", {{"level", "debug"}});
  RecordingSink sink;
  auto start = std::chrono::steady_clock::now();
  Request("tools/call", {{"name", "test_tool_with_logging"}}, &sink);
  EXPECT_GE(std::chrono::steady_clock::now() - start, 100ms);
  std::vector<Json> logs = sink.WithMethod("notifications/message");
  ASSERT_EQ(logs.size(), 3u);
  EXPECT_EQ(logs[0]["params"]["data"], "Tool execution started");
  EXPECT_EQ(logs[1]["params"]["data"], "Tool processing data");
  EXPECT_EQ(logs[2]["params"]["data"], "Tool execution completed");
  EXPECT_EQ(logs[0]["params"]["level"], "info");
}

TEST_F(McpFixturesTest, ProgressToolReportsZeroFiftyHundred) {
  RecordingSink sink;
  Request("tools/call", {{"name", "test_tool_with_progress"}, {"_meta", {{"progressToken", "progress-test-1"}}}}, &sink);
  std::vector<Json> progress = sink.WithMethod("notifications/progress");
  ASSERT_EQ(progress.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(progress[i]["params"]["progressToken"], "progress-test-1");
    EXPECT_EQ(progress[i]["params"]["progress"], 50.0 * i);
    EXPECT_EQ(progress[i]["params"]["total"], 100.0);
  }
}

TEST_F(McpFixturesTest, SamplingAsksTheClientAndQuotesTheAnswer) {
  auto [request, result] = CallWithAnswer(
      "test_sampling", {{"prompt", "Test prompt for sampling"}},
      {{"role", "assistant"}, {"content", {{"type", "text"}, {"text", "This is a test response"}}}, {"model", "m"}});
  EXPECT_EQ(request["method"], "sampling/createMessage");
  EXPECT_EQ(request["params"], Json::parse(R"({"messages":[{"role":"user","content":{"type":"text",
      "text":"Test prompt for sampling"}}],"maxTokens":100})"));
  EXPECT_EQ(result["content"][0]["text"], "LLM response: This is a test response");
}

TEST_F(McpFixturesTest, ElicitationAsksForUsernameAndEmail) {
  auto [request, result] = CallWithAnswer("test_elicitation", {{"message", "Who are you?"}},
                                          {{"action", "accept"}, {"content", {{"username", "u"}, {"email", "e@x"}}}});
  EXPECT_EQ(request["method"], "elicitation/create");
  EXPECT_EQ(request["params"]["message"], "Who are you?");
  EXPECT_EQ(request["params"]["requestedSchema"]["required"], Json::array({"username", "email"}));
  EXPECT_EQ(result["content"][0]["text"], R"(User response: action=accept, content={"email":"e@x","username":"u"})");
}

TEST_F(McpFixturesTest, Sep1034DefaultsCoverEveryPrimitive) {
  auto [request, result] = CallWithAnswer("test_elicitation_sep1034_defaults", Json::object(), {{"action", "decline"}});
  Json props = request["params"]["requestedSchema"]["properties"];
  EXPECT_EQ(props["name"]["default"], "John Doe");
  EXPECT_EQ(props["age"]["type"], "integer");
  EXPECT_EQ(props["age"]["default"], 30);
  EXPECT_EQ(props["score"]["default"], 95.5);
  EXPECT_EQ(props["status"]["enum"], Json::array({"active", "inactive", "pending"}));
  EXPECT_EQ(props["status"]["default"], "active");
  EXPECT_EQ(props["verified"]["default"], true);
  EXPECT_EQ(result["content"][0]["text"], "Elicitation completed: action=decline, content={}");
}

TEST_F(McpFixturesTest, Sep1330EnumsCoverAllFiveForms) {
  auto [request, result] = CallWithAnswer("test_elicitation_sep1330_enums", Json::object(), {{"action", "cancel"}});
  Json p = request["params"]["requestedSchema"]["properties"];
  EXPECT_EQ(p["untitledSingle"]["enum"], Json::array({"option1", "option2", "option3"}));
  EXPECT_FALSE(p["untitledSingle"].contains("oneOf"));
  EXPECT_EQ(p["titledSingle"]["oneOf"][0], Json({{"const", "value1"}, {"title", "First Option"}}));
  EXPECT_FALSE(p["titledSingle"].contains("enum"));
  EXPECT_EQ(p["legacyEnum"]["enumNames"].size(), p["legacyEnum"]["enum"].size());
  EXPECT_EQ(p["untitledMulti"]["items"]["enum"], Json::array({"option1", "option2", "option3"}));
  EXPECT_EQ(p["titledMulti"]["items"]["anyOf"][2], Json({{"const", "value3"}, {"title", "Third Choice"}}));
  EXPECT_EQ(result["content"][0]["text"], "Elicitation completed: action=cancel, content={}");
}

TEST_F(McpFixturesTest, ResourcesReadExactly) {
  EXPECT_EQ(Request("resources/read", {{"uri", "test://static-text"}})["contents"], Json::parse(R"([{
      "uri":"test://static-text","mimeType":"text/plain","text":"This is the content of the static text resource."}])"));
  EXPECT_EQ(Request("resources/read", {{"uri", "test://static-binary"}})["contents"],
            Json::array({{{"uri", "test://static-binary"}, {"mimeType", "image/png"}, {"blob", kFixturePngBase64}}}));
  Json t = Request("resources/read", {{"uri", "test://template/123/data"}})["contents"][0];
  EXPECT_EQ(t["uri"], "test://template/123/data");
  EXPECT_EQ(t["mimeType"], "application/json");
  EXPECT_EQ(Json::parse(t["text"].get<std::string>()),
            Json::parse(R"({"id":"123","templateTest":true,"data":"Data for ID: 123"})"));
  EXPECT_EQ(Request("resources/subscribe", {{"uri", "test://watched-resource"}}), Json::object());
  EXPECT_EQ(Request("resources/unsubscribe", {{"uri", "test://watched-resource"}}), Json::object());
}

TEST_F(McpFixturesTest, PromptsReturnTheExactMessages) {
  EXPECT_EQ(Request("prompts/get", {{"name", "test_simple_prompt"}})["messages"], Json::parse(R"([{"role":"user",
      "content":{"type":"text","text":"This is a simple prompt for testing."}}])"));
  EXPECT_EQ(Request("prompts/get", {{"name", "test_prompt_with_arguments"}, {"arguments", {{"arg1", "hello"}, {"arg2", "world"}}}})
                ["messages"][0]["content"]["text"],
            "Prompt with arguments: arg1='hello', arg2='world'");
  Json embedded = Request("prompts/get", {{"name", "test_prompt_with_embedded_resource"},
                                          {"arguments", {{"resourceUri", "test://example-resource"}}}})["messages"];
  EXPECT_EQ(embedded, Json::parse(R"([
      {"role":"user","content":{"type":"resource","resource":{"uri":"test://example-resource",
        "mimeType":"text/plain","text":"Embedded resource content for testing."}}},
      {"role":"user","content":{"type":"text","text":"Please process the embedded resource above."}}])"));
  Json image = Request("prompts/get", {{"name", "test_prompt_with_image"}})["messages"];
  EXPECT_EQ(image[0]["content"]["type"], "image");
  EXPECT_EQ(image[0]["content"]["mimeType"], "image/png");
  EXPECT_EQ(image[1]["content"]["text"], "Please analyze the image above.");
}

TEST_F(McpFixturesTest, CompletesPromptArguments) {
  Json c = Request("completion/complete", {{"ref", {{"type", "ref/prompt"}, {"name", "test_prompt_with_arguments"}}},
                                           {"argument", {{"name", "arg1"}, {"value", "par"}}}});
  EXPECT_EQ(c["completion"]["values"], Json::array({"paris", "park", "party"}));
  EXPECT_EQ(c["completion"]["hasMore"], false);
}

}  // namespace
}  // namespace dw::mcp
