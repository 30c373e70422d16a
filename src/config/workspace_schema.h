// The table of keys a workspace file may hold, and the type of each value. The validator walks a
// YAML document against it; docs/workspace.md describes the same keys for people.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dw::config {

enum class ValueType {
  kString,     // any scalar, kept as text
  kBool,       // true or false
  kInt,        // a whole number
  kNumber,     // any number
  kScalar,     // a string, number or bool kept as written (accepted values)
  kDuration,   // "30m", see duration.h
  kCron,       // "0 22 * * *", see cron.h
  kUrl,        // http:// or https://
  kAssetId,    // <kind>://<instance>/<name>, see base/identifiers.h
  kTimeZone,   // an IANA zone name, see time_zone.h
  kEnum,       // one of `choices`
  kList,       // a sequence of `element`
  kMap,        // user-chosen keys, each value an `element`
  kObject,     // the keys in `fields`, and no others
  kColumnSet,  // a column name, or a list of column names (a compound key)
};

struct Field;

// How a string value is kept out of logs (it is registered with RegisterSecret).
enum class SecretKind {
  kNone,
  kWhole,       // the whole value is a secret (password, token, webhook URL, API key)
  kConnection,  // a DSN: its embedded password and whatever ${ENV} put into it
  kEmbedded,    // a URL or path: only an embedded password (user:password@host)
};

struct ValueSchema {
  ValueType type = ValueType::kString;
  std::vector<std::string> choices;            // kEnum
  std::shared_ptr<const ValueSchema> element;  // kList items, kMap values
  std::vector<Field> fields;                   // kObject, in documentation order
  std::vector<std::vector<std::string>> exactly_one_of;   // kObject: key groups
  std::vector<std::vector<std::string>> at_least_one_of;  // kObject: key groups
  int exact_items = -1;                  // kList: required length; -1 for any
  std::optional<double> minimum;         // kInt, kNumber
  SecretKind secret = SecretKind::kNone;  // kString, kUrl
  bool name_keys = false;                // kMap: keys must be IsValidConfigName
  bool or_bool = false;                  // kObject: true or false may stand for the whole object (on/off)
};

struct Field {
  std::string key;
  ValueSchema value;
  bool required = false;
};

// The schema of a whole dataworkers.yaml (an object at the root).
const ValueSchema& WorkspaceSchema();

// A short phrase naming what a value of `schema` looks like: "a duration such as 30m".
std::string DescribeType(const ValueSchema& schema);

}  // namespace dw::config
