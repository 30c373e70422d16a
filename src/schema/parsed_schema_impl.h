// What a ParsedSchema holds: the Avro schema or the JSON Schema model (and its document).
// Internal to the schema stage.
#pragma once

#include <memory>

#include "schema/avro_schema.h"
#include "schema/json_schema_model.h"
#include "schema/schema.h"

namespace dw::schema {

// The largest schema text accepted (the registry's own request limit is of this order).
inline constexpr size_t kMaxSchemaBytes = 4 * 1024 * 1024;

struct ParsedSchema::Impl {
  std::shared_ptr<const avro::Schema> avro;       // set for Avro
  std::shared_ptr<const jsonschema::Model> json;  // set for JSON Schema
  Json doc;                                        // the JSON Schema document
};

}  // namespace dw::schema
