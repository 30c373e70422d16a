// The Snowflake client: its key-pair JWT checked against the key the way Snowflake checks it, its
// bindings, its decoding of every cell encoding the SQL API documents, and its calls against
// `dw-sim snowflake` (202 polling, partitions, one signature per hour, retries that run nothing
// twice, Snowflake's refusals as clear errors that carry no secret).
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "base/base64.h"
#include "base/redaction.h"
#include "sim/snowflake_sql.h"
#include "tests/warehouse/snowflake_sim_support.h"
#include "warehouse/backends.h"
#include "warehouse/snowflake_auth.h"
#include "warehouse/snowflake_rows.h"
#include "warehouse/snowflake_warehouse.h"

namespace dw::warehouse {
namespace {

using ::dw::testing::TestKeyPem;
using store::SqlRow;
using store::SqlValue;
using test_support::SnowflakeSimFixture;

// The fingerprint Snowflake shows for a key, computed here with OpenSSL's own encoder and digest.
std::string ExpectedFingerprint(const std::string& pem) {
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  EVP_PKEY* key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  unsigned char* der = nullptr;
  int n = i2d_PUBKEY(key, &der);
  unsigned char digest[32];
  unsigned int len = 0;
  EVP_Digest(der, static_cast<size_t>(n), digest, &len, EVP_sha256(), nullptr);
  OPENSSL_free(der);
  EVP_PKEY_free(key);
  std::string b64(45, '\0');
  b64.resize(static_cast<size_t>(EVP_EncodeBlock(reinterpret_cast<unsigned char*>(b64.data()), digest, 32)));
  return "SHA256:" + b64;
}

Json Claims(const std::string& jwt) {
  const size_t a = jwt.find('.'), b = jwt.find('.', a + 1);
  return Json::parse(*DecodeBase64(jwt.substr(a + 1, b - a - 1)));
}

TEST(SnowflakeAuth, TheJwtNamesAccountUserAndTheKeysFingerprintAndLastsAnHour) {
  EXPECT_EQ(SnowflakeJwtAccount("xy12345.us-east-2.aws"), "XY12345");
  EXPECT_EQ(SnowflakeJwtAccount("myorg-myaccount"), "MYORG-MYACCOUNT");
  EXPECT_EQ(SnowflakeJwtAccount("xy12345-ab.global"), "XY12345");

  ::dw::testing::TempDir dir;
  const std::string path = dir.Write("k.p8", TestKeyPem()).string();
  auto key = ReadSnowflakeKey("xy12345.us-east-2.aws", "dw_checks", path);
  ASSERT_TRUE(key.ok()) << key.status().ToString();
  EXPECT_EQ(key->fingerprint, ExpectedFingerprint(TestKeyPem()));
  auto jwt = SignSnowflakeJwt(*key, FromUnixMillis(1796608800000));
  ASSERT_TRUE(jwt.ok());
  Json claims = Claims(*jwt);
  EXPECT_EQ(claims["iss"], "XY12345.DW_CHECKS." + ExpectedFingerprint(TestKeyPem()));
  EXPECT_EQ(claims["sub"], "XY12345.DW_CHECKS");
  EXPECT_EQ(claims["iat"], 1796608800);
  EXPECT_EQ(claims["exp"], 1796608800 + 3600);

  // The private key is a secret from the moment it is read.
  EXPECT_EQ(RedactSecrets("key: " + TestKeyPem()).find("PRIVATE KEY-----\n"), std::string::npos);
  // An encrypted key and a file that is not a key are refused by name, without quoting them.
  const std::string encrypted = dir.Write("enc.p8", "-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHDBOBgkq\n-----END ENCRYPTED PRIVATE KEY-----\n").string();
  auto refused = ReadSnowflakeKey("a", "u", encrypted);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("encrypted"), std::string::npos);
  EXPECT_EQ(refused.status().message().find("MIIFHDBOBgkq"), std::string::npos);
  auto garbage = ReadSnowflakeKey("a", "u", dir.Write("x.p8", "not a key at all").string());
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(garbage.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ReadSnowflakeKey("a", "u", (dir.path() / "missing.p8").string()).status().code(), StatusCode::kNotFound);
}

TEST(SnowflakeAuth, ATokenIsSignedOnceAndAgainFiveMinutesBeforeItExpires) {
  ::dw::testing::TempDir dir;
  auto key = ReadSnowflakeKey("acct", "u", dir.Write("k.p8", TestKeyPem()).string());
  ASSERT_TRUE(key.ok());
  SimulatedClock clock(FromUnixMillis(1796608800000));
  SnowflakeJwtSource source(*key, clock);
  auto first = source.Token();
  ASSERT_TRUE(first.ok());
  clock.Advance(std::chrono::minutes(54));
  EXPECT_EQ(*source.Token(), *first);
  EXPECT_EQ(source.signed_count(), 1);
  clock.Advance(std::chrono::minutes(1) + std::chrono::seconds(1));  // less than 5 minutes left
  auto second = source.Token();
  EXPECT_NE(*second, *first);
  EXPECT_EQ(source.signed_count(), 2);
  // Refused by Snowflake: signed again (the same claims in the same second sign the same bytes).
  source.Invalidate();
  ASSERT_TRUE(source.Token().ok());
  EXPECT_EQ(source.signed_count(), 3);
}

TEST(SnowflakeBindings, NumberedParametersBecomePositionalInTheOrderTheyAppear) {
  auto p = ToQmarkBindings("SELECT count_if(a > :2), max(b) FROM t WHERE c >= :1 AND d < :2", {int64_t{1}, std::string("x")});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->sql, "SELECT count_if(a > ?), max(b) FROM t WHERE c >= ? AND d < ?");
  ASSERT_EQ(p->values.size(), 3u);
  EXPECT_EQ(p->values[0], SqlValue(std::string("x")));
  EXPECT_EQ(p->values[1], SqlValue(int64_t{1}));
  EXPECT_EQ(p->values[2], SqlValue(std::string("x")));

