// Receipts are append-only and hash-chained: every edit, deletion, reordering and truncation of
// the stored rows is detected, on both store backends, and a writer killed mid-write leaves a
// chain that verifies.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "actions/actions.h"
#include "actions/receipt_anchor.h"
#include "tests/store/store_test_support.h"

namespace dw::actions {
namespace {
namespace receipt_chain_test {

using store::SqlRow;
using store::SqlValue;
using store::test_support::ScratchLocation;

const TimePoint kStart = FromUnixMillis(1'800'000'000'000);

class ReceiptChainTest : public store::test_support::StoreOnEachBackend {
 protected:
  ReceiptChainTest() : StoreOnEachBackend(kStart) {}

  // Writes `n` receipts and returns the head.
  ReceiptHead WriteSome(int n) {
    for (int i = 0; i < n; ++i) {
      Json content = {{"incident", "INC-" + std::to_string(i)}, {"cause", "restore skipped state"}};
      Result<store::ReceiptRecord> r = WriteReceipt(*store_, content, clock_);
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      clock_.Advance(std::chrono::minutes(1));
    }
    Result<ReceiptHead> head = CurrentReceiptHead(*store_);
    EXPECT_TRUE(head.ok());
    return head.ok() ? *head : ReceiptHead{};
  }

  // Test-only SQL behind the store's back: what an attacker with store access could do.
  void Raw(const std::string& sql, const std::vector<SqlValue>& params = {}) {
    auto conn = scratch_->Connect();
    ASSERT_TRUE(conn.ok()) << conn.status().ToString();
    auto rows = (*conn)->Query(sql, params);
    ASSERT_TRUE(rows.ok()) << sql << ": " << rows.status().ToString();
  }

