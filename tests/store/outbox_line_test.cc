// The outbox's lines on every backend: DueOutbox reads only the message next in line of each
// (incident, channel), whatever is queued behind it, and the line moves on when that message is
// sent or given up (never while it waits for a retry). Also: a store written before the lines
// existed (schema version 7) is upgraded with the right message next in each line.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "store/migrations.h"
#include "store/sql_state_store.h"
#include "store/state_store.h"
#include "store_test_support.h"

namespace dw::store {
namespace {
namespace outbox_line_test {

using test_support::ScratchLocation;

constexpr int64_t kStartMs = 1'800'000'000'000;
TimePoint At(int64_t seconds) { return FromUnixMillis(kStartMs + seconds * 1000); }

class OutboxLineTest : public test_support::ScratchOnEachBackend {
 protected:
  OutboxLineTest() : ScratchOnEachBackend(At(0)) {}

  static void Add(StateStore& store, const std::string& incident, const std::string& event,
                  int64_t due_s, const std::string& channel = "slack") {
    OutboxMessage m;
    m.incident_id = incident;
    m.channel = channel;
    m.event = event;
    m.next_attempt_at = At(due_s);
    Result<bool> added = store.EnqueueOutbox(m);
    ASSERT_TRUE(added.ok()) << added.status().ToString();
    ASSERT_TRUE(*added);
  }
  // "incident/event" of each due message, in the order DueOutbox returns them.
  static std::vector<std::string> Due(StateStore& store, int64_t now_s, int limit = 100) {
    std::vector<std::string> out;
    Result<std::vector<OutboxMessage>> due = store.DueOutbox(At(now_s), limit);
    EXPECT_TRUE(due.ok()) << due.status().ToString();
    if (due.ok())
      for (const auto& m : *due) out.push_back(m.incident_id + "/" + m.channel + "/" + m.event);
    return out;
  }
  static OutboxMessage Take(StateStore& store, int64_t now_s, const std::string& incident) {
    Result<std::vector<OutboxMessage>> due = store.DueOutbox(At(now_s), 100);
    EXPECT_TRUE(due.ok());
    if (due.ok())
      for (const auto& m : *due)
        if (m.incident_id == incident) return m;
    ADD_FAILURE() << "nothing of " << incident << " is due at " << now_s;
    return {};
  }
};

TEST_P(OutboxLineTest, OnlyTheNextMessageOfEachLineIsDueAndTheLimitTakesTheOldestDue) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  // Written interleaved: A's open, B's open, A's update, C's open on two channels, B's update...
  Add(*store, "A", "open", 1);
  Add(*store, "B", "open", 2);
  Add(*store, "A", "severity_raised:SEV1", 3);
  Add(*store, "C", "open", 4);
  Add(*store, "C", "open", 4, "pagerduty");
  Add(*store, "B", "resolved", 5);
  Add(*store, "A", "resolved", 6);
  EXPECT_EQ(Due(*store, 10), (std::vector<std::string>{"A/slack/open", "B/slack/open", "C/slack/open",
                                                       "C/pagerduty/open"}));
  EXPECT_EQ(Due(*store, 10, 2), (std::vector<std::string>{"A/slack/open", "B/slack/open"}));
  // Not yet due: B's open is due at 2.
  EXPECT_EQ(Due(*store, 1), (std::vector<std::string>{"A/slack/open"}));
}

TEST_P(OutboxLineTest, TheLineMovesOnWhenItsMessageIsSentOrGivenUpNeverWhileItWaitsForARetry) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  Add(*store, "A", "open", 0);
  Add(*store, "A", "approval_requested", 0);
  Add(*store, "A", "resolved", 0);
  Add(*store, "B", "open", 0);
  // A's open fails and is retried at 60: nothing of A may overtake it; B still goes.
  OutboxMessage open = Take(*store, 0, "A");
  open.attempts = 1;
  open.next_attempt_at = At(60);
  open.last_error = "HTTP 500";
  ASSERT_TRUE(store->UpdateOutbox(open).ok());
  EXPECT_EQ(Due(*store, 30), (std::vector<std::string>{"B/slack/open"}));
  EXPECT_EQ(Due(*store, 60), (std::vector<std::string>{"B/slack/open", "A/slack/open"}));
  // Sent: the approval request is next.
  open.state = "sent";
  ASSERT_TRUE(store->UpdateOutbox(open).ok());
  EXPECT_EQ(Due(*store, 60), (std::vector<std::string>{"A/slack/approval_requested", "B/slack/open"}));
  // Given up: the resolve is next.
  OutboxMessage ask = Take(*store, 60, "A");
  ask.state = "failed";
  ask.last_error = "channel_not_found";
  ASSERT_TRUE(store->UpdateOutbox(ask).ok());
  EXPECT_EQ(Due(*store, 60), (std::vector<std::string>{"A/slack/resolved", "B/slack/open"}));
  OutboxMessage resolved = Take(*store, 60, "A");
  resolved.state = "sent";
  ASSERT_TRUE(store->UpdateOutbox(resolved).ok());
  EXPECT_EQ(Due(*store, 60), (std::vector<std::string>{"B/slack/open"}));
  // A message written after its line ran empty is next at once.
  Add(*store, "A", "severity_raised:SEV1", 70);
  EXPECT_EQ(Due(*store, 70), (std::vector<std::string>{"B/slack/open", "A/slack/severity_raised:SEV1"}));
}

// Two processes write one line at once: `dw approve` queues a message behind the one `dw watch`
// is recording as sent. Whatever the interleaving, the new message must end up next in line
// (PostgreSQL's READ COMMITTED would otherwise let each writer miss the other's row).
TEST_P(OutboxLineTest, TwoWritersOfOneLineAtOnceLeaveTheNextMessageNextInLine) {
  auto watch = Open();
  auto approve = Open();
  ASSERT_TRUE(watch && approve);
  Add(*watch, "A", "approval_requested", 0);
  OutboxMessage sending = Take(*watch, 0, "A");
  sending.state = "sent";
  sending.attempts = 1;
  std::thread recorder;
  Status queued = approve->InTransaction([&](StateStore& tx) -> Status {
    Add(tx, "A", "approved", 0);
    // The send is recorded while this transaction is still open...
    recorder = std::thread([&] { EXPECT_TRUE(watch->UpdateOutbox(sending).ok()); });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return Status::Ok();  // ...and only then does it commit.
  });
  recorder.join();
  ASSERT_TRUE(queued.ok()) << queued.ToString();
  EXPECT_EQ(Due(*watch, 0), (std::vector<std::string>{"A/slack/approved"}));
}

TEST_P(OutboxLineTest, ARoundsOutcomesAreStoredAtOnceAndEveryLineMovesOn) {
  auto store = Open();
  ASSERT_NE(store, nullptr);
  // 250 lines of two messages: more than one statement's worth (100) of outcomes.
  for (int i = 0; i < 250; ++i) {
    Add(*store, "I" + std::to_string(i), "open", 0);
    Add(*store, "I" + std::to_string(i), "resolved", 0);
  }
  Result<std::vector<OutboxMessage>> due = store->DueOutbox(At(0), 1000);
  ASSERT_TRUE(due.ok());
  ASSERT_EQ(due->size(), 250u);
  for (size_t i = 0; i < due->size(); ++i) {
    OutboxMessage& m = (*due)[i];
    m.attempts = 1;
    if (i % 3 == 0) {
      m.state = "sent";
      m.answer = {{"ts", "1.0" + std::to_string(i)}};
    } else if (i % 3 == 1) {
      m.state = "failed";
      m.last_error = "refused";
    } else {
      m.next_attempt_at = At(30);  // retried later: its resolve must wait
    }
  }
  // An unknown id or the same message twice: nothing written.
  std::vector<OutboxMessage> bad = *due;
  bad.back().id = 999'999;
  EXPECT_EQ(store->UpdateOutboxMessages(bad).code(), StatusCode::kNotFound);
  bad = *due;
  bad.push_back(bad.front());
  EXPECT_EQ(store->UpdateOutboxMessages(bad).code(), StatusCode::kInvalidArgument);
  bad = *due;
  bad.front().state = "delivered";
  EXPECT_EQ(store->UpdateOutboxMessages(bad).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Due(*store, 0, 1000).size(), 250u);  // still every open, as before

  ASSERT_TRUE(store->UpdateOutboxMessages(*due).ok());
  std::vector<std::string> now = Due(*store, 0, 1000);
  ASSERT_EQ(now.size(), 167u);  // the resolves behind the sent and the failed opens
  for (const auto& d : now) EXPECT_NE(d.find("/resolved"), std::string::npos) << d;
  EXPECT_EQ(Due(*store, 30, 1000).size(), 250u);  // and the retried opens, once due
  // What was stored is what was given.
  auto kept = store->OutboxFor((*due)[0].incident_id);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ((*kept)[0].state, "sent");
  EXPECT_EQ((*kept)[0].attempts, 1);
  EXPECT_EQ((*kept)[0].answer.value("ts", ""), "1.00");
  kept = store->OutboxFor((*due)[2].incident_id);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ((*kept)[0].state, "pending");
  EXPECT_EQ((*kept)[0].next_attempt_at, At(30));
}

TEST_P(OutboxLineTest, AnOutboxFromBeforeTheLinesIsUpgradedWithTheRightMessageNextInEachLine) {
  {
    Result<std::unique_ptr<SqlConnection>> conn = scratch_->Connect();
    ASSERT_TRUE(conn.ok()) << conn.status().ToString();
    Result<std::unique_ptr<StateStore>> v6 =
        SqlStateStore::Open(std::move(conn).value(), AllMigrations().first(7), clock_);
    ASSERT_TRUE(v6.ok()) << v6.status().ToString();
    ASSERT_EQ((*v6)->schema_version(), 7);
  }
  {
    // Rows as a version-7 store wrote them: A's open sent, its update and resolve pending; B's
    // open given up, its resolve pending; C's only message sent.
    Result<std::unique_ptr<SqlConnection>> raw = scratch_->Connect();
    ASSERT_TRUE(raw.ok());
    const char* rows[][3] = {{"A", "open", "sent"},   {"A", "severity_raised:SEV1", "pending"},
                             {"B", "open", "failed"}, {"A", "resolved", "pending"},
                             {"B", "resolved", "pending"}, {"C", "open", "sent"}};
    for (const auto& r : rows) {
      auto done = (*raw)->Query(
          "INSERT INTO notify_outbox (incident_id, channel, event, payload, state, attempts, "
          "next_attempt_at, last_error, answer, created_at, updated_at) "
          "VALUES ($1, 'slack', $2, '{}', $3, 0, $4, '', '{}', $4, $4)",
          {std::string(r[0]), std::string(r[1]), std::string(r[2]), ToUnixMillis(At(0))});
      ASSERT_TRUE(done.ok()) << done.status().ToString();
    }
  }
  auto store = Open();
  ASSERT_NE(store, nullptr);
  EXPECT_EQ(store->schema_version(), CurrentSchemaVersion());
  EXPECT_EQ(Due(*store, 0), (std::vector<std::string>{"A/slack/severity_raised:SEV1", "B/slack/resolved"}));
}

INSTANTIATE_TEST_SUITE_P(Store, OutboxLineTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace outbox_line_test
}  // namespace
}  // namespace dw::store
