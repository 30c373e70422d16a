// The session table of the Streamable HTTP server: ids, expiry, the cap, and busy sessions.
#include "mcp/http_session_table.h"

#include <gtest/gtest.h>

#include <set>

namespace dw::mcp {
namespace {

std::shared_ptr<Session> NewSession() {
  return std::make_shared<Session>(std::make_shared<Catalog>(), ServerInfo{"t", "", "1", ""});
}

TEST(McpHttpSessionTable, IdsAreRandomHex) {
  std::set<std::string> seen;
  for (int i = 0; i < 200; ++i) {
    Result<std::string> id = NewSessionId();
    ASSERT_TRUE(id.ok());
    EXPECT_EQ(id->size(), 32u);
    EXPECT_EQ(id->find_first_not_of("0123456789abcdef"), std::string::npos);
    EXPECT_TRUE(seen.insert(*id).second);
  }
}

TEST(McpHttpSessionTable, AcquireRemoveAndEndpoints) {
  SimulatedClock clock(FromUnixMillis(1'700'000'000'000));
  HttpSessionTable table(10, std::chrono::minutes(5), clock);
  Result<std::string> id = table.Add(NewSession(), 0);
  ASSERT_TRUE(id.ok());
  EXPECT_TRUE(table.Acquire(*id, 0));
  EXPECT_FALSE(table.Acquire(*id, 1));
  EXPECT_FALSE(table.Acquire("nope", 0));
  EXPECT_FALSE(table.Remove(*id, 1));
  EXPECT_TRUE(table.Remove(*id, 0));
  EXPECT_FALSE(table.Acquire(*id, 0));
  EXPECT_EQ(table.size(), 0u);
}

TEST(McpHttpSessionTable, IdleSessionsExpireButBusyOnesDoNot) {
  SimulatedClock clock(FromUnixMillis(1'700'000'000'000));
  HttpSessionTable table(10, std::chrono::minutes(5), clock);
  std::string idle = *table.Add(NewSession(), 0);
  std::string busy = *table.Add(NewSession(), 0);
  HttpSessionTable::Lease held = table.Acquire(busy, 0);
  ASSERT_TRUE(held);
  clock.Advance(std::chrono::minutes(6));
  EXPECT_FALSE(table.Acquire(idle, 0));
  EXPECT_TRUE(table.Acquire(busy, 0));
  held = HttpSessionTable::Lease();  // finishing the request restarts its idle clock
  clock.Advance(std::chrono::minutes(4));
  EXPECT_TRUE(table.Acquire(busy, 0));
}

TEST(McpHttpSessionTable, FullTableEvictsTheLeastRecentlyUsedIdleSession) {
  SimulatedClock clock(FromUnixMillis(1'700'000'000'000));
  HttpSessionTable table(2, std::chrono::hours(1), clock);
  std::string first = *table.Add(NewSession(), 0);
  clock.Advance(std::chrono::seconds(1));
  std::string second = *table.Add(NewSession(), 0);
  clock.Advance(std::chrono::seconds(1));
  { auto touch = table.Acquire(first, 0); }  // first is now the more recently used
  clock.Advance(std::chrono::seconds(1));
  std::string third = *table.Add(NewSession(), 0);
  EXPECT_EQ(table.size(), 2u);
  EXPECT_TRUE(table.Acquire(first, 0));
  EXPECT_FALSE(table.Acquire(second, 0));
  EXPECT_TRUE(table.Acquire(third, 0));
}

TEST(McpHttpSessionTable, FullTableOfBusySessionsRefuses) {
  SimulatedClock clock(FromUnixMillis(1'700'000'000'000));
  HttpSessionTable table(1, std::chrono::hours(1), clock);
  std::string only = *table.Add(NewSession(), 0);
  HttpSessionTable::Lease held = table.Acquire(only, 0);
  Result<std::string> refused = table.Add(NewSession(), 0);
  EXPECT_EQ(refused.status().code(), StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace dw::mcp
