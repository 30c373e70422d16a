// The Schema Registry's JSON Schema compatibility: the differences between an original (the
// writer's schema) and an update (the reader's), each typed as the registry types them
// (PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL, TYPE_NARROWED, REQUIRED_ATTRIBUTE_ADDED, ...), and which
// of those types the registry's default (strict) policy counts as compatible. Content models:
// open (additionalProperties true or absent), closed (false), partially open (a schema or
// patternProperties).
#pragma once

#include <string>
#include <vector>

#include "schema/difference.h"
#include "schema/json_schema_model.h"

namespace dw::schema::jsonschema {

// Every difference between `writer` (original) and `reader` (update), compatible ones included.
std::vector<Difference> Differences(const Model& reader, const Model& writer);

// True iff the registry's strict policy counts a difference of `type` as compatible.
bool IsCompatibleChange(const std::string& type);

// The incompatible differences only: empty iff `reader` reads what `writer` allows.
std::vector<Difference> ReadDifferences(const Model& reader, const Model& writer);

// The registry's description of difference `d`, with `reader_label` and `writer_label` ("new",
// "old") naming the two schemas.
std::string Describe(const Difference& d, const std::string& reader_label, const std::string& writer_label);

}  // namespace dw::schema::jsonschema
