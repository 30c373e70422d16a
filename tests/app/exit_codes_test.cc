// Every `dw` command against docs/cli.md: one exit-code convention (0 ok, 1 the thing checked
// failed, 2 the command could not do its work), global options anywhere on the line, and no
// secret in anything a command prints, whichever path prints it.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <vector>

#include "base/json.h"
#include "sim/sim_support.h"
#include "tests/support/build_paths.h"
#include "tests/support/example_workspace.h"
#include "tests/support/subprocess.h"

namespace dw {
namespace {
namespace exit_codes_test {

using testing::CommandResult;
using testing::RunCommand;
using testing::TempDir;

const std::string kDw = DW_BINARY;

std::string Q(const std::filesystem::path& p) { return "'" + p.string() + "'"; }

using testing::CopyExample;

class ExitCodesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    loyalty_ = CopyExample(tmp_, "loyalty-flink");
    empty_ = tmp_.path() / "empty";
    std::filesystem::create_directories(empty_);
    // Platforms on a port nothing listens on: every call is refused at once.
    unreachable_ = tmp_.path() / "unreachable";
    tmp_.Write("unreachable/dataworkers.yaml",
               "version: 1\nname: u\nplatforms:\n"
               "  kestra: {type: kestra, url: \"http://127.0.0.1:1\"}\n"
               "  flink: {type: flink, url: \"http://127.0.0.1:1\"}\n");
    tmp_.Write("events/a.jsonl", "");
    // One good JobEvent between two bad lines, and a file of bad lines only.
    tmp_.Write("events/mixed.jsonl",
               "{oops\n"
               R"({"job": {"namespace": "airflow", "name": "dag.load"}, "outputs": [{"namespace": "postgres://db:5432", "name": "shop.public.orders"}]})"
               "\n"
               R"({"producer": "x"})"
               "\n");
    tmp_.Write("events/bad.jsonl", "{oops\n[1]\n");
  }
  CommandResult Dw(const std::string& args) { return RunCommand(kDw + " " + args); }

