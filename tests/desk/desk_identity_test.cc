// The desk's remaining identity paths over real HTTP, from the approval request to the decision:
//   - the approval request's Slack message (recorded by the loopback Slack receiver) carries each
//     approver's own signed link under desk.url; following it lets that approver approve, once;
//   - the outbox row holds the link's fields only, never a usable link;
//   - X-Forwarded-Email counts only from desk.trusted_proxies (connections from 127.0.0.2 here,
//     loopback being 127.0.0.0/8 on Linux), never from another peer (127.0.0.1), and then goes
//     through the actions stage's check (another person's link, the author, twice: refused).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "actions/actions.h"
#include "base/rfc3339.h"
#include "desk/reader_sessions.h"
#include "desk/desk.h"
#include "net/http_server.h"
#include "platforms/notify/notify.h"
#include "tests/platforms/notify/notify_test_support.h"
#include "tests/support/subprocess.h"
#include "workspace/incident_desk.h"
#include "workspace/services.h"

namespace dw::desk {
namespace {

constexpr char kLinkKey[] = "7d2f9a41c0e86b35f1a94e27c3b0d85a-identity-test";
constexpr char kProxy[] = "127.0.0.2";     // the sign-in proxy's address (trusted)
constexpr char kElsewhere[] = "127.0.0.1";  // any other peer
constexpr char kToken[] = "reader-token-0123456789";  // the bearer token of a guarded server

struct RawAnswer {
  int status = 0;
  std::string head;
  std::string body;
  std::string Header(const std::string& name) const {
    const std::string key = "\r\n" + name + ": ";
    auto at = head.find(key);
    if (at == std::string::npos) return "";
    at += key.size();
    return head.substr(at, head.find("\r\n", at) - at);
  }
};

// One HTTP/1.1 exchange from source address `from` (the peer the server sees).
RawAnswer RawHttp(const std::string& from, int port, const std::string& method, const std::string& path,
                  const std::vector<std::string>& headers = {}, const std::string& body = "") {
  RawAnswer a;
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return a;
  sockaddr_in src{};
  src.sin_family = AF_INET;
  ::inet_pton(AF_INET, from.c_str(), &src.sin_addr);
  sockaddr_in dst{};
  dst.sin_family = AF_INET;
  dst.sin_port = htons(static_cast<uint16_t>(port));
  ::inet_pton(AF_INET, "127.0.0.1", &dst.sin_addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&src), sizeof src) != 0 ||
      ::connect(fd, reinterpret_cast<sockaddr*>(&dst), sizeof dst) != 0) {
    ::close(fd);
    return a;
  }
  std::string req = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                    "\r\nConnection: close\r\n";
  for (const std::string& h : headers) req += h + "\r\n";
  if (!body.empty() || method == "POST")
    req += "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: " + std::to_string(body.size()) + "\r\n";
  req += "\r\n" + body;
  for (size_t sent = 0; sent < req.size();) {
    ssize_t n = ::send(fd, req.data() + sent, req.size() - sent, 0);
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
  std::string all;
  char buf[8192];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;) all.append(buf, static_cast<size_t>(n));
  ::close(fd);
  const auto split = all.find("\r\n\r\n");
  if (all.rfind("HTTP/1.1 ", 0) != 0 || split == std::string::npos) return a;
  a.status = std::stoi(all.substr(9, 3));
  a.head = all.substr(0, split);
  a.body = all.substr(split + 4);
  return a;
}

std::string Between(const std::string& s, const std::string& start, char end) {
  auto at = s.find(start);
  if (at == std::string::npos) return "";
  at += start.size();
  return s.substr(at, s.find(end, at) - at);
}

class DeskIdentityTest : public ::testing::Test {
 protected:
  DeskIdentityTest() : clock_(*ParseRfc3339("2026-11-24T15:20:00Z")) {}

  // The desk's routes on `server` as `dw serve` adds them where its bearer token (kToken) is required.
  void AddGuardedDesk(net::HttpServer& server, bool secure_cookies) {
    DeskOptions o;
    o.link_key = kLinkKey;
    o.bearer_token = kToken;
    o.secure_cookies = secure_cookies;
    ASSERT_TRUE(AddDeskRoutes(server, services_, o).ok());
  }
  void StartGuarded(net::HttpServer& server) {
    net::HttpServerOptions so;
    so.bearer_token = kToken;
    ASSERT_TRUE(server.Start(so).ok());
  }