  // Literals, quoted names, comments and :: casts are left alone.
  auto kept = ToQmarkBindings("SELECT ':1', \"a:1\", x::date, $$ :1 $$ -- :1\n/* :1 */ // :1\n FROM t WHERE y = :1",
                              {int64_t{7}});
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->sql, "SELECT ':1', \"a:1\", x::date, $$ :1 $$ -- :1\n/* :1 */ // :1\n FROM t WHERE y = ?");
  EXPECT_EQ(kept->values.size(), 1u);
  auto escaped = ToQmarkBindings("SELECT 'it\\'s :1' WHERE a = :1", {int64_t{1}});
  ASSERT_TRUE(escaped.ok());
  EXPECT_EQ(escaped->sql, "SELECT 'it\\'s :1' WHERE a = ?");

  auto missing = ToQmarkBindings("SELECT :3", {int64_t{1}});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find(":3 has no value"), std::string::npos);
  EXPECT_FALSE(ToQmarkBindings("SELECT 'open", {}).ok());
}

TEST(SnowflakeRows, EveryDocumentedEncodingDecodes) {
  Json row_type = Json::parse(R"([{"name":"N","type":"fixed","scale":0},{"name":"D","type":"FIXED","scale":2},
      {"name":"BIG","type":"fixed","scale":0},{"name":"R","type":"real"},{"name":"B","type":"boolean"},
      {"name":"DT","type":"date"},{"name":"NTZ","type":"timestamp_ntz"},{"name":"TZ","type":"timestamp_tz"},
      {"name":"NANOS","type":"timestamp_ltz"},{"name":"T","type":"time"},{"name":"S","type":"text"},{"name":"V","type":"variant"}])");
  auto columns = SnowflakeRowType(row_type);
  ASSERT_TRUE(columns.ok()) << columns.status().ToString();
  Json data = Json::parse(R"([["-42","-3.25","123456789012345678901234567890","1.5e3","true","-1","1700000000.123456789",
      "1616173619.000000000 1500","1700000000123456000","3723.500000000","héllo","{\"k\":1}"],
      [null,null,null,"NaN","false","19723","-1.500000000","0.000000000 960",null,null,null,null]])");
  std::vector<SqlRow> rows;
  Status s = DecodeSnowflakeRows(*columns, data, rows);
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][0], SqlValue(int64_t{-42}));
  EXPECT_EQ(rows[0][1], SqlValue(-3.25));
  EXPECT_EQ(rows[0][2], SqlValue(std::string("123456789012345678901234567890")));
  EXPECT_EQ(rows[0][3], SqlValue(1500.0));
  EXPECT_EQ(rows[0][4], SqlValue(int64_t{1}));
  EXPECT_EQ(rows[0][5], SqlValue(std::string("1969-12-31")));
  EXPECT_EQ(rows[0][6], SqlValue(std::string("2023-11-14T22:13:20.123456Z")));
  EXPECT_EQ(rows[0][7], SqlValue(std::string("2021-03-19T17:06:59.000000Z")));  // the instant, in UTC
  EXPECT_EQ(rows[0][8], SqlValue(std::string("2023-11-14T22:13:20.123456Z")));
  EXPECT_EQ(rows[0][9], SqlValue(std::string("01:02:03.500000")));
  EXPECT_EQ(rows[0][10], SqlValue(std::string("héllo")));
  EXPECT_EQ(rows[0][11], SqlValue(std::string("{\"k\":1}")));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(rows[1][0]));
  EXPECT_TRUE(std::isnan(std::get<double>(rows[1][3])));
  EXPECT_EQ(rows[1][5], SqlValue(std::string("2024-01-01")));
  EXPECT_EQ(rows[1][6], SqlValue(std::string("1969-12-31T23:59:58.500000Z")));
  EXPECT_EQ(rows[1][7], SqlValue(std::string("1970-01-01T00:00:00.000000Z")));

  // A cell that is not its type, a row of the wrong width and an unknown type are refused by name.
  for (const char* bad : {R"([["1.5x"]])", R"([["true"]])", R"([[1]])"}) {
    std::vector<SqlRow> out;
    Status st = DecodeSnowflakeRows({{"N", "fixed", 0}}, Json::parse(bad), out);
    EXPECT_EQ(st.code(), StatusCode::kDataLoss) << bad;
    EXPECT_NE(st.message().find("'N'"), std::string::npos) << st.message();
  }
  std::vector<SqlRow> out;
  EXPECT_EQ(DecodeSnowflakeRows({{"A", "text", 0}}, Json::parse(R"([["a","b"]])"), out).code(), StatusCode::kDataLoss);
  EXPECT_EQ(DecodeSnowflakeRows({{"A", "timestamp_tz", 0}}, Json::parse(R"([["1.0"]])"), out).code(), StatusCode::kDataLoss);
  auto unknown = SnowflakeRowType(Json::parse(R"([{"name":"V","type":"vector"}])"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("column 'V' is of Snowflake type vector"), std::string::npos);
}

