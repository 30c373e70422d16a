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

// A peer at its share makes room among its own sessions: one client's flood of initialize
// requests never evicts another client's session, nor the session its own client works in.
TEST(McpHttpSessionTable, AFloodFromOnePeerEvictsOnlyItsOwnUnusedSessions) {
  SimulatedClock clock(FromUnixMillis(1'700'000'000'000));
  HttpSessionTable table(40, std::chrono::hours(1), clock, 10);
  std::string other = *table.Add(NewSession(), 0, "10.0.0.2");
  std::string working = *table.Add(NewSession(), 0, "127.0.0.1");
  { auto call = table.Acquire(working, 0); }  // the assistant's session: initialized, then used
  clock.Advance(std::chrono::seconds(1));
  std::vector<std::string> flood;
  for (int i = 0; i < 1100; ++i) {
    clock.Advance(std::chrono::milliseconds(1));
    Result<std::string> id = table.Add(NewSession(), 0, "127.0.0.1");
    ASSERT_TRUE(id.ok()) << i << ": " << id.status().ToString();
    flood.push_back(*id);
  }
  EXPECT_TRUE(table.Acquire(other, 0)) << "another peer's session is untouched";
  EXPECT_TRUE(table.Acquire(working, 0)) << "a used session outlives the peer's unused ones";
  EXPECT_EQ(table.size(), 11u) << "the flooding peer holds its share, no more";
  EXPECT_TRUE(table.Acquire(flood.back(), 0));
  EXPECT_FALSE(table.Acquire(flood.front(), 0));
}

TEST(McpHttpSessionTable, APeerWhoseSessionsAreAllBusyIsRefusedByName) {
  SimulatedClock clock(FromUnixMillis(1'700'000'000'000));
  HttpSessionTable table(40, std::chrono::hours(1), clock, 2);
  std::vector<HttpSessionTable::Lease> held;
  for (int i = 0; i < 2; ++i) held.push_back(table.Acquire(*table.Add(NewSession(), 0, "192.0.2.7"), 0));
  Result<std::string> refused = table.Add(NewSession(), 0, "192.0.2.7");
  ASSERT_EQ(refused.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(refused.status().message().find("192.0.2.7"), std::string::npos) << refused.status().message();
  EXPECT_TRUE(table.Add(NewSession(), 0, "192.0.2.8").ok()) << "another peer still gets a session";
}

// Many peers fill the table: the sessions never used since their initialize go first, whoever holds them.
TEST(McpHttpSessionTable, AFullTableEvictsUnusedSessionsBeforeUsedOnes) {
  SimulatedClock clock(FromUnixMillis(1'700'000'000'000));
  HttpSessionTable table(4, std::chrono::hours(1), clock, 4);
  std::string used_a = *table.Add(NewSession(), 0, "a");
  std::string used_b = *table.Add(NewSession(), 0, "b");
  { auto x = table.Acquire(used_a, 0); }
  { auto y = table.Acquire(used_b, 0); }
  clock.Advance(std::chrono::seconds(1));
  std::string unused_c = *table.Add(NewSession(), 0, "c");
  std::string unused_d = *table.Add(NewSession(), 0, "d");
  clock.Advance(std::chrono::seconds(1));
  for (const char* peer : {"e", "f"}) ASSERT_TRUE(table.Add(NewSession(), 0, peer).ok());
  EXPECT_TRUE(table.Acquire(used_a, 0));
  EXPECT_TRUE(table.Acquire(used_b, 0));
  EXPECT_FALSE(table.Acquire(unused_c, 0));
  EXPECT_FALSE(table.Acquire(unused_d, 0));
}

}  // namespace
}  // namespace dw::mcp
