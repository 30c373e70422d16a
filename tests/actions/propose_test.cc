// Drafting the proposals of the two seed incidents on copies of the example workspaces
// (examples/loyalty-flink, examples/ev-kestra): the change events and signals are stored as the
// collectors and monitors store them, the incident is opened and diagnosed by the real desk, and
// the proposals are drafted by ProposeForIncident. The diffs are applied to the real files; what
// is missing (manifest, savepoint, flow source) is said instead of invented; a manifest changed
// after drafting is a conflict; sent versions never change; L1 drafts and sends nothing.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "actions/actions.h"
#include "agents/agents.h"
#include "base/rfc3339.h"
#include "mcp/tool_invocation.h"
#include "tests/support/build_paths.h"
#include "tests/support/null_tool_call.h"
#include "tests/support/subprocess.h"
#include "workspace/services.h"

namespace dw::actions {
namespace {
namespace propose_test {

namespace fs = std::filesystem;

TimePoint At(const char* text) { return *ParseRfc3339(text); }

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void Replace(const fs::path& p, const std::string& from, const std::string& to) {
  std::string text = ReadAll(p);
  size_t at = text.find(from);
  ASSERT_NE(at, std::string::npos) << from << " not in " << p;
  text.replace(at, from.size(), to);
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

const StoredProposal* Find(const ProposeOutcome& o, ProposalKind kind) {
  for (const StoredProposal& s : o.stored)
    if (s.proposal.kind == kind) return &s;
  return nullptr;
}

class SeedWorkspace : public ::testing::Test {
 protected:
  // A scratch copy of examples/<example> in the temp folder (under `into`, for a test that needs
  // several fresh copies).
  void Copy(const std::string& example, const std::string& into = "") {
    dir_ = tmp_.path() / into / example;
    fs::create_directories(dir_.parent_path());
    fs::copy(fs::path(DW_SOURCE_DIR) / "examples" / example, dir_, fs::copy_options::recursive);
    fs::remove_all(dir_ / ".dw");
    fs::remove(dir_ / "warehouse.db");
  }
  void Load() {
    services_ = workspace::Services::Load(dir_, clock_);
    ASSERT_TRUE(services_->workspace_status().ok()) << services_->workspace_status().ToString();
    auto st = services_->state();
    ASSERT_TRUE(st.ok()) << st.status().ToString();
    store_ = *st;
    auto g = services_->graph();
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    graph_ = *g;
  }
  void AddEvent(const std::string& key, const std::string& asset, const std::string& kind, const char* at,
                Json evidence, double risk, const std::string& reason) {
    store::ChangeEvent e;
    e.dedup_key = key;
    e.asset_id = asset;
    e.kind = kind;
    e.happened_at = At(at);
    e.observed_at = At(at);
    e.evidence = std::move(evidence);
    e.risk = risk;
    e.reason = reason;
    ASSERT_TRUE(store_->AddChangeEvent(e).ok());
  }
  std::string Open(std::vector<incidents::Signal> signals) {
    incidents::IncidentDesk desk(*store_, graph_, clock_, incidents::DeskOptionsFor(services_->workspace()));
    incidents::SignalBatch batch;
    batch.signals = std::move(signals);
    auto r = desk.Evaluate(batch);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r.ok() ? r->opened.size() : 0u, 1u);
    return r.ok() && !r->opened.empty() ? r->opened.front() : "";
  }
  Result<ProposeOutcome> Propose(const std::string& id) {
    return ProposeForIncident(services_->workspace(), *store_, graph_, id, clock_, DraftOptions{});
  }

  dw::testing::TempDir tmp_;
  fs::path dir_;
  SimulatedClock clock_{At("2026-11-24T15:15:00Z")};
  std::shared_ptr<workspace::Services> services_;
  store::StateStore* store_ = nullptr;
  graph::ContextGraph* graph_ = nullptr;
};

// ----- the Flink seed: a restore that zeroed loyalty balances ---------------------------------

class FlinkSeed : public SeedWorkspace {
 protected:
  void SetUp() override { Copy("loyalty-flink"); }
  std::string OpenIncident(bool with_restore = true) {
    Load();
    if (with_restore)
      AddEvent("flink:flink:a1b2:skipped:90bea", "flink://flink/points-balance", "restore_skipped_state",
               "2026-11-24T14:02:03Z",
               {{"job_id", "a1b2c3d4e5f60718293a4b5c6d7e8f90"},
                {"operator_id", "90bea66de1c231edf33913ecd54406c1"},
                {"savepoint_path", "s3://loyalty-flink/savepoints/points-balance/savepoint-3f9a6c-8e2d41c0a7b5"},
                {"log_line", "Skipping savepoint state for operator 90bea66de1c231edf33913ecd54406c1."}},
               0.95, "the restore dropped the savepoint state of operator 90bea66de1c231edf33913ecd54406c1");
    else
      AddEvent("flink:flink:a1b2:start", "flink://flink/points-balance", "deploy", "2026-11-24T14:02:00Z",
               {{"job_id", "a1b2c3d4e5f60718293a4b5c6d7e8f90"}}, 0.3, "a new run of the job started");
    incidents::Signal s;
    s.kind = incidents::SignalKind::kMetric;
    s.key = "metric:avg_active_balance";
    s.asset_id = "table://main/member_balances";
    s.at = At("2026-11-24T15:00:00Z");
    s.shape = incidents::SignalShape::kLevelDrop;
    s.value = 580;
    s.expected = 6400;
    s.summary = "avg_active_balance at 9% of its baseline";
    return Open({s});
  }
};

TEST_F(FlinkSeed, DraftsTheThreeProposalsOfTheSeedPageWithADiffThatAppliesToTheManifest) {
  std::string id = OpenIncident();
  ASSERT_FALSE(id.empty());
  auto out = Propose(id);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->set.cause_asset, "flink://flink/points-balance");