TEST(SnowflakeSimSql, ResolvesNamesAsSnowflakeDoesAndRefusesWhatIsOutsideItsSubsetWithSnowflakesCodes) {
  sim::SnowflakeCatalog catalog{"ANALYTICS", {"SHOP", "INFORMATION_SCHEMA"}, {{"SHOP", "ORDERS"}}, {}};
  auto folded = sim::TranslateSnowflakeSql(
      "SELECT date_part(epoch_millisecond, max(placed_at)), count_if(\"customerId\" IS NULL) FROM analytics.shop.orders o "
      "WHERE o.placed_at >= to_timestamp_ntz(convert_timezone('UTC', to_timestamp_tz(?)))",
      catalog);
  ASSERT_TRUE(folded.ok) << folded.message;
  EXPECT_EQ(folded.sql, "SELECT bq_unix_millis(max(\"PLACED_AT\")), bq_countif(\"customerId\" IS NULL) FROM \"SHOP.ORDERS\" \"O\" "
                        "WHERE \"O\".\"PLACED_AT\" >= bq_timestamp(sf_convert_timezone('UTC', bq_timestamp(?)))");
  const std::pair<const char*, const char*> kRefused[] = {
      {"SELECT count(*) FILTER (WHERE x > 1) FROM shop.orders", "001003"},
      {"SELECT x::date FROM shop.orders", "001003"},
      {"SELECT * FROM shop.orders WHERE id = :1", "001003"},
      {"DELETE FROM shop.orders", "000002"},
      {"SELECT load_extension('x')", "002140"},
      {"SELECT 1; SELECT 2", "000008"},
      {"SELECT 1 FROM analytics.shop.gone", "002003"},
      {"SELECT 1 FROM other.shop.orders", "002003"},
  };
  for (const auto& [sql, code] : kRefused) {
    auto t = sim::TranslateSnowflakeSql(sql, catalog);
    EXPECT_FALSE(t.ok) << sql;
    EXPECT_EQ(t.code, code) << sql << ": " << t.message;
  }
  EXPECT_EQ(sim::TranslateSnowflakeSql("SELECT 1 FROM analytics.shop.gone", catalog).message,
            "SQL compilation error:\nObject 'ANALYTICS.SHOP.GONE' does not exist or not authorized.");
}

