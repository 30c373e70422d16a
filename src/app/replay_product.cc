#include "app/replay_product.h"

#include <map>
#include <mutex>
#include <set>

#include "actions/actions.h"
#include "agents/agents.h"
#include "workspace/incident_desk.h"
#include "workspace/proposals.h"
#include "workspace/services.h"
#include "workspace/graph_answers.h"
#include "workspace/watch_jobs.h"
#include "mcp/session.h"

namespace dw::app {
namespace {

// Keeps the messages one MCP request produced (the session delivers them before Handle returns).
class CollectingSink : public mcp::MessageSink {
 public:
  void Send(const Json& message) override {
    std::lock_guard<std::mutex> lock(mu_);
    messages_.push_back(message);
  }
  // The response to request `id`, if one came.
  std::optional<Json> ResponseTo(int id) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& m : messages_)
      if (m.contains("id") && m["id"] == id && (m.contains("result") || m.contains("error"))) return m;
    return std::nullopt;
  }

 private:
  std::mutex mu_;
  std::vector<Json> messages_;
};

class ServicesProduct final : public replay::ReplayProduct {
 public:
  ServicesProduct(std::shared_ptr<workspace::Services> services, std::map<std::string, actions::IssuedKey> keys)
      : services_(std::move(services)), keys_(std::move(keys)) {}

  Status AddWatchJobs(observe::watch::WatchLoop& loop, std::function<void(std::string)> log) override {
    auto env = workspace::WatchEnvironmentFor(services_, [log](const std::string& line) { log(line); });
    return observe::watch::AddWatchJobs(loop, workspace::WatchJobKinds(services_), env);
  }

  Result<store::StateStore*> State() override { return services_->state(); }

  Result<std::vector<incidents::Incident>> Incidents(const std::string& asset_id) override {
    auto desk = Desk();
    if (!desk.ok()) return desk.status();
    incidents::IncidentFilter f;
    f.asset_id = asset_id;
    f.limit = 1000;
    return (*desk)->List(f);
  }
  Result<incidents::Diagnosis> Diagnose(const std::string& id) override {
    auto desk = Desk();
    if (!desk.ok()) return desk.status();
    return (*desk)->Diagnose(id);
  }

  Status PostOpenLineage(const std::string& jsonl) override {
    // One request per line, as a producer posts its events (the intake takes one event or a JSON
    // array per body, never JSON lines); the first refused line stops the scenario, named.
    size_t number = 0;
    for (std::string_view rest = jsonl; !rest.empty();) {
      const size_t eol = rest.find('\n');
      const std::string_view line = rest.substr(0, eol);
      rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
      ++number;
      if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
      net::JsonRouteRequest req;
      req.method = "POST";
      req.path = "/api/v1/lineage";
      req.raw_body = line;  // a view into `jsonl`, which outlives the call
      net::JsonRouteReply reply = workspace::LineageRoute(*services_, req);
      if (reply.status >= 200 && reply.status < 300) continue;
      return InvalidArgument("line " + std::to_string(number) + ": the OpenLineage intake answered HTTP " +
                             std::to_string(reply.status) + ": " + (reply.text.empty() ? reply.body.dump() : reply.text));
    }
    return Status::Ok();
  }

  Result<Json> CallTool(const std::string& agent, const std::string& name, const Json& arguments) override {
    const agents::AgentInfo* info = agents::FindAgent(agent);
    if (!info) return InvalidArgument("no agent '" + agent + "'; the agents are " + agents::AgentNameList());
    mcp::Session session(agents::BuildAgentCatalog(*info, services_), agents::ServerInfoFor(*info));
    CollectingSink sink;
    session.Handle({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
                    {"params", {{"protocolVersion", mcp::kSupportedProtocolVersions[0]},
                                {"capabilities", Json::object()},
                                {"clientInfo", {{"name", "dw-replay"}, {"version", DW_VERSION}}}}}},
                   sink);
    auto init = sink.ResponseTo(1);
    if (!init || init->contains("error"))
      return Internal("the MCP session of " + agent + " did not initialize: " + (init ? init->dump() : "no answer"));
    session.Handle({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}, sink);
    session.Handle({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/call"},
                    {"params", {{"name", name}, {"arguments", arguments}}}},
                   sink);
    auto answer = sink.ResponseTo(2);
    session.Close();
    if (!answer) return Internal("the MCP session of " + agent + " gave no answer to tools/call " + name);
    if (answer->contains("error"))
      return InvalidArgument("tools/call " + name + " on " + agent + " failed: " + (*answer)["error"].dump());
    return (*answer)["result"];
  }