  void SetUp() override {
    slack_ = testing::StartReceiver(sim::Platform::kSlack);
    ASSERT_NE(slack_, nullptr);
    dir_.Write("dataworkers.yaml", std::string(R"(version: 1
name: identity-test
warehouses:
  main: {type: sqlite, path: warehouse.db}
domains:
  loyalty: {autonomy: L2, owners: [ana@example.com], approvers: [ana@example.com, bo@example.com], approval_ttl: 2h}
assets:
  - id: table://main/member_balances
    domain: loyalty
    owner: ana@example.com
desk:
  url: https://dw.example.com/
  trusted_proxies: [127.0.0.2/32, "10.0.0.0/8"]
notify:
  slack: {webhook: ")") + slack_->url() + "/services/T0/B0/loyalty\"}\n");
    services_ = workspace::Services::Load(dir_.path(), clock_);
    ASSERT_TRUE(services_->workspace_status().ok()) << services_->workspace_status().message();
    auto store = services_->state();
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = *store;
    incidents::Signal s;
    s.kind = incidents::SignalKind::kCheck;
    s.key = "check:table://main/member_balances:range(balance)";
    s.asset_id = "table://main/member_balances";
    s.at = clock_.Now();
    s.shape = incidents::SignalShape::kLevelDrop;
    s.value = 6100;
    s.summary = "range(balance) failed: 6100 rows below 0";
    auto desk = workspace::OpenIncidentDesk(*services_);
    ASSERT_TRUE(desk.ok()) << desk.status().ToString();
    auto report = (*desk)->Evaluate({{s}, {}, {}});
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    ASSERT_EQ(report->opened.size(), 1u);
    incident_ = report->opened.front();
    DeskOptions o;
    o.link_key = kLinkKey;
    ASSERT_TRUE(AddDeskRoutes(server_, services_, o).ok());
    ASSERT_TRUE(server_.Start({}).ok());
  }

  // A hold proposal for the incident, sent to the approvers (the notice goes to the outbox).
  void Pending(const std::string& id, const std::string& author = "agent:dw-incidents") {
    actions::ProposalDraft d{id, incident_, "loyalty", "hold", author, {{"summary", "hold the 22:00 sync"}}};
    ASSERT_TRUE(actions::StoreProposal(*store_, d, clock_).ok());
    auto sent = actions::SendForApproval(*store_, services_->workspace(), id, clock_, author);
    ASSERT_TRUE(sent.ok()) << sent.status().ToString();
  }

  // Delivers the outbox as `dw watch` does (the links signed with the key now).
  void Deliver(const std::string& key = kLinkKey) {
    platforms::notify::DeliveryOptions o;
    o.request_timeout = std::chrono::milliseconds(3000);
    o.approval_link = actions::ApprovalLinkSignerFor(key);
    auto r = platforms::notify::DeliverDue(services_->workspace(), *store_, *http_, *mail_, clock_, o);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->failed, 0) << (r->errors.empty() ? "" : r->errors[0]);
  }

  // The Slack post of the approval request, as the receiver recorded it.
  std::string ApprovalPost() {
    const Json state = testing::State(*slack_);  // kept: the loop reads into it
    for (const Json& p : state["posts"])
      if (p.dump().find("Approval requested") != std::string::npos) return p.dump();
    return "";
  }

  // The link the Slack post carries for `who`: "<URL|Approve or deny as who ...>".
  std::string LinkIn(const std::string& post, const std::string& who) {
    const std::string end = "|Approve or deny as " + who;
    auto at = post.find(end);
    if (at == std::string::npos) return "";
    auto start = post.rfind('<', at);
    return post.substr(start + 1, at - start - 1);
  }

