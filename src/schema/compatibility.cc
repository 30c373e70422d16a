// CheckCompatibility: the registry's levels over a history, its verbose messages, and advice.
#include <algorithm>

#include "schema/avro_compat.h"
#include "schema/json_schema_diff.h"
#include "schema/parsed_schema_impl.h"
#include "schema/schema.h"

namespace dw::schema {

Result<Level> ParseLevel(std::string_view name) {
  static const std::vector<std::pair<const char*, Level>> levels = {
      {"NONE", Level::kNone},       {"BACKWARD", Level::kBackward}, {"BACKWARD_TRANSITIVE", Level::kBackwardTransitive},
      {"FORWARD", Level::kForward}, {"FORWARD_TRANSITIVE", Level::kForwardTransitive},
      {"FULL", Level::kFull},       {"FULL_TRANSITIVE", Level::kFullTransitive}};
  std::string n(name);
  for (auto& c : n) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const auto& [s, l] : levels)
    if (n == s) return l;
  return InvalidArgument("Invalid compatibility level (error 42203): '" + std::string(name) +
                         "'; use NONE, BACKWARD, BACKWARD_TRANSITIVE, FORWARD, FORWARD_TRANSITIVE, FULL or FULL_TRANSITIVE");
}

const char* LevelName(Level l) {
  switch (l) {
    case Level::kNone: return "NONE";
    case Level::kBackward: return "BACKWARD";
    case Level::kBackwardTransitive: return "BACKWARD_TRANSITIVE";
    case Level::kForward: return "FORWARD";
    case Level::kForwardTransitive: return "FORWARD_TRANSITIVE";
    case Level::kFull: return "FULL";
    case Level::kFullTransitive: return "FULL_TRANSITIVE";
  }
  return "NONE";
}

std::string Incompatibility::RegistryMessage() const {
  std::string m = "{errorType:'" + type + "', description:'" + description + "'";
  if (!additional_info.empty()) m += ", additionalInfo:'" + additional_info + "'";
  return m + "}";
}

namespace {

bool Transitive(Level l) { return l == Level::kBackwardTransitive || l == Level::kForwardTransitive || l == Level::kFullTransitive; }
bool Backward(Level l) { return l == Level::kBackward || l == Level::kBackwardTransitive || l == Level::kFull || l == Level::kFullTransitive; }
bool Forward(Level l) { return l == Level::kForward || l == Level::kForwardTransitive || l == Level::kFull || l == Level::kFullTransitive; }

std::string On(int64_t version) { return version > 0 ? "version " + std::to_string(version) : "the earlier schema"; }

// The registry's Avro descriptions; `r` names the reading schema ("new" or "old"), `w` the other.
std::string AvroDescription(const Difference& d, const std::string& r, const std::string& w) {
  if (d.type == "READER_FIELD_MISSING_DEFAULT_VALUE")
    return "The field '" + d.info + "' at path '" + d.path + "' in the " + r + " schema has no default value and is missing in the " + w + " schema";
  if (d.type == "TYPE_MISMATCH") return "The type (path '" + d.path + "') of a field in the " + r + " schema does not match with the " + w + " schema";
  if (d.type == "MISSING_UNION_BRANCH")
    return "The " + r + " schema is missing a type inside a union field at path '" + d.path + "' in the " + w + " schema";
  if (d.type == "MISSING_ENUM_SYMBOLS")
    return "The " + r + " schema is missing enum symbols '" + d.info + "' at path '" + d.path + "' in the " + w + " schema";
  if (d.type == "NAME_MISMATCH") return "The name of the schema has changed (path '" + d.path + "')";
  if (d.type == "FIXED_SIZE_MISMATCH")
    return "The size of FIXED type field at path '" + d.path + "' in the " + r + " schema does not match with the " + w + " schema";
  return d.type + " at '" + d.path + "'";
}

std::string Advice(const Difference& d, bool backward, int64_t version, Format format) {
  const std::string& f = d.field;
  std::string on = On(version);
  if (format == Format::kAvro) {
    if (d.type == "READER_FIELD_MISSING_DEFAULT_VALUE")
      return backward ? "field " + f + " is new and has no default: the new schema cannot read records written with " + on +
                            "; give " + f + " a default (for example type [\"null\", ...] with default null)"
                      : "field " + f + " was removed; readers on " + (version > 0 ? "v" + std::to_string(version) : "the earlier schema") +
                            " get no default for it; keep the field, or give it a default in a version readers have first";
    if (d.type == "TYPE_MISMATCH")
      return (f.empty() ? std::string("the type at ") + d.path : "field " + f) + " changes type (" + d.info + ", " +
             (backward ? "new reads " + on : on + " reads new") +
             "); Avro promotes only int→long→float→double and string↔bytes: add a new field instead";
    if (d.type == "MISSING_UNION_BRANCH")
      return "the union at " + d.path + (f.empty() ? "" : " (field " + f + ")") + " lacks a branch the writer uses (" + d.info +
             "); keep that branch in the reading schema";
    if (d.type == "MISSING_ENUM_SYMBOLS")
      return "the reading enum at " + d.path + " lacks symbols " + d.info + " that the writer may send; keep them, or give the enum a default symbol";
    if (d.type == "NAME_MISMATCH")
      return "the named type at " + d.path + " was renamed (" + d.info + "); add the old full name to its aliases";
    if (d.type == "FIXED_SIZE_MISMATCH") return "the fixed type at " + d.path + " changes size (" + d.info + "); a fixed size cannot change";
    return d.type + " at " + d.path;
  }
  std::string where = f.empty() ? d.path : "property " + f;
  if (d.type.find("PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL") != std::string::npos)
    return where + " is added to an open content model: data valid for " + (backward ? on : "the new schema") +
           " may already carry it with another type; close the model (additionalProperties: false) or give the property an empty schema";
  if (d.type.find("REMOVED_FROM_CLOSED_CONTENT_MODEL") != std::string::npos)
    return where + " is removed from a closed content model: data that has it no longer validates; keep it, or open the model";
  if (d.type.find("REQUIRED") != std::string::npos)
    return where + " becomes required without a default: data without it no longer validates; give it a default or keep it optional";
  if (d.type.find("TYPE") != std::string::npos || d.type.find("ENUM") != std::string::npos)
    return "the type at " + d.path + " is narrowed or changed (" + d.type + "); data valid before may fail; widen it instead";
  return "the change at " + d.path + " (" + d.type + ") rejects data that was valid; relax it";
}

struct Direction {
  const ParsedSchema* reader;
  const ParsedSchema* writer;
  bool backward;  // the reader is the new schema
};

std::vector<Incompatibility> Compare(const Direction& dir, int64_t version, std::vector<std::string>* notes) {
  std::vector<Difference> diffs;
  Format format = dir.reader->format();
  if (format == Format::kAvro) {
    diffs = avro::ReadDifferences(*dir.reader->impl->avro, *dir.writer->impl->avro);
    if (notes && dir.backward)
      for (auto& n : avro::ReadNotes(*dir.reader->impl->avro, *dir.writer->impl->avro)) notes->push_back(n + " (against " + On(version) + ")");
  } else {
    diffs = jsonschema::ReadDifferences(*dir.reader->impl->json, *dir.writer->impl->json);
  }
  std::string r = dir.backward ? "new" : "old", w = dir.backward ? "old" : "new";
  std::vector<Incompatibility> out;
  for (const auto& d : diffs) {
    Incompatibility i;
    i.type = d.type;
    i.path = d.path;
    i.description = format == Format::kAvro ? AvroDescription(d, r, w) : jsonschema::Describe(d, r, w);
    i.additional_info = d.info;
    i.direction = dir.backward ? "backward" : "forward";
    i.field = d.field;
    i.version = version;
    i.advice = Advice(d, dir.backward, version, format);
    out.push_back(std::move(i));
  }
  return out;
}

}  // namespace

