// Bytes through the store's connections (store/sql_connection.h): every byte value survives an
// SqlBytes parameter and a QueryBytes read on both backends (PostgreSQL: in binary form both ways,
// so nothing is spelled as hex); an SqlBytesArray is one BYTEA[] on PostgreSQL and refused by
// SQLite; a binary result holds the integers, doubles, booleans and text the text form would, and
// a column type it cannot read is an error naming it, never a cell made up.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "store/metric_batches.h"
#include "store/metric_snapshots.h"
#include "store/sql_connection.h"
#include "tests/store/store_test_support.h"

namespace dw::store {
namespace {

std::string EveryByte() {
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  return all;
}

class BytesParamsTest : public test_support::ScratchOnEachBackend {
 protected:
  void SetUp() override {
    ScratchOnEachBackend::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_NE(Open(), nullptr);  // the store makes the SQLite file's folders
    auto conn = scratch_->Connect();
    ASSERT_TRUE(conn.ok()) << conn.status().ToString();
    conn_ = std::move(conn).value();
    const bool pg = Backend() == "postgresql";
    ASSERT_TRUE(conn_->ExecScript(pg ? "CREATE TABLE b (k BIGINT PRIMARY KEY, v BYTEA NOT NULL)"
                                     : "CREATE TABLE b (k BIGINT PRIMARY KEY, v BLOB NOT NULL)")
                    .ok());
  }
  std::unique_ptr<SqlConnection> conn_;
};

TEST_P(BytesParamsTest, EveryByteValueRoundTripsAsItsBytes) {
  const std::string big(20000, '\0');  // a snapshot's size, all NUL (no text form could carry it)
  for (const auto& [k, bytes] : {std::pair<int64_t, std::string>{1, EveryByte()}, {2, ""}, {3, big}}) {
    auto put = conn_->Query("INSERT INTO b (k, v) VALUES ($1, $2)", {SqlValue{k}, SqlBytes{bytes}});
    ASSERT_TRUE(put.ok()) << put.status().ToString();
  }
  auto rows = conn_->QueryBytes("SELECT k, v FROM b ORDER BY k", {});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 3u);
  EXPECT_EQ(std::get<int64_t>((*rows)[0][0]), 1);
  EXPECT_EQ(std::get<std::string>((*rows)[0][1]), EveryByte());
  EXPECT_EQ(std::get<std::string>((*rows)[1][1]), "");
  EXPECT_EQ(std::get<std::string>((*rows)[2][1]), big);
  // Stored as the bytes, not as a spelling of them.
  auto len = conn_->Query(Backend() == "postgresql" ? "SELECT octet_length(v) FROM b WHERE k = 1"
                                                    : "SELECT length(v) FROM b WHERE k = 1");
  ASSERT_TRUE(len.ok()) << len.status().ToString();
  EXPECT_EQ(std::get<int64_t>((*len)[0][0]), 256);
}

TEST_P(BytesParamsTest, AnArrayOfBytesIsOneByteaArrayOnPostgresAndRefusedBySqlite) {
  SqlBytesArray items{{EveryByte(), "", std::string("\0a\0", 3)}};
  const std::string sql = "INSERT INTO b (k, v) SELECT q.i, q.v FROM unnest($1::bytea[]) WITH ORDINALITY AS q(v, i)";
  auto put = conn_->Query(sql, {items});
  if (Backend() == "sqlite") {
    EXPECT_FALSE(put.ok());  // SQLite has no arrays: an error, nothing bound as something else
    return;
  }
  ASSERT_TRUE(put.ok()) << put.status().ToString();
  auto rows = conn_->QueryBytes("SELECT k, v FROM b ORDER BY k", {});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(std::get<int64_t>((*rows)[i][0]), static_cast<int64_t>(i + 1));
    EXPECT_EQ(std::get<std::string>((*rows)[i][1]), items.items[i]) << i;
  }
  // An empty array inserts nothing.
  ASSERT_TRUE(conn_->Query("DELETE FROM b").ok());
  ASSERT_TRUE(conn_->Query(sql, {SqlBytesArray{}}).ok());
  auto none = conn_->Query("SELECT count(*) FROM b");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(std::get<int64_t>((*none)[0][0]), 0);
}

