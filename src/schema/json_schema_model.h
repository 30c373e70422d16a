// A JSON Schema document as the Schema Registry's JSON Schema checker sees it: each (sub)schema
// classified as empty, true, false, null, boolean, string, number, object, array, enum, const,
// a combination (allOf/anyOf/oneOf; a "type" array is an anyOf) or not, with the keywords the
// checker compares. `$ref` is resolved within the document only (JSON Pointers and "#"); a
// reference out of the document, or one that loops without reaching a schema, is refused.
// Internal to the schema stage: schema.h is the front door.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/json.h"
#include "base/status.h"

namespace dw::schema::jsonschema {

enum class Kind { kEmpty, kTrue, kFalse, kNull, kBoolean, kString, kNumber, kObject, kArray, kEnum, kConst, kCombined, kNot, kRef };
enum class Criterion { kAll, kAny, kOne };

// The deepest nesting of subschemas accepted; deeper documents are refused.
inline constexpr int kMaxNesting = 64;

struct Node {
  Kind kind = Kind::kEmpty;
  std::optional<std::string> id, title, description;
  std::optional<Json> default_value;
  int target = -1;  // kRef: the node referred to; kNot: the negated schema
  // string
  std::optional<int64_t> min_length, max_length;
  std::optional<std::string> pattern;
  // number
  std::optional<double> minimum, maximum, exclusive_minimum, exclusive_maximum, multiple_of;
  bool integer = false;
  // enum, const
  std::vector<Json> values;
  // combined
  Criterion criterion = Criterion::kAll;
  std::vector<int> subs;
  // object
  std::vector<std::pair<std::string, int>> properties;
  std::vector<std::string> required;
  bool permits_additional = true;
  int additional = -1;
  std::vector<std::pair<std::string, int>> pattern_properties;
  std::optional<int64_t> min_properties, max_properties;
  // array
  int all_items = -1;
  std::vector<int> item_schemas;
  bool permits_additional_items = true;
  int additional_items = -1;
  std::optional<int64_t> min_items, max_items;
  bool unique_items = false;
};

struct Model {
  std::vector<Node> nodes;
  int root = 0;
  // Follows kRef nodes to the schema they stand for.
  int Deref(int i) const;
};

// Builds the model of `doc`. kInvalidArgument with "<#/pointer>: <what is wrong>" for a document
// that is not a schema (not an object or boolean, a keyword of the wrong type, an unknown "type",
// a $ref out of the document or to nothing, nesting deeper than kMaxNesting).
Result<Model> BuildModel(const Json& doc);

}  // namespace dw::schema::jsonschema
