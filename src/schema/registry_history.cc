// A subject's history and level, read from the Schema Registry over its REST API.
#include <algorithm>

#include "schema/schema.h"

namespace dw::schema {

Status ValidateSubject(std::string_view subject) {
  if (subject.empty()) return InvalidArgument("the subject name is empty; name a subject such as orders-value");
  if (subject.size() > 255) return InvalidArgument("the subject name is longer than 255 characters");
  for (unsigned char c : subject)
    if (c < 0x20 || c == 0x7f) return InvalidArgument("the subject name holds a control character");
  return Status::Ok();
}

Result<SubjectHistory> ReadHistory(const platforms::schema_registry::RegistryClient& registry, const std::string& subject,
                                   bool all, std::optional<int64_t> version) {
  if (Status s = ValidateSubject(subject); !s.ok()) return s;
  SubjectHistory h;
  h.subject = subject;
  auto level = registry.CompatibilityLevel(subject);
  if (!level.ok()) return level.status();
  auto parsed = ParseLevel(*level);
  if (!parsed.ok()) return DataLoss("the registry answered an unknown compatibility level '" + *level + "' for " + subject);
  h.level = *parsed;
  auto versions = registry.Versions(subject);
  if (!versions.ok()) {
    if (versions.status().code() == StatusCode::kNotFound) return h;  // no versions yet: everything is compatible
    return versions.status();
  }
  std::vector<int64_t> wanted;
  if (version) {
    if (std::find(versions->begin(), versions->end(), *version) == versions->end())
      return NotFound("Version " + std::to_string(*version) + " of subject '" + subject + "' not found (error 40402); it has " +
                      std::to_string(versions->size()) + " version(s)");
    wanted = {*version};
  } else if (all) {
    wanted = *versions;
  } else if (!versions->empty()) {
    wanted = {versions->back()};
  }
  for (int64_t v : wanted) {
    auto s = registry.Schema(subject, std::to_string(v));
    if (!s.ok()) return s.status();
    auto format = ParseFormat(s->schema_type);
    if (!format.ok()) return InvalidArgument("version " + std::to_string(v) + " of " + subject + " is a " + s->schema_type + " schema: " + format.status().message());
    h.versions.push_back({v, s->schema, *format});
    h.ids.push_back(s->id);
  }
  return h;
}

Result<CompatibilityReport> CheckSubject(const platforms::schema_registry::RegistryClient& registry, const std::string& subject,
                                         std::string_view schema, Format format, std::optional<Level> level,
                                         std::optional<int64_t> version) {
  // Parse first: an invalid schema is refused before anything is read.
  if (auto p = Parse(schema, format); !p.ok()) return p.status();
  Level requested = Level::kBackward;
  if (level) {
    requested = *level;
  } else {
    auto configured = registry.CompatibilityLevel(subject);
    if (!configured.ok()) return configured.status();
    auto parsed = ParseLevel(*configured);
    if (!parsed.ok()) return DataLoss("the registry answered an unknown compatibility level '" + *configured + "' for " + subject);
    requested = *parsed;
  }
  bool transitive = requested == Level::kBackwardTransitive || requested == Level::kForwardTransitive ||
                    requested == Level::kFullTransitive;
  auto h = ReadHistory(registry, subject, transitive && !version, version);
  if (!h.ok()) return h.status();
  // Against one named version the registry checks that version only, whatever the level.
  Level use = requested;
  if (version && transitive)
    use = use == Level::kBackwardTransitive ? Level::kBackward : use == Level::kForwardTransitive ? Level::kForward : Level::kFull;
  auto r = CheckCompatibility(schema, format, h->versions, use);
  if (r.ok()) r->level = requested;
  return r;
}

}  // namespace dw::schema