  // Hold the Hightouch sync and the nightly_tiers schedule (the dbt model's job, before 22:00).
  const StoredProposal* hold = Find(*out, ProposalKind::kHold);
  ASSERT_NE(hold, nullptr);
  ASSERT_TRUE(hold->proposal.drafted) << hold->proposal.not_drafted;
  std::vector<std::string> held;
  for (const Json& t : hold->proposal.content["targets"]) held.push_back(t["consumer"].get<std::string>());
  EXPECT_EQ(held, (std::vector<std::string>{"dbt://loyalty/fct_member_tier", "sync://hightouch/tier-changes-to-braze"}));
  EXPECT_EQ(hold->proposal.content["targets"][1]["next_run"], "2026-11-24T22:00:00.000Z");
  EXPECT_NE(hold->proposal.content["targets"][1]["step"].get<std::string>().find("pause the sync tier-changes-to-braze"),
            std::string::npos);

  // The FlinkDeployment diff: initialSavepointPath, a new nonce, allowNonRestoredState false; and
  // it applies to the manifest in the workspace, giving exactly those fields.
  const StoredProposal* diff = Find(*out, ProposalKind::kFlinkDeploymentDiff);
  ASSERT_NE(diff, nullptr);
  ASSERT_TRUE(diff->proposal.drafted) << diff->proposal.not_drafted;
  const Json& c = diff->proposal.content;
  const fs::path manifest = dir_ / "manifests/points-balance.yaml";
  EXPECT_EQ(c["file"], manifest.string());
  auto applied = ApplyUnifiedDiff(c["diff"].get<std::string>(), ReadAll(manifest));
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  EXPECT_NE(applied->find("initialSavepointPath: \"s3://loyalty-flink/savepoints/points-balance/savepoint-3f9a6c-8e2d41c0a7b5\""),
            std::string::npos) << *applied;
  EXPECT_NE(applied->find("allowNonRestoredState: false"), std::string::npos);
  EXPECT_NE(applied->find("savepointRedeployNonce: 1"), std::string::npos);
  EXPECT_NE(c.value("hold_bad_release", "").find("until its state migration is planned"), std::string::npos);
  auto undone = ApplyUnifiedDiff(c["undo_diff"].get<std::string>(), *applied);
  ASSERT_TRUE(undone.ok());
  EXPECT_EQ(*undone, ReadAll(manifest));

  // The run plan: the redeploy first, then the dbt model; the sink runs on, the sync is held.
  const StoredProposal* plan = Find(*out, ProposalKind::kRunPlan);
  ASSERT_NE(plan, nullptr);
  ASSERT_TRUE(plan->proposal.drafted) << plan->proposal.not_drafted;
  const Json& steps = plan->proposal.content["steps"];
  ASSERT_EQ(steps.size(), 2u) << plan->proposal.content.dump(2);
  EXPECT_EQ(steps[0]["asset"], "flink://flink/points-balance");
  EXPECT_EQ(steps[1]["asset"], "dbt://loyalty/fct_member_tier");
  EXPECT_FALSE(steps[0]["precondition"].get<std::string>().empty());

  // The verification plan: the metric back in its band around its baseline; the table's checks pass.
  const StoredProposal* verify = Find(*out, ProposalKind::kVerificationPlan);
  ASSERT_NE(verify, nullptr);
  ASSERT_TRUE(verify->proposal.drafted);
  const Json& items = verify->proposal.content["items"];
  ASSERT_GE(items.size(), 2u);
  EXPECT_EQ(items[0]["name"], "avg_active_balance");
  EXPECT_EQ(items[0]["op"], "in_band");
  EXPECT_EQ(items[0]["value"], 6400.0);
  EXPECT_EQ(items[1]["name"], "main.member_balances:*");