  TempDir tmp_;
  std::filesystem::path loyalty_, empty_, unreachable_;
};

struct Row {
  std::string args;  // after `dw`; {L} loyalty, {E} empty folder, {U} unreachable, {T} temp dir
  int code;
  std::string says;  // stderr or stdout must contain this ("" for no requirement)
};

TEST_F(ExitCodesTest, EveryCommandFollowsTheConvention) {
  const std::vector<Row> rows = {
      {"", 2, "a command is required"},
      {"frobnicate", 2, ""},
      {"init {L}", 2, "already exists"},
      {"init {T}/fresh", 0, "created"},
      {"--workspace {L} validate", 0, "is valid"},
      {"--workspace {E} validate", 2, "no dataworkers.yaml"},
      {"--workspace {U}/../unreachable validate --format json", 0, "\"valid\": true"},
      {"--workspace {L} describe --no-probe", 0, ""},
      {"--workspace {E} describe --no-probe", 2, ""},
      // The unreachable platforms are problems to fix (1); no workspace at all is nothing to check (2).
      {"--workspace {U} doctor --timeout 2", 1, "fix: check platforms.kestra.url"},
      {"--workspace {E} doctor", 2, "dw init"},
      {"--workspace {L} doctor --timeout 0", 2, ""},
      {"reference --out {T}/ref", 0, "wrote"},
      {"reference --out /proc/dw-cannot-write-here", 2, "cannot"},
      {"agents", 0, ""},
      {"mcp no-such-agent", 2, ""},
      {"--workspace {L} --now 2026-11-24T14:00:00Z check", 0, "9 passed"},
      {"--workspace {L} --now 2026-11-24T16:00:00Z check", 1, "FAIL   freshness"},
      {"--workspace {L} check main.no_such_table", 2, "no checks are configured"},
      {"--workspace {E} check", 2, ""},
      {"--workspace {L} lineage table://main/member_balances --direction up", 0, ""},
      {"--workspace {L} lineage table://main/member_balances --direction down", 0, ""},
      {"--workspace {L} lineage table://main/member_balances --direction sideways", 2, ""},
      {"--workspace {L} lineage table://main/no_such", 2, ""},
      {"--workspace {L} blast-radius table://main/no_such", 2, ""},
      // One grammar for every option that takes a time: a timestamp or a duration back from now.
      {"--workspace {L} --now 2026-11-24T14:00:00Z blast-radius table://main/member_balances --since 1d", 0, ""},
      {"--workspace {L} blast-radius table://main/member_balances --since 2026-11-24T13:00:00Z", 0, ""},
      {"--workspace {L} blast-radius table://main/member_balances --since yesterday", 2, "neither a timestamp"},
      {"--workspace {L} changes", 0, ""},
      {"--workspace {L} changes --since 2d --kind restore --format json", 0, ""},
      {"--workspace {L} changes --kind bogus", 2, "unknown change kind"},
      {"--workspace {L} changes --until yesterday", 2, "neither a timestamp"},
      {"--workspace {L} --now 2026-11-24T14:00:00Z incidents list --since 1d --until 10m", 0, ""},
      {"--workspace {L} incidents list --until soon", 2, "--until: 'soon'"},
      {"--workspace {L} ingest openlineage {T}/events", 2, "is a directory"},
      {"--workspace {L} ingest openlineage {T}/events/a.jsonl", 0, ""},
      {"--workspace {L} ingest openlineage {T}/events/mixed.jsonl", 1, "mixed.jsonl:3: $: cannot tell the event type"},
      {"--workspace {L} ingest openlineage {T}/events/bad.jsonl", 2, "bad.jsonl:1: not valid JSON (no line of 2"},
      {"--workspace {L} ingest dbt {T}/no-such-manifest.json", 2, "cannot read"},
      {"--workspace {L} ingest kestra", 2, ""},  // no Kestra platform
      {"--workspace {U} ingest kestra", 2, ""},  // unreachable
      {"--workspace {U} collect", 1, "UNREACHABLE"},
      {"--workspace {E} collect", 2, ""},
      {"monitor score {T}/no-such.csv", 2, ""},
      {"--workspace {L} monitor plot no_such_metric --out {T}/p.svg", 2, "unknown metric"},
      {"--workspace {L} monitor mark no_such_metric --from 2026-01-01T00:00:00Z --to 2026-01-02T00:00:00Z --as a@example.com",
       2, "unknown metric"},
      {"--workspace {L} monitor mark x --from yesterday --to 2026-01-02T00:00:00Z --as a@example.com", 2, "--from"},
      {"--workspace {L} monitor mark x --from 1d --to 1h --as agent:dw", 2, "--as"},
      {"--workspace {E} monitor prune", 2, ""},
      {"--workspace {L} monitor prune", 0, ""},
      {"--workspace {E} watch --once", 2, ""},
      {"--workspace {U} watch --once", 1, "some platforms could not be read"},
  };
  for (const Row& row : rows) {
    std::string args = row.args;
    for (auto [tag, path] : {std::pair<std::string, std::filesystem::path>{"{L}", loyalty_},
                             {"{E}", empty_}, {"{U}", unreachable_}, {"{T}", tmp_.path()}})
      for (size_t p = args.find(tag); p != std::string::npos; p = args.find(tag))
        args.replace(p, tag.size(), path.string());
    CommandResult r = Dw(args);
    EXPECT_EQ(r.exit_code, row.code) << "dw " << args << "\nstdout: " << r.out << "\nstderr: " << r.err;
    if (!row.says.empty()) {
      EXPECT_NE((r.out + r.err).find(row.says), std::string::npos)
          << "dw " << args << "\nstdout: " << r.out << "\nstderr: " << r.err;
    }
  }
}

TEST_F(ExitCodesTest, LineageAcceptsTheShortDirectionsTheReadmeShows) {
  auto up = Dw("--workspace " + Q(loyalty_) + " lineage table://main/member_balances --direction up --format json");
  auto upstream = Dw("--workspace " + Q(loyalty_) +
                     " lineage table://main/member_balances --direction upstream --format json");
  ASSERT_EQ(up.exit_code, 0) << up.err;
  ASSERT_EQ(upstream.exit_code, 0) << upstream.err;
  // The same answer (last_seen times aside: each run stamps the notes it reads).
  Json a = Json::parse(up.out), b = Json::parse(upstream.out);
  EXPECT_EQ(a["direction"], "upstream");
  EXPECT_EQ(a["nodes"], b["nodes"]);
  EXPECT_EQ(a["edges"].size(), b["edges"].size());
  EXPECT_GT(a["edges"].size(), 0u);
}

// `dw ingest kestra` keeps what it could read: flows that could not be read are named and make
// the run partial (1); when no listed flow could be read it did nothing (2); all read is 0.
TEST_F(ExitCodesTest, IngestKestraIsPartialWhenFlowsAreSkippedAndFailsWhenNoneIsRead) {
  const Json good = {{"namespace", "shop"}, {"id", "load"}, {"revision", 1}, {"disabled", false},
                     {"source", "id: load\nnamespace: shop\ntasks:\n  - id: q\n"
                                "    type: io.kestra.plugin.jdbc.postgresql.Query\n"
                                "    sql: INSERT INTO raw.orders SELECT 1\n"}};
  const Json unparsable = {{"namespace", "shop"}, {"id", "broken"}, {"revision", 1}, {"disabled", false},
                           {"source", "id: broken\nnamespace: shop\ntasks: ["}};
  const Json misnamed = {{"namespace", "shop"}, {"id", "listed_as"}, {"revision", 1}, {"disabled", false},
                         {"source", "id: declared_as\nnamespace: shop\ntasks: []\n"}};
  struct Case {
    Json flows;
    int code;
    std::vector<std::string> says;  // on stderr
  };
  const std::vector<Case> cases = {
      {Json::array({good}), 0, {}},
      {Json::array({good, unparsable}), 1, {"shop.broken", "1 flow(s) skipped; the others were stored"}},
      {Json::array({misnamed, good, unparsable}), 1, {"shop.listed_as: its source declares shop.declared_as",
                                                       "2 flow(s) skipped"}},
      {Json::array({unparsable, misnamed}), 2, {"none of the 2 flow(s) listed could be read"}},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    Json script = {{"now", "2026-11-25T02:30:00Z"}, {"tenant", "main"}, {"flows", cases[i].flows}};
    auto sim = sim::RunningSim::Start(sim::Platform::kKestra, script);
    ASSERT_TRUE(sim.ok()) << sim.status().ToString();
    const std::filesystem::path ws = tmp_.path() / ("kestra-" + std::to_string(i));
    tmp_.Write("kestra-" + std::to_string(i) + "/dataworkers.yaml",
               "version: 1\nname: k\nwarehouses:\n  main: {type: sqlite, path: warehouse.db}\n"
               "platforms:\n  kestra: {type: kestra, url: \"" + (*sim)->url() + "\", tenant: main}\n");
    CommandResult r = Dw("--workspace " + Q(ws) + " ingest kestra");
    EXPECT_EQ(r.exit_code, cases[i].code) << r.out << r.err;
    for (const std::string& s : cases[i].says) EXPECT_NE(r.err.find(s), std::string::npos) << s << "\n" << r.err;
    if (cases[i].code == 1) {
      EXPECT_NE(r.out.find("\"flows_read\":1"), std::string::npos) << r.out;
    }
  }
}

TEST_F(ExitCodesTest, GlobalOptionsWorkAfterTheCommand) {
  const std::string ws = Q(loyalty_);
  for (const std::string& args :
       {"check --workspace " + ws + " --now 2026-11-24T14:00:00Z",
        "check main.member_balances -w " + ws + " --now 2026-11-24T14:00:00Z --log-level error",
        "validate --workspace " + ws, "describe --no-probe --workspace " + ws,
        "agents --workspace " + ws, "lineage table://main/member_balances --workspace " + ws,
        "monitor prune --workspace " + ws, "mcp dw-quality --workspace " + ws}) {
    CommandResult r = Dw(args);
    EXPECT_EQ(r.exit_code, 0) << "dw " << args << "\n" << r.out << r.err;
    EXPECT_EQ(r.err.find("not expected"), std::string::npos) << "dw " << args << "\n" << r.err;
  }
  // collect and serve take them too (they fail here for other reasons, never on the option).
  for (const std::string& args : {"collect --workspace " + Q(empty_),
                                  "serve --workspace " + Q(empty_) + " --listen 127.0.0.1:notaport"}) {
    CommandResult r = Dw(args);
    EXPECT_EQ(r.exit_code, 2) << "dw " << args;
    EXPECT_EQ(r.err.find("were not expected"), std::string::npos) << "dw " << args << "\n" << r.err;
  }
}

TEST_F(ExitCodesTest, ResultsThatCouldNotBeRecordedAreAnError) {
  const std::string check = "--workspace " + Q(loyalty_) + " --now 2026-11-24T14:00:00Z check";
  ASSERT_EQ(Dw(check).exit_code, 0);  // creates the state store
  // Break the store on purpose: every write of a check result fails from now on.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((loyalty_ / ".dw" / "state.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "CREATE TRIGGER refuse BEFORE INSERT ON check_results "
                         "BEGIN SELECT RAISE(ABORT, 'simulated disk failure'); END;",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  CommandResult r = Dw(check);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("could not be recorded"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("9 passed"), std::string::npos) << "the results are still shown: " << r.out;
}

// A PostgreSQL warehouse nobody listens for, its password in each libpq form.
struct SecretCase {
  std::string dsn;
  std::vector<std::string> secret_parts;
};

TEST_F(ExitCodesTest, NoCommandPrintsAConnectionPassword) {
  const std::vector<SecretCase> cases = {
      {"host=127.0.0.1 port=1 dbname=x user=u password=plainsecret1", {"plainsecret1"}},
      {"host=127.0.0.1 port=1 dbname=x user=u password='p@ss w0rd!'", {"p@ss", "w0rd"}},
      {"host=127.0.0.1 port=1 dbname=x user=u password=ab", {"password=ab"}},
      {"postgresql://u:url-secret-9@127.0.0.1:1/x", {"url-secret-9"}},
  };
  for (const SecretCase& c : cases) {
    TempDir tmp;
    tmp.Write("dataworkers.yaml",
              "version: 1\nname: s\nwarehouses:\n  pg: {type: postgres, dsn: \"" + c.dsn +
                  "\"}\nchecks:\n  - table: pg.public.t\n    not_null: [a]\n"
                  "monitors:\n  - {name: m, warehouse: pg, sql: \"SELECT 1\", every: 1h}\n");
    const std::string ws = " --workspace " + Q(tmp.path());
    for (const std::string& args : {ws + " check", ws + " check --format json", ws + " describe",
                                    ws + " describe --format json", ws + " watch --once",
                                    ws + " --log-level debug check"}) {
      CommandResult r = Dw(args);
      std::string all = r.out + r.err;
      EXPECT_NE(all.find("127.0.0.1"), std::string::npos) << "the host stays readable: dw" << args << "\n" << all;
      for (const std::string& part : c.secret_parts)
        EXPECT_EQ(all.find(part), std::string::npos) << "dw" << args << " printed " << part << ":\n" << all;
    }
  }
}

TEST_F(ExitCodesTest, AKeywordValueStateStoreIsPostgresNeverAFileNamedAfterIt) {
  TempDir tmp;
  tmp.Write("dataworkers.yaml",
            "version: 1\nname: s\nstate: \"host=127.0.0.1 port=1 dbname=x user=u password=LeakMe1234\"\n");
  CommandResult r = Dw("--workspace " + Q(tmp.path()) + " monitor prune");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ((r.out + r.err).find("LeakMe1234"), std::string::npos) << r.out << r.err;
  for (const auto& entry : std::filesystem::directory_iterator(tmp.path()))
    EXPECT_EQ(entry.path().filename().string().find("password"), std::string::npos) << entry.path();
}

TEST_F(ExitCodesTest, AStateUrlOfAnUnknownSchemeIsAValidationError) {
  for (const std::string state : {"postgresq://bob:LeakMe1234@db:5432/dw", "mysql://bob:LeakMe1234@db/dw"}) {
    TempDir tmp;
    tmp.Write("dataworkers.yaml", "version: 1\nname: s\nstate: \"" + state + "\"\n");
    CommandResult v = Dw("--workspace " + Q(tmp.path()) + " validate");
    EXPECT_EQ(v.exit_code, 1) << v.out << v.err;
    EXPECT_NE(v.err.find("dataworkers.yaml:3:"), std::string::npos) << v.err;
    EXPECT_NE(v.err.find("is not a state store"), std::string::npos) << v.err;
    EXPECT_EQ(v.err.find("LeakMe1234"), std::string::npos) << v.err;
    CommandResult c = Dw("--workspace " + Q(tmp.path()) + " check");
    EXPECT_EQ(c.exit_code, 2);
    // Nothing was created: no folder named after the URL's parts.
    size_t entries = 0;
    for (const auto& e : std::filesystem::directory_iterator(tmp.path())) entries += e.path().filename() != "dataworkers.yaml";
    EXPECT_EQ(entries, 0u) << state;
  }
  TempDir typo;
  typo.Write("dataworkers.yaml", "version: 1\nname: s\nstate: \"postgresq://db/dw\"\n");
  EXPECT_NE(Dw("--workspace " + Q(typo.path()) + " validate").err.find("did you mean 'postgresql'"),
            std::string::npos);
}

// A domain that asks for approvals or escalates with no channel to carry them: validate warns
// (exit 0, the workspace is valid), so the requests do not expire unseen; routed, no warning.
TEST_F(ExitCodesTest, ValidateWarnsWhenApprovalsOrEscalationsReachNobody) {
  const std::string domains =
      "version: 1\nname: s\n"
      "domains:\n  loyalty: {owners: [ana@example.com], approvers: [ana@example.com], autonomy: L2,\n"
      "            escalate_to: [lead@example.com], approval_ttl: 4h}\n"
      "  billing: {owners: [bo@example.com], approvers: [bo@example.com], autonomy: L3}\n";
  struct Case {
    std::string notify;
    std::vector<std::string> warned;  // paths
  };
  const std::vector<Case> cases = {
      {"", {"domains.billing", "domains.loyalty", "domains.loyalty.escalate_to"}},
      {"notify:\n  slack: {webhook: \"https://hooks.slack.test/T0/B0/xyz\"}\n"
       "  routes:\n    - {domains: [billing], channels: [slack]}\n",
       {"domains.loyalty", "domains.loyalty.escalate_to"}},
      {"notify:\n  slack: {webhook: \"https://hooks.slack.test/T0/B0/xyz\"}\n", {}},
  };
  for (const Case& c : cases) {
    TempDir tmp;
    tmp.Write("dataworkers.yaml", domains + c.notify);
    CommandResult j = Dw("--workspace " + Q(tmp.path()) + " validate --format json");
    EXPECT_EQ(j.exit_code, 0) << j.err;
    Json out = Json::parse(j.out);
    std::vector<std::string> paths;
    for (const Json& w : out["warnings"]) {
      paths.push_back(w["path"].get<std::string>());
      EXPECT_NE(w["message"].get<std::string>().find("nobody is told"), std::string::npos) << w.dump();
    }
    std::sort(paths.begin(), paths.end());
    EXPECT_EQ(paths, c.warned) << c.notify << "\n" << j.out;
    CommandResult text = Dw("--workspace " + Q(tmp.path()) + " validate");
    EXPECT_EQ(text.exit_code, 0);
    EXPECT_EQ(text.err.find("reach no notification channel") != std::string::npos, !c.warned.empty()) << text.err;
  }
}

// Every key the workspace accepts is acted on in this build (autonomy, approvers, escalate_to and
// approval_ttl since the actions stage, notify: since the outbox), so validate warns about none.
TEST_F(ExitCodesTest, ValidateWarnsAboutNoKeyOnceEveryKeyIsActedOn) {
  TempDir tmp;
  tmp.Write("dataworkers.yaml",
            "version: 1\nname: s\n"
            "domains:\n  loyalty: {owners: [ana@example.com], approvers: [ana@example.com], autonomy: L2,\n"
            "            escalate_to: [lead@example.com], approval_ttl: 4h}\n"
            "notify:\n  slack: {webhook: \"https://hooks.slack.test/T0/B0/xyz\"}\n");
  CommandResult r = Dw("--workspace " + Q(tmp.path()) + " validate");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("not acted on"), std::string::npos) << r.err;
  CommandResult j = Dw("--workspace " + Q(tmp.path()) + " validate --format json");
  EXPECT_EQ(j.exit_code, 0) << j.err;
  Json out = Json::parse(j.out);
  EXPECT_TRUE(out["warnings"].empty()) << j.out;
  EXPECT_TRUE(out["valid"].get<bool>()) << j.out;
}

}  // namespace exit_codes_test
}  // namespace
}  // namespace dw
