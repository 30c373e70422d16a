// RegisterStreamSchema: a registration is a proposal of the actions stage; the registry is written
// only for an approved, unexpired one, and its answer goes into a receipt.
#include "actions/actions.h"
#include "base/rfc3339.h"

namespace dw::actions {

using schema::Format;
namespace {

std::string ProposalIdFor(const std::string& subject, const std::string& schema, Format format) {
  return "schema-" + subject + "-" + Sha256Hex(std::string(schema::FormatName(format)) + "\\n" + schema).substr(0, 12);
}

// The domain whose approvers decide: the request's, the topic asset's, or the workspace's only one.
Result<std::string> DomainFor(const RegisterSchemaRequest& req, const config::Workspace& ws, const graph::ContextGraph* graph) {
  if (!req.domain.empty()) {
    if (!ws.domains.count(req.domain)) return InvalidArgument("no domain '" + req.domain + "' in dataworkers.yaml");
    return req.domain;
  }
  if (graph) {
    std::string topic = schema::TopicOfSubject(req.subject);
    std::string domain = graph->Read([&](const graph::GraphIndex& index) -> std::string {
      uint32_t kafka = graph::KindIndex("kafka");
      for (graph::AssetIndex a = 0; a < index.asset_count(); ++a)
        if (index.asset(a).kind == kafka && graph::MatchName(index.id(a)) == topic && index.asset(a).domain)
          return index.str(index.asset(a).domain);
      return "";
    });
    if (!domain.empty()) return domain;
  }
  if (ws.domains.size() == 1) return ws.domains.begin()->first;
  return InvalidArgument("name the `domain` whose approvers decide this registration (the topic of " + req.subject +
                         " has no domain in the graph, and the workspace has " + std::to_string(ws.domains.size()) + " domains)");
}

Json StateJson(const ProposalState& st) {
  Json j = {{"id", st.record.id}, {"version", st.record.version}, {"status", ProposalStatusName(st.status)},
            {"domain", st.record.body.value("domain", "")}, {"author", st.record.body.value("author", "")}};
  if (st.request)
    j["approval"] = {{"round", st.request->round}, {"approvers", st.request->approvers}, {"expires_at", FormatRfc3339(st.request->expires_at)}};
  if (!st.decided_by.empty()) j["decided_by"] = st.decided_by;
  if (st.decided_at) j["decided_at"] = FormatRfc3339(*st.decided_at);
  return j;
}

std::string Waiting(const ProposalState& st) {
  std::string who;
  if (st.request)
    for (const auto& a : st.request->approvers) who += (who.empty() ? "" : ", ") + a;
  return "nothing was registered: proposal " + st.record.id + " v" + std::to_string(st.record.version) + " waits for the approval of " +
         (who.empty() ? "an approver of domain " + st.record.body.value("domain", std::string()) : who) +
         (st.request ? " until " + FormatRfc3339(st.request->expires_at) : std::string()) +
         " (a person decides through the actions stage; no agent and no MCP call can approve), then call again with proposal_id";
}

Result<Json> Draft(const RegisterSchemaRequest& req, store::StateStore& store, const config::Workspace& ws,
                   const config::PlatformConfig& registry, net::HttpClient& http, const graph::ContextGraph* graph, const Clock& clock) {
  platforms::schema_registry::RegistryClient client(registry, http);
  auto verdict = schema::CheckSubject(client, req.subject, req.schema, req.format, std::nullopt);
  if (!verdict.ok()) return verdict.status();
  if (!verdict->compatible)
    return FailedPrecondition("the registry would refuse this schema for " + req.subject + " (409, incompatible at " + schema::LevelName(verdict->level) +
                              "): " + (verdict->incompatibilities.empty() ? std::string() : verdict->incompatibilities[0].advice) +
                              "; nothing was proposed");
  Json impact = nullptr;
  std::string impact_note;
  if (graph) {
    schema::ImpactRequest ir{req.subject, req.schema, req.format, std::nullopt, std::nullopt};
    auto r = schema::RunImpact(ir, registry, http, *graph, schema::ImpactOptions{ws.timezone, 50}, clock.Now());
    if (r.ok()) impact = *r;
    else impact_note = r.status().message();
  }
  auto domain = DomainFor(req, ws, graph);
  if (!domain.ok()) return domain.status();
  std::string id = ProposalIdFor(req.subject, req.schema, req.format);
  auto existing = GetProposalState(store, TrustOf(ws), id, 0, clock);
  if (!existing.ok() || existing->status == ProposalStatus::kDenied || existing->status == ProposalStatus::kExpired ||
      existing->status == ProposalStatus::kSuperseded) {
    ProposalDraft d;
    d.id = id;
    d.domain = *domain;
    d.kind = kRegistrationKind;
    d.author = req.actor;
    d.content = {{"subject", req.subject}, {"schema", req.schema}, {"schema_type", schema::FormatName(req.format)},
                 {"registry", registry.name}, {"verdict", schema::ReportJson(*verdict)}};
    if (!impact.is_null()) d.content["impact_summary"] = impact["summary"];
    auto stored = StoreProposal(store, d, clock);
    if (!stored.ok()) return stored.status();
    auto sent = SendForApproval(store, ws, id, clock, req.actor);
    if (!sent.ok()) return sent.status();
    existing = GetProposalState(store, TrustOf(ws), id, 0, clock);
    if (!existing.ok()) return existing.status();
  }
  Json out = {{"registered", false}, {"status", existing->status == ProposalStatus::kApproved ? "approved" : "awaiting_approval"},
              {"subject", req.subject}, {"proposal", StateJson(*existing)}, {"verdict", schema::ReportJson(*verdict)}};
  if (!impact.is_null()) out["impact"] = impact;
  if (!impact_note.empty()) out["impact_error"] = impact_note;
  out["summary"] = existing->status == ProposalStatus::kApproved
                       ? "proposal " + id + " is approved: call again with proposal_id " + id + " to register it"
                       : Waiting(*existing);
  return out;
}

Result<Json> Register(const RegisterSchemaRequest& req, store::StateStore& store, const DecisionTrust& trust,
                      const config::PlatformConfig& registry, net::HttpClient& http, const Clock& clock) {
  auto st = GetProposalState(store, trust, req.proposal_id, 0, clock);
  if (!st.ok()) return st.status();
  if (!st->rejected.empty())
    return PermissionDenied(st->rejected.front().reason + "; nothing was registered");
  if (st->record.kind != kRegistrationKind)
    return FailedPrecondition("proposal " + req.proposal_id + " is a " + st->record.kind + ", not a schema registration; nothing was registered");
  Json content = st->record.body.value("content", Json());
  if (!content.is_object()) return DataLoss("proposal " + req.proposal_id + " holds content that is not JSON");
  std::string subject = content.value("subject", "");
  if (!req.subject.empty() && req.subject != subject)
    return FailedPrecondition("proposal " + req.proposal_id + " registers subject " + subject + ", not " + req.subject + "; nothing was registered");
  if (st->status != ProposalStatus::kApproved)
    return FailedPrecondition("proposal " + req.proposal_id + " v" + std::to_string(st->record.version) + " is " +
                              ProposalStatusName(st->status) + ", not approved; " +
                              (st->status == ProposalStatus::kPending ? Waiting(*st) : "nothing was registered"));
  if (st->request && clock.Now() >= st->request->expires_at)
    return FailedPrecondition("the approval of proposal " + req.proposal_id + " expired at " + FormatRfc3339(st->request->expires_at) +
                              "; draft the registration again; nothing was registered");
  std::string schema = content.value("schema", "");
  std::string type = content.value("schema_type", "AVRO");
  platforms::schema_registry::RegistryClient client(registry, http);
  auto id = client.Register(subject, schema, type);
  Json answer;
  if (id.ok()) {
    answer = {{"ok", true}, {"id", *id}};
    if (auto v = client.LookUp(subject, schema, type); v.ok()) answer["version"] = v->version;
  } else {
    answer = {{"ok", false}, {"error", id.status().message()}};
  }
  Json receipt_content = {{"kind", kRegistrationKind},
                          {"proposal", {{"id", st->record.id}, {"version", st->record.version}}},
                          {"approved_by", st->decided_by},
                          {"approved_at", st->decided_at ? FormatRfc3339(*st->decided_at) : ""},
                          {"subject", subject},
                          {"registry", registry.name},
                          {"schema_sha256", Sha256Hex(schema)},
                          {"registry_answer", answer}};
  auto receipt = WriteReceipt(store, receipt_content, clock);
  if (!receipt.ok()) return Internal("the registry answered but the receipt could not be written: " + receipt.status().message());
  Json out = {{"registered", id.ok()}, {"status", id.ok() ? "registered" : "refused_by_registry"}, {"subject", subject},
              {"proposal", StateJson(*st)}, {"registry_answer", answer},
              {"receipt", {{"seq", receipt->seq}, {"hash", receipt->hash}}}};
  out["summary"] = id.ok() ? "registered " + subject + " as schema id " + std::to_string(*id) +
                                 (answer.contains("version") ? ", version " + std::to_string(answer["version"].get<int64_t>()) : std::string()) +
                                 ", approved by " + st->decided_by + "; receipt " + std::to_string(receipt->seq)
                           : "the registry refused the registration: " + id.status().message() + "; receipt " + std::to_string(receipt->seq);
  if (answer.contains("id")) out["id"] = answer["id"];
  if (answer.contains("version")) out["version"] = answer["version"];
  return out;
}

}  // namespace

Result<Json> RegisterStreamSchema(const RegisterSchemaRequest& req, store::StateStore& store, const config::Workspace& workspace,
                                  const config::PlatformConfig& registry, net::HttpClient& http, const graph::ContextGraph* graph,
                                  const Clock& clock) {
  if (!req.proposal_id.empty()) return Register(req, store, TrustOf(workspace), registry, http, clock);
  if (Status s = schema::ValidateSubject(req.subject); !s.ok()) return s;
  if (auto p = schema::Parse(req.schema, req.format); !p.ok()) return p.status();
  return Draft(req, store, workspace, registry, http, graph, clock);
}

}  // namespace dw::actions
