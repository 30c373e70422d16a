// Fingerprints of what a source says about an asset, so the commit path can tell "the same facts
// again" (an OpenLineage producer repeats itself every few seconds) by comparing two integers
// instead of walking the stored row's JSON.
#pragma once

#include <cstdint>

#include "base/json.h"
#include "graph/source_batch.h"

namespace dw::graph {

// A 64-bit fingerprint of `value` (type and content; object keys in their sorted order). Equal
// values give equal fingerprints; different values collide with probability about 2^-64. Stable
// within one process only (in memory, never stored).
uint64_t JsonFingerprint(const Json& value);

// The fingerprint of every fact in `facts` but its id and columns (see JsonFingerprint for the
// columns).
uint64_t FactsFingerprint(const AssetFacts& facts);

}  // namespace dw::graph
