// Marking a range of a metric expected: a person says "these points are right" (a holiday, a
// planned migration, a new level), the mark is stored, and every later replay of the metric
// feeds the points in the range to the detector as expected, so they are learnt, not judged, and a
// new level becomes the normal one.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "config/workspace.h"
#include "store/state_store.h"

namespace dw::observe::metrics {

// Parses an RFC 3339 time with a zone ("2027-01-15T08:00:00Z", "...+01:00", optional fraction)
// into Unix ms. InvalidArgument naming `what` and quoting the text otherwise (a bare date or a
// time without a zone is refused: a mark must not depend on where it was typed).
Result<int64_t> ParseRfc3339Millis(std::string_view text, const std::string& what);

struct MarkRequest {
  std::string metric;
  int64_t from_ms = 0;  // inclusive
  int64_t to_ms = 0;    // inclusive
  std::string note;     // at most 500 characters
  std::string author;   // the person who says the range is expected (checked by the caller)
};

struct MarkReport {
  int64_t id = 0;             // the stored mark's id
  size_t points_covered = 0;  // stored points of the metric inside the range now
};

// Ok when `metric` is a workspace monitor, has stored points or is in `also_known`; else
// NotFound("unknown metric ...") with the closest names; the store's error if it cannot be read.
Status CheckKnownMetric(const config::Workspace& ws, store::StateStore& store,
                        const std::string& metric, const std::vector<std::string>& also_known = {});

// Checks `req` without writing: the metric is a workspace monitor, has stored points or is in
// `also_known` (metrics about to be recorded in the same call), else NotFound with close names;
// from <= to, the range is at most 400 days, the note at most 500 characters, an author is named
// (InvalidArgument naming the field).
Status ValidateMark(const config::Workspace& ws, store::StateStore& store, const MarkRequest& req,
                    const std::vector<std::string>& also_known = {});

// Validates `req` (as ValidateMark) and stores it; from then on every replay of the metric learns
// the points in [from, to] as expected. The store's error if the write fails.
Result<MarkReport> MarkExpected(const config::Workspace& ws, store::StateStore& store,
                                const MarkRequest& req);

}  // namespace dw::observe::metrics