Result<CompatibilityReport> CheckCompatibility(std::string_view schema, Format format, const std::vector<EarlierSchema>& history,
                                               Level level) {
  auto fresh = Parse(schema, format);
  if (!fresh.ok()) return fresh.status();
  CompatibilityReport report;
  report.level = level;
  report.format = format;
  if (level == Level::kNone || history.empty()) return report;
  std::vector<const EarlierSchema*> against;
  if (Transitive(level))
    for (auto it = history.rbegin(); it != history.rend(); ++it) against.push_back(&*it);
  else
    against.push_back(&history.back());
  for (const EarlierSchema* e : against) {
    report.checked_versions.push_back(e->version);
    std::vector<Incompatibility> found;
    if (e->format != format) {
      Incompatibility i;
      i.type = "DIFFERENT_SCHEMA_TYPE";
      i.path = "/";
      i.description = "Incompatible because of different schema type";
      i.direction = "backward";
      i.version = e->version;
      i.advice = std::string("the subject holds ") + FormatName(e->format) + " schemas; a " + FormatName(format) +
                 " schema needs a subject of its own";
      found.push_back(std::move(i));
    } else {
      auto old = Parse(e->text, e->format);
      if (!old.ok())
        return InvalidArgument("the earlier schema" + (e->version > 0 ? " (version " + std::to_string(e->version) + ")" : std::string()) +
                               " does not parse: " + old.status().message());
      if (Backward(level))
        for (auto& i : Compare({&*fresh, &*old, true}, e->version, &report.notes)) found.push_back(std::move(i));
      if (Forward(level))
        for (auto& i : Compare({&*old, &*fresh, false}, e->version, nullptr)) found.push_back(std::move(i));
    }
    if (found.empty()) continue;
    report.compatible = false;
    for (const auto& i : found) report.registry_messages.push_back(i.type == "DIFFERENT_SCHEMA_TYPE" ? i.description : i.RegistryMessage());
    if (e->version > 0) report.registry_messages.push_back("{oldSchemaVersion: " + std::to_string(e->version) + "}");
    report.registry_messages.push_back("{oldSchema: '" + e->text + "'}");
    report.registry_messages.push_back(std::string("{validateFields: 'false', compatibility: '") + LevelName(level) + "'}");
    for (auto& i : found) report.incompatibilities.push_back(std::move(i));
    break;  // the registry stops at the first version that fails
  }
  return report;
}

Json ReportJson(const CompatibilityReport& r) {
  Json incompat = Json::array();
  for (const auto& i : r.incompatibilities) {
    Json j = {{"type", i.type}, {"path", i.path}, {"direction", i.direction}, {"description", i.description},
              {"message", i.advice}, {"version", i.version}};
    if (!i.field.empty()) j["field"] = i.field;
    if (!i.additional_info.empty()) j["additional_info"] = i.additional_info;
    incompat.push_back(j);
  }
  return {{"compatible", r.compatible},
          {"level", LevelName(r.level)},
          {"schema_type", FormatName(r.format)},
          {"checked_versions", r.checked_versions},
          {"incompatibilities", incompat},
          {"registry_messages", r.registry_messages},
          {"notes", r.notes}};
}

}  // namespace dw::schema
