// The desk's pages over real HTTP: the server `dw serve` uses, the desk's routes on it, a
// workspace on disk with an incident opened by the incidents stage, a proposal with a diff stored
// by the actions stage, a notification in the outbox and receipts in the chain. What the pages
// must show is checked against what those stages recorded, and everything shown must be escaped.
#include <gtest/gtest.h>
#include <httplib.h>

#include "actions/actions.h"
#include "base/rfc3339.h"
#include "desk/desk.h"
#include "desk/lineage_picture.h"
#include "net/http_server.h"
#include "tests/support/subprocess.h"
#include "workspace/incident_desk.h"
#include "workspace/services.h"

namespace dw::desk {
namespace {
namespace desk_pages_test {

TimePoint At(const char* t) { return *ParseRfc3339(t); }

constexpr char kLinkKey[] = "f3c9e1a27b6d48c0a5e2d9b71c4f8a36-desk-test";

constexpr char kWorkspace[] = R"(version: 1
name: desk-test
timezone: UTC
warehouses:
  main: {type: sqlite, path: warehouse.db}
domains:
  loyalty: {autonomy: L2, owners: [ana@example.com], approvers: [ana@example.com], approval_ttl: 2h}
  pricing: {autonomy: L1, owners: [ben@example.com]}
assets:
  - id: flink://flink/points-balance
    domain: loyalty
    owner: ana@example.com
    writes: [table://main/member_balances]
  - id: table://main/member_balances
    domain: loyalty
    owner: ana@example.com
  - id: dbt://loyalty/fct_member_tier
    domain: loyalty
    reads: [table://main/member_balances]
  - id: sync://hightouch/tier-changes-to-braze
    domain: loyalty
    owner: ana@example.com
    reads: [dbt://loyalty/fct_member_tier]
    schedule: "0 22 * * *"
    customer_facing: true
  - id: table://main/scripted
    domain: loyalty
    owner: "<script>alert(1)</script>"
    notes: "<script>alert('notes')</script> <img src=x onerror=alert(2)>"
    reads: [table://main/member_balances]
)";

class DeskPagesTest : public ::testing::Test {
 protected:
  DeskPagesTest() : clock_(At("2026-11-24T14:00:00Z")) {}

  void SetUp() override {
    dir_.Write("dataworkers.yaml", kWorkspace);
    services_ = workspace::Services::Load(dir_.path(), clock_);
    ASSERT_TRUE(services_->workspace_status().ok()) << services_->workspace_status().message();
    auto store = services_->state();
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = *store;
    // The change a collector would have recorded, and the failed check that opens the incident.
    store::ChangeEvent e;
    e.dedup_key = "flink:restore:1";
    e.asset_id = "flink://flink/points-balance";
    e.kind = "restore_skipped_state";
    e.happened_at = At("2026-11-24T13:02:00Z");
    e.observed_at = e.happened_at;
    e.risk = 0.9;
    e.reason = "the restore skipped operator state";
    e.evidence = {{"log_line", "Skipping savepoint state for operator 90bea66de1c231edf33913ecd54406c1"}};
    ASSERT_TRUE(store_->AddChangeEvent(e).ok());
    incidents::Signal s;
    s.kind = incidents::SignalKind::kCheck;
    s.key = "check:table://main/member_balances:range(balance)";
    s.asset_id = "table://main/member_balances";
    s.at = At("2026-11-24T13:30:00Z");
    s.shape = incidents::SignalShape::kLevelDrop;
    s.value = 6100;
    s.summary = "range(balance) failed: 6100 rows <b>below</b> 0";
    auto desk = workspace::OpenIncidentDesk(*services_);
    ASSERT_TRUE(desk.ok()) << desk.status().ToString();
    auto report = (*desk)->Evaluate({{s}, {}, {}});
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    ASSERT_EQ(report->opened.size(), 1u);
    incident_ = report->opened.front();

    net::HttpServerOptions options;
    DeskOptions desk_options;
    desk_options.link_key = kLinkKey;
    ASSERT_TRUE(AddDeskRoutes(server_, services_, desk_options).ok());
    ASSERT_TRUE(server_.Start(options).ok());
  }

  httplib::Result Get(const std::string& path, httplib::Headers headers = {}) {
    httplib::Client cli("127.0.0.1", server_.port());
    return cli.Get(path.c_str(), headers);
  }

  testing::TempDir dir_;
  SimulatedClock clock_;
  // What the desk checks decisions with: the workspace's declared keys and the link key.
  actions::DecisionTrust Trust() const { return actions::TrustOf(services_->workspace(), kLinkKey); }
  std::shared_ptr<workspace::Services> services_;
  store::StateStore* store_ = nullptr;
  std::string incident_;
  net::HttpServer server_;
};

TEST_F(DeskPagesTest, TheIncidentsPageListsTheIncidentWithItsCustomerFacingDeadline) {
  auto r = Get("/");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(r->body.find("/incidents/" + incident_), std::string::npos) << r->body;
  EXPECT_NE(r->body.find("SEV1"), std::string::npos);
  // 14:00 now, the customer-facing sync runs at 22:00.
  EXPECT_NE(r->body.find("<strong>8h 0m</strong>"), std::string::npos) << r->body;
  EXPECT_NE(r->body.find("sync://hightouch/tier-changes-to-braze"), std::string::npos);
  clock_.Advance(std::chrono::minutes(95));
  r = Get("/");
  EXPECT_NE(r->body.find("<strong>6h 25m</strong>"), std::string::npos) << "the countdown follows the clock";
}

TEST_F(DeskPagesTest, FiltersNarrowTheListAndBadParametersAre400NamingThem) {
  auto r = Get("/?domain=pricing");
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(r->body.find("/incidents/" + incident_), std::string::npos);
  EXPECT_NE(r->body.find("No incident matches"), std::string::npos);
  r = Get("/?domain=loyalty&severity=SEV1&status=open");
  EXPECT_NE(r->body.find("/incidents/" + incident_), std::string::npos);
  r = Get("/?severity=SEV2");
  EXPECT_EQ(r->body.find("/incidents/" + incident_), std::string::npos);
  r = Get("/?status=resolved");
  EXPECT_EQ(r->body.find("/incidents/" + incident_), std::string::npos);
  r = Get("/?severity=SEV9");
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(r->body.find("severity 'SEV9' must be SEV1, SEV2 or SEV3"), std::string::npos) << r->body;
  r = Get("/?domain=nowhere");
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(r->body.find("not a domain of this workspace"), std::string::npos);
  r = Get("/?colour=red");
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(r->body.find("unknown parameter 'colour'"), std::string::npos);
  r = Get("/?status=open&status=closed");
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(r->body.find("given twice"), std::string::npos);
}

TEST_F(DeskPagesTest, TheIncidentPageShowsTheCauseFirstTheBlastRadiusAndEscapesTheSignal) {
  auto r = Get("/incidents/" + incident_);
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const std::string& b = r->body;
  const auto causes = b.find("Causes, ranked");
  ASSERT_NE(causes, std::string::npos);
  EXPECT_NE(b.find("restore_skipped_state</strong> on", causes), std::string::npos) << b;
  EXPECT_NE(b.find("Skipping savepoint state for operator 90bea66de1c231edf33913ecd54406c1"), std::string::npos);
  // The picture: cause, damage, the customer-facing consumer with its deadline.
  EXPECT_NE(b.find("<svg"), std::string::npos);
  const auto svg = b.find("<svg");
  ASSERT_NE(svg, std::string::npos);
  const std::string picture = b.substr(svg, b.find("</svg>", svg) - svg);
  EXPECT_NE(picture.find(">CAUSE</text>"), std::string::npos) << picture;
  EXPECT_NE(picture.find(">flink://flink/points-balance</text>"), std::string::npos) << picture;
  EXPECT_NE(picture.find(">DAMAGED</text>"), std::string::npos) << picture;
  EXPECT_NE(picture.find(">CUSTOMER-FACING</text>"), std::string::npos) << picture;
  EXPECT_NE(picture.find(">sync://hightouch/tier-changes-to-braze</text>"), std::string::npos) << picture;
  EXPECT_NE(picture.find(">acts 2026-11-24 22:00 UTC · in 8h 0m</text>"), std::string::npos) << picture;
  // The check signal's summary is text, never markup.
  EXPECT_NE(b.find("6100 rows &lt;b&gt;below&lt;/b&gt; 0"), std::string::npos);
  EXPECT_EQ(b.find("<b>below</b>"), std::string::npos);
  EXPECT_NE(b.find("No proposal has been drafted"), std::string::npos);
}

TEST_F(DeskPagesTest, ProposalsShowTheirDiffsAndApprovalStateAndNotificationsTheirDelivery) {
  actions::ProposalDraft draft;
  draft.id = "P-redeploy";
  draft.incident_id = incident_;
  draft.domain = "loyalty";
  draft.kind = "flink_deployment_diff";
  draft.author = "agent:dw-incidents";
  draft.content = {{"file", "k8s/points-balance.yaml"},
                   {"diff", actions::MakeUnifiedDiff("k8s/points-balance.yaml", "a: 1\nallowNonRestoredState: true\n",
                                                     "a: 1\nallowNonRestoredState: false\n")}};
  ASSERT_TRUE(actions::StoreProposal(*store_, draft, clock_).ok());
  store::OutboxMessage m;
  m.incident_id = incident_;
  m.channel = "slack";
  m.event = "open";
  m.next_attempt_at = clock_.Now();
  ASSERT_TRUE(store_->EnqueueOutbox(m).ok());
  auto r = Get("/incidents/" + incident_);
  ASSERT_EQ(r->status, 200);
  const std::string& b = r->body;
  EXPECT_NE(b.find("flink_deployment_diff: P-redeploy"), std::string::npos) << b;
  EXPECT_NE(b.find("<span class=\"del\">-allowNonRestoredState: true</span>"), std::string::npos) << b;
  EXPECT_NE(b.find("<span class=\"add\">+allowNonRestoredState: false</span>"), std::string::npos);
  EXPECT_NE(b.find("<span class=\"hunk\">@@"), std::string::npos);
  EXPECT_NE(b.find("<strong>drafted</strong>"), std::string::npos) << b;
  EXPECT_NE(b.find("agent:dw-incidents"), std::string::npos);
  const auto notes = b.find("id=\"notifications\"");
  ASSERT_NE(notes, std::string::npos);
  EXPECT_NE(b.find("<td>slack</td><td>open</td><td>pending</td>", notes), std::string::npos) << b;
}

TEST_F(DeskPagesTest, UnknownIdsAre404PagesThatSayWhatWasNotFound) {
  auto r = Get("/incidents/inc-20990101-0000-nope");
  EXPECT_EQ(r->status, 404);
  EXPECT_NE(r->body.find("Incident inc-20990101-0000-nope was not found."), std::string::npos) << r->body;
  r = Get("/assets/" + std::string("table%3A%2F%2Fmain%2Fmember_balance"));
  EXPECT_EQ(r->status, 404);
  EXPECT_NE(r->body.find("Asset table://main/member_balance was not found."), std::string::npos) << r->body;
  EXPECT_NE(r->body.find("/assets/table%3A%2F%2Fmain%2Fmember_balances"), std::string::npos) << "closest ids linked";
  r = Get("/receipts/7");
  EXPECT_EQ(r->status, 404);
  EXPECT_NE(r->body.find("Receipt 7 was not found."), std::string::npos);
  r = Get("/receipts/x7");
  EXPECT_EQ(r->status, 400);
  r = Get("/incidents/" + incident_ + "?x=1");
  EXPECT_EQ(r->status, 400);
}

TEST_F(DeskPagesTest, MarkupInTheGraphRendersAsTextOnEveryPageThatShowsIt) {
  // Asset ids cannot hold '<' or '>' (base/identifiers.h); owners and notes can.
  for (const std::string& path : std::vector<std::string>{"/assets?q=scripted", "/assets/table%3A%2F%2Fmain%2Fscripted",
                                                          "/assets/table%3A%2F%2Fmain%2Fmember_balances"}) {
    auto r = Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 200) << path << r->body;
    EXPECT_EQ(r->body.find("<script"), std::string::npos) << path;
    EXPECT_EQ(r->body.find("<img"), std::string::npos) << path;
    EXPECT_NE(r->body.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos) << path << "\n" << r->body;
  }
  auto r = Get("/assets/table%3A%2F%2Fmain%2Fscripted");
  EXPECT_NE(r->body.find("&lt;img src=x onerror=alert(2)&gt;"), std::string::npos) << r->body;
  // A name that is not an id at all is refused, and what was asked for is shown as text.
  r = Get("/assets/table%3A%2F%2Fmain%2F%3Cscript%3E");
  EXPECT_TRUE(r->status == 404 || r->status == 400) << r->status;
  EXPECT_EQ(r->body.find("<script"), std::string::npos);
  EXPECT_NE(r->body.find("table://main/&lt;script&gt;"), std::string::npos) << r->body;
  r = Get("/assets?q=%3Cscript%3E");
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->body.find("value=\"&lt;script&gt;\""), std::string::npos) << r->body;
}

TEST_F(DeskPagesTest, AssetSearchFiltersByNameKindAndOwner) {
  auto r = Get("/assets?kind=sync");
  EXPECT_NE(r->body.find("sync://hightouch/tier-changes-to-braze"), std::string::npos);
  EXPECT_EQ(r->body.find("dbt://loyalty/fct_member_tier"), std::string::npos);
  r = Get("/assets?q=fct_");
  EXPECT_NE(r->body.find("dbt://loyalty/fct_member_tier"), std::string::npos);
  EXPECT_EQ(r->body.find("sync://hightouch"), std::string::npos);
  r = Get("/assets?owner=nobody");
  EXPECT_NE(r->body.find("No asset matches"), std::string::npos);
  r = Get("/assets?size=3");
  EXPECT_EQ(r->status, 400);
}

TEST_F(DeskPagesTest, ReceiptsShowTheChainStateAndExport) {
  ASSERT_TRUE(actions::WriteReceipt(*store_, {{"kind", "resolved"}, {"incident_id", incident_}}, clock_).ok());
  ASSERT_TRUE(actions::WriteReceipt(*store_, {{"kind", "note"}, {"summary", "<i>two</i>"}}, clock_).ok());
  auto r = Get("/receipts");
  ASSERT_EQ(r->status, 200);
  EXPECT_NE(r->body.find("The chain verifies: 2 receipts"), std::string::npos) << r->body;
  EXPECT_NE(r->body.find("note · &lt;i&gt;two&lt;/i&gt;"), std::string::npos) << r->body;
  r = Get("/receipts/1");
  ASSERT_EQ(r->status, 200);
  auto first = actions::ShowReceipt(*store_, 1);
  ASSERT_TRUE(first.ok());
  EXPECT_NE(r->body.find(first->hash), std::string::npos);
  r = Get("/receipts/export.json");
  ASSERT_EQ(r->status, 200);
  EXPECT_EQ(r->get_header_value("Content-Type"), "application/json");
  EXPECT_NE(r->get_header_value("Content-Disposition").find("receipts.json"), std::string::npos);
  Json exported = Json::parse(r->body);
  ASSERT_EQ(exported.size(), 2u);
  EXPECT_EQ(exported[1]["body"]["content"]["summary"], "<i>two</i>");
  r = Get("/receipts/export.md");
  EXPECT_EQ(r->status, 200);
  EXPECT_NE(r->get_header_value("Content-Type").find("text/markdown"), std::string::npos);
}

TEST_F(DeskPagesTest, AnEditedReceiptTurnsTheBannerRed) {
  ASSERT_TRUE(actions::WriteReceipt(*store_, {{"kind", "one"}}, clock_).ok());
  ASSERT_TRUE(actions::WriteReceipt(*store_, {{"kind", "two"}}, clock_).ok());
  // Append a receipt whose hash does not match its body, as an edit would leave it.
  auto head = actions::CurrentReceiptHead(*store_);
  ASSERT_TRUE(head.ok());
  ASSERT_TRUE(store_->AppendReceipt(head->hash, std::string(64, 'a'), "{\"content\":{}}").ok());
  auto r = Get("/receipts");
  EXPECT_NE(r->body.find("The chain does NOT verify from receipt 3"), std::string::npos) << r->body;
}

TEST_F(DeskPagesTest, EveryAnswerCarriesAPolicyWithoutScriptAndForeignOriginsAreRefused) {
  for (const std::string& path : std::vector<std::string>{"/", "/incidents/" + incident_, "/assets", "/receipts", "/desk.css", "/incidents/nope"}) {
    auto r = Get(path);
    ASSERT_TRUE(r) << path;
    const std::string csp = r->get_header_value("Content-Security-Policy");
    EXPECT_NE(csp.find("default-src 'none'"), std::string::npos) << path;
    EXPECT_NE(csp.find("frame-ancestors 'none'"), std::string::npos) << path;
    EXPECT_EQ(csp.find("unsafe-inline"), std::string::npos) << path;
    EXPECT_EQ(csp.find("script-src"), std::string::npos) << "no script source at all: " << path;
    EXPECT_EQ(r->get_header_value("X-Content-Type-Options"), "nosniff");
    EXPECT_EQ(r->get_header_value("Referrer-Policy"), "same-origin");
  }
  auto r = Get("/", {{"Origin", "http://evil.example"}});
  EXPECT_EQ(r->status, 403);
  r = Get("/", {{"Host", "evil.example"}});
  EXPECT_EQ(r->status, 403);
  r = Get("/", {{"Origin", "http://127.0.0.1:" + std::to_string(server_.port())}});
  EXPECT_EQ(r->status, 200);
}

// A hold proposal sent for approval to the loyalty domain's approver (ana), 2 h to decide.
class DeskApprovalTest : public DeskPagesTest {
 protected:
  std::string Pending(const std::string& id) {
    actions::ProposalDraft d;
    d.id = id;
    d.incident_id = incident_;
    d.domain = "loyalty";
    d.kind = "hold";
    d.author = "agent:dw-incidents";
    d.content = {{"target", "sync://hightouch/tier-changes-to-braze"}, {"until", "the balances are restored"}};
    EXPECT_TRUE(actions::StoreProposal(*store_, d, clock_).ok());
    auto sent = actions::SendForApproval(*store_, services_->workspace(), id, clock_, "dw");
    EXPECT_TRUE(sent.ok()) << sent.status().ToString();
    return id;
  }
  std::string LinkFor(const std::string& id, const std::string& who = "ana@example.com") {
    auto token = actions::IssueApprovalLink(*store_, Trust(), id, who, kLinkKey, clock_);
    EXPECT_TRUE(token.ok()) << token.status().ToString();
    return token.ok() ? *token : "";
  }
  // Opens the link's page and returns the CSRF token its form carries (and the cookie set).
  std::string OpenForm(const std::string& token, std::string* cookie) {
    auto r = Get("/approve/" + token);
    EXPECT_TRUE(r);
    if (!r) return "";
    EXPECT_EQ(r->status, 200) << r->body;
    *cookie = r->get_header_value("Set-Cookie");
    const std::string marker = "name=\"csrf\" value=\"";
    auto at = r->body.find(marker);
    if (at == std::string::npos) return "";
    at += marker.size();
    return r->body.substr(at, r->body.find('"', at) - at);
  }
  httplib::Result Post(const std::string& token, const std::string& body, const std::string& cookie,
                       httplib::Headers headers = {}) {
    httplib::Client cli("127.0.0.1", server_.port());
    if (!cookie.empty()) headers.emplace("Cookie", cookie);
    return cli.Post(("/approve/" + token).c_str(), headers, body, "application/x-www-form-urlencoded");
  }
};

// The approval page reads as sentences: what will happen (each held consumer's exact step and
// undo), the blast radius in one line, the undo; no JSON, and no decision chosen for the person.
TEST_F(DeskApprovalTest, TheApprovalPageSaysWhatWillHappenInSentencesAndChoosesNothing) {
  actions::ProposalDraft d;
  d.id = "P-readable";
  d.incident_id = incident_;
  d.domain = "loyalty";
  d.kind = "hold";
  d.author = "agent:dw-incidents";
  d.content = {{"title", "hold what acts on the damage before the fix lands"},
               {"why", "the restore zeroed member_balances"},
               {"touches", {"sync://hightouch/tier-changes-to-braze"}},
               {"targets", {{{"consumer", "sync://hightouch/tier-changes-to-braze"}, {"owner", "ana@example.com"},
                             {"customer_facing", true}, {"next_run", "2026-11-24T22:00:00Z"},
                             {"step", "pause the sync in Hightouch before 22:00"},
                             {"undo", "resume the sync in Hightouch"}}}},
               {"undo", "resume each paused sync"}};
  ASSERT_TRUE(actions::StoreProposal(*store_, d, clock_).ok());
  ASSERT_TRUE(actions::SendForApproval(*store_, services_->workspace(), d.id, clock_, "dw").ok());
  auto r = Get("/approve/" + LinkFor(d.id));
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  for (const char* said : {"What will happen", "Step: pause the sync in Hightouch before 22:00",
                           "Undo: resume the sync in Hightouch", "customer-facing",
                           "Touches:</strong> sync://hightouch/tier-changes-to-braze", "resume each paused sync"})
    EXPECT_NE(r->body.find(said), std::string::npos) << said << "\n" << r->body;
  EXPECT_EQ(r->body.find("{&quot;"), std::string::npos) << "no JSON on the page";
  EXPECT_EQ(r->body.find("\"targets\""), std::string::npos);
  EXPECT_EQ(r->body.find("checked"), std::string::npos) << "nothing pre-selected";
}

TEST_F(DeskApprovalTest, TheNamedApproverApprovesThroughTheSignedLinkAndThePageShowsIt) {
  const std::string token = LinkFor(Pending("P-hold"));
  std::string set_cookie;
  const std::string csrf = OpenForm(token, &set_cookie);
  ASSERT_EQ(csrf.size(), 113u);  // nonce, ".", HMAC (desk/csrf_token.h)
  EXPECT_NE(set_cookie.find("dw_csrf=" + csrf), std::string::npos);
  EXPECT_NE(set_cookie.find("HttpOnly"), std::string::npos);
  EXPECT_NE(set_cookie.find("SameSite=Strict"), std::string::npos);
  EXPECT_EQ(set_cookie.find("Secure"), std::string::npos) << "loopback: no Secure";
  auto r = Post(token, "verdict=approve&reason=hold+it&csrf=" + csrf, "dw_csrf=" + csrf);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200) << r->body;
  EXPECT_NE(r->body.find("approved P-hold v1 by ana@example.com"), std::string::npos) << r->body;
  auto st = actions::GetProposalState(*store_, Trust(), "P-hold", 0, clock_);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->status, actions::ProposalStatus::kApproved);
  EXPECT_EQ(st->decided_by, "ana@example.com");
  EXPECT_EQ(st->decision_surface, "web");
  EXPECT_EQ(st->decision_reason, "hold it");
  auto page = Get("/incidents/" + incident_);
  EXPECT_NE(page->body.find("<dt>Decided</dt><dd>ana@example.com at 2026-11-24 14:00 UTC through web: hold it</dd>"),
            std::string::npos) << page->body;
  // Used once: the same link and form again are refused, and the refusal is recorded.
  r = Post(token, "verdict=deny&reason=changed+my+mind&csrf=" + csrf, "dw_csrf=" + csrf);
  EXPECT_EQ(r->status, 403);
  EXPECT_NE(r->body.find("the approval link was already used"), std::string::npos) << r->body;
  auto after = actions::GetProposalState(*store_, Trust(), "P-hold", 0, clock_);
  EXPECT_EQ(after->status, actions::ProposalStatus::kApproved);
  auto events = store_->ActionEvents("proposal:P-hold");
  ASSERT_TRUE(events.ok());
  EXPECT_EQ(events->back().kind, "refused");
}

TEST_F(DeskApprovalTest, AFormWithoutTheBrowsersCsrfTokenIsRefusedAndDecidesNothing) {
  const std::string token = LinkFor(Pending("P-hold"));
  std::string set_cookie;
  const std::string csrf = OpenForm(token, &set_cookie);
  auto r = Post(token, "verdict=approve", "dw_csrf=" + csrf);
  EXPECT_EQ(r->status, 403);
  EXPECT_NE(r->body.find("CSRF token is missing"), std::string::npos) << r->body;
  r = Post(token, "verdict=approve&csrf=" + csrf, "");
  EXPECT_EQ(r->status, 403);
  r = Post(token, "verdict=approve&csrf=" + std::string(48, 'a'), "dw_csrf=" + csrf);
  EXPECT_EQ(r->status, 403);
  r = Post(token, "verdict=approve&csrf=" + csrf, "dw_csrf=" + csrf, {{"Origin", "http://evil.example"}});
  EXPECT_EQ(r->status, 403) << "a foreign Origin never reaches the form";
  r = Post(token, "verdict=maybe&csrf=" + csrf, "dw_csrf=" + csrf);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(actions::GetProposalState(*store_, Trust(), "P-hold", 0, clock_)->status, actions::ProposalStatus::kPending);
}

TEST_F(DeskApprovalTest, ExpiredForgedAndForeignLinksAreRefusedAndRecorded) {
  const std::string id = Pending("P-hold");
  const std::string token = LinkFor(id);
  std::string cookie;
  const std::string csrf = OpenForm(token, &cookie);
  const std::string form = "verdict=approve&csrf=" + csrf, jar = "dw_csrf=" + csrf;
  // Another person: a link the key signed for someone the request does not name.
  auto st = actions::GetProposalState(*store_, Trust(), id, 0, clock_);
  auto bob = actions::SignApprovalLink({"bob@example.com", id, 1, st->request->expires_at, "0123456789abcdef0123"}, kLinkKey);
  ASSERT_TRUE(bob.ok());
  // The form's token is bound to its link: ana's form posted to bob's link decides nothing.
  auto r = Post(*bob, form, jar);
  EXPECT_EQ(r->status, 403);
  EXPECT_NE(r->body.find("CSRF token is missing"), std::string::npos) << r->body;
  // With the form of bob's own link, the link's rules refuse it.
  std::string bob_cookie;
  const std::string bob_csrf = OpenForm(*bob, &bob_cookie);
  r = Post(*bob, "verdict=approve&csrf=" + bob_csrf, "dw_csrf=" + bob_csrf);
  EXPECT_EQ(r->status, 403);
  EXPECT_NE(r->body.find("bob@example.com is not an approver of P-hold v1"), std::string::npos) << r->body;
  auto agent = actions::SignApprovalLink({"agent:dw-incidents", id, 1, st->request->expires_at, "0123456789abcdef0124"}, kLinkKey);
  std::string agent_cookie;
  const std::string agent_csrf = OpenForm(*agent, &agent_cookie);
  r = Post(*agent, "verdict=approve&csrf=" + agent_csrf, "dw_csrf=" + agent_csrf);
  EXPECT_EQ(r->status, 403);
  EXPECT_NE(r->body.find("agents never decide"), std::string::npos) << r->body;
  // Another proposal: the payload changed under the same MAC does not verify (and its page offers
  // no form, so no token is ever bound to it).
  auto other = actions::SignApprovalLink({"ana@example.com", "P-other", 1, st->request->expires_at, "x"}, kLinkKey);
  const std::string forged = other->substr(0, other->rfind('.')) + token.substr(token.rfind('.'));
  r = Post(forged, form, jar);
  EXPECT_EQ(r->status, 403);
  auto forged_page = Get("/approve/" + forged);
  EXPECT_EQ(forged_page->status, 403);
  EXPECT_NE(forged_page->body.find("does not verify"), std::string::npos) << forged_page->body;
  EXPECT_EQ(Get("/approve/garbage")->status, 403);
  // After its expiry (the request's 2 h).
  clock_.Advance(std::chrono::hours(2) + std::chrono::minutes(1));
  r = Post(token, form, jar);
  EXPECT_EQ(r->status, 403);
  EXPECT_NE(r->body.find("the approval link expired at 2026-11-24T16:00:00"), std::string::npos) << r->body;
  EXPECT_NE(actions::GetProposalState(*store_, Trust(), id, 0, clock_)->status, actions::ProposalStatus::kApproved);
  auto events = store_->ActionEvents("proposal:" + id);
  int refused = 0;
  for (const auto& e : *events) refused += e.kind == "refused";
  EXPECT_EQ(refused, 3) << "bob, the agent and the expired link (the forged one is recorded as proposal:?)";
}

TEST_F(DeskApprovalTest, LinksAreIssuedOnlyToTheRequestsApproversAndOnlyWhilePending) {
  const std::string id = Pending("P-hold");
  auto bob = actions::IssueApprovalLink(*store_, Trust(), id, "bob@example.com", kLinkKey, clock_);
  EXPECT_FALSE(bob.ok());
  EXPECT_NE(bob.status().message().find("not an approver"), std::string::npos);
  auto short_key = actions::IssueApprovalLink(*store_, Trust(), id, "ana@example.com", "short", clock_);
  EXPECT_FALSE(short_key.ok());
  auto unsent = actions::StoreProposal(*store_, {"P-draft", incident_, "loyalty", "hold", "agent:dw-incidents", Json::object()}, clock_);
  ASSERT_TRUE(unsent.ok());
  EXPECT_FALSE(actions::IssueApprovalLink(*store_, Trust(), "P-draft", "ana@example.com", kLinkKey, clock_).ok());
}

TEST(DeskApprovalOff, WithoutALinkKeyTheApprovalPagesSaySo) {
  testing::TempDir dir;
  dir.Write("dataworkers.yaml", kWorkspace);
  SimulatedClock clock(At("2026-11-24T14:00:00Z"));
  auto services = workspace::Services::Load(dir.path(), clock);
  net::HttpServer server;
  ASSERT_TRUE(AddDeskRoutes(server, services).ok());
  ASSERT_TRUE(server.Start({}).ok());
  httplib::Client cli("127.0.0.1", server.port());
  auto r = cli.Get("/approve/v1.abc.def");
  EXPECT_EQ(r->status, 503);
  EXPECT_NE(r->body.find("DW_APPROVAL_LINK_KEY"), std::string::npos);
}

TEST(DeskPicture, ColumnsHoldAtMostTheirShareAndCountTheRest) {
  std::vector<PictureNode> nodes = {{"flink://flink/a", 0, NodeRole::kCause, "restore", 100}};
  for (int i = 0; i < 9; ++i) nodes.push_back({"dbt://x/m" + std::to_string(i), 1, NodeRole::kPlain, "", i});
  nodes.push_back({"sync://h/<s>", 2, NodeRole::kCustomerFacing, "acts 22:00", 50});
  std::vector<PictureEdge> edges = {{"flink://flink/a", "dbt://x/m8"}, {"dbt://x/m8", "sync://h/<s>"},
                                    {"flink://flink/a", "dbt://x/m0"}};
  const std::string svg = RenderLineageSvg("picture", nodes, edges, 6);
  EXPECT_NE(svg.find("+3 more at this depth"), std::string::npos) << svg;
  // Highest priority shown: m8..m3; m0 hidden, so its edge is not drawn.
  EXPECT_NE(svg.find("dbt://x/m8"), std::string::npos);
  EXPECT_EQ(svg.find("dbt://x/m0"), std::string::npos);
  size_t lines = 0;
  for (size_t at = svg.find("<line"); at != std::string::npos; at = svg.find("<line", at + 1)) ++lines;
  EXPECT_EQ(lines, 2u);
  EXPECT_NE(svg.find(">CUSTOMER-FACING</text>"), std::string::npos);
  EXPECT_NE(svg.find(">sync://h/&lt;s&gt;</text>"), std::string::npos) << svg;
  EXPECT_EQ(svg.find("<s>"), std::string::npos);
}

TEST(DeskPicture, AnEmptyPictureSaysSo) {
  EXPECT_NE(RenderLineageSvg("x", {}, {}).find("no lineage known"), std::string::npos);
}

}  // namespace desk_pages_test
}  // namespace
}  // namespace dw::desk