  Status PersonAction(const replay::PersonEvent& action, TimePoint) override {
    auto desk = Desk();
    if (!desk.ok()) return desk.status();
    auto store = services_->state();
    if (!store.ok()) return store.status();
    if (action.does == "approve" || action.does == "deny") return Decide(action, **store);
    // acknowledge / resolve / fix: the incident named (an id, or an asset it is on), else the only
    // unresolved one.
    auto id = IncidentOf(action);
    if (!id.ok()) return id.status();
    const Clock& clock = services_->clock();
    if (action.does == "fix") {
      // The owner's change is the event's own world writes (applied before this call); what the
      // product does is verify, exactly as `dw incidents verify ID --as PERSON` does.
      auto v = actions::VerifyIncident(**store, services_->workspace(), **desk, *id,
                                       workspace::VerifyOptionsFor(*services_, action.as), clock);
      return v.status();  // a failed verification is an outcome (recorded, a person asked), not an error
    }
    Result<incidents::Incident> moved = action.does == "acknowledge" ? (*desk)->Acknowledge(*id, action.as, action.reason)
                                                                       : (*desk)->Resolve(*id, action.as, action.reason);
    if (!moved.ok()) return moved.status();
    if (action.does == "resolve") return actions::WriteResolutionReceipts(**store, services_->workspace(), **desk, clock).status();
    return Status::Ok();
  }

 private:
  // The incident a person's action is about: `incident` (an id, or an asset it is on), else the
  // only unresolved incident.
  Result<std::string> IncidentOf(const replay::PersonEvent& action) {
    std::string id = action.incident;
    if (!id.empty() && id.find("://") == std::string::npos) return id;
    auto open = Incidents(id);
    if (!open.ok()) return open.status();
    std::vector<std::string> candidates;
    for (const auto& i : *open)
      if (i.status != incidents::IncidentStatus::kResolved && i.status != incidents::IncidentStatus::kClosed)
        candidates.push_back(i.id);
    if (candidates.size() != 1)
      return FailedPrecondition(std::to_string(candidates.size()) + " unresolved incident(s)" +
                                (id.empty() ? "" : " on " + id) + "; name the incident the person " + action.does + "s");
    return candidates.front();
  }

  // approve / deny: the proposal named by id, or by kind among the incident's proposals (newest
  // version), decided through actions::Decide exactly as `dw approve` does: a statement signed
  // with the person's own key, which the replay issued to them in its scratch store.
  Status Decide(const replay::PersonEvent& action, store::StateStore& store) {
    const Clock& clock = services_->clock();
    std::string proposal_id = action.proposal;
    int64_t version = 1;
    auto direct = actions::GetProposalState(store, actions::TrustOf(services_->workspace()), proposal_id, 0, clock);
    if (direct.ok()) {
      version = direct->record.version;
    } else {
      auto id = IncidentOf(action);
      if (!id.ok()) return id.status();
      auto proposals = store.ProposalsOfIncident(*id);
      if (!proposals.ok()) return proposals.status();
      std::string found;
      std::string kinds;
      for (const auto& p : *proposals) {
        kinds += (kinds.empty() ? "" : ", ") + p.kind;
        if (p.kind == action.proposal && (found.empty() || p.version >= version)) found = p.id, version = p.version;
      }
      if (found.empty())
        return FailedPrecondition("incident " + *id + " has no proposal '" + action.proposal + "' to " + action.does +
                                  " (its proposals: " + (kinds.empty() ? std::string("none") : kinds) + ")");
      proposal_id = found;
    }
    // The person's key, issued by the replay and declared in the workspace copy, stored when they
    // first decide; an identity that has no key (an agent) still goes to Decide unsigned, which
    // refuses and records it.
    std::string signature;
    auto key = keys_.find(action.as);
    if (key != keys_.end() && !stored_.count(action.as)) {
      DW_RETURN_IF_ERROR(actions::StorePersonKey(store, key->second, clock, "dw replay"));
      stored_.insert(action.as);
    }
    actions::Verdict verdict = action.does == "approve" ? actions::Verdict::kApprove : actions::Verdict::kDeny;
    actions::DecisionStatement statement = actions::NewStatement(action.as, proposal_id, version, verdict, action.reason, clock);
    if (key != keys_.end()) {
      auto signed_ = actions::SignStatement(statement, key->second.private_key_pem);
      if (!signed_.ok()) return signed_.status();
      signature = *signed_;
    }
    auto out = actions::Decide(store, services_->workspace(), {statement, "scenario", signature}, clock);
    if (!out.ok()) return out.status();
    if (!out->accepted) return FailedPrecondition("refused (recorded): " + out->reason);
    return Status::Ok();
  }

  Result<incidents::IncidentDesk*> Desk() {
    if (!desk_) {
      auto desk = workspace::OpenIncidentDesk(*services_);
      if (!desk.ok()) return desk.status();
      desk_ = std::move(desk).value();
    }
    return desk_.get();
  }
  std::shared_ptr<workspace::Services> services_;
  std::unique_ptr<incidents::IncidentDesk> desk_;
  std::map<std::string, actions::IssuedKey> keys_;  // person -> key (the private half never stored)
  std::set<std::string> stored_;                     // people whose public key is in the store
};

}  // namespace

Result<std::unique_ptr<replay::ReplayProduct>> MakeReplayProduct(const std::filesystem::path& dir, const Clock& clock,
                                                                 const std::map<std::string, actions::IssuedKey>& person_keys) {
  auto services = workspace::Services::Load(dir, clock);
  if (!services->workspace_status().ok()) return services->workspace_status();
  return std::unique_ptr<replay::ReplayProduct>(new ServicesProduct(std::move(services), person_keys));
}

}  // namespace dw::app
