// Which warehouse a JDBC url names: the workspace's own where the system and database match, one
// of its own otherwise, and never the credentials a url may carry.
#include "graph/jdbc_warehouse.h"

#include <gtest/gtest.h>

namespace dw::graph {
namespace {

TEST(JdbcWarehouse, ParsesTheUrlsOfEachSystem) {
  struct Case {
    std::string url, system, host, database;
  };
  for (const Case& c : std::vector<Case>{
           {"jdbc:postgresql://pg.internal:5432/shop?sslmode=require", "postgres", "pg.internal", "shop"},
           {"jdbc:postgresql://alice:s3cret@PG.Internal/shop", "postgres", "pg.internal", "shop"},
           {"jdbc:redshift://dw.example.com:5439/dev", "redshift", "dw.example.com", "dev"},
           {"jdbc:mysql://[::1]:3306/app", "mysql", "::1", "app"},
           {"jdbc:sqlserver://sql.local:1433;databaseName=Sales;user=sa;password=x", "sqlserver", "sql.local", "Sales"},
           {"jdbc:oracle:thin:@ora.local:1521:ORCL", "oracle", "ora.local", "ORCL"},
           {"jdbc:snowflake://acme.snowflakecomputing.com/?db=ANALYTICS&warehouse=WH", "snowflake",
            "acme.snowflakecomputing.com", "ANALYTICS"},
           {"jdbc:avatica:remote:url=http://broker:8082/druid/v2/sql/avatica/;transparent_reconnection=true", "druid",
            "broker", ""},
           {"jdbc:trino://trino:8080/hive", "trino", "trino", "hive"},
           {"jdbc:clickhouse://ch:8123/default", "clickhouse", "ch", "default"},
           {"jdbc:sqlite:/data/app.db", "sqlite", "", ""},
           {"jdbc:duckdb:", "duckdb", "", ""},
       }) {
    auto t = ParseJdbcUrl(c.url);
    ASSERT_TRUE(t.has_value()) << c.url;
    EXPECT_EQ(t->system, c.system) << c.url;
    EXPECT_EQ(t->host, c.host) << c.url;
    EXPECT_EQ(t->database, c.database) << c.url;
  }
  for (const char* not_jdbc : {"", "postgres://x/y", "jdbc:", "jdbc::x", "{{ secret('URL') }}"})
    EXPECT_FALSE(ParseJdbcUrl(not_jdbc).has_value()) << not_jdbc;
}

TEST(JdbcWarehouse, MatchesTheWorkspaceByDatabaseElseNamesItsOwn) {
  std::vector<KnownWarehouse> ws{{"main", "sqlite", "main"}, {"pg", "postgres", "shop"}, {"pg2", "postgres", "ledger"}};
  EXPECT_EQ(WarehouseForJdbc(*ParseJdbcUrl("jdbc:postgresql://h/SHOP"), ws), "pg");
  EXPECT_EQ(WarehouseForJdbc(*ParseJdbcUrl("jdbc:postgresql://h:5432/ledger"), ws), "pg2");
  // Two PostgreSQL warehouses and no database: which one is not known.
  EXPECT_EQ(WarehouseForJdbc(*ParseJdbcUrl("jdbc:postgresql://h:5432/"), ws), "postgres-h");
  EXPECT_EQ(WarehouseForJdbc(*ParseJdbcUrl("jdbc:postgresql://h/other"), ws), "postgres-h-other");
  EXPECT_EQ(WarehouseForJdbc(*ParseJdbcUrl("jdbc:sqlite:/data/app.db"), ws), "main");
  EXPECT_EQ(WarehouseForJdbc(*ParseJdbcUrl("jdbc:redshift://dw.example.com:5439/dev"), ws), "redshift-dw.example.com-dev");
  EXPECT_EQ(WarehouseForJdbc(*ParseJdbcUrl("jdbc:avatica:remote:url=http://broker:8082/druid/v2/sql/avatica/"), ws),
            "druid-broker");
  // One warehouse of the system: a url without a database is that one.
  EXPECT_EQ(WarehouseForJdbc(*ParseJdbcUrl("jdbc:postgresql://h:5432/"), {{"only", "postgres", "shop"}}), "only");
}

}  // namespace
}  // namespace dw::graph
