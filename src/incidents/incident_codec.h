// An incident as the store keeps it: IncidentRecord's columns for what the store indexes, the
// whole incident as JSON in its body (the same JSON the tools answer with). Parsing is strict
// about types so a hand-edited row is reported, not half read.
#pragma once

#include "incidents/incidents.h"
#include "store/records.h"

namespace dw::incidents {

// The record for `incident`; body also lists the metrics its signals name (body "metrics"), which
// the metric service reads to keep the incident's window out of training.
store::IncidentRecord ToRecord(const Incident& incident);

// The incident a record holds. DataLoss naming the id and the field when the body is not one this
// stage wrote.
Result<Incident> FromRecord(const store::IncidentRecord& record);

// True iff the status still needs someone (open, acknowledged or mitigated).
bool IsActive(IncidentStatus status);

}  // namespace dw::incidents
