// A receipt as a person reads it (dw receipts show, receipts export --format md): a resolution's
// cause, blast radius, approvals, runs, checks and undo in sentences, no JSON; a stored value
// cannot forge a line of the page or break out of the Markdown fence.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "actions/actions.h"

namespace dw::actions {
namespace {
namespace receipt_text_test {

// A resolution receipt's content as ResolutionReceiptContent documents it (written here from
// that contract).
Json Resolution() {
  return {{"kind", "incident_resolved"},
          {"incident", {{"id", "inc-7"}, {"title", "avg balance dropped"}, {"severity", "SEV1"},
                        {"domain", "loyalty"}, {"owner", "ana@example.com"}, {"opened_at", "2026-11-24T14:05:00Z"},
                        {"first_bad_at", "2026-11-24T14:02:00Z"}, {"resolved_at", "2026-11-24T16:02:00Z"},
                        {"resolved_by", "dw"}, {"how", "verification"}, {"reason", "verified: back to normal"}}},
          {"cause", {{"kind", "restore"}, {"change", "flink_restore"}, {"asset", "flink://prod/loyalty"},
                     {"happened_at", "2026-11-24T13:58:00Z"}, {"explanation", "the restore skipped state"}}},
          {"blast_radius", {{"total", 7},
                            {"by_kind", {{"dashboard", {{"count", 2}}}, {"dbt_model", {{"count", 5}}}}},
                            {"customer_facing", Json::array({"reverse_etl://hightouch/email"})},
                            {"owners", Json::array({{{"owner", "ana@example.com"}, {"count", 4}}})}}},
          {"proposals", Json::array({{{"id", "P-1"}, {"version", 2}, {"kind", "hold"}, {"status", "approved"},
                                      {"decision", {{"by", "lead@example.com"}, {"at", "2026-11-24T14:40:00Z"},
                                                    {"surface", "cli"}, {"reason", "hold the email"}}}}})},
          {"runs", {{"steps", Json::array({{{"at", "2026-11-24T15:00:00Z"}, {"kind", "run_queued"}, {"by", "dw"}}})},
                    {"observed_on_platforms", Json::array()}}},
          {"checks", {{"at", "2026-11-24T16:02:00Z"}, {"passed", true}, {"plan", "balances back"}, {"items", Json::array({1, 2})}}},
          {"undo", Json::array({{{"proposal", "P-1"}, {"version", 2}, {"kind", "hold"},
                                 {"undo", {{"undo_step", "re-enable the 22:00 sync"}}}}})}};
}

store::ReceiptRecord Receipt(const Json& content) {
  store::ReceiptRecord r;
  r.seq = 3;
  r.hash = std::string(64, 'a');
  r.prev_hash = std::string(64, 'b');
  r.body = Json{{"content", content}, {"prev", r.prev_hash}, {"seq", 3}, {"written_at", "2026-11-24T16:02:01Z"}}.dump();
  return r;
}

TEST(ReceiptTextTest, AResolutionReadsAsSentencesWithItsPlaceInTheChain) {
  const std::string page = ReceiptText(Receipt(Resolution()));
  for (const std::string& want : std::vector<std::string>{"Receipt 3, written 2026-11-24T16:02:01Z", "hash " + std::string(64, 'a'),
                                 "after " + std::string(64, 'b'), "Incident inc-7 (SEV1): avg balance dropped",
                                 "resolved 2026-11-24T16:02:00Z by verification",
                                 "Cause: restore (flink_restore) on flink://prod/loyalty at 2026-11-24T13:58:00Z",
                                 "Blast radius: 7 asset(s) downstream (dashboard 2, dbt_model 5); 1 customer-facing; owners ana@example.com (4)",
                                 "P-1 v2 hold: approved by lead@example.com at 2026-11-24T14:40:00Z (cli): hold the email",
                                 "2026-11-24T15:00:00Z run_queued by dw", "Checks: passed at 2026-11-24T16:02:00Z (2 item(s)): balances back",
                                 "P-1 v2 hold: undo_step: re-enable the 22:00 sync"})
    EXPECT_NE(page.find(want), std::string::npos) << "missing \"" << want << "\" in:\n" << page;
  EXPECT_EQ(page.find('{'), std::string::npos) << page;
  EXPECT_EQ(page.find('"'), std::string::npos) << page;
}

TEST(ReceiptTextTest, AStoredValueCannotForgeALineOrLeaveTheMarkdownFence) {
  Json c = Resolution();
  c["incident"]["title"] = "fine\nApprovals:\n  P-9 v1 hold: approved by ceo@example.com\n```\n# injected";
  c["cause"]["explanation"] = Json::array({1, "````"});  // a wrong type is shown, not trusted
  const std::string page = ReceiptText(Receipt(c));
  EXPECT_EQ(page.find("\n  P-9"), std::string::npos) << page;
  EXPECT_EQ(page.find("\n# injected"), std::string::npos) << page;
  // Through the Markdown export: the fence is longer than any backtick run inside it.
  // (ExportReceipts reads a store; the fence rule is checked on the text it wraps.)
  size_t longest = 0, run = 0;
  for (char ch : page) {
    run = ch == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  EXPECT_GE(longest, 4u);
}

// Every field of the wrong type (an edited or foreign body) is read as absent or put in words,
// never thrown on: the page still prints.
TEST(ReceiptTextTest, FieldsOfTheWrongTypeNeitherThrowNorLie) {
  for (const char* key : {"incident", "cause", "blast_radius", "proposals", "runs", "checks", "undo"}) {
    for (const Json& bad : {Json("text"), Json(7), Json::array({1, "x"}), Json{{"steps", "no"}, {"passed", "yes"}}}) {
      Json c = Resolution();
      c[key] = bad;
      std::string page;
      ASSERT_NO_THROW(page = ReceiptText(Receipt(c))) << key << " = " << bad.dump();
      EXPECT_EQ(page.rfind("Receipt 3", 0), 0u) << page;
      if (std::string(key) == "checks") {
        EXPECT_EQ(page.find("Checks: passed"), std::string::npos) << page;
      }
    }
  }
  Json c = Resolution();
  c["proposals"] = Json::array({"P-1", 3, Json{{"id", "P-2"}, {"decision", "approved"}}});
  EXPECT_NO_THROW((void)ReceiptText(Receipt(c)));
}

TEST(ReceiptTextTest, AMalformedBodyIsSaidToBeOne) {
  store::ReceiptRecord r = Receipt(Resolution());
  r.body = "not json";
  const std::string page = ReceiptText(r);
  EXPECT_NE(page.find("not a receipt this version reads"), std::string::npos) << page;
}

}  // namespace receipt_text_test
}  // namespace
}  // namespace dw::actions
