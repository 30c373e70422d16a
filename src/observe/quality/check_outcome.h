// What one check on one table found: the measured value, what it was compared with, and how the
// measurement was made. A check that did not run says so (skipped, with the reason); it is never
// reported as passed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/json.h"
#include "base/status.h"

namespace dw::observe::quality {

// kWarn: the check failed and its level is warn (check_spec.h, CheckLevel): shown and recorded,
// fails no run and opens no incident by itself.
enum class Verdict { kPass, kFail, kError, kSkipped, kWarn };

// "pass", "fail", "error", "skipped", "warn".
const char* VerdictName(Verdict v);

struct CheckOutcome {
  std::string name;  // unique within the table: "not_null:balance", "unique:store_id,day", "freshness"
  std::string type;  // the check's kind: not_null, unique, freshness, volume, accepted_values,
                     // range, schema, row_count_change, custom
  Verdict verdict = Verdict::kError;
  Json observed;   // what was measured (null when nothing was)
  Json threshold;  // what it was compared with
  std::string message;          // one sentence a person can act on
  int64_t duration_ms = 0;      // time of the query (or queries) that measured it
  std::optional<int64_t> rows_scanned;  // rows the measuring query read, where known
  std::optional<Json> sample;   // failed rows (at most 10; pii columns masked), failures only
  // The query listing the rows behind a failure (warn included), pii columns masked, literals
  // inlined, for a person to run; or why there is none (in `message`). Failures only.
  std::optional<std::string> failing_rows_query;

  // The outcome as the JSON that `dw check --format json` and run_quality_check return.
  Json ToJson() const;
};

// A skipped outcome with `reason`.
CheckOutcome Skipped(std::string name, std::string type, std::string reason);
// An error outcome with `message` (typically the warehouse's own words).
CheckOutcome Errored(std::string name, std::string type, std::string message);

// An error outcome for a check the warehouse could not answer: `status`'s message (the warehouse's
// own words, which name the table where the service does) followed by what to do about that kind
// of failure (WhatToDo). The same failure gives the same message for every check it stops, so an
// observation gap is said once however many checks it stopped (workspace/observation_gaps.h).
CheckOutcome Unobserved(std::string name, std::string type, const Status& status);

// "; what to do: ..." for a warehouse's failure: a table gone (kNotFound), rights missing
// (kPermissionDenied), a quota or byte cap (kResourceExhausted), an answer the client cannot read
// (kDataLoss), a query past its timeout (kDeadlineExceeded); "" for any other code.
std::string WhatToDo(const Status& status);

}  // namespace dw::observe::quality
