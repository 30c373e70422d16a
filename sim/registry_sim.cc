// The Confluent Schema Registry: GET /subjects, /subjects/{s}/versions, /subjects/{s}/versions/{v}
// (v a number or "latest"), GET /config and /config/{s}[?defaultToGlobal=true], and POST
// /compatibility/subjects/{s}/versions/latest[?verbose=true]. Errors are {"error_code": 40401,
// "message": ...} (40401 subject, 40402 version, 40403 schema not found; 42201 invalid schema,
// 40408 no subject-level config). Content type application/vnd.schemaregistry.v1+json.
//
// The compatibility check covers Avro records for BACKWARD/FORWARD/FULL (and _TRANSITIVE) and NONE:
// a field added without a default, or removed without one on the reading side, or whose type
// changes outside the allowed promotions, is incompatible. Anything deeper is the dw-schema stage's
// job, not the simulator's.
//
// Script: {"now", "global_compatibility"?: "BACKWARD", "subjects": [{name, compatibility?,
// versions: [{version, id, at?, schema (string or JSON), schemaType?}]}], "faults": [...]}
#include <set>

#include "sim/sim_platforms.h"

namespace dw::sim {
namespace {

constexpr const char* kType = "application/vnd.schemaregistry.v1+json";

struct SimVersion {
  int64_t version = 0, id = 0, at = 0;
  std::string schema, type;
};

struct SimSubject {
  std::string name, compatibility;
  std::vector<SimVersion> versions;
};

struct RegistryState {
  std::string global = "BACKWARD";
  std::vector<SimSubject> subjects;
};

void ErrorCode(httplib::Response& res, int status, int code, const std::string& message) {
  res.status = status;
  res.set_content(Json{{"error_code", code}, {"message", message}}.dump(), kType);
}

bool Promotable(const std::string& writer, const std::string& reader) {
  if (writer == reader) return true;
  static const std::set<std::pair<std::string, std::string>> ok = {
      {"int", "long"}, {"int", "float"}, {"int", "double"}, {"long", "float"}, {"long", "double"},
      {"float", "double"}, {"string", "bytes"}, {"bytes", "string"}};
  return ok.count({writer, reader}) > 0;
}

std::string TypeKey(const Json& t) { return t.is_string() ? t.get<std::string>() : t.dump(); }

// Messages explaining why `reader` cannot read data written with `writer` (records only).
std::vector<std::string> ReadProblems(const Json& writer, const Json& reader) {
  std::vector<std::string> out;
  if (!writer.is_object() || !reader.is_object() || writer.value("type", "") != "record" ||
      reader.value("type", "") != "record") {
    if (writer != reader) out.push_back("the schemas are not identical and not both records");
    return out;
  }
  std::map<std::string, Json> wf;
  for (const auto& f : writer.value("fields", Json::array())) wf[f.value("name", "")] = f;
  for (const auto& f : reader.value("fields", Json::array())) {
    std::string name = f.value("name", "");
    auto it = wf.find(name);
    if (it == wf.end()) {
      if (!f.contains("default"))
        out.push_back("READER_FIELD_MISSING_DEFAULT_VALUE: field '" + name + "' has no default");
    } else if (!Promotable(TypeKey(it->second["type"]), TypeKey(f["type"])) && it->second["type"] != f["type"]) {
      out.push_back("TYPE_MISMATCH: field '" + name + "' changes from " + TypeKey(it->second["type"]) +
                    " to " + TypeKey(f["type"]));
    }
  }
  return out;
}

}  // namespace

void InstallSchemaRegistry(const Json& script, httplib::Server& server, std::shared_ptr<SimClock> clock) {
  auto st = std::make_shared<RegistryState>();
  st->global = script.value("global_compatibility", "BACKWARD");
  for (const auto& s : script.value("subjects", Json::array())) {
    SimSubject sub;
    sub.name = s.at("name").get<std::string>();
    sub.compatibility = s.value("compatibility", "");
    for (const auto& v : s.at("versions")) {
      SimVersion x;
      x.version = v.at("version").get<int64_t>();
      x.id = v.value("id", x.version);
      x.at = v.contains("at") ? ScriptTime(v["at"], "subjects[].versions[].at") : 0;
      x.schema = v.at("schema").is_string() ? v["schema"].get<std::string>() : v["schema"].dump();
      x.type = v.value("schemaType", "AVRO");
      sub.versions.push_back(std::move(x));
    }
    st->subjects.push_back(std::move(sub));
  }
  auto visible = [clock](const SimSubject& s) {
    std::vector<const SimVersion*> out;
    for (const auto& v : s.versions)
      if (clock->Visible(v.at)) out.push_back(&v);
    return out;
  };
  auto find = [st, visible](const std::string& name) -> const SimSubject* {
    for (const auto& s : st->subjects)
      if (s.name == name && !visible(s).empty()) return &s;
    return nullptr;
  };

  server.Get("/subjects", [st, visible](const httplib::Request&, httplib::Response& res) {
    Json out = Json::array();
    for (const auto& s : st->subjects)
      if (!visible(s).empty()) out.push_back(s.name);
    res.set_content(out.dump(), kType);
  });
  server.Get(R"(/subjects/([^/]+)/versions)", [find, visible](const httplib::Request& req, httplib::Response& res) {
    const SimSubject* s = find(req.matches[1]);
    if (!s) return ErrorCode(res, 404, 40401, "Subject '" + std::string(req.matches[1]) + "' not found.");
    Json out = Json::array();
    for (const auto* v : visible(*s)) out.push_back(v->version);
    res.set_content(out.dump(), kType);
  });
  server.Get(R"(/subjects/([^/]+)/versions/([^/]+))", [find, visible](const httplib::Request& req, httplib::Response& res) {
    const SimSubject* s = find(req.matches[1]);
    if (!s) return ErrorCode(res, 404, 40401, "Subject '" + std::string(req.matches[1]) + "' not found.");
    std::string want = req.matches[2];
    auto vs = visible(*s);
    const SimVersion* hit = nullptr;
    if (want == "latest" || want == "-1") {
      hit = vs.back();
    } else {
      for (char c : want)
        if (c < '0' || c > '9')
          return ErrorCode(res, 422, 42202,
                           "The specified version '" + want + "' is not a valid version id. Allowed values are between [1, 2^31-1] and the string \"latest\"");
      for (const auto* v : vs)
        if (std::to_string(v->version) == want) hit = v;
    }
    if (!hit) return ErrorCode(res, 404, 40402, "Version " + want + " not found.");
    Json body = {{"subject", s->name}, {"version", hit->version}, {"id", hit->id}, {"schema", hit->schema}};
    if (hit->type != "AVRO") body["schemaType"] = hit->type;
    res.set_content(body.dump(), kType);
  });
  server.Get("/config", [st](const httplib::Request&, httplib::Response& res) {
    res.set_content(Json{{"compatibilityLevel", st->global}}.dump(), kType);
  });
  server.Get(R"(/config/([^/]+))", [st](const httplib::Request& req, httplib::Response& res) {
    for (const auto& s : st->subjects)
      if (s.name == std::string(req.matches[1]) && !s.compatibility.empty())
        return res.set_content(Json{{"compatibilityLevel", s.compatibility}}.dump(), kType);
    if (req.get_param_value("defaultToGlobal") == "true")
      return res.set_content(Json{{"compatibilityLevel", st->global}}.dump(), kType);
    ErrorCode(res, 404, 40408, "Subject '" + std::string(req.matches[1]) + "' does not have subject-level compatibility configured");
  });
  server.Post(R"(/compatibility/subjects/([^/]+)/versions/([^/]+))", [st, visible](const httplib::Request& req, httplib::Response& res) {
    std::string subject = req.matches[1];
    Json body = Json::parse(req.body, nullptr, false);
    if (body.is_discarded() || !body.is_object() || !body.contains("schema") || !body["schema"].is_string())
      return ErrorCode(res, 422, 42201, "Invalid schema: the request body must be {\"schema\": \"...\"}");
    Json candidate = Json::parse(body["schema"].get<std::string>(), nullptr, false);
    if (candidate.is_discarded())
      return ErrorCode(res, 422, 42201, "Invalid schema: the schema is not valid JSON");
    bool verbose = req.get_param_value("verbose") == "true";
    const SimSubject* sub = nullptr;
    for (const auto& s : st->subjects)
      if (s.name == subject) sub = &s;
    std::vector<const SimVersion*> vs;
    if (sub) vs = visible(*sub);
    if (vs.empty()) {  // a subject with no versions is compatible
      Json ok = {{"is_compatible", true}};
      if (verbose) ok["messages"] = Json::array();
      return res.set_content(ok.dump(), kType);
    }
    std::string level = sub && !sub->compatibility.empty() ? sub->compatibility : st->global;
    bool transitive = level.find("_TRANSITIVE") != std::string::npos;
    std::vector<const SimVersion*> against = transitive ? vs : std::vector<const SimVersion*>{vs.back()};
    std::vector<std::string> messages;
    for (const auto* v : against) {
      Json existing = Json::parse(v->schema, nullptr, false);
      if (level.rfind("BACKWARD", 0) == 0 || level.rfind("FULL", 0) == 0)
        for (auto& m : ReadProblems(existing, candidate)) messages.push_back(m + " (reading version " + std::to_string(v->version) + ")");
      if (level.rfind("FORWARD", 0) == 0 || level.rfind("FULL", 0) == 0)
        for (auto& m : ReadProblems(candidate, existing)) messages.push_back(m + " (version " + std::to_string(v->version) + " reading new data)");
    }
    Json out = {{"is_compatible", messages.empty()}};
    if (verbose) out["messages"] = messages;
    res.set_content(out.dump(), kType);
  });
  server.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.status == 404 && res.body.empty()) ErrorCode(res, 404, 404, "HTTP 404 Not Found");
  });
}

}  // namespace dw::sim
