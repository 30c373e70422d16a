// The `timestamp,value` series reader behind `dw monitor score` (observe/metrics/series_csv.h).
// The input is the CSV file's text. Properties: the read ends in rows or an error naming a line;
// every timestamp read formats and parses back to itself.
#include "observe/metrics/series_csv.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = dw::fuzz::WriteScratch("series.csv", dw::fuzz::AsText(data, size));
  auto rows = dw::observe::metrics::ReadSeriesCsv(path.string());
  if (!rows.ok()) return 0;
  for (const auto& row : *rows) {
    auto again = dw::observe::metrics::ParseSeriesTimestamp(dw::observe::metrics::FormatSeriesTimestamp(row.ts_ms));
    if (!again.ok() || *again != row.ts_ms) dw::fuzz::Broken("a timestamp does not format and parse back");
  }
  return 0;
}
