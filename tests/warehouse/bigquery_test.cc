// The BigQuery warehouse: its JWT, its cell decoding and dialect, and the client against
// `dw-sim bigquery` over real HTTP (typed rows, paging, async completion, retries, errors, tokens
// and secrets).
#include <gtest/gtest.h>

#include <thread>

#include "base/base64.h"
#include "base/redaction.h"
#include "sim/bigquery_sql.h"
#include "tests/warehouse/bigquery_sim_support.h"
#include "warehouse/bigquery_auth.h"
#include "warehouse/bigquery_rows.h"
#include "warehouse/bigquery_warehouse.h"

namespace dw::warehouse {
namespace {

using test_support::BigQuerySimFixture;
using test_support::TestKeyPem;

std::string FromBase64Url(std::string s) {
  for (char& c : s) c = c == '-' ? '+' : c == '_' ? '/' : c;
  const size_t pad = (4 - s.size() % 4) % 4;
  s.append(pad, '=');
  std::string out(s.size(), '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()), reinterpret_cast<const unsigned char*>(s.data()),
                          static_cast<int>(s.size()));
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

// Verifies `jwt`'s RS256 signature with the public key of `pem` alone, as Google's endpoint does.
bool VerifiesWith(const std::string& jwt, const std::string& pem) {
  const size_t dot = jwt.rfind('.');
  const std::string input = jwt.substr(0, dot), sig = FromBase64Url(jwt.substr(dot + 1));
  BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
  EVP_PKEY* key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  BIO* pub = BIO_new(BIO_s_mem());
  PEM_write_bio_PUBKEY(pub, key);
  EVP_PKEY* public_key = PEM_read_bio_PUBKEY(pub, nullptr, nullptr, nullptr);
  BIO_free(pub);
  EVP_PKEY_free(key);
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  bool ok = EVP_DigestVerifyInit(ctx, nullptr, EVP_sha256(), nullptr, public_key) == 1 &&
            EVP_DigestVerify(ctx, reinterpret_cast<const unsigned char*>(sig.data()), sig.size(),
                             reinterpret_cast<const unsigned char*>(input.data()), input.size()) == 1;
  EVP_MD_CTX_free(ctx);
  EVP_PKEY_free(public_key);
  return ok;
}

TEST(BigQueryAuth, JwtVerifiesWithThePublicKeyAndATamperedOneDoesNot) {
  ServiceAccountKey key{"dw@p.iam.gserviceaccount.com", TestKeyPem(), "https://oauth2.googleapis.com/token"};
  auto jwt = SignServiceAccountJwt(key, "https://oauth2.googleapis.com/token",
                                   "https://www.googleapis.com/auth/bigquery", FromUnixMillis(1700000000000));
  ASSERT_TRUE(jwt.ok()) << jwt.status().ToString();
  EXPECT_TRUE(VerifiesWith(*jwt, TestKeyPem()));
  const size_t dot1 = jwt->find('.'), dot2 = jwt->rfind('.');
  Json header = Json::parse(FromBase64Url(jwt->substr(0, dot1)));
  Json claims = Json::parse(FromBase64Url(jwt->substr(dot1 + 1, dot2 - dot1 - 1)));
  EXPECT_EQ(header["alg"], "RS256");
  EXPECT_EQ(claims["iss"], "dw@p.iam.gserviceaccount.com");
  EXPECT_EQ(claims["aud"], "https://oauth2.googleapis.com/token");
  EXPECT_EQ(claims["scope"], "https://www.googleapis.com/auth/bigquery");
  EXPECT_EQ(claims["iat"], 1700000000);
  EXPECT_EQ(claims["exp"], 1700003600);
  // Claims naming another issuer under the original signature: refused.
  Json forged = claims;
  forged["iss"] = "attacker@p.iam.gserviceaccount.com";
  EXPECT_FALSE(VerifiesWith(jwt->substr(0, dot1) + "." + Base64Url(forged.dump()) + jwt->substr(dot2), TestKeyPem()));
  // Signed by another key: refused.
  ServiceAccountKey other = key;
  other.private_key_pem = test_support::GenerateRsaKeyPem();
  auto foreign = SignServiceAccountJwt(other, "aud", "scope", FromUnixMillis(1700000000000));
  ASSERT_TRUE(foreign.ok());
  EXPECT_FALSE(VerifiesWith(*foreign, TestKeyPem()));
  // Not an RSA key: refused without quoting it.
  other.private_key_pem = "-----BEGIN PRIVATE KEY-----\nbm90IGEga2V5\n-----END PRIVATE KEY-----\n";
  auto bad = SignServiceAccountJwt(other, "aud", "scope", FromUnixMillis(0));
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message().find("bm90IGEga2V5"), std::string::npos);
}

TEST(BigQueryRows, DecodesEachTypeExactlyAndRefusesArraysAndRecords) {
  Json schema = Json::parse(R"({"fields": [{"name": "id", "type": "INT64"}, {"name": "at", "type": "TIMESTAMP"},
      {"name": "amount", "type": "NUMERIC"}, {"name": "ok", "type": "BOOL"}, {"name": "x", "type": "FLOAT64"},
      {"name": "d", "type": "DATE"}]})");
  auto types = ScalarColumnTypes(schema);
  ASSERT_TRUE(types.ok()) << types.status().ToString();
  Json rows = Json::parse(R"([
      {"f": [{"v": "9007199254740993"}, {"v": "1.7E9"}, {"v": "123456789012345678901234567.123456789"},
             {"v": "true"}, {"v": "2.5"}, {"v": "2026-12-07"}]},
      {"f": [{"v": null}, {"v": "1.733537012345678E9"}, {"v": null}, {"v": "false"}, {"v": "-1e-3"}, {"v": null}]},
      {"f": [{"v": "-7"}, {"v": "-0.5"}, {"v": "0"}, {"v": null}, {"v": "NaN"}, {"v": "1970-01-01"}]}])");
  std::vector<SqlRow> out;
  ASSERT_TRUE(DecodeBigQueryRows(*types, rows, out).ok());
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0][0], SqlValue(int64_t{9007199254740993}));  // beyond a double's exact integers
  EXPECT_EQ(out[0][1], SqlValue(std::string("2023-11-14T22:13:20.000000Z")));
  EXPECT_EQ(out[0][2], SqlValue(std::string("123456789012345678901234567.123456789")));
  EXPECT_EQ(out[0][3], SqlValue(int64_t{1}));
  EXPECT_EQ(out[0][4], SqlValue(2.5));
  EXPECT_EQ(out[0][5], SqlValue(std::string("2026-12-07")));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(out[1][0]));
  EXPECT_EQ(out[1][1], SqlValue(std::string("2024-12-07T02:03:32.345678Z")));
  EXPECT_EQ(out[1][3], SqlValue(int64_t{0}));
  EXPECT_EQ(out[2][1], SqlValue(std::string("1969-12-31T23:59:59.500000Z")));
  // A cell that is not its type, and a row of the wrong width: errors, not guesses.
  Json bad = Json::parse(R"([{"f": [{"v": "12x"}, {"v": "1"}, {"v": "1"}, {"v": "true"}, {"v": "1"}, {"v": "d"}]}])");
  EXPECT_EQ(DecodeBigQueryRows(*types, bad, out).code(), StatusCode::kDataLoss);
  EXPECT_EQ(DecodeBigQueryRows(*types, Json::parse(R"([{"f": [{"v": "1"}]}])"), out).code(), StatusCode::kDataLoss);
  EXPECT_EQ(DecodeBigQueryRows(*types, Json::parse(R"([{"f": 3}])"), out).code(), StatusCode::kDataLoss);
  auto repeated = ScalarColumnTypes(Json::parse(R"({"fields": [{"name": "tags", "type": "STRING", "mode": "REPEATED"}]})"));
  EXPECT_NE(repeated.status().message().find("'tags' is REPEATED"), std::string::npos) << repeated.status().message();
  auto record = ScalarColumnTypes(Json::parse(R"({"fields": [{"name": "addr", "type": "RECORD", "fields": []}]})"));
  EXPECT_NE(record.status().message().find("'addr' is a RECORD"), std::string::npos);
  EXPECT_FALSE(ScalarColumnTypes(Json::parse(R"({"fields": "x"})")).ok());
}

