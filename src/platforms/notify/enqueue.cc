// Enqueue: the one call the incidents and actions stages make to notify people.
#include "platforms/notify/channel.h"
#include "platforms/notify/notice.h"
#include "platforms/notify/notify.h"
#include "platforms/notify/routing.h"

namespace dw::platforms::notify {

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
  EnqueueReport report;
  Status st = store.InTransaction([&](store::StateStore& tx) -> Status {
    for (const std::string& name : RoutedChannels(ws, notice)) {
      auto channel = MakeChannel(name, ws.notify[name]);
      // A misconfigured channel is still queued: delivery records why it cannot be sent, where
      // `dw incidents show` lists it, instead of the notice vanishing here.
      if (channel.ok() && !(*channel)->Handles(notice.event)) continue;
      store::OutboxMessage m;
      m.incident_id = notice.incident_id;
      m.channel = name;
      m.event = EventKey(notice);
      m.payload = {{"notice", NoticeToJson(notice)}, {"to", who.to}, {"cc", who.cc}};
      m.next_attempt_at = clock.Now();
      auto added = tx.EnqueueOutbox(m);
      if (!added.ok()) return added.status();
      (*added ? report.queued : report.duplicate).push_back(name);
    }
    return Status::Ok();
  });
  if (!st.ok()) return st;
  return report;
}

}  // namespace dw::platforms::notify
