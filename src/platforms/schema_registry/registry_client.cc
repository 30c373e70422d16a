#include "platforms/schema_registry/registry_client.h"

namespace dw::platforms::schema_registry {
namespace {

// The body every schema-carrying request sends: the schema text, and its type unless AVRO (the
// registry's default, which older registries reject when named).
Json SchemaBody(const std::string& schema, const std::string& schema_type) {
  Json body = {{"schema", schema}};
  if (schema_type != "AVRO") body["schemaType"] = schema_type;
  return body;
}

// A schema version as GET /subjects/{s}/versions/{v} and POST /subjects/{s} answer it. Throws
// ResponseShapeError (caught by Parse) when a field is missing or of the wrong type.
SchemaVersion ReadSchemaVersion(const Json& j) {
  SchemaVersion s;
  s.subject = StringField(j, "subject");
  s.version = IntField(j, "version");
  s.id = IntField(j, "id");
  s.schema_type = OptStringField(j, "schemaType", "AVRO");
  s.schema = StringField(j, "schema");
  return s;
}

}  // namespace

RegistryClient::RegistryClient(const config::PlatformConfig& platform, net::HttpClient& http)
    : call_(platform, http) {}

Result<std::vector<std::string>> RegistryClient::Subjects() const {
  auto j = call_.GetJson({"subjects"});
  if (!j.ok()) return j.status();
  return call_.Parse<std::vector<std::string>>("GET /subjects", [&] {
    if (!j->is_array()) throw ResponseShapeError("expected an array of subject names");
    std::vector<std::string> out;
    for (const auto& s : *j) {
      if (!s.is_string()) throw ResponseShapeError("a subject name is not a string");
      out.push_back(s.get<std::string>());
    }
    return out;
  });
}

Result<std::vector<int64_t>> RegistryClient::Versions(const std::string& subject) const {
  auto j = call_.GetJson({"subjects", subject, "versions"});
  if (!j.ok()) return j.status();
  return call_.Parse<std::vector<int64_t>>("GET /subjects/" + subject + "/versions", [&] {
    if (!j->is_array()) throw ResponseShapeError("expected an array of version numbers");
    std::vector<int64_t> out;
    for (const auto& v : *j) {
      if (!v.is_number_integer()) throw ResponseShapeError("a version is not an integer");
      out.push_back(v.get<int64_t>());
    }
    return out;
  });
}

Result<SchemaVersion> RegistryClient::Schema(const std::string& subject, const std::string& version) const {
  auto j = call_.GetJson({"subjects", subject, "versions", version});
  if (!j.ok()) return j.status();
  return call_.Parse<SchemaVersion>("GET /subjects/" + subject + "/versions/" + version, [&] {
    return ReadSchemaVersion(*j);
  });
}

Result<std::string> RegistryClient::CompatibilityLevel(const std::string& subject) const {
  auto j = call_.GetJson({"config", subject}, "defaultToGlobal=true");
  if (!j.ok()) return j.status();
  return call_.Parse<std::string>("GET /config/" + subject,
                                  [&] { return StringField(*j, "compatibilityLevel"); });
}

Result<CompatibilityResult> RegistryClient::CheckCompatibility(const std::string& subject,
                                                               const std::string& schema,
                                                               const std::string& schema_type,
                                                               const std::string& version) const {
  const Json body = SchemaBody(schema, schema_type);
  auto j = call_.PostJson({"compatibility", "subjects", subject, "versions", version}, "verbose=true",
                          body, kRegistryContentType);
  if (!j.ok()) return j.status();
  return call_.Parse<CompatibilityResult>("POST /compatibility/subjects/" + subject + "/versions/" + version, [&] {
    CompatibilityResult r;
    r.is_compatible = BoolField(*j, "is_compatible");
    if (j->contains("messages") && (*j)["messages"].is_array())
      for (const auto& m : (*j)["messages"])
        if (m.is_string()) r.messages.push_back(m.get<std::string>());
    return r;
  });
}

Result<int64_t> RegistryClient::Register(const std::string& subject, const std::string& schema,
                                         const std::string& schema_type) const {
  const Json body = SchemaBody(schema, schema_type);
  auto j = call_.PostJson({"subjects", subject, "versions"}, "", body, kRegistryContentType);
  if (!j.ok()) return j.status();
  return call_.Parse<int64_t>("POST /subjects/" + subject + "/versions", [&] { return IntField(*j, "id"); });
}

Result<SchemaVersion> RegistryClient::LookUp(const std::string& subject, const std::string& schema,
                                             const std::string& schema_type) const {
  const Json body = SchemaBody(schema, schema_type);
  auto j = call_.PostJson({"subjects", subject}, "", body, kRegistryContentType);
  if (!j.ok()) return j.status();
  return call_.Parse<SchemaVersion>("POST /subjects/" + subject, [&] {
    return ReadSchemaVersion(*j);
  });
}

}  // namespace dw::platforms::schema_registry