  ChainVerdict Verify(const std::string& head = "") {
    Result<ChainVerdict> v = VerifyReceiptChain(*store_, head);
    EXPECT_TRUE(v.ok()) << v.status().ToString();
    return v.ok() ? *v : ChainVerdict{};
  }
};

TEST_P(ReceiptChainTest, AnUntouchedChainVerifiesAndEachReceiptNamesItsPredecessor) {
  ReceiptHead head = WriteSome(5);
  EXPECT_EQ(head.seq, 5);
  ChainVerdict v = Verify(head.hash);
  EXPECT_TRUE(v.ok) << v.problem;
  EXPECT_EQ(v.receipts, 5);
  Result<store::ReceiptRecord> third = ShowReceipt(*store_, 3);
  ASSERT_TRUE(third.ok());
  Result<store::ReceiptRecord> second = ShowReceipt(*store_, 2);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(third->prev_hash, second->hash);
  EXPECT_EQ(third->hash, Sha256Hex(third->body));
  Json body = Json::parse(third->body);
  EXPECT_EQ(body["seq"], 3);
  EXPECT_EQ(body["prev"], second->hash);
  EXPECT_EQ(body["content"]["incident"], "INC-2");
  // The body is exactly its canonical encoding.
  EXPECT_EQ(*CanonicalJson(body), third->body);
}

TEST_P(ReceiptChainTest, AnEditedBodyIsNamed) {
  WriteSome(5);
  Raw("UPDATE receipts SET body = replace(body, 'INC-2', 'INC-9') WHERE seq = 3");
  ChainVerdict v = Verify();
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.first_bad_seq, 3);
  EXPECT_NE(v.problem.find("edited"), std::string::npos) << v.problem;
}

TEST_P(ReceiptChainTest, AnEditWithARecomputedHashBreaksTheNextLink) {
  WriteSome(5);
  Result<store::ReceiptRecord> r = ShowReceipt(*store_, 3);
  ASSERT_TRUE(r.ok());
  std::string forged = r->body;
  forged.replace(forged.find("INC-2"), 5, "INC-9");
  Raw("UPDATE receipts SET body = $1, hash = $2 WHERE seq = 3", {forged, Sha256Hex(forged)});
  ChainVerdict v = Verify();
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.first_bad_seq, 4) << v.problem;
}

// What a resolution records besides its receipt: the incident resolved, and the action log's
// `receipt_written` naming the receipt's seq and hash (actions::WriteResolutionReceipts).
void RecordResolutions(store::StateStore& st, const Clock& clock, int n) {
  for (int i = 1; i <= n; ++i) {
    Result<store::ReceiptRecord> r = ShowReceipt(st, i);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    const std::string id = "INC-" + std::to_string(i - 1);
    ASSERT_TRUE(st.PutIncident({id, "resolved", "t", "table://main/x", clock.Now(), clock.Now(), clock.Now(), Json::object()}).ok());
    ASSERT_TRUE(st.AppendActionEvent({0, clock.Now(), "receipt_written", "receipts", "dw", "",
                                      {{"incident", id}, {"seq", r->seq}, {"hash", r->hash}}})
                    .ok());
  }
}

// Issue 34: deleting every receipt verified ("0 receipts"), and so did deleting the tail. The
// action log and the resolved incidents say what the chain must hold.
TEST_P(ReceiptChainTest, AnEmptiedOrCutChainFailsWhereTheStoreRecordsResolutions) {
  WriteSome(4);
  RecordResolutions(*store_, clock_, 4);
  EXPECT_TRUE(Verify().ok);
  Raw("DELETE FROM receipts WHERE seq >= 3");
  ChainVerdict cut = Verify();
  EXPECT_FALSE(cut.ok);
  EXPECT_EQ(cut.first_bad_seq, 3);
  EXPECT_NE(cut.problem.find("ends at receipt 2"), std::string::npos) << cut.problem;
  EXPECT_NE(cut.problem.find("INC-2"), std::string::npos) << cut.problem;
  Raw("DELETE FROM receipts");
  ChainVerdict empty = Verify();
  EXPECT_FALSE(empty.ok);
  EXPECT_NE(empty.problem.find("is empty"), std::string::npos) << empty.problem;
  // With the action log emptied too, the resolved incidents still say a receipt is missing.
  Raw("DELETE FROM action_events");
  ChainVerdict bare = Verify();
  EXPECT_FALSE(bare.ok);
  EXPECT_NE(bare.problem.find("is resolved"), std::string::npos) << bare.problem;
}

TEST_P(ReceiptChainTest, ARewrittenChainWithEveryHashRecomputedFailsOnTheRecordedHashes) {
  WriteSome(3);
  RecordResolutions(*store_, clock_, 3);
  // Rewrite receipt 2's content and recompute its hash and receipt 3's link and hash: the chain is
  // consistent by itself, as an attacker would leave it.
  Result<store::ReceiptRecord> r2 = ShowReceipt(*store_, 2);
  Result<store::ReceiptRecord> r3 = ShowReceipt(*store_, 3);
  ASSERT_TRUE(r2.ok() && r3.ok());
  std::string body2 = r2->body;
  body2.replace(body2.find("INC-1"), 5, "INC-8");
  const std::string hash2 = Sha256Hex(body2);
  std::string body3 = r3->body;
  body3.replace(body3.find(r2->hash), r2->hash.size(), hash2);
  Raw("UPDATE receipts SET body = $1, hash = $2 WHERE seq = 2", {body2, hash2});
  Raw("UPDATE receipts SET body = $1, hash = $2, prev_hash = $3 WHERE seq = 3", {body3, Sha256Hex(body3), hash2});
  ChainVerdict v = Verify();
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.first_bad_seq, 2);
  EXPECT_NE(v.problem.find("rewritten"), std::string::npos) << v.problem;
}

TEST_P(ReceiptChainTest, ANewStoreWithNothingResolvedVerifiesEmpty) {
  ChainVerdict v = Verify();
  EXPECT_TRUE(v.ok) << v.problem;
  EXPECT_EQ(v.receipts, 0);
}