class SnowflakeClientTest : public ::testing::Test, public SnowflakeSimFixture {
 protected:
  // Ten orders in SHOP.ORDERS; a column created quoted in mixed case ("customerId").
  static Json Orders() {
    Json rows = Json::array();
    for (int i = 1; i <= 10; ++i)
      rows.push_back({i, i % 3 == 0 ? Json() : Json("c" + std::to_string(i)), i * 1.25,
                      "2026-12-07T0" + std::to_string(i % 10) + ":00:00Z", i % 2 == 0});
    return {{"schema", "SHOP"}, {"table", "ORDERS"}, {"rows", rows},
            {"columns", Json::parse(R"J([{"name": "ID", "type": "NUMBER(38,0)", "nullable": false},
                {"name": "customerId", "type": "VARCHAR"}, {"name": "AMOUNT", "type": "NUMBER(10,2)"},
                {"name": "PLACED_AT", "type": "TIMESTAMP_NTZ"}, {"name": "PAID", "type": "BOOLEAN"}])J")}};
  }
  std::unique_ptr<Warehouse> Open() {
    auto wh = OpenWarehouse(config_, http_.get());
    EXPECT_TRUE(wh.ok()) << wh.status().ToString();
    return wh.ok() ? std::move(*wh) : nullptr;
  }
};

TEST_F(SnowflakeClientTest, StatementsRunWithBindingsThroughTheApisPollingAndPartitions) {
  Json events = {{"schema", "SHOP"}, {"table", "events"}, {"rows", Json::array()},
                 {"columns", Json::parse(R"J([{"name": "ID", "type": "INTEGER"}])J")}};
  Start({{"tables", Json::array({Orders(), events})}, {"async_polls", 2}, {"partition_rows", 3},
         {"denied_schemas", Json::array({"HR"})}});
  auto wh = Open();
  ASSERT_NE(wh, nullptr);
  const Dialect& d = wh->dialect();
  // Names as a person types them: folded as Snowflake folds them.
  const TableId orders = d.TableOf("shop", "orders");
  EXPECT_EQ(orders, (TableId{"SHOP", "ORDERS"}));
  auto r = wh->Query("SELECT " + d.Quote("id") + ", " + d.Quote("placed_at") + ", " + d.Quote("paid") + ", " +
                         d.Quote("amount") + " FROM " + d.Table(orders) + " WHERE " + d.Quote("id") + " >= " +
                         d.Param(1) + " AND " + d.Quote("id") + " <> " + d.Param(2) + " ORDER BY 1",
                     {int64_t{2}, int64_t{5}}, {std::chrono::seconds(10), {{"dw_run", "r-1"}}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  // Rows 2..10 but 5: eight rows over three partitions, read after two 202s.
  ASSERT_EQ(r->rows.size(), 8u);
  EXPECT_EQ(r->rows[0][0], SqlValue(int64_t{2}));
  EXPECT_EQ(r->rows[0][1], SqlValue(std::string("2026-12-07T02:00:00.000000Z")));
  EXPECT_EQ(r->rows[0][2], SqlValue(int64_t{1}));
  EXPECT_EQ(r->rows[0][3], SqlValue(2.5));
  EXPECT_EQ(r->rows[7][0], SqlValue(int64_t{10}));

  Json state = SimState();
  EXPECT_EQ(state["statements"], 1);
  EXPECT_EQ(state["last_bindings"]["1"]["type"], "FIXED");
  EXPECT_EQ(state["last_bindings"]["2"]["value"], "5");
  Json tag = Json::parse(state["query_tags"][0].get<std::string>());
  EXPECT_EQ(tag["dw"], "checks");
  EXPECT_EQ(tag["dw_run"], "r-1");

  // The catalog: a mixed-case column keeps its spelling once described; upper-case ones fold.
  auto schema = wh->DescribeTable(orders);
  ASSERT_TRUE(schema.ok() && schema->has_value()) << schema.status().ToString();
  ASSERT_EQ((*schema)->columns.size(), 5u);
  EXPECT_EQ((*schema)->columns[3].type, "timestamp_ntz");
  EXPECT_FALSE((*schema)->columns[0].nullable);
  ASSERT_NE((*schema)->Find("placed_at"), nullptr);
  EXPECT_EQ((*schema)->Find("placed_at")->name, "PLACED_AT");
  EXPECT_EQ(d.Quote("customerId"), "\"customerId\"");
  EXPECT_EQ(d.Quote("amount"), "\"AMOUNT\"");
  auto nulls = wh->Query("SELECT count(*) - count(" + d.Quote("customerId") + ") FROM " + d.Table(orders), {}, {});
  ASSERT_TRUE(nulls.ok()) << nulls.status().ToString();
  EXPECT_EQ(nulls->rows[0][0], SqlValue(int64_t{3}));

  // A table created quoted in lower case is found on the first lookup, before the catalog taught
  // the dialect its spelling.
  {
    auto fresh = Open();
    auto lower = fresh->DescribeTable(fresh->dialect().TableOf("shop", "events"));
    ASSERT_TRUE(lower.ok() && lower->has_value()) << lower.status().ToString();
    EXPECT_EQ((*lower)->id.table, "events");
  }

  auto tables = wh->ListTables();
  ASSERT_TRUE(tables.ok()) << tables.status().ToString();
  EXPECT_EQ(*tables, (std::vector<TableId>{{"SHOP", "ORDERS"}, {"SHOP", "events"}}));
  EXPECT_EQ(*wh->DescribeTable(d.TableOf("shop", "nope")), std::nullopt);

  // Snowflake's refusals: a table that does not exist, a schema the role cannot read, bad SQL.
  auto missing = wh->Query("SELECT 1 FROM " + d.Table(d.TableOf("shop", "nope")), {}, {});
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound) << missing.status().ToString();
  EXPECT_NE(missing.status().message().find("002003"), std::string::npos) << missing.status().message();
  EXPECT_NE(missing.status().message().find("'ANALYTICS.SHOP.NOPE' does not exist"), std::string::npos);
  auto bad = wh->Query("SELECT nosuchfunction(1)", {}, {});
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument) << bad.status().ToString();
}

TEST_F(SnowflakeClientTest, OneSignatureServesManyStatementsAndARetriedSubmissionRunsOnce) {
  Start({{"tables", Json::array({Orders()})}});
  auto wh = Open();
  ASSERT_NE(wh, nullptr);
  auto other = Open();  // a second warehouse on the same key shares its token
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(wh->Query("SELECT 1", {}, {}).ok());
    ASSERT_TRUE(other->Query("SELECT 2", {}, {}).ok());
  }
  Json state = SimState();
  EXPECT_EQ(state["jwts"], 1) << state.dump();
  EXPECT_EQ(state["statements"], 20);

