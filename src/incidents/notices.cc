// What an incident tells people: the notice of each lifecycle event, built from the incident as
// this stage knows it, and written to the outbox of platforms/notify/.
#include "base/log.h"
#include "incidents/incident_codec.h"
#include "incidents/incidents.h"

namespace dw::incidents {

platforms::notify::IncidentNotice NoticeOf(const config::Workspace& ws, const Incident& inc,
                                           platforms::notify::EventKind event, const std::string& summary) {
  platforms::notify::IncidentNotice n;
  n.incident_id = inc.id;
  n.dedup_key = "dw:" + (ws.name.empty() ? std::string("workspace") : ws.name) + ":" + inc.id;
  n.event = event;
  n.severity = "SEV" + std::to_string(inc.severity.level);
  if (ws.domains.count(inc.domain)) n.domain = inc.domain;
  n.title = inc.title;
  n.asset = !inc.damaged_assets.empty() ? inc.damaged_assets.front() : inc.root_asset;
  if (!inc.cause_kind.empty())
    n.cause = inc.cause_kind + (inc.cause_asset.empty() ? "" : " on " + inc.cause_asset);
  n.diagnosis = inc.severity.reason;
  if (!inc.owner.empty()) n.diagnosis += (n.diagnosis.empty() ? "" : "\n") + std::string("Owner: ") + inc.owner;
  n.consumer = inc.severity.consumer;
  if (inc.severity.acts_at) n.deadline = FormatRfc3339(*inc.severity.acts_at);
  n.summary = summary;
  return n;
}

Result<Incident> ReadIncident(store::StateStore& store, const std::string& id) {
  auto row = store.GetIncident(id);
  if (!row.ok()) return row.status();
  if (!row->has_value()) return NotFound("no incident " + id.substr(0, 80));
  return FromRecord(**row);
}

Status EnqueueNotice(const config::Workspace& ws, store::StateStore& store, const Clock& clock,
                     const platforms::notify::IncidentNotice& notice) {
  if (ws.notify.empty()) return Status::Ok();
  auto r = platforms::notify::Enqueue(ws, store, clock, notice);
  if (r.ok()) return Status::Ok();
  if (r.status().code() == StatusCode::kInvalidArgument) {
    spdlog::warn("notify: {} {} not queued: {}", notice.incident_id,
                 platforms::notify::EventKindName(notice.event), r.status().message());
    return Status::Ok();
  }
  return r.status();
}

}  // namespace dw::incidents

namespace dw::incidents {

Result<std::vector<platforms::notify::NotificationStatus>> IncidentDesk::Notifications(const std::string& id) {
  auto inc = Load(id);
  if (!inc.ok()) return inc.status();
  return platforms::notify::NotificationsOf(store_, inc->id);
}

Json NotificationsToJson(const std::vector<platforms::notify::NotificationStatus>& list) {
  Json out = Json::array();
  for (const auto& n : list)
    out.push_back({{"channel", n.channel}, {"event", n.event}, {"state", n.state}, {"attempts", n.attempts},
                   {"last_error", n.last_error}, {"answer", n.answer}, {"updated_at", FormatRfc3339(n.updated_at)}});
  return out;
}

}  // namespace dw::incidents
