#include "mcp/conformance_fixtures.h"

#include <thread>

namespace dw::mcp {

// A 1x1 red PNG and 4 samples of 8 kHz 16-bit mono silence: the smallest valid files of each kind.
const char* const kFixturePngBase64 =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
const char* const kFixtureWavBase64 =
    "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQgAAAAAAAAAAAAAAA==";

namespace {

// The suite's streaming checks expect notifications spread over time, about this far apart.
constexpr auto kStepDelay = std::chrono::milliseconds(50);
constexpr auto kClientTimeout = std::chrono::seconds(60);

Json NoArguments() { return Json{{"type", "object"}, {"properties", Json::object()}}; }

Json OneStringArgument(const char* name, const char* description) {
  return Json{{"type", "object"},
              {"properties", {{name, {{"type", "string"}, {"description", description}}}}},
              {"required", {name}}};
}

Json Image() { return Json{{"type", "image"}, {"data", kFixturePngBase64}, {"mimeType", "image/png"}}; }

Json EmbeddedText(const std::string& uri, const char* mime, const std::string& text) {
  return Json{{"type", "resource"}, {"resource", {{"uri", uri}, {"mimeType", mime}, {"text", text}}}};
}

Json UserMessage(Json content) { return Json{{"role", "user"}, {"content", std::move(content)}}; }

Json TextContent(const std::string& text) { return Json{{"type", "text"}, {"text", text}}; }

ToolResult Contents(Json content) {
  ToolResult r;
  r.content = std::move(content);
  return r;
}

// The values in `candidates` that start with `prefix`.
std::vector<std::string> StartingWith(const std::vector<std::string>& candidates, const std::string& prefix) {
  std::vector<std::string> out;
  for (const std::string& c : candidates) {
    if (c.compare(0, prefix.size(), prefix) == 0) out.push_back(c);
  }
  return out;
}

// The fixtures that send messages while they run (log messages, progress, sampling and
// elicitation requests), so they must run where those messages can stream (ToolSpec::streams).
bool SendsMessagesWhileRunning(std::string_view name) {
  return name == "test_tool_with_logging" || name == "test_tool_with_progress" ||
         name == "test_sampling" || name.rfind("test_elicitation", 0) == 0;
}

void Add(Catalog& catalog, const char* name, const char* description, Json input_schema,
         std::function<ToolResult(const Json&, ToolCall&)> handler) {
  ToolSpec t;
  t.name = name;
  t.streams = SendsMessagesWhileRunning(name);
  t.description = description;
  t.input_schema = std::move(input_schema);
  t.annotations.open_world = false;
  t.handler = std::move(handler);
  (void)catalog.AddTool(std::move(t));
}

// Sends elicitation/create with `schema` and reports the answer the way the suite's server does.
ToolResult Elicit(ToolCall& call, const std::string& message, Json schema, const std::string& prefix) {
  Result<Json> answer = call.Request(
      "elicitation/create",
      {{"mode", "form"}, {"message", message}, {"requestedSchema", std::move(schema)}}, kClientTimeout);
  if (!answer.ok()) return ToolResult::Error("Elicitation failed: " + answer.status().message());
  const Json& a = *answer;
  std::string action = a.contains("action") && a["action"].is_string() ? a["action"].get<std::string>() : "unknown";
  Json content = a.contains("content") ? a["content"] : Json::object();
  return ToolResult::Text(prefix + "action=" + action + ", content=" + content.dump());
}

void AddContentTools(Catalog& catalog) {
  Add(catalog, "test_simple_text", "Tests simple text content response", NoArguments(),
      [](const Json&, ToolCall&) { return ToolResult::Text("This is a simple text response for testing."); });
  Add(catalog, "test_image_content", "Tests image content response", NoArguments(),
      [](const Json&, ToolCall&) { return Contents(Json::array({Image()})); });
  Add(catalog, "test_audio_content", "Tests audio content response", NoArguments(), [](const Json&, ToolCall&) {
    return Contents(Json::array({{{"type", "audio"}, {"data", kFixtureWavBase64}, {"mimeType", "audio/wav"}}}));
  });
  Add(catalog, "test_embedded_resource", "Tests embedded resource content response", NoArguments(),
      [](const Json&, ToolCall&) {
        return Contents(Json::array(
            {EmbeddedText("test://embedded-resource", "text/plain", "This is an embedded resource content.")}));
      });
  Add(catalog, "test_multiple_content_types",
      "Tests response with multiple content types (text, image, resource)", NoArguments(),
      [](const Json&, ToolCall&) {
        return Contents(Json::array({TextContent("Multiple content types test:"), Image(),
                                     EmbeddedText("test://mixed-content-resource", "application/json",
                                                  Json{{"test", "data"}, {"value", 123}}.dump())}));
      });
  Add(catalog, "test_error_handling", "Tests error response handling", NoArguments(), [](const Json&, ToolCall&) {
    return ToolResult::Error("This tool intentionally returns an error for testing");
  });
}

void AddStreamingTools(Catalog& catalog) {
  Add(catalog, "test_tool_with_logging", "Tests tool that emits log messages during execution",
      NoArguments(), [](const Json&, ToolCall& call) {
        call.Log(LogLevel::kInfo, "Tool execution started");
        std::this_thread::sleep_for(kStepDelay);
        call.Log(LogLevel::kInfo, "Tool processing data");
        std::this_thread::sleep_for(kStepDelay);
        call.Log(LogLevel::kInfo, "Tool execution completed");
        return ToolResult::Text("Tool with logging executed successfully");
      });
  Add(catalog, "test_tool_with_progress", "Tests tool that reports progress notifications", NoArguments(),
      [](const Json&, ToolCall& call) {
        for (int step : {0, 50, 100}) {
          if (call.Cancelled()) return ToolResult::Error("Cancelled at step " + std::to_string(step));
          if (step > 0) std::this_thread::sleep_for(kStepDelay);
          call.Progress(step, 100, "Completed step " + std::to_string(step) + " of 100");
        }
        return ToolResult::Text("Tool with progress executed successfully");
      });
}

void AddClientRequestTools(Catalog& catalog) {
  Add(catalog, "test_sampling", "Tests server-initiated sampling (LLM completion request)",
      OneStringArgument("prompt", "The prompt to send to the LLM"), [](const Json& args, ToolCall& call) {
        Json params{{"messages", Json::array({UserMessage(TextContent(args["prompt"].get<std::string>()))})},
                    {"maxTokens", 100}};
        Result<Json> answer = call.Request("sampling/createMessage", params, kClientTimeout);
        if (!answer.ok()) return ToolResult::Error("Sampling failed: " + answer.status().message());
        const Json& content = answer->value("content", Json::object());
        std::string text = content.is_object() && content.contains("text") && content["text"].is_string()
                               ? content["text"].get<std::string>()
                               : "No response";
        return ToolResult::Text("LLM response: " + text);
      });
  Add(catalog, "test_elicitation", "Tests server-initiated elicitation (user input request)",
      OneStringArgument("message", "The message to show the user"), [](const Json& args, ToolCall& call) {
        Json schema{{"type", "object"},
                    {"properties",
                     {{"username", {{"type", "string"}, {"description", "User's response"}}},
                      {"email", {{"type", "string"}, {"description", "User's email address"}}}}},
                    {"required", {"username", "email"}}};
        return Elicit(call, args["message"].get<std::string>(), std::move(schema), "User response: ");
      });
  Add(catalog, "test_elicitation_sep1034_defaults", "Tests elicitation with default values per SEP-1034",
      NoArguments(), [](const Json&, ToolCall& call) {
        Json schema{{"type", "object"},
                    {"properties",
                     {{"name", {{"type", "string"}, {"description", "User name"}, {"default", "John Doe"}}},
                      {"age", {{"type", "integer"}, {"description", "User age"}, {"default", 30}}},
                      {"score", {{"type", "number"}, {"description", "User score"}, {"default", 95.5}}},
                      {"status",
                       {{"type", "string"},
                        {"description", "User status"},
                        {"enum", {"active", "inactive", "pending"}},
                        {"default", "active"}}},
                      {"verified", {{"type", "boolean"}, {"description", "Verification status"}, {"default", true}}}}},
                    {"required", Json::array()}};
        return Elicit(call, "Please review and update the form fields with defaults", std::move(schema),
                      "Elicitation completed: ");
      });
  Add(catalog, "test_elicitation_sep1330_enums", "Tests elicitation with enum schema improvements per SEP-1330",
      NoArguments(), [](const Json&, ToolCall& call) {
        auto titled = [](const char* prefix, std::initializer_list<const char*> titles) {
          Json options = Json::array();
          int i = 1;
          for (const char* title : titles) {
            options.push_back({{"const", prefix + std::to_string(i++)}, {"title", title}});
          }
          return options;
        };
        Json options = Json::array({"option1", "option2", "option3"});
        Json schema{
            {"type", "object"},
            {"properties",
             {{"untitledSingle", {{"type", "string"}, {"description", "Select one option"}, {"enum", options}}},
              {"titledSingle",
               {{"type", "string"},
                {"description", "Select one option with titles"},
                {"oneOf", titled("value", {"First Option", "Second Option", "Third Option"})}}},
              {"legacyEnum",
               {{"type", "string"},
                {"description", "Select one option (legacy)"},
                {"enum", {"opt1", "opt2", "opt3"}},
                {"enumNames", {"Option One", "Option Two", "Option Three"}}}},
              {"untitledMulti",
               {{"type", "array"},
                {"description", "Select multiple options"},
                {"minItems", 1},
                {"maxItems", 3},
                {"items", {{"type", "string"}, {"enum", options}}}}},
              {"titledMulti",
               {{"type", "array"},
                {"description", "Select multiple options with titles"},
                {"minItems", 1},
                {"maxItems", 3},
                {"items", {{"anyOf", titled("value", {"First Choice", "Second Choice", "Third Choice"})}}}}}}},
            {"required", Json::array()}};
        return Elicit(call, "Please select options from the enum fields", std::move(schema),
                      "Elicitation completed: ");
      });
}

void AddResources(Catalog& catalog) {
  auto text_resource = [&](const char* uri, const char* name, const char* title, const char* description,
                           std::string text) {
    ResourceSpec r{uri, name, title, description, "text/plain",
                   [uri, text](const std::string&) -> Result<Json> {
                     return Json::array({{{"uri", uri}, {"mimeType", "text/plain"}, {"text", text}}});
                   }};
    (void)catalog.AddResource(std::move(r));
  };
  text_resource("test://static-text", "static-text", "Static Text Resource", "A static text resource for testing",
                "This is the content of the static text resource.");
  (void)catalog.AddResource(ResourceSpec{
      "test://static-binary", "static-binary", "Static Binary Resource",
      "A static binary resource (image) for testing", "image/png", [](const std::string& uri) -> Result<Json> {
        return Json::array({{{"uri", uri}, {"mimeType", "image/png"}, {"blob", kFixturePngBase64}}});
      }});
  text_resource("test://watched-resource", "watched-resource", "Watched Resource",
                "A resource clients may subscribe to", "Watched resource content");

  ResourceTemplateSpec tmpl;
  tmpl.uri_template = "test://template/{id}/data";
  tmpl.name = "template";
  tmpl.title = "Resource Template";
  tmpl.description = "A resource template with parameter substitution";
  tmpl.mime_type = "application/json";
  tmpl.read = [](const std::string& uri, const std::map<std::string, std::string>& vars) -> Result<Json> {
    const std::string& id = vars.at("id");
    Json data{{"id", id}, {"templateTest", true}, {"data", "Data for ID: " + id}};
    return Json::array({{{"uri", uri}, {"mimeType", "application/json"}, {"text", data.dump()}}});
  };
  tmpl.complete = [](const std::string& name, const std::string& value) {
    return name == "id" ? StartingWith({"1", "2", "3", "123"}, value) : std::vector<std::string>{};
  };
  (void)catalog.AddResourceTemplate(std::move(tmpl));
}

Json Messages(Json messages) { return Json{{"messages", std::move(messages)}}; }

void AddPrompts(Catalog& catalog) {
  (void)catalog.AddPrompt(PromptSpec{
      "test_simple_prompt", "Simple Test Prompt", "A simple prompt without arguments", {},
      [](const std::map<std::string, std::string>&) -> Result<Json> {
        return Messages(Json::array({UserMessage(TextContent("This is a simple prompt for testing."))}));
      },
      nullptr});
  (void)catalog.AddPrompt(PromptSpec{
      "test_prompt_with_arguments", "Prompt With Arguments", "A prompt with required arguments",
      {{"arg1", "First test argument", true}, {"arg2", "Second test argument", true}},
      [](const std::map<std::string, std::string>& args) -> Result<Json> {
        return Messages(Json::array({UserMessage(TextContent("Prompt with arguments: arg1='" + args.at("arg1") +
                                                             "', arg2='" + args.at("arg2") + "'"))}));
      },
      [](const std::string& name, const std::string& value) {
        return name == "arg1" ? StartingWith({"paris", "park", "party", "test", "testing"}, value)
                              : std::vector<std::string>{};
      }});
  (void)catalog.AddPrompt(PromptSpec{
      "test_prompt_with_embedded_resource", "Prompt With Embedded Resource",
      "A prompt that includes an embedded resource", {{"resourceUri", "URI of the resource to embed", true}},
      [](const std::map<std::string, std::string>& args) -> Result<Json> {
        return Messages(Json::array(
            {UserMessage(EmbeddedText(args.at("resourceUri"), "text/plain", "Embedded resource content for testing.")),
             UserMessage(TextContent("Please process the embedded resource above."))}));
      },
      nullptr});
  (void)catalog.AddPrompt(PromptSpec{
      "test_prompt_with_image", "Prompt With Image", "A prompt that includes image content", {},
      [](const std::map<std::string, std::string>&) -> Result<Json> {
        return Messages(Json::array({UserMessage(Image()), UserMessage(TextContent("Please analyze the image above."))}));
      },
      nullptr});
}

}  // namespace

void AddConformanceFixtures(Catalog& catalog) {
  AddContentTools(catalog);
  AddStreamingTools(catalog);
  AddClientRequestTools(catalog);
  AddResources(catalog);
  AddPrompts(catalog);
}

}  // namespace dw::mcp