  // Opens `path` from `from` and returns its form's CSRF token (the cookie in *jar).
  std::string OpenForm(const std::string& from, const std::string& path, std::string* jar,
                       const std::vector<std::string>& headers = {}) {
    RawAnswer a = RawHttp(from, server_.port(), "GET", path, headers);
    EXPECT_EQ(a.status, 200) << a.body;
    *jar = Between(a.Header("Set-Cookie"), "", ';');
    return Between(a.body, "name=\"csrf\" value=\"", '"');
  }

  testing::TempDir dir_;
  SimulatedClock clock_;
  std::unique_ptr<sim::RunningSim> slack_;
  // What the desk checks decisions with: the workspace's declared keys and the link key.
  actions::DecisionTrust Trust() const { return actions::TrustOf(services_->workspace(), kLinkKey); }
  std::shared_ptr<workspace::Services> services_;
  store::StateStore* store_ = nullptr;
  std::string incident_;
  net::HttpServer server_;
  std::unique_ptr<net::HttpClient> http_ = net::MakeCurlHttpClient();
  std::unique_ptr<net::MailClient> mail_ = net::MakeCurlMailClient();
};

TEST_F(DeskIdentityTest, TheApprovalRequestCarriesEachApproversLinkAndTheLinkApprovesOnce) {
  Pending("P-hold");
  // The outbox keeps the links' fields, never a link: nothing there decides anything.
  auto rows = store_->OutboxFor(incident_);
  ASSERT_TRUE(rows.ok());
  bool request_row = false;
  for (const auto& m : *rows) {
    EXPECT_EQ(m.payload.dump().find("/approve/"), std::string::npos) << m.payload.dump();
    EXPECT_EQ(m.payload.dump().find("v1."), std::string::npos) << m.payload.dump();
    if (m.event == "approval_requested:P-hold.v1") {
      request_row = true;
      ASSERT_EQ(m.payload["notice"]["approval_links"].size(), 2u);
      EXPECT_EQ(m.payload["notice"]["approval_links"][0]["approver"], "ana@example.com");
    }
  }
  EXPECT_TRUE(request_row);
  Deliver();
  const std::string post = ApprovalPost();
  const std::string ana = LinkIn(post, "ana@example.com"), bo = LinkIn(post, "bo@example.com");
  ASSERT_EQ(ana.rfind("https://dw.example.com/approve/v1.", 0), 0u) << post;
  ASSERT_EQ(bo.rfind("https://dw.example.com/approve/v1.", 0), 0u) << post;
  EXPECT_NE(ana, bo);
  // The link is bound to its approver, the proposal version and the request's expiry.
  const std::string token = ana.substr(std::string("https://dw.example.com/approve/").size());
  auto link = actions::ReadApprovalLink(token, kLinkKey);
  ASSERT_TRUE(link.ok()) << link.status().ToString();
  EXPECT_EQ(link->approver, "ana@example.com");
  EXPECT_EQ(link->proposal_id, "P-hold");
  EXPECT_EQ(link->version, 1);
  EXPECT_EQ(FormatRfc3339(link->expires_at), "2026-11-24T17:20:00.000Z");
  // Following it: the page names ana and offers the form; posting it approves as ana.
  std::string jar;
  const std::string csrf = OpenForm(kElsewhere, "/approve/" + token, &jar);
  ASSERT_EQ(csrf.size(), 113u);  // nonce, '.', HMAC (desk/csrf_token.h)
  // Nothing is chosen for the person: the page pre-selects neither, and a form without a verdict
  // decides nothing (the proposal stays pending).
  {
    RawAnswer page = RawHttp(kElsewhere, server_.port(), "GET", "/approve/" + token);
    EXPECT_EQ(page.body.find("checked"), std::string::npos) << page.body;
    EXPECT_NE(page.body.find("value=\"approve\" required"), std::string::npos) << page.body;
    RawAnswer none = RawHttp(kElsewhere, server_.port(), "POST", "/approve/" + token, {"Cookie: " + jar},
                             "reason=hold+it&csrf=" + csrf);
    EXPECT_EQ(none.status, 400) << none.body;
    EXPECT_NE(none.body.find("nothing is decided by default"), std::string::npos) << none.body;
    EXPECT_EQ(actions::GetProposalState(*store_, Trust(), "P-hold", 0, clock_)->status, actions::ProposalStatus::kPending);
  }
  RawAnswer r = RawHttp(kElsewhere, server_.port(), "POST", "/approve/" + token, {"Cookie: " + jar},
                        "verdict=approve&reason=hold+it&csrf=" + csrf);
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_NE(r.body.find("approved P-hold v1 by ana@example.com"), std::string::npos) << r.body;
  auto st = actions::GetProposalState(*store_, Trust(), "P-hold", 0, clock_);
  EXPECT_EQ(st->status, actions::ProposalStatus::kApproved);
  EXPECT_EQ(st->decided_by, "ana@example.com");
  EXPECT_EQ(st->decision_surface, "web");
  // Twice: refused, recorded.
  r = RawHttp(kElsewhere, server_.port(), "POST", "/approve/" + token, {"Cookie: " + jar},
              "verdict=approve&csrf=" + csrf);
  EXPECT_EQ(r.status, 403);
  EXPECT_NE(r.body.find("already used"), std::string::npos) << r.body;
  // The approval through the link is told like any other (the approved notice is in the outbox).
  rows = store_->OutboxFor(incident_);
  bool approved = false;
  for (const auto& m : *rows) approved = approved || m.event == "approved:P-hold.v1";
  EXPECT_TRUE(approved);
}

