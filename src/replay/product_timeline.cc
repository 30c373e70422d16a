#include "replay/product_timeline.h"

#include <algorithm>

#include "platforms/notify/notify.h"

namespace dw::replay {
namespace {

std::string JoinAssets(const std::vector<std::string>& assets) {
  std::string out;
  for (size_t i = 0; i < assets.size() && i < 3; ++i) out += (i ? ", " : "") + assets[i];
  if (assets.size() > 3) out += " and " + std::to_string(assets.size() - 3) + " more";
  return out;
}

std::string Sev(int level) { return "SEV" + std::to_string(level); }

// The status's name as the incidents stage spells it (IncidentStatusName), kept here so that the
// timeline needs nothing but the stage's types.
std::string StatusName(incidents::IncidentStatus s) {
  switch (s) {
    case incidents::IncidentStatus::kOpen: return "open";
    case incidents::IncidentStatus::kAcknowledged: return "acknowledged";
    case incidents::IncidentStatus::kMitigated: return "mitigated";
    case incidents::IncidentStatus::kResolved: return "resolved";
    case incidents::IncidentStatus::kClosed: return "closed";
  }
  return "unknown";
}

// The row for one action event ("" for the kinds the timeline leaves out).
std::string DescribeAction(const store::ActionEventRecord& e) {
  auto subject = [&] {
    size_t colon = e.subject.find(':');
    return colon == std::string::npos ? e.subject : e.subject.substr(colon + 1);
  };
  const std::string v = e.body.contains("version") ? " v" + e.body["version"].dump() : "";
  auto people = [&](const char* key) {
    std::string out;
    for (const auto& p : e.body.value(key, Json::array())) out += (out.empty() ? "" : ", ") + p.get<std::string>();
    return out;
  };
  if (e.kind == "drafted") return "Proposal " + subject() + v + " drafted (" + e.body.value("kind", "") + ")";
  if (e.kind == "sent") return "Approval request for " + subject() + v + " sent to " + people("approvers");
  if (e.kind == "escalated") return "Approval request for " + subject() + v + " escalated to " + people("approvers");
  if (e.kind == "awaiting") return "Approval request for " + subject() + v + " still waits for " + e.body.value("waits_for", "");
  if (e.kind == "lapsed") return "Approval request for " + subject() + v + " lapses: " + e.body.value("reason", "");
  if (e.kind == "expired") return "Approval request for " + subject() + v + " expired unanswered";
  if (e.kind == "approved") return e.actor + " approves " + subject() + v + " (signed, via " + e.body.value("surface", "") + ")";
  if (e.kind == "denied") return e.actor + " denies " + subject() + v + ": " + e.body.value("reason", "");
  if (e.kind == "refused") return "Refused: " + e.body.value("action", "") + " " + subject() + " by " + e.actor + ": " + e.body.value("reason", "");
  if (e.kind == "verified" || e.kind == "verification_failed" || e.kind == "cause_still_live") return e.body.value("summary", e.kind);
  if (e.kind == "attention_requested")
    return "A person is asked to look at " + subject() + ": " +
           (people("people").empty() ? e.body.value("note", "nobody is named") : people("people"));
  if (e.kind == "receipt_written")
    return "Receipt " + e.body.value("seq", Json()).dump() + " written for " + e.body.value("incident", "") + " (hash " +
           e.body.value("hash", "").substr(0, 12) + "...)";
  if (e.kind == "dispatched") return "Ran by itself: " + e.body.value("step", "") + " " + e.body.value("target", "");
  if (e.kind == "stop") return "Stop switch set by " + e.actor;
  if (e.kind == "lift") return "Stop switch lifted by " + e.actor;
  return "";
}

}  // namespace

Status ProductTimeline::ObserveNotifications(const std::string& incident_id, std::vector<TimelineRow>& rows) {
  auto store = product_.State();
  if (!store.ok()) return store.status();
  auto sent = platforms::notify::NotificationsOf(**store, incident_id);
  if (!sent.ok()) return sent.status();
  for (const auto& n : *sent) {
    if (n.state != "sent" && n.state != "failed") continue;
    if (!notifications_seen_.insert(incident_id + "|" + n.channel + "|" + n.event).second) continue;
    std::string event = n.event.substr(0, n.event.find(':'));  // approval_requested:<revision>
    rows.push_back({n.updated_at, "Data Workers",
                    n.channel + ": " + event + (n.state == "sent" ? " sent for " + incident_id
                                                                 : " failed for " + incident_id + ": " + n.last_error),
                    true});
  }
  return Status::Ok();
}

Status ProductTimeline::ObserveActions(std::vector<TimelineRow>& rows) {
  auto store = product_.State();
  if (!store.ok()) return store.status();
  auto events = (*store)->ActionEvents("");
  if (!events.ok()) return events.status();
  for (const auto& e : *events) {
    if (e.seq <= actions_seen_) continue;
    actions_seen_ = e.seq;
    std::string what = DescribeAction(e);
    if (!what.empty()) rows.push_back({e.at, "Data Workers", what, true});
  }
  return Status::Ok();
}

Status ProductTimeline::Observe(TimePoint now, std::vector<TimelineRow>& rows) {
  auto listed = product_.Incidents("");
  if (!listed.ok()) return listed.status();
  // Oldest first, so rows read in the order things happened.
  for (auto it = listed->rbegin(); it != listed->rend(); ++it) {
    const incidents::Incident& inc = *it;
    auto [trace_it, opened] = traces_.try_emplace(inc.id);
    IncidentTrace& t = trace_it->second;
    int level = inc.severity.level;
    if (opened) {
      t.id = inc.id;
      t.first_seen = now;
      t.highest_severity = level;
      t.level = level;
      t.status = StatusName(inc.status);
      rows.push_back({now, "Data Workers",
                      "Incident " + inc.id + " opened on " + JoinAssets(inc.damaged_assets) + " (" + Sev(level) +
                          "): " + inc.title,
                      true});
    } else {
      if (level != t.level)
        rows.push_back({now, "Data Workers",
                        "Severity of " + inc.id + (level < t.level ? " raised to " : " lowered to ") + Sev(level) +
                            ": " + inc.severity.reason,
                        true});
      std::string status = StatusName(inc.status);
      if (status != t.status) rows.push_back({now, "Data Workers", "Incident " + inc.id + " is " + status, true});
      t.status = status;
    }
    t.level = level;
    t.highest_severity = std::min(t.highest_severity, level);
    if (inc.severity.acts_at && !inc.severity.consumer.empty()) {
      std::pair<std::string, TimePoint> next{inc.severity.consumer, *inc.severity.acts_at};
      if (std::find(t.acts_next.begin(), t.acts_next.end(), next) == t.acts_next.end()) t.acts_next.push_back(next);
    }
    // A source the incident did not hold before: the row says what joined it.
    if (!opened)
      for (size_t k = signals_seen_[inc.id]; k < inc.signals.size(); ++k)
        rows.push_back({now, "Data Workers", inc.id + " takes " + inc.signals[k].key + ": " + inc.signals[k].summary, true});
    // A new incident, or one that took a new source, is diagnosed as the desk would be asked to.
    if (opened || signals_seen_[inc.id] != inc.signals.size()) {
      signals_seen_[inc.id] = inc.signals.size();
      if (inc.status == incidents::IncidentStatus::kOpen || inc.status == incidents::IncidentStatus::kAcknowledged) {
        auto d = product_.Diagnose(inc.id);
        if (!d.ok()) return d.status();
        std::string cause = d->ranked.empty() ? "" : d->ranked.front().kind + " on " + d->ranked.front().asset_id;
        // Another change of the same kind on the same asset is another cause (the loader's 09:00
        // run in WARNING, collected after its 08:00 run was ranked): compared with its dedup key.
        const std::string cause_key = d->ranked.empty() ? "" : cause + "\n" + d->ranked.front().dedup_key;
        if (cause_key != t.cause) {
          rows.push_back({now, "Data Workers",
                          d->ranked.empty() ? "Diagnosis of " + inc.id + ": " + d->summary
                                            : "Cause ranked first for " + inc.id + ": " + cause + " at " +
                                                  FormatRfc3339(d->ranked.front().happened_at) + " (" +
                                                  d->ranked.front().explanation + ")",
                          true});
          t.cause = cause_key;
        }
      }
    }
  }
  for (const auto& [id, trace] : traces_) DW_RETURN_IF_ERROR(ObserveNotifications(id, rows));
  return ObserveActions(rows);
}

}  // namespace dw::replay
