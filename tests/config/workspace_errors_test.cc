// Broken workspace files, one mistake each: every error names the line, the key path and what to
// do about it, and a broken file never yields a workspace.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "workspace_test_support.h"

namespace dw::config {
namespace {

using testing::ExpectError;
using testing::kMinimal;
using testing::TempWorkspace;

class ConfigErrorsTest : public ::testing::Test {
 protected:
  LoadResult Load(const std::string& yaml, std::map<std::string, std::string> env = {}) {
    return ws_.Load(yaml, std::move(env));
  }
  TempWorkspace ws_;
};

// One broken workspace file per case, with every error it must produce: (key path, line, part of
// the message). Adding a case is one entry.
struct ExpectedError {
  std::string path;
  int line;
  std::string message;
};

struct ErrorCase {
  std::string name;  // the test's name
  std::string yaml;
  std::vector<ExpectedError> errors;
};

const std::vector<ErrorCase>& ErrorCases() {
  static const std::vector<ErrorCase> kCases = {
      {"UnknownTopLevelKeySuggestsTheClosest", "version: 1\nname: t\nwarehouse:\n  main: {type: sqlite, path: w.db}\n",
       {{"warehouse", 3, "unknown key 'warehouse'; did you mean 'warehouses'?"}}},
      {"UnknownNestedKeySuggestsTheClosest", std::string(kMinimal) +
       "checks:\n"
       "  - table: main.t\n"
       "    time_column: at\n"
       "    freshnes: {max_age: 30m}\n",
       {{"checks[0].freshnes", 8, "did you mean 'freshness'?"}}},
      {"UnknownKeyWithoutNeighbourListsTheAllowedKeys", std::string(kMinimal) + "lineage: {zzzzzzzz: 1}\n",
       {{"lineage.zzzzzzzz", 5, "allowed here: dbt_manifest, openlineage, kestra_flows"}}},
      {"DeskUrlMustBeHttpsOffLoopback", std::string(kMinimal) + "desk:\n  url: http://dw.example.com\n",
       {{"desk.url", 6, "must be an https:// URL (the approval links it carries are credentials)"}}},
      {"DeskUrlCarriesNoQuery", std::string(kMinimal) + "desk:\n  url: \"https://dw.example.com/?x=1\"\n",
       {{"desk.url", 6, "must not carry a query or a fragment"}}},
      {"TrustedProxiesAreCidrRanges", std::string(kMinimal) +
       "desk:\n  trusted_proxies:\n    - 127.0.0.1/32\n    - 10.0.0.0/33\n    - proxy.internal\n    - 10.1.0.0/8\n",
       {{"desk.trusted_proxies[1]", 8, "the prefix length must be a number from 0 to 32"},
        {"desk.trusted_proxies[2]", 9, "'proxy.internal' is not an address range such as 10.0.0.0/8"},
        {"desk.trusted_proxies[3]", 10, "has address bits set past its /8 prefix"}}},
      {"PeopleKeysAreFingerprints", std::string(kMinimal) + "people:\n  ana@example.com:\n    keys: [\"sha256:abc\"]\n",
       {{"people.ana@example.com.keys[0]", 7, "is not a key fingerprint: write sha256: and the 64 lower-case hex"}}},
      {"TwoPeopleCannotShareAKey", std::string(kMinimal) + "people:\n  ana@example.com: {keys: [\"sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"]}\n"
       "  bo@example.com: {keys: [\"sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"]}\n",
       {{"people.bo@example.com.keys[0]", 7, "is also declared for ana@example.com: a key belongs to one person"}}},
      {"PeopleAreNamedByEmail", std::string(kMinimal) + "people:\n  agent:dw-incidents: {keys: []}\n",
       {{"people.agent:dw-incidents", 6, "is not a person's email (name@domain)"}}},
      {"VersionMustBeAWholeNumber", "version: one\nname: t\n",
       {{"version", 1, "expected a whole number, got 'one'"}}},
      {"UnsupportedVersion", "version: 2\nname: t\n",
       {{"version", 1, "unsupported version 2"}}},
      {"MissingVersionAndName", "warehouses:\n  main: {type: sqlite, path: w.db}\n",
       {{"version", 1, "missing required key 'version'"}, {"name", 1, "missing required key 'name'"}}},
      {"ListExpectedButScalarGiven", std::string(kMinimal) + "checks:\n  - table: main.t\n    not_null: member_id\n",
       {{"checks[0].not_null", 7, "expected a list"}}},
      {"BoolExpected", std::string(kMinimal) + "assets:\n  - id: sync://h/s\n    customer_facing: yes\n",
       {{"assets[0].customer_facing", 7, "expected true or false, got 'yes'"}}},
      {"MappingExpected", std::string(kMinimal) + "domains: [loyalty]\n",
       {{"domains", 5, "expected a mapping"}}},
      {"WarehouseTypeIsRequired", "version: 1\nname: t\nwarehouses:\n  main: {path: w.db}\n",
       {{"warehouses.main.type", 4, "missing required key 'type'"}}},
      {"WarehouseTypeSuggestsTheClosest", "version: 1\nname: t\nwarehouses:\n  pg: {type: postgresql, dsn: x}\n",
       {{"warehouses.pg.type", 4, "'postgresql' is not one of sqlite, postgres, bigquery, snowflake; did you mean 'postgres'?"}}},
      {"SqliteNeedsAPath", "version: 1\nname: t\nwarehouses:\n  main: {type: sqlite}\n",
       {{"warehouses.main", 4, "a sqlite warehouse needs 'path'"}}},
      {"PostgresNeedsADsn", "version: 1\nname: t\nwarehouses:\n  pg:\n    type: postgres\n",
       {{"warehouses.pg", 5, "a postgres warehouse needs 'dsn'"}}},
      {"WarehouseNameMustBeAName", "version: 1\nname: t\nwarehouses:\n  my.wh: {type: sqlite, path: w.db}\n",
       {{"warehouses.my.wh", 4, "not a valid name"}}},
      {"PlatformNeedsTypeAndUrl", std::string(kMinimal) + "platforms:\n  flink: {}\n",
       {{"platforms.flink.type", 6, "missing required key 'type'"}, {"platforms.flink.url", 6, "missing required key 'url'"}}},
      {"UnknownPlatformType", std::string(kMinimal) + "platforms:\n  f: {type: flinc, url: \"http://h:1\"}\n",
       {{"platforms.f.type", 6, "did you mean 'flink'?"}}},
      {"UrlMustBeHttp", std::string(kMinimal) + "platforms:\n  f:\n    type: flink\n    url: ftp://h:21\n",
       {{"platforms.f.url", 8, "'ftp://h:21' is not a URL"}}},
      {"TenantIsForKestraOnly", std::string(kMinimal) + "platforms:\n  f:\n    type: flink\n    url: http://h\n"
       "    tenant: main\n",
       {{"platforms.f.tenant", 9, "'tenant' applies to kestra platforms only"}}},
      {"BadAutonomyLevel", std::string(kMinimal) + "domains:\n  loyalty: {autonomy: L5}\n",
       {{"domains.loyalty.autonomy", 6, "'L5' is not one of L0, L1, L2, L3, L4"}}},
      {"DurationWithoutUnit", std::string(kMinimal) +
       "checks:\n  - table: main.t\n    time_column: at\n    freshness: {max_age: 30}\n",
       {{"checks[0].freshness.max_age", 8, "'30' is not a duration: the unit is missing"}}},
      {"DurationWithUnknownUnit", std::string(kMinimal) + "domains:\n  d:\n    approval_ttl: 2 hours\n",
       {{"domains.d.approval_ttl", 7, "unknown unit"}}},
      {"CronValueOutOfRange", std::string(kMinimal) + "assets:\n  - id: sync://h/s\n    schedule: \"0 24 * * *\"\n",
       {{"assets[0].schedule", 7, "hour: 24 is out of range 0-23"}}},
      {"CronWithWrongFieldCount", std::string(kMinimal) + "assets:\n  - id: sync://h/s\n    schedule: \"0 22 * *\"\n",
       {{"assets[0].schedule", 7, "has 4 fields; a cron schedule has 5"}}},
      {"AssetIdWithUnknownKind", std::string(kMinimal) + "assets:\n  - id: topic://prod/points\n",
       {{"assets[0].id", 6, "unknown kind 'topic'"}}},
      {"AssetIdInAListIsCheckedToo", std::string(kMinimal) +
       "assets:\n  - id: flink://flink/job\n    reads: [kafka://prod/a, kafka:/prod/b]\n",
       {{"assets[0].reads[1]", 7, "expected <kind>://<instance>/<name>"}}},
      {"AssetDomainMustExist", std::string(kMinimal) +
       "domains:\n  loyalty: {owners: [ana@example.com]}\n"
       "assets:\n  - id: flink://flink/job\n    domain: loyality\n",
       {{"assets[0].domain", 9, "unknown domain 'loyality'; did you mean 'loyalty'?"}}},
      {"DuplicateAssetIds", std::string(kMinimal) + "assets:\n  - id: kafka://p/t\n  - id: kafka://p/t\n",
       {{"assets[1].id", 7, "already described on line 6"}}},
      {"UnsetEnvironmentVariable", std::string(kMinimal) +
       "platforms:\n  kestra:\n    type: kestra\n    url: http://h\n"
       "    username: admin\n    password: \"${KESTRA_PASSWORD}\"\n",
       {{"platforms.kestra.password", 10, "environment variable KESTRA_PASSWORD is not set"}}},
      {"MalformedEnvironmentReference", "version: 1\nname: \"${1BAD}\"\n",
       {{"name", 2, "is not a variable reference"}}},
      {"DuplicateKeyInAMapping", "version: 1\nname: a\nname: b\n",
       {{"name", 3, "duplicate key 'name' (first set on line 2)"}}},
      {"DuplicateWarehouseName", "version: 1\nname: a\nwarehouses:\n  main: {type: sqlite, path: a.db}\n"
       "  main: {type: sqlite, path: b.db}\n",
       {{"warehouses.main", 5, "duplicate key 'main'"}}},
      {"UnknownTimeZone", "version: 1\nname: t\ntimezone: Europe/Atlantis\n",
       {{"timezone", 3, "unknown time zone 'Europe/Atlantis'"}}},
      {"CheckTableMustNameAConfiguredWarehouse", std::string(kMinimal) + "checks:\n  - table: mian.member_balances\n",
       {{"checks[0].table", 6, "unknown warehouse 'mian' in table 'mian.member_balances'; did you mean 'main'?"}}},
      {"CheckTableNeedsAWarehousePart", std::string(kMinimal) + "checks:\n  - table: member_balances\n",
       {{"checks[0].table", 6, "is not a table reference"}}},
      {"PostgresTablesNeedASchema", "version: 1\nname: t\nwarehouses:\n  pg: {type: postgres, dsn: \"postgresql://h/db\"}\n"
       "checks:\n  - table: pg.orders\n",
       {{"checks[0].table", 6, "postgres tables are named warehouse.schema.table"}}},
      {"FreshnessNeedsATimeColumn", std::string(kMinimal) + "checks:\n  - table: main.t\n    freshness: {max_age: 1h}\n",
       {{"checks[0].freshness", 7, "freshness needs 'time_column'"}}},
      {"CustomCheckNeedsExactlyOneExpectation", std::string(kMinimal) +
       "checks:\n  - table: main.t\n    custom:\n"
       "      - {name: a, sql: \"SELECT 1\"}\n"
       "      - {name: b, sql: \"SELECT 1\", must_be: 0, between: [0, 1]}\n"
       "      - {name: c, sql: \"SELECT 1\", between: [0, 1, 2]}\n",
       {{"checks[0].custom[0]", 8, "set one of must_be or between"}, {"checks[0].custom[1]", 9, "set only one of must_be and between"}, {"checks[0].custom[2].between", 10, "expected exactly 2 items, got 3"}}},
      {"UniqueTakesColumnsOrCompoundKeys", std::string(kMinimal) +
       "checks:\n  - table: main.t\n    unique: [id, [store_id, day], {a: b}]\n",
       {{"checks[0].unique[2]", 7, "expected a column name or a list of column names"}}},
      {"MonitorWarehouseMustExist", std::string(kMinimal) +
       "monitors:\n  - name: m\n    warehouse: mainn\n    sql: \"SELECT 1\"\n",
       {{"monitors[0].warehouse", 7, "unknown warehouse 'mainn'; did you mean 'main'?"}}},
      {"MonitorNeedsSql", std::string(kMinimal) + "monitors:\n  - name: m\n    warehouse: main\n",
       {{"monitors[0]", 6, "set at least one of sql or series_sql"}}},
      {"MonitorEnumsAndNumbers", std::string(kMinimal) +
       "monitors:\n  - name: m\n    warehouse: main\n    sql: \"SELECT 1\"\n"
       "    seasonality: weekly\n    sensitivity: high\n    direction: down\n",
       {{"monitors[0].seasonality", 9, "'weekly' is not one of none, auto"}, {"monitors[0].sensitivity", 10, "expected a number, got 'high'"}, {"monitors[0].direction", 11, "'down' is not one of both, drop, spike"}}},
      {"NegativeVolumeIsRejected", std::string(kMinimal) + "checks:\n  - table: main.t\n    volume: {min_rows: -5}\n",
       {{"checks[0].volume.min_rows", 7, "must be at least 0"}}},
      {"NotifyChannelNeedsItsSecret", std::string(kMinimal) + "notify:\n  slack: {url: \"http://h\"}\n",
       {{"notify.slack.url", 6, "unknown key 'url'"}, {"notify.slack", 6, "set at least one of webhook or token"}}},
      {"TheConsoleChannelTakesNoKeys", std::string(kMinimal) + "notify:\n  console: {colour: red}\n",
       {{"notify.console.colour", 6, "unknown key 'colour' (this mapping takes no keys: write {})"}}},
      {"RequiredKeyWithEmptyValue", "version: 1\nname:\n",
       {{"name", 2, "'name' needs a value"}}},
  };
  return kCases;
}