TEST_F(DeskIdentityTest, WithoutADeskUrlOrAKeyTheMessageSaysHowToDecideFromTheCli) {
  // No key where the sender runs: the links are not made, the message says so and gives the CLI.
  Pending("P-hold");
  Deliver(/*key=*/"");
  const std::string post = ApprovalPost();
  EXPECT_EQ(post.find("/approve/"), std::string::npos) << post;
  EXPECT_NE(post.find("dw approve P-hold --version 1"), std::string::npos) << post;
  EXPECT_NE(post.find("No approval link: the sender has no DW_APPROVAL_LINK_KEY"), std::string::npos) << post;
  // The row alone is enough to send the links: written with no key anywhere, delivered by another
  // sender (as after a crash) that holds the key.
  Pending("P-run");
  Deliver();
  Json posts = testing::State(*slack_)["posts"];
  EXPECT_NE(posts.back().dump().find("https://dw.example.com/approve/v1."), std::string::npos) << posts.back().dump();
}

TEST_F(DeskIdentityTest, ALinkUsedByAnotherPersonBehindTheTrustedProxyIsRefused) {
  Pending("P-hold");
  Deliver();
  const std::string bo = LinkIn(ApprovalPost(), "bo@example.com");
  const std::string token = bo.substr(bo.find("/approve/") + 9);
  std::string jar;
  const std::string csrf = OpenForm(kProxy, "/approve/" + token, &jar, {"X-Forwarded-Email: ana@example.com"});
  RawAnswer r = RawHttp(kProxy, server_.port(), "POST", "/approve/" + token,
                        {"Cookie: " + jar, "X-Forwarded-Email: ana@example.com"}, "verdict=approve&csrf=" + csrf);
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_NE(r.body.find("this approval link is for bo@example.com, but the sign-in proxy names ana@example.com"),
            std::string::npos) << r.body;
  EXPECT_EQ(actions::GetProposalState(*store_, Trust(), "P-hold", 0, clock_)->status, actions::ProposalStatus::kPending);
  // From a peer that is not a trusted proxy the header is ignored (and the page says so): the
  // link alone decides, for its own approver.
  RawAnswer page = RawHttp(kElsewhere, server_.port(), "GET", "/approve/" + token, {"X-Forwarded-Email: ana@example.com"});
  EXPECT_NE(page.body.find("X-Forwarded-Email is ignored: this request came from 127.0.0.1, which is not one of "
                           "desk.trusted_proxies"),
            std::string::npos) << page.body;
  const std::string csrf2 = OpenForm(kElsewhere, "/approve/" + token, &jar);
  r = RawHttp(kElsewhere, server_.port(), "POST", "/approve/" + token,
              {"Cookie: " + jar, "X-Forwarded-Email: ana@example.com"}, "verdict=approve&csrf=" + csrf2);
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_NE(r.body.find("approved P-hold v1 by bo@example.com"), std::string::npos) << r.body;
}

