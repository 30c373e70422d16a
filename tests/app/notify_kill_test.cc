// A real kill -9 of `dw notify deliver`: the outbox message is written, the process is SIGKILLed
// while its request is at the receiver (before the answer, so before the attempt is recorded),
// and the next run sends it. Nothing is lost; Opsgenie, which deduplicates by alias, still has one
// alert; a Teams webhook, which cannot deduplicate, shows the card at most twice.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <thread>

#include "platforms/notify/notify.h"
#include "store/state_store.h"
#include "tests/platforms/notify/notify_test_support.h"
#include "tests/support/build_paths.h"
#include "tests/support/subprocess.h"

extern char** environ;

namespace dw {
namespace {

namespace notify = platforms::notify;
using testing::RunCommand;
using testing::TempDir;

pid_t SpawnDw(const std::vector<std::string>& args) {
  std::vector<std::string> all = {DW_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  EXPECT_EQ(posix_spawn(&pid, all[0].c_str(), &fa, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  return pid;
}

void SetFaults(const sim::RunningSim& sim, const Json& faults) {
  auto http = net::MakeCurlHttpClient();
  net::HttpRequest req;
  req.method = "POST";
  req.url = sim.url() + "/_sim/faults";
  req.body = Json{{"faults", faults}}.dump();
  auto r = http->Send(req);
  ASSERT_TRUE(r.ok() && r->status == 200) << (r.ok() ? r->body : r.status().ToString());
}

// Waits (up to 60 s: a `dw` started on a loaded CI machine is slow to get there) until the
// receiver has recorded `n` requests.
bool AwaitReceived(const sim::RunningSim& sim, size_t n) {
  for (int i = 0; i < 1200; ++i) {
    if (testing::Received(sim).size() >= n) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

class NotifyKillTest : public ::testing::Test {
 protected:
  // A workspace whose only channel is `channel` at `settings`, with one `open` notice written to
  // its outbox (the process that wrote it is gone: only what it committed is left).
  void Prepare(const std::string& channel, const Json& settings) {
    std::string yaml = "version: 1\nname: kill\nnotify:\n  " + channel + ": " + settings.dump() + "\n";
    tmp_.Write("dataworkers.yaml", yaml);
    config::Workspace ws;
    ws.name = "kill";
    ws.notify = Json{{channel, settings}};
    auto store = store::OpenStateStore((tmp_.path() / ".dw" / "state.db").string());
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    auto n = testing::LoyaltyNotice(notify::EventKind::kOpen);
    n.domain.clear();
    auto queued = notify::Enqueue(ws, **store, RealClock(), n);
    ASSERT_TRUE(queued.ok()) << queued.status().ToString();
    ASSERT_EQ(queued->queued.size(), 1u);
  }
  std::vector<std::string> Args(const std::string& cmd) {
    return {"--workspace", tmp_.path().string(), "notify", cmd};
  }
  // `dw notify deliver` killed with SIGKILL once the receiver holds `requests` requests.
  void KillDuringSend(const sim::RunningSim& sim, size_t requests) {
    pid_t pid = SpawnDw(Args("deliver"));
    ASSERT_GT(pid, 0);
    bool arrived = AwaitReceived(sim, requests);
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(arrived) << "the request never reached the receiver";
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "dw finished before the kill";
  }
  Json Outbox() {
    auto r = RunCommand(std::string(DW_BINARY) + " --workspace '" + tmp_.path().string() +
                        "' notify list " + testing::LoyaltyNotice(notify::EventKind::kOpen).incident_id +
                        " --format json");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return Json::parse(r.out, nullptr, false);
  }
  TempDir tmp_;
};

TEST_F(NotifyKillTest, AKilledDeliveryIsSentByTheNextRunAndOpsgenieKeepsOneAlert) {
  auto sim = testing::StartReceiver(sim::Platform::kOpsgenie);
  ASSERT_NE(sim, nullptr);
  Prepare("opsgenie", {{"api_key", "kill-key"}, {"url", sim->url()}});
  // The alert is created, then the answer waits 4 s: the process dies before it hears it.
  SetFaults(*sim, Json::array({{{"method", "POST"}, {"path", "/v2/alerts"}, {"status", 202},
                                {"body", "{}"}, {"after", true}, {"delay_ms", 4000}, {"times", 1}}}));
  KillDuringSend(*sim, 1);
  Json before = Outbox();
  ASSERT_EQ(before.size(), 1u);
  EXPECT_EQ(before[0]["state"], "pending") << before.dump();  // the attempt was never recorded
  EXPECT_EQ(before[0]["attempts"], 0);

  auto again = RunCommand(std::string(DW_BINARY) + " --workspace '" + tmp_.path().string() + "' notify deliver");
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("1 sent"), std::string::npos) << again.out;
  Json after = Outbox();
  EXPECT_EQ(after[0]["state"], "sent") << after.dump();
  // Two creates reached Opsgenie with the same alias; it holds one alert.
  Json received = testing::Received(*sim);
  ASSERT_EQ(received.size(), 2u);
  EXPECT_EQ(received[0]["body"]["alias"], received[1]["body"]["alias"]);
  EXPECT_EQ(testing::State(*sim)["alerts"].size(), 1u);
  // A third run has nothing left to send.
  auto third = RunCommand(std::string(DW_BINARY) + " --workspace '" + tmp_.path().string() + "' notify deliver");
  EXPECT_NE(third.out.find("0 sent"), std::string::npos) << third.out;
  EXPECT_EQ(testing::Received(*sim).size(), 2u);
}

TEST_F(NotifyKillTest, AKilledWebhookDeliveryShowsTheCardAtMostTwice) {
  auto sim = testing::StartReceiver(sim::Platform::kTeams);
  ASSERT_NE(sim, nullptr);
  Prepare("teams", {{"webhook", sim->url() + "/workflows/kill"}});
  SetFaults(*sim, Json::array({{{"method", "POST"}, {"path", "/workflows/*"}, {"status", 202},
                                {"body", ""}, {"after", true}, {"delay_ms", 4000}, {"times", 1}}}));
  KillDuringSend(*sim, 1);
  auto again = RunCommand(std::string(DW_BINARY) + " --workspace '" + tmp_.path().string() + "' notify deliver");
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_EQ(Outbox()[0]["state"], "sent");
  // The webhook cannot tell the repeat: the card arrived twice, never more.
  EXPECT_EQ(testing::State(*sim)["cards"].size(), 2u);
}

TEST_F(NotifyKillTest, AProcessKilledBeforeTheServiceActedLosesNothingAndSendsOnce) {
  auto sim = testing::StartReceiver(sim::Platform::kOpsgenie);
  ASSERT_NE(sim, nullptr);
  Prepare("opsgenie", {{"api_key", "kill-key"}, {"url", sim->url()}});
  // The receiver holds the request 4 s before doing anything: the kill lands before the work.
  SetFaults(*sim, Json::array({{{"method", "POST"}, {"path", "/v2/alerts"}, {"status", 503},
                                {"body", "{}"}, {"delay_ms", 4000}, {"times", 1}}}));
  pid_t pid = SpawnDw(Args("deliver"));
  ASSERT_GT(pid, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // well inside the 4 s hold
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "dw finished before the kill";
  EXPECT_EQ(testing::State(*sim)["alerts"].size(), 0u);
  auto again = RunCommand(std::string(DW_BINARY) + " --workspace '" + tmp_.path().string() + "' notify deliver");
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_EQ(testing::State(*sim)["alerts"].size(), 1u);
  EXPECT_EQ(testing::Received(*sim).size(), 1u);  // the held request was never processed
}

}  // namespace
}  // namespace dw
