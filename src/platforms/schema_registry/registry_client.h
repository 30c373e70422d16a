// Client of the Confluent Schema Registry: subjects, versions, schemas, compatibility level and the
// compatibility check; Register writes, and is called only for an approved proposal (schema/).
#pragma once

#include <string>
#include <vector>

#include "platforms/platform_call.h"

namespace dw::platforms::schema_registry {

struct SchemaVersion {
  std::string subject;
  int64_t version = 0;
  int64_t id = 0;
  std::string schema_type = "AVRO";
  std::string schema;
};

struct CompatibilityResult {
  bool is_compatible = false;
  std::vector<std::string> messages;
};

inline constexpr const char* kRegistryContentType = "application/vnd.schemaregistry.v1+json";

class RegistryClient {
 public:
  RegistryClient(const config::PlatformConfig& platform, net::HttpClient& http);
  // GET /subjects.
  Result<std::vector<std::string>> Subjects() const;
  // GET /subjects/{s}/versions.
  Result<std::vector<int64_t>> Versions(const std::string& subject) const;
  // GET /subjects/{s}/versions/{v} (v may be "latest").
  Result<SchemaVersion> Schema(const std::string& subject, const std::string& version) const;
  // GET /config/{s}?defaultToGlobal=true → compatibilityLevel.
  Result<std::string> CompatibilityLevel(const std::string& subject) const;
  // POST /compatibility/subjects/{s}/versions/{version}?verbose=true: the registry's verdict on
  // `schema` against that one version ("latest" or a number) at the subject's level.
  Result<CompatibilityResult> CheckCompatibility(const std::string& subject, const std::string& schema,
                                                 const std::string& schema_type = "AVRO",
                                                 const std::string& version = "latest") const;

  // POST /subjects/{s}/versions {schema, schemaType?}: registers and returns the schema id. Errors
  // carry the registry's message (409 incompatible → kFailedPrecondition, 422 invalid →
  // kInvalidArgument). WRITES to the registry: callers hold an approval.
  Result<int64_t> Register(const std::string& subject, const std::string& schema, const std::string& schema_type) const;
  // POST /subjects/{s} {schema, schemaType?}: the version of `subject` holding this schema.
  Result<SchemaVersion> LookUp(const std::string& subject, const std::string& schema, const std::string& schema_type) const;

  const PlatformCall& call() const { return call_; }

 private:
  PlatformCall call_;
};

}  // namespace dw::platforms::schema_registry