TEST(BigQueryDialect, QuotesWithBackticksAndNamesParameters) {
  auto d = MakeBigQueryDialect("my-project");
  EXPECT_EQ(d->Quote("a`b\\c"), "`a\\`b\\\\c`");
  EXPECT_EQ(d->Table({"shop", "orders"}), "`my-project`.`shop`.`orders`");
  EXPECT_EQ(d->Param(3), "@p3");
  EXPECT_EQ(d->TimeParam(1, TimeEncoding::kNative, "date"), "DATE(CAST(@p1 AS TIMESTAMP))");
  EXPECT_EQ(d->TimeParam(2, TimeEncoding::kEpochMillis, "int64"), "@p2");
  EXPECT_EQ(d->CountWhere("x < @p1"), "countif(x < @p1)");
  EXPECT_TRUE(d->IsNativeTimeType("timestamp"));
  // The name round-trips through the simulator's reading of GoogleSQL.
  sim::BigQueryCatalog catalog{"my-project", "US", {"shop"}, {{"shop", "orders"}}, {}};
  auto t = sim::TranslateGoogleSql("SELECT " + d->Quote("a`b") + " FROM " + d->Table({"shop", "orders"}), catalog);
  ASSERT_TRUE(t.ok) << t.message;
  EXPECT_EQ(t.sql, "SELECT \"a`b\" FROM \"shop.orders\"");
}