  // L2: each proposal was stored as version 1 and sent to the domain's approvers.
  for (const StoredProposal& s : out->stored) {
    EXPECT_EQ(s.version, 1) << s.id;
    EXPECT_EQ(s.status, "pending") << s.id << ": " << s.sending;
    EXPECT_NE(s.sending.find("sent to ana@example.com"), std::string::npos) << s.sending;
    EXPECT_NE(s.sending.find(" via "), std::string::npos) << "which channel carries it: " << s.sending;
  }
}

TEST_F(FlinkSeed, ARecordedManifestChangeGivesTheLastGoodImageToRedeploy) {
  // Without a record of the image before, the diff keeps the manifest's and says so.
  std::string id = OpenIncident();
  auto kept = Propose(id);
  ASSERT_TRUE(kept.ok());
  const Json& c0 = Find(*kept, ProposalKind::kFlinkDeploymentDiff)->proposal.content;
  EXPECT_EQ(c0["image"], "registry.example.com/loyalty/points-balance:4.2");
  EXPECT_NE(c0["image_note"].get<std::string>().find("no recorded manifest change"), std::string::npos);
  // The collector saw the team's merge of v4.2 (image 4.1 -> 4.2): the redraft goes back to 4.1.
  AddEvent("flink-manifest:flink:points-balance:abc", "flink://flink/points-balance", "deploy", "2026-11-24T14:00:30Z",
           {{"deployment", "points-balance"},
            {"changes", Json::array({{{"field", "image"},
                                      {"before", "registry.example.com/loyalty/points-balance:4.1"},
                                      {"after", "registry.example.com/loyalty/points-balance:4.2"}}})}},
           0.3, "the image changed");
  auto out = Propose(id);
  ASSERT_TRUE(out.ok());
  const StoredProposal* diff = Find(*out, ProposalKind::kFlinkDeploymentDiff);
  ASSERT_TRUE(diff->proposal.drafted) << diff->proposal.not_drafted;
  EXPECT_EQ(diff->version, 2);
  auto applied = ApplyUnifiedDiff(diff->proposal.content["diff"].get<std::string>(),
                                  ReadAll(dir_ / "manifests/points-balance.yaml"));
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  EXPECT_NE(applied->find("  image: registry.example.com/loyalty/points-balance:4.1\n"), std::string::npos) << *applied;
  EXPECT_EQ(applied->find(":4.2"), std::string::npos);
}

TEST_F(FlinkSeed, WithoutAManifestFolderTheDiffIsNotDraftedAndSaysWhy) {
  Replace(dir_ / "dataworkers.yaml", ", manifests: manifests}", "}");
  auto out = Propose(OpenIncident());
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const StoredProposal* diff = Find(*out, ProposalKind::kFlinkDeploymentDiff);
  ASSERT_NE(diff, nullptr);
  EXPECT_FALSE(diff->proposal.drafted);
  EXPECT_EQ(diff->proposal.not_drafted,
            "not drafted: platforms.flink.manifests names no folder of FlinkDeployment manifests");
  EXPECT_TRUE(diff->id.empty());  // nothing stored
  EXPECT_TRUE(Find(*out, ProposalKind::kHold)->proposal.drafted);  // the rest is still drafted
}

TEST_F(FlinkSeed, WithoutTheDeploymentInTheManifestsTheDiffIsNotDrafted) {
  Replace(dir_ / "manifests/points-balance.yaml", "name: points-balance", "name: points-balance-canary");
  auto out = Propose(OpenIncident());
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const StoredProposal* diff = Find(*out, ProposalKind::kFlinkDeploymentDiff);
  EXPECT_FALSE(diff->proposal.drafted);
  EXPECT_NE(diff->proposal.not_drafted.find("holds FlinkDeployment points-balance"), std::string::npos)
      << diff->proposal.not_drafted;
}

TEST_F(FlinkSeed, WithoutARecordedSavepointTheDiffIsNotDrafted) {
  auto out = Propose(OpenIncident(/*with_restore=*/false));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const StoredProposal* diff = Find(*out, ProposalKind::kFlinkDeploymentDiff);
  ASSERT_NE(diff, nullptr);
  EXPECT_FALSE(diff->proposal.drafted);
  EXPECT_NE(diff->proposal.not_drafted.find("no savepoint taken before the bad release is recorded"), std::string::npos)
      << diff->proposal.not_drafted;
}

TEST_F(FlinkSeed, AManifestChangedAfterDraftingIsAConflictWhenSent) {
  // At L1 nothing is sent; the team then edits the manifest; sending the draft is refused.
  Replace(dir_ / "dataworkers.yaml", "autonomy: L2", "autonomy: L1");
  std::string id = OpenIncident();
  auto out = Propose(id);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const StoredProposal* diff = Find(*out, ProposalKind::kFlinkDeploymentDiff);
  ASSERT_TRUE(diff->proposal.drafted);
  EXPECT_EQ(diff->status, "drafted");
  EXPECT_NE(diff->sending.find("not sent: domain loyalty is at autonomy L1"), std::string::npos) << diff->sending;
  Replace(dir_ / "manifests/points-balance.yaml", "    allowNonRestoredState: true\n", "    allowNonRestoredState: true\n    parallelism: 8\n");
  config::Workspace ws = services_->workspace();
  ws.domains["loyalty"].autonomy = "L2";
  auto sent = SendForApproval(*store_, ws, diff->id, clock_, "agent:dw-incidents");
  ASSERT_FALSE(sent.ok());
  EXPECT_EQ(sent.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(sent.status().message().find("conflict"), std::string::npos) << sent.status().message();
}

TEST_F(FlinkSeed, SentVersionsNeverChangeAndARedraftWithNewContentIsANewVersion) {
  std::string id = OpenIncident();
  auto first = Propose(id);
  ASSERT_TRUE(first.ok());
  const std::string pid = Find(*first, ProposalKind::kFlinkDeploymentDiff)->id;
  auto v1 = GetProposalState(*store_, TrustOf(services_->workspace(), ""), pid, 1, clock_);
  ASSERT_TRUE(v1.ok());
  const Json v1_body = v1->record.body;

  // The same draft again, ten minutes later: no new version, nothing re-sent.
  clock_.Set(clock_.Now() + std::chrono::minutes(10));
  auto again = Propose(id);
  ASSERT_TRUE(again.ok());
  for (const StoredProposal& s : again->stored) EXPECT_FALSE(s.new_version) << s.id;
  EXPECT_EQ(Find(*again, ProposalKind::kFlinkDeploymentDiff)->version, 1);

  // The manifest moves on (a nonce was used meanwhile): the redraft is version 2, v1 superseded
  // and byte for byte what was sent.
  Replace(dir_ / "manifests/points-balance.yaml", "    state: running\n", "    state: running\n    savepointRedeployNonce: 4\n");
  auto redraft = Propose(id);
  ASSERT_TRUE(redraft.ok());
  const StoredProposal* v2 = Find(*redraft, ProposalKind::kFlinkDeploymentDiff);
  EXPECT_TRUE(v2->new_version);
  EXPECT_EQ(v2->version, 2);
  EXPECT_EQ(v2->status, "pending");
  EXPECT_NE(v2->proposal.content["diff"].get<std::string>().find("savepointRedeployNonce: 5"), std::string::npos);
  auto old = GetProposalState(*store_, TrustOf(services_->workspace(), ""), pid, 1, clock_);
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->status, ProposalStatus::kSuperseded);
  EXPECT_EQ(old->record.body, v1_body);
}

TEST_F(FlinkSeed, TheRemediateToolDraftsThroughItsSchemasAndNoAgentToolApproves) {
  std::string id = OpenIncident();
  auto catalog = agents::BuildAgentCatalog(*agents::FindAgent("dw-incidents"), services_);
  const mcp::ToolSpec* tool = catalog->FindTool("remediate");
  ASSERT_NE(tool, nullptr);
  EXPECT_FALSE(tool->annotations.read_only);
  EXPECT_FALSE(tool->annotations.destructive);
  dw::testing::NullCall call;
  Json r = mcp::RunTool(*tool, {{"incident_id", id}}, call);
  ASSERT_FALSE(r.value("isError", false)) << r.dump(2);
  const Json& out = r["structuredContent"];
  ASSERT_EQ(out["proposals"].size(), 4u);
  EXPECT_EQ(out["proposals"][1]["kind"], "flink_deployment_diff");
  EXPECT_EQ(out["proposals"][1]["status"], "pending");
  // Drafted by the agent: it may never decide them (Decide refuses the author and every agent).
  auto st = GetProposalState(*store_, TrustOf(services_->workspace(), ""), out["proposals"][1]["id"].get<std::string>(), 0, clock_);
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->record.body["author"], "agent:dw-incidents");
  for (const char* name : {"approve", "deny", "decide"}) EXPECT_EQ(catalog->FindTool(name), nullptr) << name;

