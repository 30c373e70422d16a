// What a signal's numbers say about the shape of the damage, so diagnosis can ask whether a change
// explains it (a restore that dropped state explains a drop towards zero, not a doubling).
#pragma once

#include <optional>
#include <string>

#include "incidents/incidents.h"
#include "store/records.h"

namespace dw::incidents {

// The shape of a metric point judged abnormal: `stuck` (the value stopped moving) is a repeat of
// an earlier period; otherwise the ratio of `value` to `expected` decides (<= 0.5 a drop, about 2
// a doubling, >= 1.3 a rise); a quality null-rate series that rises is a null-rate jump; a count
// above a declared maximum of zero is mismatches found.
SignalShape ShapeOfMetric(const std::string& metric, double value, std::optional<double> expected,
                          std::optional<double> declared_max, bool stuck);

// The shape of a failed check: not_null → null-rate jump, unique → doubling (keys written twice),
// a count that must be zero (custom must_be 0, volume max_rows 0) → mismatches found, volume below
// its minimum → level drop, row_count_change of about +100% → doubling; else unknown.
SignalShape ShapeOfCheck(const store::CheckResultRow& row);

// The observed number of a check result (the count or value it measured; 0 when none).
double ObservedNumber(const store::CheckResultRow& row);

// Whether damage of shape `upstream` in a table could, carried by the jobs that read it, show as
// `downstream` in a table built from it: nulls as nulls or lower totals, a drop as a drop (or the
// nulls of a join that found nothing), a doubling or rise as a doubling or rise, stale values as
// stale values or moved totals; an audit's mismatches come from any damage upstream. Unknown
// shapes could be anything (true). A doubling below a null-rate jump is not carried: the job
// between them did something of its own.
bool CouldPropagate(SignalShape upstream, SignalShape downstream);

}  // namespace dw::incidents