TEST(BigQuerySimSql, RefusesWhatIsOutsideItsSubsetInBigQuerysShape) {
  sim::BigQueryCatalog catalog{"p", "US", {"shop"}, {{"shop", "orders"}}, {}};
  for (const char* sql : {"SELECT count(*) FILTER (WHERE x > 1) FROM `shop`.`orders`", "SELECT * FROM `shop`.`orders` WHERE id = $1",
                          "DELETE FROM `shop`.`orders`", "SELECT load_extension('x')", "SELECT 1; SELECT 2"}) {
    auto t = sim::TranslateGoogleSql(sql, catalog);
    EXPECT_FALSE(t.ok) << sql;
    EXPECT_EQ(t.reason, "invalidQuery") << sql;
    EXPECT_EQ(t.http_status, 400) << sql;
  }
  auto missing = sim::TranslateGoogleSql("SELECT 1 FROM `p`.`shop`.`gone`", catalog);
  EXPECT_EQ(missing.reason, "notFound");
  EXPECT_EQ(missing.message, "Not found: Table p:shop.gone was not found in location US");
  auto cast = sim::TranslateGoogleSql("SELECT UNIX_MILLIS(CAST(max(`at`) AS TIMESTAMP)) FROM `p.shop.orders` WHERE `at` >= @p1", catalog);
  ASSERT_TRUE(cast.ok) << cast.message;
  EXPECT_EQ(cast.sql, "SELECT bq_unix_millis(bq_cast(max(\"at\"), 'TIMESTAMP')) FROM \"shop.orders\" WHERE \"at\" >= @p1");
}