  Json unknown = mcp::RunTool(*tool, {{"incident_id", "inc-nope"}}, call);
  EXPECT_TRUE(unknown.value("isError", false));
  EXPECT_NE(unknown.dump().find("inc-nope"), std::string::npos) << unknown.dump();
  Json bad = mcp::RunTool(*tool, {{"incident", id}}, call);
  EXPECT_TRUE(bad.value("isError", false)) << bad.dump();
}

TEST_F(FlinkSeed, AnUnknownIncidentIsNotFound) {
  Load();
  auto out = Propose("inc-nope");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kNotFound);
}

// ----- the Kestra seed: a flow that priced sessions with stale tariffs ------------------------

class KestraSeed : public SeedWorkspace {
 protected:
  void SetUp() override {
    Copy("ev-kestra");
    clock_.Set(At("2026-11-25T02:36:00Z"));
  }
  std::string OpenIncident() {
    Load();
    AddEvent("kestra:kestra:4PqT9sW2mZbX8vLkR3nYc1:SUCCESS", "kestra://kestra/pricing.tariff_sync", "execution",
             "2026-11-25T00:05:03Z",
             {{"execution_id", "4PqT9sW2mZbX8vLkR3nYc1"}, {"flow", "pricing.tariff_sync"}, {"flow_revision", 8},
              {"state", "SUCCESS"},
              {"task_runs", Json::array({{{"task_id", "fetch"}, {"state", "SUCCESS"},
                                          {"outputs", R"({"code":200,"uri":"https://pricing.internal/v1/tariffs/current"})"}}})},
              {"log_excerpt", Json::array({{{"task_id", "fetch"},
                                            {"message", "Request GET https://pricing.internal/v1/tariffs/current"}}})}},
             0.2, "the execution succeeded");
    incidents::Signal s;
    s.kind = incidents::SignalKind::kCheck;
    s.key = "check:table://main/rated_sessions:custom:sessions_rated_at_stale_tariff";
    s.asset_id = "table://main/rated_sessions";
    s.at = At("2026-11-25T01:00:00Z");
    s.shape = incidents::SignalShape::kMismatchesFound;
    s.value = 90;
    s.expected = 0;
    s.summary = "90 sessions rated at a stale tariff";
    return Open({s});
  }
};

TEST_F(KestraSeed, DraftsTheThreeProposalsOfTheSeedPageWithAFlowDiffThatAppliesToTheFlowFile) {
  std::string id = OpenIncident();
  ASSERT_FALSE(id.empty());
  auto out = Propose(id);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->set.cause_asset, "kestra://kestra/pricing.tariff_sync");

  // Hold the 07:30 statements: both triggers of the flow (the schedule, and the Flow trigger the
  // rerun of the marts would fire), with the Kestra API call that disables them.
  const StoredProposal* hold = Find(*out, ProposalKind::kHold);
  ASSERT_NE(hold, nullptr);
  ASSERT_TRUE(hold->proposal.drafted) << hold->proposal.not_drafted;
  const Json& targets = hold->proposal.content["targets"];
  ASSERT_EQ(targets.size(), 1u) << targets.dump(2);
  EXPECT_EQ(targets[0]["consumer"], "kestra://kestra/billing.fleet_statements");
  EXPECT_EQ(targets[0]["next_run"], "2026-11-25T07:30:00.000Z");
  EXPECT_EQ(targets[0]["kestra"]["triggers"], Json::array({"morning", "after_marts"}));
  EXPECT_EQ(targets[0]["kestra"]["api_call"],
            "POST http://127.0.0.1:18080/api/v1/main/triggers/set-disabled/by-triggers");
  EXPECT_EQ(targets[0]["kestra"]["api_body"]["disabled"], true);
  EXPECT_EQ(targets[0]["kestra"]["api_body"]["triggers"][0],
            Json({{"namespace", "billing"}, {"flowId", "fleet_statements"}, {"triggerId", "morning"}}));
  EXPECT_EQ(targets[0]["kestra"]["api_undo_body"]["disabled"], false);

  // The flow diff: /v1 -> /v2 (the graph knows api://pricing/v2/tariffs/current) and an Assert on
  // effective_from (the field the team's own stale-tariff check compares); it applies to the file.
  const StoredProposal* diff = Find(*out, ProposalKind::kKestraFlowDiff);
  ASSERT_NE(diff, nullptr);
  ASSERT_TRUE(diff->proposal.drafted) << diff->proposal.not_drafted;
  const fs::path flow = dir_ / "flows/pricing/tariff_sync.yml";
  EXPECT_EQ(diff->proposal.content["file"], flow.string());
  auto applied = ApplyUnifiedDiff(diff->proposal.content["diff"].get<std::string>(), ReadAll(flow));
  ASSERT_TRUE(applied.ok()) << applied.status().ToString();
  EXPECT_NE(applied->find("uri: https://pricing.internal/v2/tariffs/current"), std::string::npos) << *applied;
  EXPECT_EQ(applied->find("/v1/"), std::string::npos);
  EXPECT_NE(applied->find("type: io.kestra.plugin.core.execution.Assert"), std::string::npos);
  EXPECT_NE(applied->find("fromJson(outputs.fetch.body).effective_from"), std::string::npos);
  // The Assert sits between the fetch and the store: a stale input is never stored.
  EXPECT_LT(applied->find("Assert"), applied->find("- id: store"));

  // The run plan: tariff sync, the re-rate for the day, the revenue marts, then the rate audit.
  const StoredProposal* plan = Find(*out, ProposalKind::kRunPlan);
  ASSERT_NE(plan, nullptr);
  ASSERT_TRUE(plan->proposal.drafted) << plan->proposal.not_drafted;
  std::vector<std::string> order;
  for (const Json& s : plan->proposal.content["steps"]) order.push_back(s["asset"].get<std::string>());
  EXPECT_EQ(order, (std::vector<std::string>{"kestra://kestra/pricing.tariff_sync", "kestra://kestra/energy.rerate_day",
                                             "kestra://kestra/energy.revenue_marts", "kestra://kestra/finance.rate_audit"}))
      << plan->proposal.content.dump(2);
  EXPECT_NE(plan->proposal.content["steps"][1]["action"].get<std::string>().find("day = 2026-11-25"), std::string::npos);
  EXPECT_NE(plan->proposal.content["steps"][1]["precondition"].get<std::string>().find("the checks on main.rated_sessions pass"),
            std::string::npos);

  // The verification plan: the failing check must read 0.
  const StoredProposal* verify = Find(*out, ProposalKind::kVerificationPlan);
  ASSERT_TRUE(verify->proposal.drafted);
  EXPECT_EQ(verify->proposal.content["items"][0]["name"], "table://main/rated_sessions:custom:sessions_rated_at_stale_tariff");
  EXPECT_EQ(verify->proposal.content["items"][0]["op"], "==");
  EXPECT_EQ(verify->proposal.content["items"][0]["value"], 0.0);
}

TEST_F(KestraSeed, WithoutTheFlowSourceTheFlowDiffIsNotDrafted) {
  fs::remove(dir_ / "flows/pricing/tariff_sync.yml");
  auto out = Propose(OpenIncident());
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const StoredProposal* diff = Find(*out, ProposalKind::kKestraFlowDiff);
  ASSERT_NE(diff, nullptr);
  EXPECT_FALSE(diff->proposal.drafted);
  EXPECT_NE(diff->proposal.not_drafted.find("holds flow pricing.tariff_sync"), std::string::npos)
      << diff->proposal.not_drafted;
}

TEST_F(KestraSeed, WithoutANewerEndpointInTheGraphNothingIsInvented) {
  Replace(dir_ / "dataworkers.yaml", "  - id: api://pricing/v2/tariffs/current\n    domain: pricing\n", "");
  Replace(dir_ / "dataworkers.yaml", "    notes: Current tariffs, October rates effective Wednesday 00:00.\n", "");
  auto out = Propose(OpenIncident());
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const StoredProposal* diff = Find(*out, ProposalKind::kKestraFlowDiff);
  EXPECT_FALSE(diff->proposal.drafted);
  EXPECT_NE(diff->proposal.not_drafted.find("no versioned endpoint"), std::string::npos) << diff->proposal.not_drafted;
}

TEST_F(KestraSeed, AFlowFileThatDiffersFromKestrasCurrentRevisionIsNotDrafted) {
  std::string id = OpenIncident();
  DraftOptions o;
  o.current_flow_revision = [](const std::string&, const std::string&, const std::string&) -> Result<FlowRevision> {
    return FlowRevision{9, "id: tariff_sync\nnamespace: pricing\n"};
  };
  auto out = ProposeForIncident(services_->workspace(), *store_, graph_, id, clock_, o);
  ASSERT_TRUE(out.ok());
  const StoredProposal* diff = Find(*out, ProposalKind::kKestraFlowDiff);
  EXPECT_FALSE(diff->proposal.drafted);
  EXPECT_NE(diff->proposal.not_drafted.find("differs from revision 9"), std::string::npos) << diff->proposal.not_drafted;
  // The same source as Kestra's: drafted against that revision, to be saved as the next one.
  const std::string source = ReadAll(dir_ / "flows/pricing/tariff_sync.yml");
  o.current_flow_revision = [&](const std::string&, const std::string&, const std::string&) -> Result<FlowRevision> {
    return FlowRevision{8, source};
  };
  out = ProposeForIncident(services_->workspace(), *store_, graph_, id, clock_, o);
  ASSERT_TRUE(out.ok());
  diff = Find(*out, ProposalKind::kKestraFlowDiff);
  ASSERT_TRUE(diff->proposal.drafted) << diff->proposal.not_drafted;
  EXPECT_EQ(diff->proposal.content["base_revision"], 8);
  EXPECT_NE(diff->proposal.content["steps"][0].get<std::string>().find("(revision 9)"), std::string::npos);
}

// ----- a Kestra flow whose saved revision is the cause: roll back to the revision it replaced ---

// Revision 8 of pricing.tariff_sync (the team's file as the example keeps it) replaced revision 7,
// whose source each case below writes differently: the diff the collector recorded is undone.
class KestraRevisionSeed : public KestraSeed {
 protected:
  struct Edit {
    std::string what;
    std::string from, to;  // revision 7's source is the file with `to` replaced by `from`
  };
  static std::vector<Edit> Edits() {
    return {{"the endpoint went back to v1", "https://pricing.internal/v2/tariffs/current",
             "https://pricing.internal/v1/tariffs/current"},
            {"a task was removed", "    kvType: JSON\n  - id: audit\n    type: io.kestra.plugin.core.log.Log\n"
                                   "    message: stored\n",
             "    kvType: JSON\n"},
            {"a line was added near the top", "",
             "description: Nightly copy of the current tariffs from the pricing service into the KV store.\n"},
            {"the schedule moved", "cron: \"5 1 * * *\"", "cron: \"5 0 * * *\""}};
  }
  // The incident the stale-tariff check opens, with revision 8's save (its evidence as the
  // collector records it: `diff` a string, or null with a diff_note) and, with `with_run`, the
  // routine run of revision 8 that diagnosis ranks with it.
  std::string OpenRevisionIncident(const Json& diff, bool truncated = false, bool with_run = false) {
    Load();
    Json ev = {{"flow", "pricing.tariff_sync"}, {"to_revision", 8}, {"from_revision", 7},
               {"diff_against_revision", 7}, {"time_source", "platform"}, {"diff", diff}};
    if (diff.is_null()) ev["diff_note"] = "Kestra no longer serves revision 7's source";
    if (truncated) ev["diff_truncated"] = true;
    AddEvent("kestra:kestra:pricing.tariff_sync:revision:8", "kestra://kestra/pricing.tariff_sync", "flow_revision",
             "2026-11-24T17:40:00Z", ev, 0.4, "the flow was saved as revision 8: what it runs changed");
    if (with_run)
      AddEvent("kestra:kestra:run8:SUCCESS", "kestra://kestra/pricing.tariff_sync", "execution", "2026-11-25T00:05:03Z",
               {{"execution_id", "run8"}, {"flow", "pricing.tariff_sync"}, {"flow_revision", 8}, {"state", "SUCCESS"}},
               0.2, "the execution succeeded");
    incidents::Signal s;
    s.kind = incidents::SignalKind::kCheck;
    s.key = "check:table://main/rated_sessions:custom:sessions_rated_at_stale_tariff";
    s.asset_id = "table://main/rated_sessions";
    s.at = At("2026-11-25T01:00:00Z");
    s.shape = incidents::SignalShape::kMismatchesFound;
    s.value = 90;
    s.expected = 0;
    s.summary = "90 sessions rated at a stale tariff";
    return Open({s});
  }
  Result<ProposeOutcome> ProposeWith(const std::string& id, std::optional<FlowRevision> kestra) {
    DraftOptions o;
    if (kestra)
      o.current_flow_revision = [kestra](const std::string&, const std::string&, const std::string&) -> Result<FlowRevision> {
        return *kestra;
      };
    return ProposeForIncident(services_->workspace(), *store_, graph_, id, clock_, o);
  }
  fs::path Flow() const { return dir_ / "flows/pricing/tariff_sync.yml"; }
};

TEST_F(KestraRevisionSeed, ARevisionBehindTheDamageIsRolledBackToTheRevisionItReplaced) {
  const std::string current = ReadAll(Flow());
  int n = 0;
  for (const Edit& e : Edits()) {
    for (bool file_holds_seven : {false, true}) {
      SCOPED_TRACE(e.what + (file_holds_seven ? ", the team's file holds revision 7" : ", the team's file holds revision 8"));
      std::string seven = current;
      size_t at = seven.find(e.to);
      ASSERT_NE(at, std::string::npos) << e.to;
      seven.replace(at, e.to.size(), e.from);
      const std::string diff = MakeUnifiedDiff("pricing/tariff_sync.yml", seven, current);
      Copy("ev-kestra", "case" + std::to_string(++n));  // a fresh store and file for each case
      std::ofstream(Flow(), std::ios::binary | std::ios::trunc) << (file_holds_seven ? seven : current);
      std::string id = OpenRevisionIncident(diff, false, /*with_run=*/n % 3 == 0);
      ASSERT_FALSE(id.empty());
      // Kestra runs revision 8: drafted against it, to be saved as revision 9.
      auto out = ProposeWith(id, FlowRevision{8, current});
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      const StoredProposal* fix = Find(*out, ProposalKind::kKestraFlowDiff);
      ASSERT_NE(fix, nullptr);
      ASSERT_TRUE(fix->proposal.drafted) << fix->proposal.not_drafted;
      const Json& c = fix->proposal.content;
      EXPECT_NE(fix->proposal.title.find("roll back pricing.tariff_sync to revision 7 (undo revision 8"), std::string::npos)
          << fix->proposal.title;
      EXPECT_EQ(c["changes"][0].get<std::string>().rfind("roll back to revision 7: undo revision 8", 0), 0u) << c.dump(2);
      auto applied = ApplyUnifiedDiff(c["diff"].get<std::string>(), ReadAll(Flow()));
      ASSERT_TRUE(applied.ok()) << applied.status().ToString();
      EXPECT_EQ(*applied, seven);
      EXPECT_EQ(c["diff"].get<std::string>().empty(), file_holds_seven);
      // What verification looks for in Kestra: revision 8's source, or a revision no newer than 8.
      EXPECT_EQ(c["base_sha256"], Sha256Hex(current));
      EXPECT_EQ(c["base_revision"], 8);
      EXPECT_NE(c["steps"][0].get<std::string>().find("(revision 9)"), std::string::npos) << c["steps"][0];
      // Without Kestra to ask, the same rollback against the revision the evidence names.
      out = ProposeWith(id, std::nullopt);
      ASSERT_TRUE(out.ok());
      fix = Find(*out, ProposalKind::kKestraFlowDiff);
      ASSERT_TRUE(fix->proposal.drafted) << fix->proposal.not_drafted;
      EXPECT_EQ(fix->proposal.content["base_revision"], 8);
      // Kestra already runs revision 7's source again (restored as 9): nothing to roll back.
      out = ProposeWith(id, FlowRevision{9, seven});
      ASSERT_TRUE(out.ok());
      fix = Find(*out, ProposalKind::kKestraFlowDiff);
      EXPECT_FALSE(fix->proposal.drafted);
      EXPECT_NE(fix->proposal.not_drafted.find("already runs revision 9"), std::string::npos) << fix->proposal.not_drafted;
      // Kestra runs a later revision of its own: a rollback would undo it, so it is the owner's call.
      out = ProposeWith(id, FlowRevision{10, current + "# edited in Kestra\n"});
      ASSERT_TRUE(out.ok());
      fix = Find(*out, ProposalKind::kKestraFlowDiff);
      EXPECT_FALSE(fix->proposal.drafted);
      EXPECT_NE(fix->proposal.not_drafted.find("neither revision 8's nor revision 7's"), std::string::npos)
          << fix->proposal.not_drafted;
    }
  }
}

TEST_F(KestraRevisionSeed, ARevisionWhoseDiffCannotBeUndoneSaysWhyAndInventsNothing) {
  const std::string current = ReadAll(Flow());
  std::string seven = current;
  seven.replace(seven.find("/v1/"), 4, "/v2/");
  const std::string diff = MakeUnifiedDiff("pricing/tariff_sync.yml", seven, current);
  struct Case {
    std::string what, says;
    bool truncated = false;
    std::string file;  // the team's file, "" to keep the example's
    Json diff;
  };
  const std::vector<Case> cases = {
      {"a diff cut short when it was recorded", "cut short", true, "", diff},
      {"no diff (Kestra no longer served revision 7)", "Kestra no longer serves revision 7's source", false, "",
       nullptr},
      {"a team's file on neither side of the diff", "holds neither revision 8's source nor revision 7's", false,
       "id: tariff_sync\nnamespace: pricing\ntasks: []\n", diff},
      {"a diff that is not one", "cannot be read", false, "", "--- a/x\n+++ b/x\n@@ nonsense\n"},
  };
  int n = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    Copy("ev-kestra", "case" + std::to_string(++n));
    if (!c.file.empty()) std::ofstream(Flow(), std::ios::binary | std::ios::trunc) << c.file;
    std::string id = OpenRevisionIncident(c.diff, c.truncated);
    auto out = ProposeWith(id, std::nullopt);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    const StoredProposal* fix = Find(*out, ProposalKind::kKestraFlowDiff);
    ASSERT_NE(fix, nullptr);
    // No rollback, and why; the fix from the evidence (the graph knows a newer endpoint than the
    // one the diff names) is tried instead, and says why it is not a rollback.
    if (fix->proposal.drafted) {
      EXPECT_EQ(fix->proposal.title.find("roll back"), std::string::npos) << fix->proposal.title;
      EXPECT_NE(fix->proposal.why.find("no rollback of the revision was drafted: "), std::string::npos);
      EXPECT_NE(fix->proposal.why.find(c.says), std::string::npos) << fix->proposal.why;
    } else {
      EXPECT_NE(fix->proposal.not_drafted.find(c.says), std::string::npos) << fix->proposal.not_drafted;
    }
  }
}

}  // namespace propose_test
}  // namespace
}  // namespace dw::actions