TEST_F(DeskIdentityTest, TheProxysPersonDecidesOnlyFromATrustedAddressAndUnderEveryRule) {
  Pending("P-hold");
  const std::vector<std::string> as_bo = {"X-Forwarded-Email: bo@example.com"};
  // From elsewhere: the header is ignored, the page says why and offers no form; a post is refused.
  RawAnswer page = RawHttp(kElsewhere, server_.port(), "GET", "/decide/P-hold", as_bo);
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.body.find("name=\"csrf\""), std::string::npos);
  EXPECT_NE(page.body.find("which is not one of desk.trusted_proxies"), std::string::npos) << page.body;
  std::string jar;
  const std::string csrf = OpenForm(kProxy, "/decide/P-hold", &jar, as_bo);
  ASSERT_EQ(csrf.size(), 113u);  // nonce, '.', HMAC (desk/csrf_token.h)
  RawAnswer r = RawHttp(kElsewhere, server_.port(), "POST", "/decide/P-hold", {"Cookie: " + jar, as_bo[0]},
                        "verdict=approve&version=1&csrf=" + csrf);
  EXPECT_EQ(r.status, 403);
  EXPECT_NE(r.body.find("not one of desk.trusted_proxies"), std::string::npos) << r.body;
  // Without the CSRF token: refused even from the proxy.
  r = RawHttp(kProxy, server_.port(), "POST", "/decide/P-hold", as_bo, "verdict=approve&version=1");
  EXPECT_EQ(r.status, 403);
  // bo's form token is bound to bo: posted for anyone else (a cookie planted in eve's browser
  // with a token bo was given), it is refused before anything else is looked at.
  r = RawHttp(kProxy, server_.port(), "POST", "/decide/P-hold", {"Cookie: " + jar, "X-Forwarded-Email: eve@example.com"},
              "verdict=approve&version=1&csrf=" + csrf);
  EXPECT_EQ(r.status, 403);
  EXPECT_NE(r.body.find("CSRF token is missing or wrong"), std::string::npos) << r.body;
  // Someone the request does not name, with a form of their own, and an agent: refused by the
  // actions stage (an agent is never shown a form; with bo's token it is refused all the same).
  std::string eve_jar;
  const std::string eve_csrf = OpenForm(kProxy, "/decide/P-hold", &eve_jar, {"X-Forwarded-Email: eve@example.com"});
  ASSERT_EQ(eve_csrf.size(), 113u);
  r = RawHttp(kProxy, server_.port(), "POST", "/decide/P-hold", {"Cookie: " + eve_jar, "X-Forwarded-Email: eve@example.com"},
              "verdict=approve&version=1&csrf=" + eve_csrf);
  EXPECT_EQ(r.status, 403);
  EXPECT_NE(r.body.find("eve@example.com is not an approver of P-hold v1"), std::string::npos) << r.body;
  RawAnswer agent_page = RawHttp(kProxy, server_.port(), "GET", "/decide/P-hold", {"X-Forwarded-Email: agent:dw-incidents"});
  EXPECT_EQ(agent_page.body.find("name=\"csrf\""), std::string::npos);
  EXPECT_NE(agent_page.body.find("is an agent; agents never decide"), std::string::npos) << agent_page.body;
  r = RawHttp(kProxy, server_.port(), "POST", "/decide/P-hold", {"Cookie: " + jar, "X-Forwarded-Email: agent:dw-incidents"},
              "verdict=approve&version=1&csrf=" + csrf);
  EXPECT_EQ(r.status, 403);
  // ana opens her form while it is pending, to decide after bo has.
  std::string ana_jar;
  const std::string ana_csrf = OpenForm(kProxy, "/decide/P-hold", &ana_jar, {"X-Forwarded-Email: ana@example.com"});
  // Two headers: ignored.
  r = RawHttp(kProxy, server_.port(), "POST", "/decide/P-hold",
              {"Cookie: " + jar, as_bo[0], "X-Forwarded-Email: ana@example.com"}, "verdict=approve&version=1&csrf=" + csrf);
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(actions::GetProposalState(*store_, Trust(), "P-hold", 0, clock_)->status, actions::ProposalStatus::kPending);
  // The named approver through the proxy: recorded as bo, surface web.
  r = RawHttp(kProxy, server_.port(), "POST", "/decide/P-hold", {"Cookie: " + jar, as_bo[0]},
              "verdict=approve&version=1&reason=through+sso&csrf=" + csrf);
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_NE(r.body.find("approved P-hold v1 by bo@example.com"), std::string::npos) << r.body;
  auto st = actions::GetProposalState(*store_, Trust(), "P-hold", 0, clock_);
  EXPECT_EQ(st->status, actions::ProposalStatus::kApproved);
  EXPECT_EQ(st->decided_by, "bo@example.com");
  EXPECT_EQ(st->decision_surface, "web");
  // Once only.
  r = RawHttp(kProxy, server_.port(), "POST", "/decide/P-hold", {"Cookie: " + ana_jar, "X-Forwarded-Email: ana@example.com"},
              "verdict=deny&reason=no&version=1&csrf=" + ana_csrf);
  EXPECT_EQ(r.status, 403);
  EXPECT_NE(r.body.find("already approved by bo@example.com"), std::string::npos) << r.body;
}