// A replay's world writes in GoogleSQL (POST /_sim/exec): accepted only when writes are allowed,
// the target named for the history, aliases resolved, and UNNEST(GENERATE_ARRAY(a, b)) as rows.
TEST(BigQuerySimSql, WorldWritesAreAcceptedOnlyWhenAllowedAndNameTheirTarget) {
  sim::BigQueryCatalog catalog{"p", "US", {"shop", "ref"}, {{"shop", "orders"}, {"ref", "rates"}}, {}};
  const char* writes[] = {
      "DELETE FROM shop.orders WHERE id = 1",
      "UPDATE `shop`.`orders` AS o SET amount = (SELECT r.rate FROM ref.rates r WHERE r.k = o.k) WHERE o.id > 2",
      "INSERT INTO p.shop.orders (id, placed_at) SELECT i, TIMESTAMP_SECONDS(1700000000 + MOD(i, 7)) FROM UNNEST(GENERATE_ARRAY(1, 5)) AS i"};
  const char* statements[] = {"DELETE", "UPDATE", "INSERT"};
  for (size_t k = 0; k < 3; ++k) {
    EXPECT_FALSE(sim::TranslateGoogleSql(writes[k], catalog).ok) << writes[k];
    auto t = sim::TranslateGoogleSql(writes[k], catalog, /*allow_writes=*/true);
    ASSERT_TRUE(t.ok) << writes[k] << ": " << t.message;
    EXPECT_EQ(t.statement, statements[k]);
    EXPECT_EQ(t.first_table, std::make_pair(std::string("shop"), std::string("orders"))) << writes[k];
  }
  auto update = sim::TranslateGoogleSql(writes[1], catalog, true);
  EXPECT_NE(update.sql.find("\"r\".\"rate\" FROM \"ref.rates\" r WHERE \"r\".\"k\" = \"o\".\"k\""), std::string::npos) << update.sql;
  auto insert = sim::TranslateGoogleSql(writes[2], catalog, true);
  EXPECT_NE(insert.sql.find("WITH RECURSIVE bq_series(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM bq_series WHERE v < 5) "
                            "SELECT v AS \"i\" FROM bq_series) AS \"i\""),
            std::string::npos)
      << insert.sql;
  EXPECT_NE(insert.sql.find("bq_timestamp_seconds(1700000000 + bq_mod(i, 7))"), std::string::npos) << insert.sql;
  // An unnest the simulator cannot enumerate is refused, never approximated.
  for (const char* sql : {"SELECT i FROM UNNEST(GENERATE_ARRAY(1, n)) AS i", "SELECT 1 FROM UNNEST(GENERATE_ARRAY(1, 3)) WHERE TRUE",
                          "SELECT 1 FROM UNNEST([1, 2]) AS i"}) {
    auto t = sim::TranslateGoogleSql(sql, catalog, true);
    EXPECT_FALSE(t.ok) << sql;
    EXPECT_EQ(t.reason, "invalidQuery") << sql;
  }
  // A table that is not in the catalog is still notFound when its dataset is.
  EXPECT_EQ(sim::TranslateGoogleSql("DELETE FROM shop.gone WHERE TRUE", catalog, true).reason, "notFound");
}

Json Orders() {
  return Json::parse(R"({"tables": [{"dataset": "shop", "table": "orders",
    "columns": [{"name": "id", "type": "INT64", "mode": "REQUIRED"}, {"name": "placed_at", "type": "TIMESTAMP"},
                {"name": "amount", "type": "NUMERIC"}, {"name": "note", "type": "STRING"}, {"name": "paid", "type": "BOOL"}],
    "rows": [[9007199254740993, "2026-12-07T01:00:00Z", "123456789012345678901234567.123456789", "first", true],
             [2, 1700000000.25, "-0.5", null, false],
             [3, null, null, "third", null],
             [4, "2026-12-07T01:05:00.000001Z", "10", "fourth", true],
             [5, "2026-12-07T01:06:00Z", "11", "fifth", true],
             [6, "2026-12-07T01:07:00Z", "12", "sixth", false],
             [7, "2026-12-07T01:08:00Z", "13", "seventh", true]]}]})");
}

class BigQueryClientTest : public ::testing::Test, public BigQuerySimFixture {
 protected:
  std::unique_ptr<Warehouse> Open() {
    auto wh = OpenBigQueryWarehouse(config_, http_.get());
    EXPECT_TRUE(wh.ok()) << wh.status().ToString();
    return wh.ok() ? std::move(*wh) : nullptr;
  }
};