  // The submission's answer is lost twice (503): it is sent again with the same requestId and
  // retry=true; Snowflake ran it once.
  SetFaults(Json::array({{{"method", "POST"}, {"path", "/api/v2/statements"}, {"status", 503}, {"times", 2},
                          {"body", R"({"code":"390505","message":"Service unavailable"})"}}}));
  auto r = wh->Query("SELECT " + wh->dialect().Param(1), {std::string("once")}, {std::chrono::seconds(10), {}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->rows[0][0], SqlValue(std::string("once")));
  state = SimState();
  EXPECT_EQ(state["statements"], 21);
  EXPECT_EQ(state["retried_submissions"], 1) << state.dump();
}

TEST_F(SnowflakeClientTest, AStatementPastItsTimeoutIsCancelled) {
  Start({{"tables", Json::array({Orders()})}, {"async_polls", 1000}});
  auto wh = Open();
  ASSERT_NE(wh, nullptr);
  auto r = wh->Query("SELECT 1", {}, {std::chrono::milliseconds(400), {}});
  ASSERT_EQ(r.status().code(), StatusCode::kDeadlineExceeded) << r.status().ToString();
  EXPECT_NE(r.status().message().find("was cancelled"), std::string::npos);
  EXPECT_EQ(SimState()["cancelled"], 1);
}

TEST_F(SnowflakeClientTest, AKeyThatIsNotTheUsersIsRefusedWithWhatToDoAndNoSecret) {
  Start({{"tables", Json::array({Orders()})}}, ::dw::testing::GenerateRsaKeyPem());
  auto wh = Open();
  ASSERT_NE(wh, nullptr);
  auto r = wh->Query("SELECT 1", {}, {std::chrono::seconds(5), {}});
  ASSERT_EQ(r.status().code(), StatusCode::kPermissionDenied) << r.status().ToString();
  const std::string m = r.status().message();
  EXPECT_NE(m.find("390144"), std::string::npos) << m;
  EXPECT_NE(m.find("RSA_PUBLIC_KEY"), std::string::npos) << m;
  EXPECT_NE(m.find("warehouse 'sf'"), std::string::npos) << m;
  // The refused token was signed again once (a 401 may be a token expired early), then reported.
  EXPECT_EQ(SimState()["logins_refused"], 2);
  EXPECT_EQ(RedactSecrets(m), m);
  EXPECT_EQ(m.find("BEGIN PRIVATE KEY"), std::string::npos);

  // Unreachable: named as such, with the endpoint and no token.
  config_.api_url = "http://127.0.0.1:1";
  auto down = OpenWarehouse(config_, http_.get());
  ASSERT_TRUE(down.ok());
  auto q = (*down)->Query("SELECT 1", {}, {std::chrono::milliseconds(800), {}});
  EXPECT_FALSE(q.ok());
  EXPECT_NE(q.status().message().find("could not be reached"), std::string::npos) << q.status().ToString();
}

TEST(SnowflakeWorkspace, TheWorkspaceFileDeclaresASnowflakeWarehouseWithItsKeys) {
  ::dw::testing::TempDir dir;
  dir.Write("dataworkers.yaml", R"(version: 1
name: sf-test
warehouses:
  sf:
    type: snowflake
    account: myorg-analytics
    user: DW_CHECKS
    private_key: "${SNOWFLAKE_PRIVATE_KEY_PATH}"
    database: ANALYTICS
    warehouse: CHECKS_XS
    role: DW_READER
  partial: {type: snowflake, account: a, user: u, project: p}
  wrong: {type: postgres, dsn: "postgresql://x", database: D}
)");
  auto env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "SNOWFLAKE_PRIVATE_KEY_PATH") return std::string("keys/rsa_key.p8");
    return std::nullopt;
  };
  config::LoadResult r = config::LoadWorkspace(dir.path(), env);
  ASSERT_FALSE(r.ok());
  const std::string errors = r.ErrorText();
  EXPECT_NE(errors.find("warehouses.partial: a snowflake warehouse needs 'private_key'"), std::string::npos) << errors;
  EXPECT_NE(errors.find("warehouses.partial: a snowflake warehouse needs 'database'"), std::string::npos) << errors;
  EXPECT_NE(errors.find("warehouses.partial.project: 'project' does not apply to snowflake warehouses"), std::string::npos) << errors;
  EXPECT_NE(errors.find("warehouses.wrong.database: 'database' applies to snowflake warehouses"), std::string::npos) << errors;
  EXPECT_EQ(errors.find("warehouses.sf"), std::string::npos) << errors;

  dir.Write("dataworkers.yaml", R"(version: 1
name: sf-test
warehouses:
  sf: {type: snowflake, account: myorg-analytics, user: DW_CHECKS, private_key: "${SNOWFLAKE_PRIVATE_KEY_PATH}", database: ANALYTICS}
)");
  r = config::LoadWorkspace(dir.path(), env);
  ASSERT_TRUE(r.ok()) << r.ErrorText();
  const config::WarehouseConfig& sf = r.workspace->warehouses.at("sf");
  EXPECT_EQ(sf.private_key, (dir.path() / "keys/rsa_key.p8").lexically_normal().string());
  EXPECT_EQ(sf.default_schema, "PUBLIC");
  EXPECT_EQ(sf.api_url, "https://myorg-analytics.snowflakecomputing.com");
  EXPECT_EQ(FindDialect("snowflake")->Param(2), ":2");
  EXPECT_EQ(SnowflakeLocation(sf), "snowflake://myorg-analytics/ANALYTICS at https://myorg-analytics.snowflakecomputing.com");
}

}  // namespace
}  // namespace dw::warehouse