TEST_P(ReceiptChainTest, AForgedChainToTheHeadIsCaughtByTheRecordedHead) {
  ReceiptHead head = WriteSome(3);
  // Rewrite the last receipt wholesale, consistently: only a head kept elsewhere can tell.
  Result<store::ReceiptRecord> r = ShowReceipt(*store_, 3);
  ASSERT_TRUE(r.ok());
  std::string forged = r->body;
  forged.replace(forged.find("INC-2"), 5, "INC-7");
  Raw("UPDATE receipts SET body = $1, hash = $2 WHERE seq = 3", {forged, Sha256Hex(forged)});
  EXPECT_TRUE(Verify().ok);
  ChainVerdict v = Verify(head.hash);
  EXPECT_FALSE(v.ok);
  EXPECT_NE(v.problem.find("expected head"), std::string::npos) << v.problem;
}

TEST_P(ReceiptChainTest, ADeletedReceiptIsNamed) {
  WriteSome(5);
  Raw("DELETE FROM receipts WHERE seq = 2");
  ChainVerdict v = Verify();
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.first_bad_seq, 3);
  EXPECT_NE(v.problem.find("receipt 2 is missing"), std::string::npos) << v.problem;
}

TEST_P(ReceiptChainTest, DeletingTheFirstReceiptIsDetected) {
  WriteSome(3);
  Raw("DELETE FROM receipts WHERE seq = 1");
  ChainVerdict v = Verify();
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.first_bad_seq, 2);
}

TEST_P(ReceiptChainTest, ReorderedReceiptsAreDetected) {
  WriteSome(5);
  // Swap receipts 2 and 4 by their seq (through a free seq, since seq is the key).
  Raw("UPDATE receipts SET seq = 100 WHERE seq = 2");
  Raw("UPDATE receipts SET seq = 2 WHERE seq = 4");
  Raw("UPDATE receipts SET seq = 4 WHERE seq = 100");
  ChainVerdict v = Verify();
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.first_bad_seq, 2) << v.problem;
}

TEST_P(ReceiptChainTest, ReorderingRowsAndTheirPrevHashesStillFailsOnTheBodies) {
  WriteSome(4);
  Result<store::ReceiptRecord> r2 = ShowReceipt(*store_, 2);
  Result<store::ReceiptRecord> r3 = ShowReceipt(*store_, 3);
  Result<store::ReceiptRecord> r1 = ShowReceipt(*store_, 1);
  ASSERT_TRUE(r1.ok() && r2.ok() && r3.ok());
  // Put 3 where 2 was and fix up the stored prev_hash columns to look chained.
  Raw("UPDATE receipts SET seq = 100 WHERE seq = 2");
  Raw("UPDATE receipts SET seq = 2, prev_hash = $1 WHERE seq = 3", {r1->hash});
  Raw("UPDATE receipts SET seq = 3, prev_hash = $1 WHERE seq = 100", {r3->hash});
  ChainVerdict v = Verify();
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.first_bad_seq, 2) << v.problem;
}

TEST_P(ReceiptChainTest, TruncationVerifiesAloneButNotAgainstTheRecordedHead) {
  ReceiptHead head = WriteSome(5);
  Raw("DELETE FROM receipts WHERE seq >= 4");
  EXPECT_TRUE(Verify().ok);
  ChainVerdict v = Verify(head.hash);
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.first_bad_seq, 4);
  EXPECT_NE(v.problem.find("cut off"), std::string::npos) << v.problem;
  Raw("DELETE FROM receipts");
  EXPECT_FALSE(Verify(head.hash).ok);
}

TEST_P(ReceiptChainTest, AChangedPrevHashColumnIsDetected) {
  WriteSome(3);
  Raw("UPDATE receipts SET prev_hash = 'x' WHERE seq = 2");
  ChainVerdict v = Verify();
  EXPECT_FALSE(v.ok);
  EXPECT_EQ(v.first_bad_seq, 2);
}