TEST_F(DeskIdentityTest, TheAuthorAndAnExpiredRequestAreRefusedThroughTheProxyToo) {
  Pending("P-own", "ana@example.com");
  std::string jar;
  const std::vector<std::string> as_ana = {"X-Forwarded-Email: ana@example.com"};
  const std::string csrf = OpenForm(kProxy, "/decide/P-own", &jar, as_ana);
  RawAnswer r = RawHttp(kProxy, server_.port(), "POST", "/decide/P-own", {"Cookie: " + jar, as_ana[0]},
                        "verdict=approve&version=1&csrf=" + csrf);
  EXPECT_EQ(r.status, 403);
  EXPECT_NE(r.body.find("ana@example.com wrote P-own v1 and cannot decide it"), std::string::npos) << r.body;
  std::string bo_jar;
  const std::string bo_csrf = OpenForm(kProxy, "/decide/P-own", &bo_jar, {"X-Forwarded-Email: bo@example.com"});
  clock_.Advance(std::chrono::hours(3));
  r = RawHttp(kProxy, server_.port(), "POST", "/decide/P-own", {"Cookie: " + bo_jar, "X-Forwarded-Email: bo@example.com"},
              "verdict=approve&version=1&csrf=" + bo_csrf);
  EXPECT_EQ(r.status, 403);
  EXPECT_NE(r.body.find("expired"), std::string::npos) << r.body;
  EXPECT_EQ(RawHttp(kProxy, server_.port(), "GET", "/decide/P-nope", as_ana).status, 404);
}

// Guessing the token at /session: five wrong tokens from one address within five minutes, and
// that address is refused (429, the right token included) until the oldest leaves the window;
// another address is not. Nothing of what was sent is printed.
TEST_F(DeskIdentityTest, SignInAttemptsFromOneAddressAreLimited) {
  net::HttpServer guarded;
  AddGuardedDesk(guarded, false);
  StartGuarded(guarded);
  const int port = guarded.port();
  for (int i = 0; i < ReaderSessions::kMaxFailedSignIns; ++i) {
    RawAnswer r = RawHttp(kElsewhere, port, "POST", "/session", {}, "token=guess-" + std::to_string(i));
    EXPECT_EQ(r.status, 403) << i;
    EXPECT_EQ(r.body.find("guess-"), std::string::npos);
  }
  RawAnswer limited = RawHttp(kElsewhere, port, "POST", "/session", {}, std::string("token=") + kToken);
  EXPECT_EQ(limited.status, 429) << limited.body;
  EXPECT_EQ(limited.Header("Set-Cookie"), "");
  EXPECT_NE(limited.body.find("try again in 300 s"), std::string::npos) << limited.body;
  // Another address signs in.
  RawAnswer other = RawHttp("127.0.0.3", port, "POST", "/session", {}, std::string("token=") + kToken);
  EXPECT_EQ(other.status, 200) << other.body;
  // Five minutes after the first guess, the address may try again.
  clock_.Advance(ReaderSessions::kFailedSignInWindow);
  RawAnswer later = RawHttp(kElsewhere, port, "POST", "/session", {}, std::string("token=") + kToken);
  EXPECT_EQ(later.status, 200) << later.body;
}

