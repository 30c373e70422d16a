// 1,100 initialize requests from one client in a burst (issue 35): before, they evicted every
// other session of the table, the assistant's included; now the flood loses only its own unused
// sessions, holds at most its share of the table, and the working session still answers.
#include <gtest/gtest.h>

#include "mcp/http_transport.h"
#include "tests/mcp/http_test_server.h"

namespace dw::mcp {
namespace {

using testing::HttpReply;
using testing::HttpTestServer;

TEST(McpHttpSessionFlood, AnInitializeFloodDoesNotEvictTheSessionAClientWorksIn) {
  HttpTestServer t;  // the server's defaults: 1,024 sessions, 256 from one address
  t.Initialize();
  const std::string working = t.session_id();
  ASSERT_TRUE(t.PingWorks());
  for (int i = 0; i < 1100; ++i) {
    t.set_session_id("");
    HttpReply r = t.Post(testing::InitializeRequest());
    ASSERT_EQ(r.status, 200) << i << ": " << r.body.substr(0, 300);
  }
  t.set_session_id(working);
  EXPECT_TRUE(t.PingWorks()) << "the working session was evicted by the flood";
  EXPECT_LE(t.server().session_count(), 256u) << "one address holds its share of the table, no more";
}

}  // namespace
}  // namespace dw::mcp