TEST_F(BigQueryClientTest, ReadsTheCatalogAndTypedRowsWithValuesAsParameters) {
  Start(Orders());
  auto wh = Open();
  ASSERT_TRUE(wh);
  auto tables = wh->ListTables();
  ASSERT_TRUE(tables.ok()) << tables.status().ToString();
  ASSERT_EQ(tables->size(), 1u);
  EXPECT_EQ((*tables)[0], (TableId{"shop", "orders"}));
  auto schema = wh->DescribeTable({"shop", "orders"});
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  ASSERT_TRUE(schema->has_value());
  ASSERT_EQ((*schema)->columns.size(), 5u);
  EXPECT_EQ((*schema)->columns[1].type, "timestamp");
  EXPECT_FALSE((*schema)->columns[0].nullable);
  EXPECT_FALSE(wh->DescribeTable({"shop", "nothing"})->has_value());
  EXPECT_FALSE(wh->DescribeTable({"nodataset", "orders"})->has_value());

  const Dialect& d = wh->dialect();
  auto r = wh->Query("SELECT " + d.Quote("id") + ", " + d.Quote("placed_at") + ", " + d.Quote("amount") + ", " + d.Quote("note") +
                         ", " + d.Quote("paid") + " FROM " + d.Table({"shop", "orders"}) + " WHERE " + d.Quote("id") +
                         " <> " + d.Param(1) + " AND (" + d.Quote("note") + " IS NULL OR " + d.Quote("note") + " <> " +
                         d.Param(2) + ") ORDER BY " + d.Quote("id") + " DESC",
                     {int64_t{7}, std::string("sixth")}, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->rows.size(), 5u);
  EXPECT_EQ(r->rows[0][0], SqlValue(int64_t{9007199254740993}));
  EXPECT_EQ(r->rows[0][1], SqlValue(std::string("2026-12-07T01:00:00.000000Z")));
  EXPECT_EQ(r->rows[0][2], SqlValue(std::string("123456789012345678901234567.123456789")));
  EXPECT_EQ(r->rows[0][4], SqlValue(int64_t{1}));
  EXPECT_EQ(r->rows[1][0], SqlValue(int64_t{5}));
  EXPECT_EQ(r->rows[2][1], SqlValue(std::string("2026-12-07T01:05:00.000001Z")));
  EXPECT_EQ(r->rows[3][0], SqlValue(int64_t{3}));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(r->rows[3][1]));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(r->rows[3][2]));
  EXPECT_EQ(r->rows[4][1], SqlValue(std::string("2023-11-14T22:13:20.250000Z")));
  EXPECT_EQ(r->rows[4][2], SqlValue(std::string("-0.5")));
  EXPECT_TRUE(std::holds_alternative<std::monostate>(r->rows[4][3]));
  // A quote in a value is a value: it is bound, never spliced.
  auto hostile = wh->Query("SELECT count(*) FROM " + d.Table({"shop", "orders"}) + " WHERE " + d.Quote("note") + " = " + d.Param(1),
                           {std::string("x' OR 1=1 --")}, {});
  ASSERT_TRUE(hostile.ok()) << hostile.status().ToString();
  EXPECT_EQ(hostile->rows[0][0], SqlValue(int64_t{0}));
}