TEST_P(ReceiptChainTest, ExportsJsonAndMarkdown) {
  WriteSome(2);
  Result<std::string> json = ExportReceipts(*store_, "json");
  ASSERT_TRUE(json.ok());
  Json all = Json::parse(*json);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1]["body"]["content"]["incident"], "INC-1");
  EXPECT_EQ(all[1]["prev_hash"], all[0]["hash"]);
  Result<std::string> md = ExportReceipts(*store_, "md");
  ASSERT_TRUE(md.ok());
  EXPECT_NE(md->find("## Receipt 2"), std::string::npos);
  EXPECT_NE(md->find("restore skipped state"), std::string::npos);
  EXPECT_EQ(ExportReceipts(*store_, "xml").status().code(), StatusCode::kInvalidArgument);
}

// The Markdown export fences each receipt's page with more backticks than any run inside it, so a
// stored value cannot close the fence and write Markdown of its own.
TEST_P(ReceiptChainTest, TheMarkdownFenceOutrunsAnyBackticksInAReceipt) {
  ASSERT_TRUE(WriteReceipt(*store_, Json{{"note", "a `````` run\n## Receipt 99"}}, clock_).ok());
  Result<std::string> md = ExportReceipts(*store_, "md");
  ASSERT_TRUE(md.ok());
  EXPECT_NE(md->find("```````text\n"), std::string::npos) << *md;
  EXPECT_EQ(md->find("\n## Receipt 99"), std::string::npos) << *md;
}

