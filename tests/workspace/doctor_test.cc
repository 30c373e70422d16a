// `dw doctor` (workspace/doctor.h): each area finds what is wrong, says what to do, and keeps
// checking the rest; a healthy workspace has no problem.
#include "workspace/doctor.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include <filesystem>
#include <regex>

#include "actions/actions.h"
#include "store/state_store.h"
#include "tests/store/store_test_support.h"
#include "tests/support/loopback_http_server.h"
#include "tests/support/subprocess.h"
#include "workspace/doctor_checks.h"

namespace dw::workspace {
namespace {
namespace doctor_test {

using testing::TempDir;
using Verdict = DoctorFinding::Verdict;

void Sql(const std::filesystem::path& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
}

// The findings of `area` about `subject` (all subjects when empty).
std::vector<DoctorFinding> Of(const DoctorReport& r, const std::string& area, const std::string& subject = "") {
  std::vector<DoctorFinding> out;
  for (const DoctorFinding& f : r.findings)
    if (f.area == area && (subject.empty() || f.subject == subject)) out.push_back(f);
  return out;
}

std::string Dump(const DoctorReport& r) { return DoctorJson(r).dump(2); }

// A workspace on a SQLite warehouse holding `orders`, with `extra` YAML appended.
std::shared_ptr<Services> Workspace(const TempDir& tmp, const std::string& extra) {
  tmp.Write("dataworkers.yaml",
            "version: 1\n"
            "name: doctor-test\n"
            "warehouses:\n"
            "  main: {type: sqlite, path: warehouse.db}\n" +
                extra);
  Sql(tmp.path() / "warehouse.db", "CREATE TABLE IF NOT EXISTS orders(id INTEGER, amount INTEGER)");
  return Services::Load(tmp.path(), RealClock());
}

// Generates a key for `email` in the workspace's store and returns its fingerprint.
std::string IssueKey(Services& services, const std::string& email) {
  auto store = services.state();
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  if (!store.ok()) return "";
  auto key = actions::IssuePersonKey(**store, email, services.clock(), "test");
  EXPECT_TRUE(key.ok()) << key.status().ToString();
  return key.ok() ? actions::KeyFingerprint(key->public_key_pem) : "";
}

TEST(DoctorTest, AHealthyWorkspaceHasNoProblemAndSaysWhatItChecked) {
  TempDir tmp;
  const std::string domain =
      "domains:\n  shop: {autonomy: L2, owners: [ana@example.com], approvers: [ana@example.com]}\n"
      "checks:\n  - table: main.orders\n    not_null: [id]\n";
  std::string fp = IssueKey(*Workspace(tmp, domain), "ana@example.com");
  auto services = Workspace(tmp, domain + "people:\n  ana@example.com:\n    keys: [\"" + fp + "\"]\n");
  DoctorReport r = RunDoctor(*services);
  EXPECT_EQ(r.ExitCode(), 0) << Dump(r);
  ASSERT_EQ(Of(r, "warehouse", "main.orders").size(), 1u) << Dump(r);
  EXPECT_EQ(Of(r, "warehouse", "main.orders")[0].verdict, Verdict::kOk);
  ASSERT_EQ(Of(r, "approvals", "ana@example.com").size(), 1u) << Dump(r);
  EXPECT_NE(Of(r, "approvals", "ana@example.com")[0].detail.find("signed statement"), std::string::npos);
  EXPECT_EQ(Of(r, "clock").at(0).verdict, Verdict::kOk);
  EXPECT_EQ(DoctorJson(r)["problems"], 0);
}

TEST(DoctorTest, AWorkspaceThatDoesNotParseIsReportedErrorByErrorAndNothingElseIsGuessed) {
  TempDir tmp;
  tmp.Write("dataworkers.yaml", "version: 1\nname: broken\nwarehouses:\n  main: {type: nosuchengine, path: w.db}\n"
                                "checks:\n  - table: main.orders\n    not_nul: [id]\n");
  auto services = Services::Load(tmp.path(), RealClock());
  DoctorReport r = RunDoctor(*services);
  EXPECT_EQ(r.ExitCode(), 1);
  std::vector<DoctorFinding> ws = Of(r, "workspace");
  int problems = 0;
  for (const auto& f : ws) {
    if (f.verdict != Verdict::kProblem) continue;
    ++problems;
    EXPECT_TRUE(std::regex_search(f.detail, std::regex(":[0-9]+:"))) << f.detail;  // file:line
    EXPECT_NE(f.fix.find("line"), std::string::npos) << f.fix;
  }
  EXPECT_GE(problems, 2) << Dump(r);
  EXPECT_TRUE(Of(r, "warehouse").empty());
  EXPECT_EQ(ws.back().verdict, Verdict::kNotChecked);
}

TEST(DoctorTest, ACheckedTableThatIsMissingIsNamedAndTheOthersAreStillChecked) {
  TempDir tmp;
  auto services = Workspace(tmp,
                            "checks:\n  - table: main.orders\n    not_null: [id]\n"
                            "  - table: main.refunds\n    not_null: [id]\n");
  DoctorReport r = RunDoctor(*services);
  EXPECT_EQ(r.ExitCode(), 1);
  ASSERT_EQ(Of(r, "warehouse", "main.refunds").size(), 1u) << Dump(r);
  EXPECT_EQ(Of(r, "warehouse", "main.refunds")[0].verdict, Verdict::kProblem);
  EXPECT_NE(Of(r, "warehouse", "main.refunds")[0].fix.find("table:"), std::string::npos);
  EXPECT_EQ(Of(r, "warehouse", "main.orders").at(0).verdict, Verdict::kOk);
}

TEST(DoctorTest, AnUnreachableWarehouseAndAStoreThatCannotOpenAreBothReported) {
  TempDir tmp;
  tmp.Write("blocker", "a file where the store's folder should be\n");
  tmp.Write("dataworkers.yaml",
            "version: 1\nname: t\nstate: blocker/state.db\n"
            "warehouses:\n  gone: {type: sqlite, path: no-such.db}\n");
  auto services = Services::Load(tmp.path(), RealClock());
  ASSERT_TRUE(services->workspace_status().ok()) << services->workspace_status().ToString();
  DoctorReport r = RunDoctor(*services);
  EXPECT_EQ(r.ExitCode(), 1);
  EXPECT_EQ(Of(r, "warehouse", "gone").at(0).verdict, Verdict::kProblem) << Dump(r);
  EXPECT_EQ(Of(r, "state").at(0).verdict, Verdict::kProblem) << Dump(r);
  EXPECT_NE(Of(r, "state").at(0).detail.find("does not open"), std::string::npos);
}

TEST(DoctorTest, AStoreOthersCanReadIsAProblemWithTheChmodThatFixesIt) {
  TempDir tmp;
  auto services = Workspace(tmp, "");
  ASSERT_TRUE(services->state().ok());
  const std::string path = services->workspace().state;
  std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write |
                                         std::filesystem::perms::group_read | std::filesystem::perms::others_read);
  DoctorReport r = RunDoctor(*services);
  bool found = false;
  for (const auto& f : Of(r, "state", path))
    if (f.verdict == Verdict::kProblem) {
      found = true;
      EXPECT_NE(f.detail.find("0644"), std::string::npos) << f.detail;
      EXPECT_EQ(f.fix, "chmod 600 " + path);
    }
  EXPECT_TRUE(found) << Dump(r);
  std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  EXPECT_EQ(RunDoctor(*services).ExitCode(), 0);
}

TEST(DoctorTest, TheClockIsAProblemOnlyBeyondTheAllowedSkewEitherWay) {
  const TimePoint now = FromUnixMillis(1'800'000'000'000);
  using std::chrono::seconds;
  EXPECT_EQ(doctor::ClockFinding(now + seconds(12), now, seconds(30)).verdict, Verdict::kOk);
  EXPECT_EQ(doctor::ClockFinding(now - seconds(29), now, seconds(30)).verdict, Verdict::kOk);
  DoctorFinding ahead = doctor::ClockFinding(now + seconds(31), now, seconds(30));
  EXPECT_EQ(ahead.verdict, Verdict::kProblem);
  EXPECT_NE(ahead.detail.find("31000 ms ahead"), std::string::npos) << ahead.detail;
  DoctorFinding behind = doctor::ClockFinding(now - seconds(300), now, seconds(30));
  EXPECT_EQ(behind.verdict, Verdict::kProblem);
  EXPECT_NE(behind.detail.find("behind"), std::string::npos) << behind.detail;
  EXPECT_EQ(doctor::ClockFinding(std::nullopt, now, seconds(30)).verdict, Verdict::kOk);
}

// Approvers: each must be able to decide, by a declared key the store holds or by signed links.
TEST(DoctorTest, EachApproverWhoCannotDecideIsNamedWithWhy) {
  TempDir tmp;
  const std::string domain =
      "domains:\n  shop: {autonomy: L2, owners: [ana@example.com], approvers: [ana@example.com, bo@example.com],"
      " escalate_to: [cy@example.com]}\n";
  auto first = Workspace(tmp, domain);
  std::string ana = IssueKey(*first, "ana@example.com");
  std::string stale = IssueKey(*first, "cy@example.com");
  IssueKey(*first, "cy@example.com");  // reissued: the declared one is no longer the stored one
  first.reset();
  auto services = Workspace(tmp, domain + "people:\n  ana@example.com: {keys: [\"" + ana +
                                     "\"]}\n  bo@example.com: {keys: [\"sha256:" + std::string(64, 'a') +
                                     "\"]}\n  cy@example.com: {keys: [\"" + stale + "\"]}\n");
  DoctorReport r = RunDoctor(*services);
  EXPECT_EQ(Of(r, "approvals", "ana@example.com").at(0).verdict, Verdict::kOk) << Dump(r);
  DoctorFinding bo = Of(r, "approvals", "bo@example.com").at(0);
  EXPECT_EQ(bo.verdict, Verdict::kProblem);
  EXPECT_NE(bo.detail.find("holds none"), std::string::npos) << bo.detail;
  EXPECT_NE(bo.fix.find("dw keys issue bo@example.com"), std::string::npos) << bo.fix;
  DoctorFinding cy = Of(r, "approvals", "cy@example.com").at(0);
  EXPECT_EQ(cy.verdict, Verdict::kProblem);
  EXPECT_NE(cy.detail.find("escalation of domain shop"), std::string::npos) << cy.detail;
  EXPECT_NE(cy.detail.find("not one"), std::string::npos) << cy.detail;
}

TEST(DoctorTest, WithoutKeysPeopleDecideOnlyThroughAStrongLinkKeyAndADesk) {
  const std::string strong = "9f2c4e7a1b3d5f608192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8";
  config::Workspace ws;
  ws.domains["shop"].approvers = {"ana@example.com"};
  // No desk, no key: ana cannot decide.
  auto none = doctor::CheckApprovals(ws, nullptr, "");
  ASSERT_EQ(none.size(), 2u);
  EXPECT_EQ(none[0].verdict, Verdict::kNotChecked);
  EXPECT_EQ(none[1].verdict, Verdict::kProblem);
  // A desk but no key: the key is the problem, and ana still cannot decide.
  ws.desk.url = "https://dw.example.com";
  auto no_key = doctor::CheckApprovals(ws, nullptr, "");
  EXPECT_EQ(no_key[0].verdict, Verdict::kProblem);
  EXPECT_EQ(no_key[1].verdict, Verdict::kProblem);
  // A guessable key is refused, and never printed.
  const std::string weak(40, 'x');
  auto weak_key = doctor::CheckApprovals(ws, nullptr, weak);
  EXPECT_EQ(weak_key[0].verdict, Verdict::kProblem);
  EXPECT_NE(weak_key[0].fix.find("openssl rand"), std::string::npos);
  for (const auto& f : weak_key) EXPECT_EQ((f.detail + f.fix).find(weak), std::string::npos);
  // A strong key and a desk: ana decides through signed links.
  auto links = doctor::CheckApprovals(ws, nullptr, strong);
  EXPECT_EQ(links[0].verdict, Verdict::kOk);
  EXPECT_EQ(links[1].verdict, Verdict::kOk);
  EXPECT_NE(links[1].detail.find("signed approval links"), std::string::npos);
  for (const auto& f : links) EXPECT_EQ((f.detail + f.fix).find(strong.substr(0, 12)), std::string::npos);
}

// A platform whose token is refused, one that is down, and one that answers: each its own finding.
TEST(DoctorTest, ARefusedTokenAndADownPlatformAreToldApartAndTheHealthyOneStillPasses) {
  testing::LoopbackHttpServer flink;
  flink.server().Get("/overview", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(R"({"taskmanagers":1})", "application/json");
  });
  flink.server().Get("/api/v1/main/flows/search", [](const httplib::Request& req, httplib::Response& res) {
    res.status = req.get_header_value("Authorization") == "Bearer good-token" ? 200 : 401;
    res.set_content(R"({"results":[],"total":0})", "application/json");
  });
  flink.Start();
  TempDir tmp;
  auto services = Workspace(tmp, "platforms:\n"
                                 "  flink: {type: flink, url: \"" + flink.url() + "\"}\n"
                                 "  kestra: {type: kestra, url: \"" + flink.url() + "\", token: expired-token}\n"
                                 "  connect: {type: kafka-connect, url: \"http://127.0.0.1:9\"}\n");
  DoctorOptions options;
  options.timeout = std::chrono::milliseconds(3000);
  DoctorReport r = RunDoctor(*services, options);
  EXPECT_EQ(Of(r, "platform", "flink").at(0).verdict, Verdict::kOk) << Dump(r);
  DoctorFinding kestra = Of(r, "platform", "kestra").at(0);
  EXPECT_EQ(kestra.verdict, Verdict::kProblem);
  EXPECT_NE(kestra.detail.find("401"), std::string::npos) << kestra.detail;
  EXPECT_NE(kestra.fix.find("credentials of platforms.kestra"), std::string::npos) << kestra.fix;
  EXPECT_EQ(Dump(r).find("expired-token"), std::string::npos);
  DoctorFinding connect = Of(r, "platform", "connect").at(0);
  EXPECT_EQ(connect.verdict, Verdict::kProblem);
  EXPECT_NE(connect.detail.find("no answer"), std::string::npos) << connect.detail;
}

// A desk that accepts connections and never answers costs one bounded wait, said so, and the
// rest of the report is still produced.
TEST(DoctorTest, ADeskThatNeverAnswersIsABoundedWait) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(fd, 8), 0);  // accepted by the kernel, never read: a server that hangs
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  TempDir tmp;
  auto services = Workspace(tmp, "desk:\n  url: http://127.0.0.1:" + std::to_string(ntohs(addr.sin_port)) + "\n");
  DoctorOptions options;
  options.timeout = std::chrono::milliseconds(1500);
  auto start = std::chrono::steady_clock::now();
  DoctorReport r = RunDoctor(*services, options);
  auto took = std::chrono::steady_clock::now() - start;
  ::close(fd);
  EXPECT_LT(took, std::chrono::seconds(8));
  DoctorFinding desk = Of(r, "desk").at(0);
  EXPECT_EQ(desk.verdict, Verdict::kProblem) << Dump(r);
  EXPECT_NE(desk.detail.find("no answer"), std::string::npos) << desk.detail;
  EXPECT_EQ(Of(r, "warehouse", "main").at(0).verdict, Verdict::kOk);
}

