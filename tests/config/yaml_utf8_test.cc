// YAML files are read as UTF-8 or refused with their file and line: yaml-cpp passes a scalar's
// bytes through unchecked, and what the readers keep is written as JSON later, where nlohmann's
// dump() throws on anything else (a workspace value that was not UTF-8 once ended `dw describe
// --format json` with an uncaught exception; a FlinkDeployment manifest's, `dw collect`). A value
// substituted from the environment is checked the same way.
#include <gtest/gtest.h>

#include "base/utf8.h"
#include "config/workspace.h"
#include "graph/graph_index.h"
#include "graph/kestra_flows.h"
#include "graph/source_batch.h"
#include "replay/replay.h"
#include "tests/support/subprocess.h"

namespace dw {
namespace {

using dw::testing::TempDir;

TEST(Utf8Test, WellFormedTextPassesAndTheFirstBadByteIsFound) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"));
  EXPECT_EQ(FirstInvalidUtf8("ab\xFF" "cd"), 2u);
  EXPECT_EQ(FirstInvalidUtf8("a\xC3"), 1u);                  // truncated
  EXPECT_EQ(FirstInvalidUtf8("a\xC0\xAF"), 1u);              // overlong '/'
  EXPECT_EQ(FirstInvalidUtf8("\xED\xA0\x80"), 0u);           // a surrogate
  EXPECT_EQ(FirstInvalidUtf8("\xF4\x90\x80\x80"), 0u);       // past U+10FFFF
  EXPECT_EQ(FirstInvalidUtf8("ok"), std::string_view::npos);
}

TEST(YamlUtf8Test, AWorkspaceFileThatIsNotUtf8IsRefusedWithItsLineAndColumn) {
  TempDir dir;
  dir.Write("dataworkers.yaml", "version: 1\nname: w\nwarehouses:\n  main: {type: sqlite, path: \"w\xFF.db\"}\n");
  config::LoadResult r = config::LoadWorkspace(dir.path());
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].line, 4);
  EXPECT_EQ(r.errors[0].column, 32);
  EXPECT_NE(r.errors[0].message.find("not UTF-8 (byte 0xFF"), std::string::npos) << r.errors[0].ToString();
  EXPECT_NE(r.errors[0].file.find("dataworkers.yaml"), std::string::npos);
}

// Found by the flink_manifests fuzz target's hour-long run: a NUL inside a plain scalar is UTF-8,
// but YAML does not allow it, and yaml-cpp read "v2\0_2" back as bytes that are not UTF-8 (a stray
// 0xA0), so the manifest's spec could not be written as JSON. Characters outside YAML 1.2's
// printable set are refused with their line and column; tabs, CRLF, a BOM and text past the Basic
// Multilingual Plane still load.
TEST(YamlUtf8Test, AControlCharacterYamlDoesNotAllowIsRefusedWithItsLineAndColumn) {
  const std::pair<std::string, std::string> refused[] = {
      {std::string("v2\0_2", 5), "0x00"}, {"v2\x01", "0x01"}, {"v2\x1B[0m", "0x1B"}, {"v2\x7F", "0x7F"},
      {"v2\xC2\x9B", "0xC2"}, {"v2\xEF\xBF\xBE", "0xEF"}};
  for (const auto& [value, byte] : refused) {
    TempDir dir;
    dir.Write("dataworkers.yaml", "version: 1\nname: w\ndescription: " + value + "\n");
    config::LoadResult r = config::LoadWorkspace(dir.path());
    ASSERT_FALSE(r.ok()) << byte;
    ASSERT_EQ(r.errors.size(), 1u) << byte;
    EXPECT_EQ(r.errors[0].line, 3) << byte;
    EXPECT_EQ(r.errors[0].column, 16) << byte;
    EXPECT_NE(r.errors[0].message.find("control character (byte " + byte + ") that YAML does not allow"),
              std::string::npos)
        << r.errors[0].ToString();
  }
  TempDir dir;
  dir.Write("dataworkers.yaml",
            "\xEF\xBB\xBFversion: 1\r\nname: w\r\n# tab\there, caf\xC3\xA9 \xF0\x9F\x98\x80\r\n");
  config::LoadResult ok = config::LoadWorkspace(dir.path());
  EXPECT_TRUE(ok.ok()) << (ok.errors.empty() ? "" : ok.errors[0].ToString());
}

TEST(YamlUtf8Test, AnEnvironmentValueThatIsNotUtf8IsRefusedWithoutShowingIt) {
  TempDir dir;
  dir.Write("dataworkers.yaml", "version: 1\nname: w\nnotify:\n  slack: {webhook: \"${DW_UTF8_TEST_HOOK}\"}\n");
  auto env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "DW_UTF8_TEST_HOOK") return std::string("https://hooks.example.com/s3cr3t\xFF");
    return std::nullopt;
  };
  config::LoadResult r = config::LoadWorkspace(dir.path(), env);
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].message.find("environment variable DW_UTF8_TEST_HOOK is not UTF-8 text"), std::string::npos)
      << r.errors[0].ToString();
  EXPECT_EQ(r.errors[0].ToString().find("s3cr3t"), std::string::npos) << "the value is never shown";
}

TEST(YamlUtf8Test, AKestraFlowThatIsNotUtf8IsRefusedWithItsFile) {
  graph::SourceBatch b;
  graph::GraphIndex ix;
  Status st = graph::AddKestraFlow("id: tariff_sync\nnamespace: pricing\ndescription: \"\xC3(\"\ntasks: []\n",
                                   "flows/tariff_sync.yml", {}, ix, &b);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message().rfind("flows/tariff_sync.yml:3: not valid YAML: the text is not UTF-8", 0), 0u) << st.message();
}

TEST(YamlUtf8Test, AScenarioThatIsNotUtf8IsRefusedWithItsFileAndLine) {
  TempDir dir;
  dir.Write("workspace/dataworkers.yaml", "version: 1\nname: t\n");
  dir.Write("scenario.yaml", "name: s\ndescription: \"\xFE\"\n");
  auto s = replay::ReadScenario(dir.path());
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("scenario.yaml:2: (syntax): the text is not UTF-8 (byte 0xFE"), std::string::npos)
      << s.status().message();
}

}  // namespace
}  // namespace dw