class ConfigErrorCaseTest : public ::testing::TestWithParam<ErrorCase> {
 protected:
  TempWorkspace ws_;
};

TEST_P(ConfigErrorCaseTest, NamesTheLineTheKeyPathAndWhatToDo) {
  const ErrorCase& c = GetParam();
  auto r = ws_.Load(c.yaml);
  for (const ExpectedError& e : c.errors) ExpectError(r, e.path, e.line, e.message);
}

INSTANTIATE_TEST_SUITE_P(Table, ConfigErrorCaseTest, ::testing::ValuesIn(ErrorCases()),
                         [](const ::testing::TestParamInfo<ErrorCase>& info) { return info.param.name; });

TEST_F(ConfigErrorsTest, YamlSyntaxErrorHasLineAndColumn) {
  auto r = Load("version: 1\nname: t\nwarehouses:\n  main: {type: sqlite, path: w.db\n");
  ASSERT_EQ(r.errors.size(), 1u) << r.ErrorText();
  EXPECT_GE(r.errors[0].line, 4);
  EXPECT_GT(r.errors[0].column, 0);
  EXPECT_NE(r.errors[0].message.find("YAML syntax error"), std::string::npos);
  EXPECT_EQ(r.errors[0].file, ws_.file());
}

TEST_F(ConfigErrorsTest, BadIndentationIsASyntaxError) {
  auto r = Load("version: 1\nname: t\n  oops: 1\n");
  ASSERT_EQ(r.errors.size(), 1u) << r.ErrorText();
  EXPECT_EQ(r.errors[0].line, 3);
  EXPECT_NE(r.errors[0].message.find("YAML syntax error"), std::string::npos);
}