// PostgreSQL: a warehouse user without the grant is told which grant; a read-only store is found
// by its write probe; the store's clock is compared.
TEST(DoctorPostgresTest, AMissingGrantIsNamedAndAReadOnlyStoreIsFound) {
  const std::string base = store::test_support::PostgresTestUrl();
  if (base.empty()) GTEST_SKIP() << store::test_support::kPgSkipMessage;
  auto scratch = store::test_support::ScratchLocation::Create("postgresql");
  ASSERT_TRUE(scratch.ok()) << scratch.status().ToString();
  const std::string suffix = store::test_support::UniqueSuffix();
  const std::string role = "dw_doctor_" + suffix, schema = "doctor_" + suffix;
  auto admin = store::OpenPostgresConnection(base);
  ASSERT_TRUE(admin.ok()) << admin.status().ToString();
  // Names made above from digits and underscores: safe to splice.
  ASSERT_TRUE((*admin)->ExecScript("CREATE SCHEMA " + schema + "; CREATE TABLE " + schema +
                                   ".orders(id int); CREATE ROLE " + role + " LOGIN; GRANT USAGE ON SCHEMA " +
                                   schema + " TO " + role)
                  .ok());
  const size_t at = base.find('@');
  ASSERT_NE(at, std::string::npos);
  const std::string as_role = "postgresql://" + role + base.substr(at);
  TempDir tmp;
  // First open migrates the store; the doctor then sees it through a read-only session.
  {
    auto opened = store::OpenStateStore((*scratch)->location(), RealClock());
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  }
  auto write = [&](const std::string& state) {
    tmp.Write("dataworkers.yaml", "version: 1\nname: pg\nstate: \"" + state + "\"\n"
                                  "warehouses:\n  pg: {type: postgres, dsn: \"" + as_role + "\"}\n"
                                  "checks:\n  - table: pg." + schema + ".orders\n    not_null: [id]\n");
    auto services = Services::Load(tmp.path(), RealClock());
    EXPECT_TRUE(services->workspace_status().ok()) << services->workspace_status().ToString();
    return services;
  };
  auto read_only = write((*scratch)->location() + "%20-cdefault_transaction_read_only%3Don");
  DoctorReport r = RunDoctor(*read_only);
  EXPECT_EQ(r.ExitCode(), 1);
  DoctorFinding table = Of(r, "warehouse", "pg." + schema + ".orders").at(0);
  EXPECT_EQ(table.verdict, Verdict::kProblem) << Dump(r);
  EXPECT_NE(table.fix.find("GRANT SELECT ON \"" + schema + "\".\"orders\""), std::string::npos) << table.fix;
  // A store that cannot be written is found (here at its opening, which checks the migrations),
  // and says so; the warehouse above was still checked.
  DoctorFinding state = Of(r, "state").at(0);
  EXPECT_EQ(state.verdict, Verdict::kProblem) << Dump(r);
  EXPECT_NE(state.detail.find("read-only"), std::string::npos) << state.detail;
  EXPECT_NE(state.fix.find("write"), std::string::npos) << state.fix;
  // Granted, and on a writable store: the table reads, the store takes a write, the clocks agree.
  ASSERT_TRUE((*admin)->ExecScript("GRANT SELECT ON " + schema + ".orders TO " + role).ok());
  auto writable = write((*scratch)->location());
  DoctorReport granted = RunDoctor(*writable);
  EXPECT_EQ(Of(granted, "warehouse", "pg." + schema + ".orders").at(0).verdict, Verdict::kOk) << Dump(granted);
  EXPECT_EQ(Of(granted, "state").at(1).detail, "takes a write (the probe was rolled back)") << Dump(granted);
  ASSERT_FALSE(Of(granted, "clock").empty()) << Dump(granted);
  EXPECT_EQ(Of(granted, "clock")[0].verdict, Verdict::kOk) << Dump(granted);
  EXPECT_NE(Of(granted, "clock")[0].detail.find(" ms "), std::string::npos);
  EXPECT_EQ(granted.ExitCode(), 0) << Dump(granted);
  (*admin)->ExecScript("DROP SCHEMA " + schema + " CASCADE; DROP OWNED BY " + role + "; DROP ROLE " + role);
}

}  // namespace doctor_test
}  // namespace
}  // namespace dw::workspace
