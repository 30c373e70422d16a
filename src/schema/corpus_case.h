// One case of the compatibility corpus (tests/schema/corpus/*.json), and its replay through
// CheckCompatibility. Shared by the corpus test and the corpus benchmark so both replay the same
// way. Internal to the schema stage.
#pragma once

#include <string>
#include <vector>

#include "base/json.h"
#include "base/status.h"
#include "schema/schema.h"

namespace dw::schema {

struct CorpusCase {
  std::string id, source;
  Format format = Format::kAvro;
  Level level = Level::kBackward;
  std::vector<EarlierSchema> previous;
  std::string schema;
  bool compatible = true;
  std::vector<int64_t> checked_versions;
  Json messages;  // [{errorType, path, additionalInfo?, description?}]
};

// The cases of one corpus file. kInvalidArgument naming the case that is malformed.
Result<std::vector<CorpusCase>> ParseCorpus(const Json& file);

// Replays `c` and compares with what it expects: "" when our verdict, versions checked and
// messages (type, path, and additionalInfo/description where given; in any order) agree, else a
// sentence saying what differs.
std::string ReplayCorpusCase(const CorpusCase& c);

}  // namespace dw::schema