TEST_P(BytesParamsTest, ABinaryResultReadsNumbersBooleansAndTextAsTheTextFormDoes) {
  if (Backend() != "postgresql") GTEST_SKIP() << "SQLite's cells have one form";
  const std::string sql =
      "SELECT $1::bigint, (-7)::int4, (-3)::int2, $2::float8, 0.5::float4, true, false, 'naïve'::text, "
      "'x'::varchar, NULL::bigint, (-9223372036854775807 - 1)::bigint";
  const std::vector<SqlValue> params = {SqlValue{int64_t{-1234567890123}}, SqlValue{-0.1}};
  auto text = conn_->Query(sql, params);
  auto binary = conn_->QueryBytes(sql, params);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  ASSERT_TRUE(binary.ok()) << binary.status().ToString();
  ASSERT_EQ(binary->size(), 1u);
  EXPECT_EQ((*binary)[0], (*text)[0]);
  EXPECT_EQ(std::get<int64_t>((*binary)[0][0]), -1234567890123);
  EXPECT_EQ(std::get<int64_t>((*binary)[0][2]), -3);
  EXPECT_EQ(std::get<double>((*binary)[0][3]), -0.1);
  EXPECT_EQ(std::get<int64_t>((*binary)[0][5]), 1);
  EXPECT_TRUE(std::holds_alternative<std::monostate>((*binary)[0][9]));
  EXPECT_EQ(std::get<int64_t>((*binary)[0][10]), std::numeric_limits<int64_t>::min());
  auto inf = conn_->QueryBytes("SELECT 'NaN'::float8, '-Infinity'::float8", {});
  ASSERT_TRUE(inf.ok()) << inf.status().ToString();
  EXPECT_TRUE(std::isnan(std::get<double>((*inf)[0][0])));
  EXPECT_EQ(std::get<double>((*inf)[0][1]), -std::numeric_limits<double>::infinity());
}

TEST_P(BytesParamsTest, ABinaryResultOfATypeItCannotReadIsAnErrorNamingTheColumn) {
  if (Backend() != "postgresql") GTEST_SKIP() << "SQLite's cells have one form";
  auto rows = conn_->QueryBytes("SELECT 1::bigint, 2.5::numeric", {});
  ASSERT_FALSE(rows.ok());
  EXPECT_EQ(rows.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(rows.status().message().find("column 2"), std::string::npos) << rows.status().ToString();
  EXPECT_NE(rows.status().message().find("oid 1700"), std::string::npos) << rows.status().ToString();
}

// A batch save larger than one statement carries (PostgreSQL splits its BYTEA[] at 64 MB of state)
// stores every snapshot, whole, in the same transaction.
TEST_P(BytesParamsTest, ABatchSaveOfMoreStateThanOneStatementCarriesStoresEverySnapshot) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  MetricBatches* batches = MetricBatchesOf(*store);
  ASSERT_NE(batches, nullptr);
  std::vector<MetricSnapshotRecord> records;
  std::vector<std::string> names;
  for (int k = 0; k < 3; ++k) {
    MetricSnapshotRecord r;
    r.metric = "big" + std::to_string(k);
    r.state = std::string(30u << 20, static_cast<char>(k));
    r.state[k] = '\xff';
    records.push_back(std::move(r));
    names.push_back("big" + std::to_string(k));
  }
  auto saved = batches->SaveMetricSnapshots(records);
  ASSERT_TRUE(saved.ok()) << saved.status().ToString();
  EXPECT_EQ(*saved, std::vector<bool>({true, true, true}));
  auto loads = batches->LoadMetricSnapshots(names);
  ASSERT_TRUE(loads.ok()) << loads.status().ToString();
  for (int k = 0; k < 3; ++k) {
    ASSERT_TRUE((*loads)[k].ok() && (*loads)[k]->snapshot) << k;
    EXPECT_TRUE((*loads)[k]->snapshot->state == records[k].state) << k;
  }
}

INSTANTIATE_TEST_SUITE_P(Store, BytesParamsTest, ::testing::Values("sqlite", "postgresql"),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace dw::store
