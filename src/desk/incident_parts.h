// Internal to desk/: the sections of the incident page, each built from one stage's answer.
#pragma once

#include <string>
#include <vector>

#include "actions/actions.h"
#include "base/json.h"
#include "incidents/incidents.h"
#include "store/records.h"
#include "workspace/services.h"

namespace dw::desk {

// One row of the timeline as the seed pages tell it.
struct TimelineEntry {
  TimePoint at;
  std::string system;  // "Flink", "Kafka Connect", "Data Workers", a person's email
  std::string what;
};

// "Flink" for flink://..., "Kestra", "Kafka", "Kafka Connect", "warehouse", "dbt", and the
// instance for sync:// and dashboard:// (hightouch, superset).
std::string SystemOf(const std::string& asset_id);

// The ranked causes: each with its score, explanation, evidence, counter-evidence and path.
std::string CausesSection(const incidents::Diagnosis& diagnosis, const config::TimeZone& zone);

// The blast radius: the lineage picture from the cause through the damage to the consumers, and
// the consumers that act with their deadlines (customer-facing marked).
std::string BlastRadiusSection(workspace::Services& services, const incidents::Incident& incident,
                               const Json& blast_radius);

// The metric plots (the observe stage's SVG) of the incident's metric signals.
std::string MetricPlotsSection(workspace::Services& services, store::StateStore& store,
                               const incidents::Incident& incident);

// The check results the incident holds (and the latest run of each damaged table's checks).
std::string ChecksSection(store::StateStore& store, const incidents::Incident& incident, const config::TimeZone& zone);

// The proposals of the incident, newest version each, with their diffs and approval state; their
// events are added to `timeline`. Decisions are read under `trust`.
std::string ProposalsSection(store::StateStore& store, const actions::DecisionTrust& trust, const Clock& clock,
                             const std::string& incident_id,
                             std::vector<TimelineEntry>* timeline, const config::TimeZone& zone);

// The notifications written for the incident (the outbox), each with its delivery state; added to
// `timeline` too.
std::string NotificationsSection(store::StateStore& store, const std::string& incident_id,
                                 std::vector<TimelineEntry>* timeline, const config::TimeZone& zone);

// A unified diff as HTML: added, removed, hunk and context lines marked.
std::string DiffBlock(const std::string& unified);

}  // namespace dw::desk
