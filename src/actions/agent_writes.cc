// What an agent's write becomes: RecordAgentWrite, the attribution of its tool call in the action
// log; and ProposeMarkExpected, a range it asks to mark expected, as a proposal a person approves.
#include "actions/agent_mark_proposal.h"
#include "actions/approval_log.h"
#include "base/person_identity.h"
#include "observe/metrics/metric_marks.h"

namespace dw::actions {

Result<int64_t> RecordAgentWrite(store::StateStore& store, const Clock& clock, const AgentWrite& write) {
  // The arguments are the agent's own words: kept to read later, but bounded so one call cannot
  // fill the log (a record of 10,000 points is summarised by its cut-off JSON and its size).
  constexpr size_t kMaxArguments = 4000;
  std::string text = write.arguments.dump();
  Json arguments = write.arguments;
  if (text.size() > kMaxArguments) {
    // Cut at a UTF-8 boundary so the stored text stays valid.
    size_t cut = kMaxArguments;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    arguments = Json{{"cut_after", cut}, {"characters", text.size()}, {"json", text.substr(0, cut)}};
  }
  return Record(store, clock, "tool_call", kAgentWritesSubject, "agent:" + write.agent,
                Json{{"client", write.client}, {"session", write.session}, {"tool", write.tool},
                     {"arguments", std::move(arguments)}});
}

}  // namespace dw::actions

// ---------------------------------------------------------------------------------------------
// ProposeMarkExpected / ApplyApprovedMark (agent_mark_proposal.h): a mark an agent asks for is a
// proposal a person approves.

namespace dw::actions {
namespace {

// The domain whose approvers decide a mark of `metric`: its monitor's asset's domain, else the
// only domain of the workspace.
Result<std::string> MarkDomain(const config::Workspace& ws, const std::string& metric) {
  for (const config::MonitorConfig& m : ws.monitors) {
    if (m.name != metric || !m.spec.is_object()) continue;
    const std::string asset = m.spec.value("asset", "");
    for (const config::AssetNote& a : ws.assets)
      if (!asset.empty() && a.id == asset && !a.domain.empty()) return a.domain;
  }
  if (ws.domains.size() == 1) return ws.domains.begin()->first;
  return InvalidArgument("no domain decides a mark of '" + metric.substr(0, 200) +
                         "': give its monitor an asset: whose asset note names a domain (the workspace has " +
                         std::to_string(ws.domains.size()) + " domains)");
}

}  // namespace

Result<MarkProposalOutcome> ProposeMarkExpected(const config::Workspace& workspace, store::StateStore& store,
                                                const MarkProposalRequest& request, const Clock& clock) {
  if (!IsAgentIdentity(request.agent)) return InvalidArgument("a mark proposal is an agent's: '" + request.agent + "'");
  observe::metrics::MarkRequest mark{request.metric, request.from_ms, request.to_ms, request.note, request.agent};
  DW_RETURN_IF_ERROR(observe::metrics::ValidateMark(workspace, store, mark));
  Result<std::string> domain = MarkDomain(workspace, request.metric);
  if (!domain.ok()) return domain.status();
  const std::string id = "mark-" + Sha256Hex(request.metric + "\n" + std::to_string(request.from_ms) + "\n" +
                                             std::to_string(request.to_ms)).substr(0, 12);
  const std::string range = FormatRfc3339(FromUnixMillis(request.from_ms)) + " to " +
                            FormatRfc3339(FromUnixMillis(request.to_ms));
  Json content = {{"metric", request.metric},
                  {"from_ms", request.from_ms},
                  {"to_ms", request.to_ms},
                  {"note", request.note},
                  {"asked_by", {{"agent", request.agent}, {"client", request.client}, {"session", request.session}}},
                  {"title", "Mark " + request.metric + " expected from " + range},
                  {"summary", "mark " + request.metric + " expected from " + range +
                                  ": its monitor learns these points instead of judging them" +
                                  (request.note.empty() ? std::string() : " (" + request.note + ")")},
                  {"touches", Json::array({request.metric})},
                  {"why", request.note},
                  {"undo", "a mark is kept for good; a later mark cannot unmark it: deny it if unsure"}};
  Result<store::ProposalRecord> stored =
      StoreProposal(store, {id, request.incident_id, *domain, kMarkExpectedKind, request.agent, content}, clock);
  if (!stored.ok()) return stored.status();
  Result<ApprovalRequestView> sent = SendForApproval(store, workspace, id, clock, request.agent);
  if (!sent.ok()) return sent.status();
  return MarkProposalOutcome{id, stored->version, "pending",
                             sent->parties.empty() ? std::string() : PartiesPhrase(sent->parties)};
}

Result<int64_t> ApplyApprovedMark(store::StateStore& store, const store::ProposalRecord& rec,
                                  const std::string& person) {
  const Json content = rec.body.value("content", Json::object());
  const std::string metric = content.is_object() ? content.value("metric", "") : "";
  const Json from = content.is_object() ? content.value("from_ms", Json()) : Json();
  const Json to = content.is_object() ? content.value("to_ms", Json()) : Json();
  if (rec.kind != kMarkExpectedKind || metric.empty() || !from.is_number_integer() || !to.is_number_integer() ||
      from.get<int64_t>() > to.get<int64_t>())
    return InvalidArgument("proposal " + rec.id + " v" + std::to_string(rec.version) +
                           " is not a range of a metric to mark expected");
  store::MetricMark mark;
  mark.metric = metric;
  mark.from = FromUnixMillis(from.get<int64_t>());
  mark.to = FromUnixMillis(to.get<int64_t>());
  mark.note = content.value("note", "");
  mark.author = person;
  return store.AddMetricMark(mark);
}

}  // namespace dw::actions
