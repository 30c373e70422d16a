// Snapshots of a StreamingDetector: its whole state in a few kilobytes, so that a metric is judged
// by loading what the detector learnt instead of replaying its history.
//
// A snapshot is bytes: a header (magic, format and detector version, a hash of the options it was
// learnt with), the state, and a checksum over all of it. Decoding checks every part and refuses,
// with a sentence naming what is wrong, a snapshot of another version, of other options, cut
// short or altered: a snapshot is never trusted, it is either exactly what was saved or rejected.
// A decoded detector continues exactly as the encoded one would have (same verdicts, bit for bit).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"
#include "observe/metrics/detector.h"

namespace dw::observe::metrics {

// The detector's behaviour version. Bump it with any change to what the detector computes or
// keeps (detector.cc, context_novelty.cc, robust_stats.cc, seasonality.cc): snapshots of another
// version are then discarded and their metrics replayed. DetectorStateTest pins the behaviour of a
// reference series so that a change that forgets the bump fails a test.
inline constexpr uint32_t kDetectorStateVersion = 8;

// A stable hash of every field of `o` and of `extra` (what else the caller's replay depends on,
// e.g. the time zone): two option sets with the same hash learn the same way.
uint64_t DetectorOptionsHash(const DetectorOptions& o, std::string_view extra = {});

// The state of `d` as bytes, stamped with kDetectorStateVersion and `options_hash`, followed by
// `payload` (the caller's own bookkeeping, returned as is by DecodeDetectorState).
std::string EncodeDetectorState(const StreamingDetector& d, uint64_t options_hash,
                                std::string_view payload = {});

// The checksum that seals a snapshot (its last 8 bytes, little-endian, over everything before
// them). An integrity check against damage, not a signature: the state store is trusted.
uint64_t SnapshotChecksum(std::string_view bytes);

struct DecodedDetector {
  std::unique_ptr<StreamingDetector> detector;
  std::string payload;
};
// Rebuilds the detector of `bytes` for `metric_name` with `options`. FailedPrecondition when the
// snapshot was written by another detector version or with options whose hash is not
// `options_hash` (it is stale, not damaged); DataLoss when it is cut short, its checksum does not
// match, or a field is out of range (it is damaged). Never returns a partly restored detector.
Result<DecodedDetector> DecodeDetectorState(std::string_view bytes, const std::string& metric_name,
                                            const DetectorOptions& options, uint64_t options_hash);

}  // namespace dw::observe::metrics
