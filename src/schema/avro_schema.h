// An Avro schema parsed into a graph of nodes: primitives, records, enums, arrays, maps, unions and
// fixed, with named types (full names, namespaces inherited as the specification says, aliases)
// and logical types. Parsing refuses what Avro's own parser refuses (unknown types, duplicate
// field names, defaults of the wrong type, invalid names, nested unions, redefined names), naming
// the JSON Pointer of the problem. Internal to the schema stage: schema.h is the front door.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/json.h"
#include "base/status.h"

namespace dw::schema::avro {

enum class Type { kNull, kBoolean, kInt, kLong, kFloat, kDouble, kBytes, kString, kRecord, kEnum, kArray, kMap, kUnion, kFixed };

// The upper-case name Avro's Java library prints for a type ("INT", "RECORD"), as in the
// registry's "reader type: STRING not compatible with writer type: INT".
const char* TypeName(Type t);

struct Node;

struct Field {
  std::string name;
  std::vector<std::string> aliases;
  const Node* type = nullptr;
  bool has_default = false;
  Json default_value;  // meaningful when has_default
  int position = 0;
};

struct Node {
  Type type = Type::kNull;
  // Named types (record, enum, fixed): the simple name, the namespace and the aliases (full names).
  std::string name;
  std::string space;
  std::vector<std::string> aliases;
  std::vector<Field> fields;          // record
  std::unordered_map<std::string, int> field_index;  // record: field name → position
  std::vector<std::string> symbols;   // enum
  std::optional<std::string> enum_default;
  const Node* items = nullptr;        // array items, map values
  std::vector<const Node*> branches;  // union
  int64_t size = 0;                   // fixed
  std::string logical_type;           // "" when none
  int precision = 0, scale = 0;       // decimal

  bool named() const { return type == Type::kRecord || type == Type::kEnum || type == Type::kFixed; }
  // "space.name", or the name when there is no namespace.
  std::string full_name() const { return space.empty() ? name : space + "." + name; }
};

// The deepest nesting of types a schema may have; deeper schemas are refused (a bound on the
// work and stack a hostile schema can cost).
inline constexpr int kMaxNesting = 64;

class Schema {
 public:
  const Node* root() const { return root_; }
  // The named type with full name `full`, or nullptr.
  const Node* Named(const std::string& full) const;

 private:
  friend class Parser;
  friend Result<std::shared_ptr<const Schema>> ParseJson(const Json& doc);
  std::vector<std::unique_ptr<Node>> nodes_;
  std::map<std::string, const Node*> named_;
  const Node* root_ = nullptr;
};

// Parses `text` (Avro's JSON form). kInvalidArgument with "<pointer>: <what is wrong>" (the pointer
// "/" for the whole document, "/fields/2/type" for a field's type) when it is not a valid schema.
Result<std::shared_ptr<const Schema>> Parse(std::string_view text);
// Parses an already decoded document; errors as Parse.
Result<std::shared_ptr<const Schema>> ParseJson(const Json& doc);

}  // namespace dw::schema::avro
