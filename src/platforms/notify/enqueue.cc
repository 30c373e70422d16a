// Enqueue: the one call the incidents and actions stages make to notify people.
#include <algorithm>

#include "platforms/notify/channel.h"
#include "platforms/notify/notice.h"
#include "platforms/notify/notify.h"
#include "platforms/notify/routing.h"

namespace dw::platforms::notify {

std::vector<std::string> ChannelsCarrying(const config::Workspace& ws, const IncidentNotice& notice) {
  std::vector<std::string> out;
  for (const std::string& name : RoutedChannels(ws, notice)) {
    auto channel = MakeChannel(name, ws.notify[name]);
    if (!channel.ok() || (*channel)->Handles(notice.event)) out.push_back(name);
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> UnroutedDecisionWarnings(const config::Workspace& ws) {
  std::vector<std::pair<std::string, std::string>> out;
  auto reaches_nobody = [&](const std::string& domain, EventKind event) {
    for (const char* severity : {"SEV1", "SEV2", "SEV3", "SEV4", "SEV5"}) {
      IncidentNotice n;
      n.domain = domain;
      n.severity = severity;
      n.event = event;
      if (!ChannelsCarrying(ws, n).empty()) return false;
    }
    return true;
  };
  for (const auto& [name, d] : ws.domains) {
    const bool asks = d.autonomy.size() == 2 && d.autonomy[0] == 'L' && d.autonomy[1] >= '2' && !d.approvers.empty();
    if (asks && reaches_nobody(name, EventKind::kApprovalRequested))
      out.push_back({"domains." + name, "approval requests (autonomy " + d.autonomy +
                                            ") reach no notification channel: they are recorded and nobody is "
                                            "told (configure notify:, or route this domain)"});
    if (!d.escalate_to.empty() && reaches_nobody(name, EventKind::kEscalated))
      out.push_back({"domains." + name + ".escalate_to",
                     "escalations reach no notification channel: nobody is told when a request expires "
                     "(configure notify:, or route this domain)"});
  }
  return out;
}

Result<EnqueueReport> Enqueue(const config::Workspace& ws, store::StateStore& store,
                              const Clock& clock, const IncidentNotice& given) {
  if (given.incident_id.empty()) return InvalidArgument("a notice needs the incident id");
  if (given.dedup_key.empty()) return InvalidArgument("notice for " + given.incident_id + " has no dedup key");
  if (given.severity.empty()) return InvalidArgument("notice for " + given.incident_id + " has no severity");
  const config::DomainConfig* domain = nullptr;
  if (!given.domain.empty()) {
    auto it = ws.domains.find(given.domain);
    if (it == ws.domains.end())
      return InvalidArgument("notice for " + given.incident_id + " names domain '" + given.domain +
                             "', which the workspace does not define");
    domain = &it->second;
  }
  IncidentNotice notice = given;
  if (notice.link.empty()) notice.link = IncidentLink(ws, notice.incident_id);
  Recipients who = RecipientsOf(domain, notice.event);
  for (const std::string& p : notice.also_to) {
    if (std::find(who.to.begin(), who.to.end(), p) != who.to.end()) continue;
    who.to.push_back(p);
    who.cc.erase(std::remove(who.cc.begin(), who.cc.end(), p), who.cc.end());
  }
  EnqueueReport report;
  Status st = store.InTransaction([&](store::StateStore& tx) -> Status {
    // A misconfigured channel is still queued: delivery records why it cannot be sent, where
    // `dw incidents show` lists it, instead of the notice vanishing here.
    for (const std::string& name : ChannelsCarrying(ws, notice)) {
      auto channel = MakeChannel(name, ws.notify[name]);
      auto add = [&](const IncidentNotice& n, const std::vector<std::string>& to,
                     const std::vector<std::string>& cc) -> Status {
        store::OutboxMessage m;
        m.incident_id = n.incident_id;
        m.channel = name;
        m.event = EventKey(n);
        m.payload = {{"notice", NoticeToJson(n)}, {"to", to}, {"cc", cc}};
        m.next_attempt_at = clock.Now();
        auto added = tx.EnqueueOutbox(m);
        if (!added.ok()) return added.status();
        (*added ? report.queued : report.duplicate).push_back(name);
        return Status::Ok();
      };
      if (notice.approval_links.empty() || !channel.ok() || (*channel)->type() != "email") {
        DW_RETURN_IF_ERROR(add(notice, who.to, who.cc));
        continue;
      }
      // Mail reaches one person: each approver gets a message of their own with only their link,
      // and the people copied a copy without links (a link in a shared message could be used by
      // whoever reads it).
      std::vector<std::string> copied = who.cc;
      for (const std::string& p : who.to) {
        IncidentNotice own = notice;
        own.approval_links.clear();
        for (const ApprovalLinkSpec& l : notice.approval_links)
          if (l.approver == p) own.approval_links.push_back(l);
        if (own.approval_links.empty()) {
          copied.push_back(p);
          continue;
        }
        own.revision += ":" + p;
        DW_RETURN_IF_ERROR(add(own, {p}, {}));
      }
      if (!copied.empty()) {
        IncidentNotice copy = notice;
        copy.approval_links.clear();
        copy.decide_hint = "Each approver received their own approval link.";
        DW_RETURN_IF_ERROR(add(copy, copied, {}));
      }
    }
    return Status::Ok();
  });
  if (!st.ok()) return st;
  return report;
}

}  // namespace dw::platforms::notify
