// What Data Workers itself did during a replay, read from the incident desk after every moment
// the clock stopped at: incidents opened, the cause ranked first (the desk's own diagnosis),
// severity raised or lowered, status changes. Kept so that expectations can ask about the whole
// replay (the highest severity seen, the consumer that acted next) and not only its last moment.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "incidents/incidents.h"
#include "replay/replay.h"

namespace dw::replay {

struct IncidentTrace {
  std::string id;
  TimePoint first_seen;
  int highest_severity = 3;  // the lowest level number seen
  std::vector<std::pair<std::string, TimePoint>> acts_next;  // (consumer, acts_at) pairs seen
  std::string status;
  std::string cause;  // "kind on asset", a newline and the dedup key of the change last ranked first ("" before any)
  int level = 0;      // the severity level last seen
};

class ProductTimeline {
 public:
  explicit ProductTimeline(ReplayProduct& product) : product_(product) {}
  // Reads every incident at `now`, appends a row per thing that changed since the last call, and
  // diagnoses incidents that were opened or took new signals (the rows name the cause ranked first);
  // then a row per new event of the actions stage's log (proposal sent, approval recorded,
  // verification passed, receipt written, ...), at the event's own time.
  Status Observe(TimePoint now, std::vector<TimelineRow>& rows);
  const std::map<std::string, IncidentTrace>& traces() const { return traces_; }

 private:
  Status ObserveActions(std::vector<TimelineRow>& rows);
  // A row per notification of `incident_id` the delivery job newly recorded as sent or failed.
  Status ObserveNotifications(const std::string& incident_id, std::vector<TimelineRow>& rows);
  ReplayProduct& product_;
  std::map<std::string, IncidentTrace> traces_;
  std::map<std::string, size_t> signals_seen_;  // incident id -> signal sources held
  int64_t actions_seen_ = 0;  // the last action event turned into a row
  std::set<std::string> notifications_seen_;  // "incident|channel|event" already given a row
};

}  // namespace dw::replay