// Reading where the server requires its bearer token (as off loopback): a browser signs in once
// at /session with the token, or comes through the trusted proxy, and reads with a session cookie;
// a signed link opens its own page; nothing else gets through, and /mcp-like paths never do.
TEST_F(DeskIdentityTest, OffLoopbackAPageReadsWithTheTokenASessionTheTrustedProxyOrItsLink) {
  net::HttpServer guarded;
  AddGuardedDesk(guarded, true);  // Secure cookies, as dw serve sets them off loopback
  ASSERT_TRUE(guarded.AddHandler("GET", "/mcp", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("mcp", "text/plain");
  }).ok());
  StartGuarded(guarded);
  const int port = guarded.port();
  EXPECT_EQ(RawHttp(kElsewhere, port, "GET", "/").status, 401);
  EXPECT_EQ(RawHttp(kElsewhere, port, "GET", "/", {std::string("Authorization: Bearer ") + kToken}).status, 200);
  // Sign in: a wrong token is refused, the right one gives a reading session.
  EXPECT_EQ(RawHttp(kElsewhere, port, "GET", "/session").status, 200);
  RawAnswer r = RawHttp(kElsewhere, port, "POST", "/session", {}, "token=guess");
  EXPECT_EQ(r.status, 403);
  EXPECT_EQ(r.Header("Set-Cookie"), "");
  r = RawHttp(kElsewhere, port, "POST", "/session", {}, std::string("token=") + kToken);
  ASSERT_EQ(r.status, 200) << r.body;
  const std::string cookie = r.Header("Set-Cookie");
  EXPECT_EQ(cookie.rfind("dw_session=", 0), 0u) << cookie;
  EXPECT_NE(cookie.find("HttpOnly"), std::string::npos);
  EXPECT_NE(cookie.find("SameSite=Strict"), std::string::npos);
  EXPECT_NE(cookie.find("Secure"), std::string::npos);
  const std::string jar = Between(cookie, "", ';');
  EXPECT_EQ(RawHttp(kElsewhere, port, "GET", "/incidents/" + incident_, {"Cookie: " + jar}).status, 200);
  EXPECT_EQ(RawHttp(kElsewhere, port, "GET", "/mcp", {"Cookie: " + jar}).status, 401) << "a session reads the desk only";
  EXPECT_EQ(RawHttp(kElsewhere, port, "GET", "/", {"Cookie: dw_session=" + std::string(48, 'a')}).status, 401);
  // A signed link opens its own page without the token; an altered one does not.
  Pending("P-hold");
  auto token = actions::IssueApprovalLink(*store_, Trust(), "P-hold", "ana@example.com", kLinkKey, clock_);
  ASSERT_TRUE(token.ok()) << token.status().ToString();
  EXPECT_EQ(RawHttp(kElsewhere, port, "GET", "/approve/" + *token).status, 200);
  std::string forged = *token;
  char& c = forged[forged.size() - 5];  // inside the MAC (the last character carries padding bits)
  c = c == 'A' ? 'B' : 'A';
  EXPECT_EQ(RawHttp(kElsewhere, port, "GET", "/approve/" + forged).status, 401);
  // A session expires.
  clock_.Advance(std::chrono::hours(13));
  EXPECT_EQ(RawHttp(kElsewhere, port, "GET", "/", {"Cookie: " + jar}).status, 401);
  // The trusted proxy's person reads (and may sign in); the same header from elsewhere does not.
  const std::string as_ana = "X-Forwarded-Email: ana@example.com";
  EXPECT_EQ(RawHttp(kProxy, port, "GET", "/", {as_ana}).status, 200);
  EXPECT_EQ(RawHttp(kElsewhere, port, "GET", "/", {as_ana}).status, 401);
  EXPECT_EQ(RawHttp(kProxy, port, "GET", "/mcp", {as_ana}).status, 401);
  r = RawHttp(kProxy, port, "POST", "/session", {as_ana}, "");
  EXPECT_EQ(r.status, 200) << r.body;
  guarded.Stop();
}

}  // namespace
}  // namespace dw::desk