TEST_F(ConfigErrorsTest, OnlyOneYamlDocument) {
  auto r = Load("version: 1\nname: t\n---\nversion: 1\n");
  ASSERT_EQ(r.errors.size(), 1u) << r.ErrorText();
  EXPECT_EQ(r.errors[0].line, 4);  // where the second document starts
  EXPECT_NE(r.errors[0].message.find("holds 2 YAML documents"), std::string::npos);
}

TEST_F(ConfigErrorsTest, EmptyFileSuggestsInit) {
  auto r = Load("# nothing yet\n");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].message.find("empty"), std::string::npos);
  EXPECT_NE(r.errors[0].message.find("dw init"), std::string::npos);
  EXPECT_EQ(r.errors[0].file, ws_.file());
}

TEST_F(ConfigErrorsTest, MissingFileSuggestsInit) {
  auto r = LoadWorkspace(ws_.dir(), [](const std::string&) { return std::nullopt; });
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].ToString().find(ws_.file() + ": no workspace file here; run `dw init"),
            std::string::npos)
      << r.errors[0].ToString();
}

TEST_F(ConfigErrorsTest, TopLevelMustBeAMapping) {
  auto r = Load("- version: 1\n");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].message.find("must be a mapping"), std::string::npos);
}

TEST_F(ConfigErrorsTest, AllErrorsAreReportedTogetherInFileOrder) {
  auto r = Load("version: 3\n"                                  // 1
                "name: t\n"                                     // 2
                "warehouses:\n"                                 // 3
                "  main: {type: sqlite, path: w.db}\n"          // 4
                "domains:\n"                                    // 5
                "  d: {autonomy: L9}\n"                         // 6
                "assets:\n"                                     // 7
                "  - id: flink://flink/j\n"                     // 8
                "    domain: nope\n"                            // 9
                "    schedule: \"61 * * * *\"\n"                // 10
                "checks:\n"                                     // 11
                "  - table: other.t\n"                          // 12
                "    colour: red\n");                           // 13
  ASSERT_EQ(r.errors.size(), 6u) << r.ErrorText();
  std::vector<int> lines;
  for (const auto& e : r.errors) lines.push_back(e.line);
  EXPECT_EQ(lines, (std::vector<int>{1, 6, 9, 10, 12, 13})) << r.ErrorText();
  EXPECT_EQ(r.errors[0].path, "version");
  EXPECT_EQ(r.errors[1].path, "domains.d.autonomy");
  EXPECT_EQ(r.errors[2].path, "assets[0].domain");
  EXPECT_EQ(r.errors[3].path, "assets[0].schedule");
  EXPECT_EQ(r.errors[4].path, "checks[0].table");
  EXPECT_EQ(r.errors[5].path, "checks[0].colour");
  EXPECT_FALSE(r.workspace.has_value());
}

}  // namespace
}  // namespace dw::config

namespace dw::config {
namespace {

// Hostile or odd YAML must come back as errors, never as an exception or a crash.
TEST(ConfigRobustnessTest, OddYamlNeverThrows) {
  const char* inputs[] = {
      "version: 1\nname: t\nwarehouses: !!binary aGVsbG8=\n",
      "version: 1\nname: t\nassets: &a [*a]\n",
      "version: 1\nname: t\n<<: {x: 1}\n",
      "version: 1\nname: [t]\n? [complex, key]\n: 1\n",
      "\t\tversion: 1\n",
      "version: 1\nname: t\nchecks: [[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]\n",
      "version: 1\nname: t\nwarehouses:\n  main: {type: sqlite, path: \"${A:-${B}}\"}\n",
      "version: 1\nname: t\n---\nversion: 2\n",
      "version: 1e400\nname: ~\n",
  };
  for (const char* yaml : inputs) {
    testing::TempWorkspace tmp;
    LoadResult r;
    EXPECT_NO_THROW(r = tmp.Load(yaml)) << yaml;
    EXPECT_FALSE(r.errors.empty()) << yaml;
    EXPECT_FALSE(r.workspace.has_value()) << yaml;
  }
}

}  // namespace
}  // namespace dw::config