TEST_F(BigQueryClientTest, FollowsPageTokensAndPollsAJobUntilItCompletes) {
  Json script = Orders();
  script["page_size"] = 2;
  script["incomplete_polls"] = 3;
  Start(script);
  auto wh = Open();
  ASSERT_TRUE(wh);
  auto r = wh->Query("SELECT `id` FROM `dw-test`.`shop`.`orders` ORDER BY `id`", {}, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<int64_t> ids;
  for (const SqlRow& row : r->rows) ids.push_back(std::get<int64_t>(row[0]));
  EXPECT_EQ(ids, (std::vector<int64_t>{2, 3, 4, 5, 6, 7, 9007199254740993}));
  // One jobs.query, three polls until complete, then three more pages of two rows.
  EXPECT_EQ(SimState()["api_calls"], 1 + 3 + 3);
  // A job that never completes within the query's timeout is a deadline, not a hang.
  Json slow = Orders();
  slow["incomplete_polls"] = 1000;
  BigQuerySimFixture other;
  other.Start(slow);
  auto slow_wh = OpenBigQueryWarehouse(other.config_, http_.get());
  ASSERT_TRUE(slow_wh.ok());
  auto late = (*slow_wh)->Query("SELECT 1", {}, {std::chrono::milliseconds(600)});
  EXPECT_EQ(late.status().code(), StatusCode::kDeadlineExceeded) << late.status().ToString();
  // ... and the job is cancelled rather than left to run and bill.
  EXPECT_EQ(other.SimState()["cancelled"], 1);
}

Json Fault(const std::string& method, const std::string& path, int status, const std::string& reason, int times) {
  Json body = {{"error", {{"code", status}, {"message", "simulated " + reason},
                          {"errors", Json::array({{{"reason", reason}, {"message", "simulated " + reason}, {"domain", "global"}}})},
                          {"status", "RESOURCE_EXHAUSTED"}}}};
  return {{"method", method}, {"path", path}, {"status", status}, {"body", body.dump()}, {"times", times}};
}

TEST_F(BigQueryClientTest, RetriesRateLimitsEvenAs403AndBackendErrorsThenSucceeds) {
  Json script = Orders();
  script["page_size"] = 4;
  script["faults"] = Json::array({Fault("POST", "/bigquery/v2/projects/dw-test/queries", 403, "rateLimitExceeded", 2),
                                  Fault("GET", "/bigquery/v2/projects/dw-test/queries/*", 500, "backendError", 1)});
  Start(script);
  auto wh = Open();
  ASSERT_TRUE(wh);
  auto r = wh->Query("SELECT `id` FROM `dw-test`.`shop`.`orders`", {}, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->rows.size(), 7u);
  // quotaExceeded (a daily quota) and accessDenied as 403 are not retried.
  Json quota = Orders();
  // Json::array: a braced list of one json is that json itself under clang, an array under GCC.
  quota["faults"] = Json::array({Fault("POST", "/bigquery/v2/projects/dw-test/queries", 403, "quotaExceeded", 1)});
  BigQuerySimFixture other;
  other.Start(quota);
  auto q = (*OpenBigQueryWarehouse(other.config_, http_.get()))->Query("SELECT 1", {}, {});
  EXPECT_EQ(q.status().code(), StatusCode::kResourceExhausted) << q.status().ToString();
  EXPECT_NE(q.status().message().find("quotaExceeded: simulated quotaExceeded"), std::string::npos);
  EXPECT_EQ(other.SimState()["queries"], 0);
}

TEST_F(BigQueryClientTest, HardErrorsCarryBigQuerysReasonAndMessage) {
  Json script = Orders();
  script["tables"].push_back(
      Json::parse(R"({"dataset": "secret", "table": "salaries", "columns": [{"name": "x", "type": "INT64"}], "rows": []})"));
  script["denied_datasets"] = {"secret"};
  Start(script);
  auto wh = Open();
  ASSERT_TRUE(wh);
  auto invalid = wh->Query("SELECT median(`id`) FROM `dw-test`.`shop`.`orders`", {}, {});
  EXPECT_EQ(invalid.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(invalid.status().message().find("HTTP 400 invalidQuery: Function not found: median at [1:8]"), std::string::npos)
      << invalid.status().message();
  auto missing = wh->Query("SELECT 1 FROM `dw-test`.`shop`.`refunds`", {}, {});
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("notFound: Not found: Table dw-test:shop.refunds"), std::string::npos);
  auto denied = wh->Query("SELECT count(*) FROM `dw-test`.`secret`.`salaries`", {}, {});
  EXPECT_EQ(denied.status().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(denied.status().message().find("accessDenied: Access Denied: Table dw-test:secret.salaries"), std::string::npos);
  EXPECT_EQ(wh->Reopen().status().code(), StatusCode::kFailedPrecondition);
}

TEST_F(BigQueryClientTest, FetchesOneTokenForManyQueriesAndANewOneWhenItExpires) {
  Start(Orders());
  auto wh = Open();
  ASSERT_TRUE(wh);
  auto again = Open();  // a second warehouse on the same key shares the token
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(wh->Query("SELECT " + wh->dialect().Param(1), {int64_t{i}}, {}).ok());
    ASSERT_TRUE(again->Query("SELECT 1", {}, {}).ok());
  }
  EXPECT_EQ(SimState()["token_grants"], 1);
  // The service refuses the token (expired or revoked): one new grant, and the query succeeds.
  Call("POST", "/_sim/expire_tokens", "");
  auto r = wh->Query("SELECT 1", {}, {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(SimState()["token_grants"], 2);

  // A token that lives 301 s is replaced once fewer than 5 minutes are left: after a second.
  Json script = Orders();
  script["token_ttl_s"] = 301;
  BigQuerySimFixture short_lived;
  short_lived.Start(script);
  auto s = OpenBigQueryWarehouse(short_lived.config_, http_.get());
  ASSERT_TRUE(s.ok());
  ASSERT_TRUE((*s)->Query("SELECT 1", {}, {}).ok());
  ASSERT_TRUE((*s)->Query("SELECT 1", {}, {}).ok());
  EXPECT_EQ(short_lived.SimState()["token_grants"], 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  ASSERT_TRUE((*s)->Query("SELECT 1", {}, {}).ok());
  EXPECT_EQ(short_lived.SimState()["token_grants"], 2);
}

TEST_F(BigQueryClientTest, SimulatorRefusesWrongSignaturesExpiredGrantsAndMissingTokens) {
  Start(Orders());
  // A key the service does not know: refused as Google refuses it, and the key is never quoted.
  config::WarehouseConfig wrong = config_;
  const std::string other_pem = test_support::GenerateRsaKeyPem();
  wrong.credentials = test_support::WriteKeyFile(dir_, "other.json", other_pem);
  auto wh = OpenBigQueryWarehouse(wrong, http_.get());
  ASSERT_TRUE(wh.ok());
  auto r = (*wh)->Query("SELECT 1", {}, {});
  EXPECT_EQ(r.status().code(), StatusCode::kPermissionDenied);
  EXPECT_NE(r.status().message().find("invalid_grant: Invalid JWT Signature."), std::string::npos) << r.status().message();
  EXPECT_EQ(r.status().message().find("PRIVATE KEY"), std::string::npos);
  // The key is registered as a secret the moment it is read.
  EXPECT_EQ(RedactSecrets("key: " + other_pem).find("BEGIN PRIVATE KEY"), std::string::npos);

  // An expired assertion, signed correctly.
  ServiceAccountKey key{"dw-checks@dw-test.iam.gserviceaccount.com", TestKeyPem(), ""};
  auto old = SignServiceAccountJwt(key, config_.token_url, "https://www.googleapis.com/auth/bigquery",
                                   std::chrono::system_clock::now() - std::chrono::hours(2));
  ASSERT_TRUE(old.ok());
  Json refused = Call("POST", "/token", "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=" + *old);
  EXPECT_EQ(refused["error"], "invalid_grant");
  EXPECT_NE(refused["error_description"].get<std::string>().find("iat and exp"), std::string::npos);

  // No bearer token: 401 in Google's error shape.
  Json unauthenticated = Call("POST", "/bigquery/v2/projects/dw-test/queries", R"({"query": "SELECT 1", "useLegacySql": false})");
  EXPECT_EQ(unauthenticated["error"]["code"], 401);
  EXPECT_EQ(unauthenticated["error"]["errors"][0]["reason"], "required");
  EXPECT_EQ(unauthenticated["error"]["status"], "UNAUTHENTICATED");
}

TEST_F(BigQueryClientTest, NoSecretReachesAnErrorMessage) {
  Start(Orders());
  auto http = net::MakeCurlHttpClient();
  auto key = ReadServiceAccountKey(key_path_);
  ASSERT_TRUE(key.ok());
  GoogleTokenSource tokens(*key, config_.token_url, RealClock());
  auto token = tokens.Token(*http);
  ASSERT_TRUE(token.ok()) << token.status().ToString();
  EXPECT_EQ(RedactSecrets("Bearer " + *token), "Bearer ***");
  auto wh = Open();
  ASSERT_TRUE(wh);
  std::vector<std::string> messages;
  messages.push_back(wh->Query("SELECT nope(1)", {}, {}).status().message());
  messages.push_back(wh->Query("SELECT 1 FROM `dw-test`.`x`.`y`", {}, {}).status().message());
  config::WarehouseConfig unreachable = config_;
  unreachable.api_url = "http://127.0.0.1:1";
  messages.push_back((*OpenBigQueryWarehouse(unreachable, http_.get()))->Query("SELECT 1", {}, {std::chrono::milliseconds(300)}).status().message());
  const std::string pem_body = TestKeyPem().substr(40, 60);
  for (const std::string& m : messages) {
    EXPECT_FALSE(m.empty());
    EXPECT_EQ(m.find(pem_body), std::string::npos) << m;
    EXPECT_EQ(m.find("ya29."), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace dw::warehouse