TEST_P(ReceiptChainTest, RefusesContentWithoutACanonicalForm) {
  EXPECT_EQ(WriteReceipt(*store_, Json{{"ratio", 0.5}}, clock_).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(WriteReceipt(*store_, Json::array(), clock_).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(CurrentReceiptHead(*store_)->seq, 0);
}

TEST_P(ReceiptChainTest, ConcurrentWritersKeepOneChain) {
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t)
    writers.emplace_back([&] {
      for (int i = 0; i < 25; ++i) EXPECT_TRUE(WriteReceipt(*store_, {{"i", i}}, clock_).ok());
    });
  for (auto& w : writers) w.join();
  ChainVerdict v = Verify();
  EXPECT_TRUE(v.ok) << v.problem;
  EXPECT_EQ(v.receipts, 100);
}

// A resolution notice as the outbox stores it (NotifyResolved's summary ends with the receipt it
// announces), for `incident` on `channel`; `state` "sent" once delivered (it left the store).
void Announce(store::StateStore& st, const Clock& clock, const std::string& incident, const std::string& channel,
              int64_t seq, const std::string& hash, const std::string& state) {
  ASSERT_TRUE(st.PutIncident({incident, "closed", "t", "table://main/x", clock.Now(), clock.Now(), clock.Now(),
                              Json::object()})
                  .ok());
  store::OutboxMessage m;
  m.incident_id = incident;
  m.channel = channel;
  m.event = "resolved";
  m.payload = {{"notice", {{"incident_id", incident}, {"event", "resolved"},
                           {"summary", "Restore skipped state; fixed (receipt " + std::to_string(seq) + ", hash " +
                                           hash + ")"}}}};
  m.state = "pending";
  Result<bool> queued = st.EnqueueOutbox(m);
  ASSERT_TRUE(queued.ok() && *queued) << queued.status().ToString();
  auto all = st.OutboxFor(incident);
  ASSERT_TRUE(all.ok());
  for (store::OutboxMessage& q : *all) {
    if (q.channel != channel || q.event != "resolved") continue;
    q.state = state;
    ASSERT_TRUE(st.UpdateOutbox(q).ok());
  }
}

// Issue 34: the chain is anchored outside the store. Without --head, the newest receipt a
// delivered resolution notice announced must be in the chain with its hash: a chain cut before it,
// emptied, or rewritten with every hash recomputed fails naming the notification, where the
// chain alone (its action log deleted with it) verified before.
TEST_P(ReceiptChainTest, TheHeadAnnouncedByADeliveredNotificationAnchorsTheChain) {
  WriteSome(5);
  std::vector<store::ReceiptRecord> r(6);
  for (int i = 1; i <= 5; ++i) {
    auto got = ShowReceipt(*store_, i);
    ASSERT_TRUE(got.ok());
    r[i] = *got;
  }
  ASSERT_NO_FATAL_FAILURE(Announce(*store_, clock_, "INC-1", "teams", 2, r[2].hash, "sent"));
  ASSERT_NO_FATAL_FAILURE(Announce(*store_, clock_, "INC-2", "slack", 3, r[3].hash, "sent"));
  // Never delivered: not an anchor (it did not leave the store), though it names a later receipt.
  ASSERT_NO_FATAL_FAILURE(Announce(*store_, clock_, "INC-3", "slack", 9, std::string(64, 'e'), "failed"));
  ChainVerdict whole = Verify();
  ASSERT_TRUE(whole.ok) << whole.problem;
  auto announced = LatestAnnouncedHead(*store_);
  ASSERT_TRUE(announced.ok() && announced->has_value());
  EXPECT_EQ((*announced)->seq, 3);  // the newest delivered announcement
  EXPECT_EQ((*announced)->Where().find("notification"), 0u);
  EXPECT_NE((*announced)->Where().find("slack, incident INC-2"), std::string::npos) << (*announced)->Where();

  // Rewritten from receipt 3 on, every hash recomputed, the action log gone: consistent by itself.
  std::string body3 = r[3].body;
  body3.replace(body3.find("INC-2"), 5, "INC-9");
  const std::string hash3 = Sha256Hex(body3);
  std::string body4 = r[4].body;
  body4.replace(body4.find(r[3].hash), r[3].hash.size(), hash3);
  Raw("DELETE FROM action_events");
  Raw("UPDATE receipts SET body = $1, hash = $2 WHERE seq = 3", {body3, hash3});
  Raw("UPDATE receipts SET body = $1, hash = $2, prev_hash = $3 WHERE seq = 4", {body4, Sha256Hex(body4), hash3});
  Raw("DELETE FROM receipts WHERE seq = 5");
  EXPECT_TRUE(Verify(Sha256Hex(body4)).ok) << "--head overrides the announced head";
  ChainVerdict rewritten = Verify();
  EXPECT_FALSE(rewritten.ok);
  EXPECT_EQ(rewritten.first_bad_seq, 3);
  EXPECT_NE(rewritten.problem.find("rewritten"), std::string::npos) << rewritten.problem;
  EXPECT_NE(rewritten.problem.find("INC-2"), std::string::npos) << rewritten.problem;
  EXPECT_NE(rewritten.problem.find(r[3].hash), std::string::npos) << rewritten.problem;

  // Cut before the announced head.
  Raw("DELETE FROM receipts WHERE seq >= 3");
  ChainVerdict cut = Verify();
  EXPECT_FALSE(cut.ok);
  EXPECT_NE(cut.problem.find("ends at receipt 2"), std::string::npos) << cut.problem;
  EXPECT_NE(cut.problem.find("announced receipt 3"), std::string::npos) << cut.problem;
  EXPECT_TRUE(Verify(r[2].hash).ok) << "--head overrides the announced head";

  // Emptied.
  Raw("DELETE FROM receipts");
  ChainVerdict empty = Verify();
  EXPECT_FALSE(empty.ok);
  EXPECT_NE(empty.problem.find("is empty"), std::string::npos) << empty.problem;
  EXPECT_NE(empty.problem.find("notification"), std::string::npos) << empty.problem;
}

// What a resolution notice's summary announces: its last "(receipt N, hash H)", and nothing from
// a summary that only looks like one.
TEST(ReceiptNamedInTest, ReadsTheAnnouncedReceiptAndNothingElse) {
  const std::string h(64, 'a');
  auto named = ReceiptNamedIn("Fixed (receipt 12, hash " + h + ")");
  ASSERT_TRUE(named.has_value());
  EXPECT_EQ(named->first, 12);
  EXPECT_EQ(named->second, h);
  auto last = ReceiptNamedIn("said (receipt 3, hash " + std::string(64, 'b') + ") then (receipt 4, hash " + h + ")");
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(last->first, 4);
  for (const std::string& bad : {std::string("Resolved"), "(receipt x, hash " + h + ")", "(receipt 0, hash " + h + ")",
                                 "(receipt 5, hash " + h.substr(1) + ")", "(receipt 5, hash " + std::string(64, 'G') + ")",
                                 "(receipt 5 hash " + h + ")"})
    EXPECT_FALSE(ReceiptNamedIn(bad).has_value()) << bad;
}

INSTANTIATE_TEST_SUITE_P(Backends, ReceiptChainTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

// The writer a kill -9 test runs in a separate process: appends receipts to the store named by
// DW_RECEIPT_WRITER_STORE until it is killed. Skipped in a normal run.
TEST(ReceiptWriterChild, AppendsUntilKilled) {
  const char* location = std::getenv("DW_RECEIPT_WRITER_STORE");
  if (location == nullptr) GTEST_SKIP() << "only run as the child of ReceiptCrashTest";
  SimulatedClock clock(kStart);
  auto opened = store::OpenStateStore(location, clock);
  if (!opened.ok()) _exit(3);
  std::string padding(2000, 'x');  // bigger writes: more time inside each one
  for (int64_t i = 0;; ++i) {
    if (!WriteReceipt(**opened, {{"i", i}, {"padding", padding}}, clock).ok()) _exit(4);
  }
}

// How many receipts the store at `location` holds (0 when it cannot be read).
int64_t ChainLength(const std::string& location, const Clock& clock) {
  auto opened = store::OpenStateStore(location, clock);
  if (!opened.ok()) return 0;
  Result<ReceiptHead> head = CurrentReceiptHead(**opened);
  return head.ok() ? head->seq : 0;
}

// Polls until the store holds more than `before` receipts; false after 60 s or when `child`
// has already ended.
bool WaitForReceiptsBeyond(const std::string& location, const Clock& clock, int64_t before, pid_t child) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    if (ChainLength(location, clock) > before) return true;
    if (waitpid(child, nullptr, WNOHANG) == child) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

TEST(ReceiptCrashTest, AKillDuringWritesLeavesAVerifiableChain) {
  auto scratch = ScratchLocation::Create("sqlite");
  ASSERT_TRUE(scratch.ok());
  const std::string location = (*scratch)->location();
  SimulatedClock clock(kStart);
  {
    auto opened = store::OpenStateStore(location, clock);  // migrate before the child starts
    ASSERT_TRUE(opened.ok());
  }
  for (int round = 0; round < 3; ++round) {
    const int64_t before = ChainLength(location, clock);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      setenv("DW_RECEIPT_WRITER_STORE", location.c_str(), 1);
      execl("/proc/self/exe", "dw_tests", "--gtest_filter=ReceiptWriterChild.AppendsUntilKilled",
            static_cast<char*>(nullptr));
      _exit(127);
    }
    // Wait until the child has appended (its start, an instrumented binary on a loaded host, can
    // take seconds: a fixed sleep sized for a quiet machine killed it before its first write in
    // CI), then let it write for a while more (variable, so the kill lands at different points
    // of a write).
    if (!WaitForReceiptsBeyond(location, clock, before, pid)) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
      FAIL() << "the writer never appended within 60 s (or exited before it did)";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50 + 100 * round));
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer exited by itself with " << WEXITSTATUS(status);
    auto opened = store::OpenStateStore(location, clock);
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    Result<ChainVerdict> v = VerifyReceiptChain(**opened);
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    EXPECT_TRUE(v->ok) << v->problem;
    EXPECT_GT(v->receipts, 0) << "the writer never wrote: the test proves nothing";
    // And the chain goes on from where the killed writer stopped.
    EXPECT_TRUE(WriteReceipt(**opened, {{"after_kill", round}}, clock).ok());
  }
}

}  // namespace receipt_chain_test
}  // namespace
}  // namespace dw::actions
