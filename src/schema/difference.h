// One difference a reader/writer check found, before it is phrased for a person: the registry's
// error type, the path into the schema where it is, the registry's additional information and the
// field it concerns. Internal to the schema stage (schema.h phrases it as an Incompatibility).
#pragma once

#include <string>
#include <vector>

namespace dw::schema {

struct Difference {
  std::string type;   // READER_FIELD_MISSING_DEFAULT_VALUE, TYPE_MISMATCH, PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL, ...
  std::string path;   // Avro: a JSON Pointer ("/fields/1/type"); JSON Schema: "#/properties/a"
  std::string info;   // Avro's additionalInfo ("reader type: STRING not compatible with writer type: INT")
  std::string field;  // the field or property concerned, when there is one
};

}  // namespace dw::schema
