// Scoring a whole series file with the product's detector: what `dw monitor score` does, so anyone
// can judge any `timestamp,value` series the way a monitor would.
#pragma once

#include <ostream>
#include <vector>

#include "observe/metrics/detector.h"
#include "observe/metrics/series_csv.h"

namespace dw::observe::metrics {

struct ScoreSummary {
  size_t points = 0;
  size_t anomalies = 0;           // alarms (anomaly, level shift, stuck, out of bounds)
  size_t invalid = 0;             // NaN, infinite, or not after the previous point
  size_t insufficient = 0;        // judged before enough history
  Seasonality seasonality = Seasonality::kNone;  // in use at the end (the detected one for auto)
};

// Feeds `rows` in order to one StreamingDetector with `options` and writes
// `timestamp,value,anomaly_score,is_anomaly,expected_low,expected_high,note` for every row (empty
// expected_* while there is no baseline or on an unbounded side). A row the detector could not
// judge (NaN, infinite, out of order) has empty anomaly_score, is_anomaly and expected_* and a
// note saying why, so it never reads as a normal point; a row judged before there is enough
// history has the note "too little history to judge". REQUIRES: ValidateDetectorOptions(options).ok().
ScoreSummary WriteScoredSeries(const std::vector<SeriesRow>& rows, const DetectorOptions& options,
                               std::ostream& out);

}  // namespace dw::observe::metrics
