#include "replay/product_timeline.h"

#include <algorithm>

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

}  // namespace

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
        if (cause != t.cause) {
          rows.push_back({now, "Data Workers",
                          d->ranked.empty() ? "Diagnosis of " + inc.id + ": " + d->summary
                                            : "Cause ranked first for " + inc.id + ": " + cause + " at " +
                                                  FormatRfc3339(d->ranked.front().happened_at) + " (" +
                                                  d->ranked.front().explanation + ")",
                          true});
          t.cause = cause;
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace dw::replay
