// The Confluent Schema Registry, as the REST API behaves:
//   GET  /subjects, /subjects/{s}/versions[?deleted=true], /subjects/{s}/versions/{v|latest|-1},
//        /schemas/ids/{id}, /config, /config/{s}[?defaultToGlobal=true]
//   POST /subjects/{s}/versions            registers: the same schema again answers its existing
//        id (no new version); a schema seen in any subject keeps its id; a new one gets the next id;
//        checked first against the versions the subject's level implies (409 when incompatible)
//   POST /subjects/{s}                      looks the schema up: {subject, id, version, schema}
//   POST /compatibility/subjects/{s}/versions/{v|latest}[?verbose=true]   against that version only
//   POST /compatibility/subjects/{s}/versions[?verbose=true]              against what the level implies
//   PUT  /config, /config/{s}               {"compatibility": LEVEL}
//   DELETE /subjects/{s}/versions/{v}[?permanent=true], /subjects/{s}[?permanent=true]
//        soft delete (the version keeps its id and is hidden), then permanent
// Verdicts come from the dw-schema checker (schema/schema.h), the same one the product uses.
// Errors are {"error_code", "message"}: 40401 subject not found, 40402 version not found, 40403
// schema not found, 40404 subject soft-deleted, 40405 not soft-deleted first, 40408 no
// subject-level config, 409 incompatible, 42201 invalid schema, 42202 invalid version, 42203
// invalid compatibility level. Content type application/vnd.schemaregistry.v1+json.
//
// Time: versions and levels may carry "at"; an entry is visible once the simulated clock reached
// it (a level is then the latest visible entry). Registrations and PUT /config are stamped with
// the clock's time.
//
// Script: {"now", "global_compatibility"?: LEVEL or [{at, level}], "subjects": [{name,
// compatibility?: LEVEL or [{at, level}], versions: [{version, id, at?, schema (string or JSON),
// schemaType?, deleted?}]}], "faults": [...]}
#include <algorithm>
#include <mutex>
#include <set>

#include "schema/schema.h"
#include "sim/sim_platforms.h"

namespace dw::sim {
namespace {

constexpr const char* kType = "application/vnd.schemaregistry.v1+json";

struct SimVersion {
  int64_t version = 0, id = 0, at = 0;
  std::string schema, type;
  bool deleted = false;
};

struct TimedLevel {
  int64_t at = 0;
  std::string level;
};

struct SimSubject {
  std::string name;
  std::vector<TimedLevel> compatibility;
  std::vector<SimVersion> versions;
};

struct RegistryState {
  std::mutex mu;
  std::vector<TimedLevel> global;
  std::vector<SimSubject> subjects;
};

void ErrorCode(httplib::Response& res, int status, int code, const std::string& message) {
  res.status = status;
  res.set_content(Json{{"error_code", code}, {"message", message}}.dump(), kType);
}

std::vector<TimedLevel> ScriptLevels(const Json& v, const std::string& where) {
  std::vector<TimedLevel> out;
  if (v.is_null()) return out;
  if (v.is_string()) {
    if (!schema::ParseLevel(v.get<std::string>()).ok()) throw std::invalid_argument(where + ": unknown level " + v.dump());
    return {{0, v.get<std::string>()}};
  }
  if (!v.is_array()) throw std::invalid_argument(where + ": a level or a list of {at, level}");
  for (const auto& e : v) {
    std::string level = e.at("level").get<std::string>();
    if (!schema::ParseLevel(level).ok()) throw std::invalid_argument(where + ": unknown level " + level);
    out.push_back({e.contains("at") ? ScriptTime(e["at"], where + "[].at") : 0, level});
  }
  return out;
}

std::string Canonical(const std::string& schema) {
  Json j = Json::parse(schema, nullptr, false);
  return j.is_discarded() ? schema : j.dump();
}

int64_t Now(const SimClock& clock) { return clock.now().value_or(0); }

}  // namespace

void InstallSchemaRegistry(const Json& script, httplib::Server& server, std::shared_ptr<SimClock> clock) {
  auto st = std::make_shared<RegistryState>();
  st->global = script.contains("global_compatibility") ? ScriptLevels(script["global_compatibility"], "global_compatibility")
                                                       : std::vector<TimedLevel>{{0, "BACKWARD"}};
  for (const auto& s : script.value("subjects", Json::array())) {
    SimSubject sub;
    sub.name = s.at("name").get<std::string>();
    if (s.contains("compatibility")) sub.compatibility = ScriptLevels(s["compatibility"], "subjects[].compatibility");
    for (const auto& v : s.at("versions")) {
      SimVersion x;
      x.version = v.at("version").get<int64_t>();
      x.id = v.value("id", x.version);
      x.at = v.contains("at") ? ScriptTime(v["at"], "subjects[].versions[].at") : 0;
      x.schema = v.at("schema").is_string() ? v["schema"].get<std::string>() : v["schema"].dump();
      x.type = v.value("schemaType", "AVRO");
      x.deleted = v.value("deleted", false);
      sub.versions.push_back(std::move(x));
    }
    st->subjects.push_back(std::move(sub));
  }

  // Everything below runs under st->mu.
  auto level_of = [clock](const std::vector<TimedLevel>& levels) -> std::string {
    std::string out;
    for (const auto& l : levels)
      if (clock->Visible(l.at)) out = l.level;
    return out;
  };
  auto effective = [st, level_of](const SimSubject* s) {
    std::string own = s ? level_of(s->compatibility) : "";
    if (!own.empty()) return own;
    std::string global = level_of(st->global);
    return global.empty() ? std::string("BACKWARD") : global;
  };
  auto visible = [clock](SimSubject& s, bool deleted) {
    std::vector<SimVersion*> out;
    for (auto& v : s.versions)
      if (clock->Visible(v.at) && (deleted || !v.deleted)) out.push_back(&v);
    return out;
  };
  auto find = [st](const std::string& name) -> SimSubject* {
    for (auto& s : st->subjects)
      if (s.name == name) return &s;
    return nullptr;
  };
  auto history = [](const std::vector<SimVersion*>& vs) {
    std::vector<schema::EarlierSchema> out;
    for (const auto* v : vs) {
      auto f = schema::ParseFormat(v->type);
      out.push_back({v->version, v->schema, f.ok() ? *f : schema::Format::kAvro});
    }
    return out;
  };
  // Parses {"schema", "schemaType"?}; answers 42201 (and returns false) when it is not a schema.
  auto candidate = [](const httplib::Request& req, httplib::Response& res, std::string* text, schema::Format* format) {
    Json body = Json::parse(req.body, nullptr, false);
    if (body.is_discarded() || !body.is_object() || !body.contains("schema") || !body["schema"].is_string()) {
      ErrorCode(res, 422, 42201, "Invalid schema: the request body must be {\"schema\": \"...\"}");
      return false;
    }
    auto f = schema::ParseFormat(body.value("schemaType", "AVRO"));
    if (!f.ok()) {
      ErrorCode(res, 422, 42201, "Invalid schema: " + f.status().message());
      return false;
    }
    auto parsed = schema::Parse(body["schema"].get<std::string>(), *f);
    if (!parsed.ok()) {
      ErrorCode(res, 422, 42201, parsed.status().message());
      return false;
    }
    *text = body["schema"].get<std::string>();
    *format = *f;
    return true;
  };
  auto not_found = [](httplib::Response& res, const std::string& subject) {
    ErrorCode(res, 404, 40401, "Subject '" + subject + "' not found.");
  };

  server.Get("/subjects", [st, visible](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(st->mu);
    Json out = Json::array();
    for (auto& s : st->subjects)
      if (!visible(s, false).empty()) out.push_back(s.name);
    res.set_content(out.dump(), kType);
  });
  server.Get(R"(/subjects/(.+)/versions)", [st, find, visible, not_found](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(st->mu);
    SimSubject* s = find(req.matches[1]);
    bool deleted = req.get_param_value("deleted") == "true";
    if (!s || visible(*s, deleted).empty()) return not_found(res, req.matches[1]);
    Json out = Json::array();
    for (const auto* v : visible(*s, deleted)) out.push_back(v->version);
    res.set_content(out.dump(), kType);
  });
  server.Get(R"(/subjects/(.+)/versions/([^/]+))", [st, find, visible, not_found](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(st->mu);
    SimSubject* s = find(req.matches[1]);
    bool deleted = req.get_param_value("deleted") == "true";
    if (!s || visible(*s, true).empty()) return not_found(res, req.matches[1]);
    std::string want = req.matches[2];
    auto vs = visible(*s, deleted);
    const SimVersion* hit = nullptr;
    if (want == "latest" || want == "-1") {
      if (!vs.empty()) hit = vs.back();
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
  server.Get(R"(/schemas/ids/(\d+))", [st, clock](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(st->mu);
    for (const auto& s : st->subjects)
      for (const auto& v : s.versions)
        if (std::to_string(v.id) == std::string(req.matches[1]) && clock->Visible(v.at)) {
          Json body = {{"schema", v.schema}};
          if (v.type != "AVRO") body["schemaType"] = v.type;
          return res.set_content(body.dump(), kType);
        }
    ErrorCode(res, 404, 40403, "Schema " + std::string(req.matches[1]) + " not found");
  });
  server.Get("/config", [st, effective](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(st->mu);
    res.set_content(Json{{"compatibilityLevel", effective(nullptr)}}.dump(), kType);
  });
  server.Get(R"(/config/(.+))", [st, find, level_of, effective](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(st->mu);
    SimSubject* s = find(req.matches[1]);
    if (s && !level_of(s->compatibility).empty())
      return res.set_content(Json{{"compatibilityLevel", level_of(s->compatibility)}}.dump(), kType);
    if (req.get_param_value("defaultToGlobal") == "true")
      return res.set_content(Json{{"compatibilityLevel", effective(nullptr)}}.dump(), kType);
    ErrorCode(res, 404, 40408, "Subject '" + std::string(req.matches[1]) + "' does not have subject-level compatibility configured");
  });
  auto put_config = [st, find, clock](const httplib::Request& req, httplib::Response& res, const std::string& subject) {
    Json body = Json::parse(req.body, nullptr, false);
    std::string level = body.is_object() ? body.value("compatibility", "") : "";
    auto parsed = schema::ParseLevel(level);
    if (!parsed.ok())
      return ErrorCode(res, 422, 42203,
                       "Invalid compatibility level. Valid values are none, backward, forward, full, backward_transitive, "
                       "forward_transitive, and full_transitive");
    std::lock_guard<std::mutex> lock(st->mu);
    TimedLevel entry{Now(*clock), schema::LevelName(*parsed)};
    if (subject.empty()) {
      st->global.push_back(entry);
    } else {
      SimSubject* s = find(subject);
      if (!s) {
        st->subjects.push_back(SimSubject{subject, {}, {}});
        s = &st->subjects.back();
      }
      s->compatibility.push_back(entry);
    }
    res.set_content(Json{{"compatibility", entry.level}}.dump(), kType);
  };
  server.Put("/config", [put_config](const httplib::Request& req, httplib::Response& res) { put_config(req, res, ""); });
  server.Put(R"(/config/(.+))", [put_config](const httplib::Request& req, httplib::Response& res) { put_config(req, res, req.matches[1]); });

  // Compatibility: against one version (the path names it) or the versions the level implies.
  auto check = [st, find, visible, effective, history, candidate, not_found](const httplib::Request& req, httplib::Response& res,
                                                                            const std::string& subject, const std::string& version) {
    std::string text;
    schema::Format format;
    if (!candidate(req, res, &text, &format)) return;
    bool verbose = req.get_param_value("verbose") == "true";
    std::lock_guard<std::mutex> lock(st->mu);
    SimSubject* s = find(subject);
    std::vector<SimVersion*> vs;
    if (s) vs = visible(*s, false);
    auto level = schema::ParseLevel(effective(s));
    std::vector<SimVersion*> against = vs;
    schema::Level use = level.ok() ? *level : schema::Level::kBackward;
    if (!version.empty()) {
      if (vs.empty() && version != "latest") return not_found(res, subject);
      against.clear();
      if (version == "latest" || version == "-1") {
        if (!vs.empty()) against.push_back(vs.back());
      } else {
        for (auto* v : vs)
          if (std::to_string(v->version) == version) against.push_back(v);
        if (against.empty()) return ErrorCode(res, 404, 40402, "Version " + version + " not found.");
      }
      // One named version is checked alone, whatever the level.
      if (use == schema::Level::kBackwardTransitive) use = schema::Level::kBackward;
      if (use == schema::Level::kForwardTransitive) use = schema::Level::kForward;
      if (use == schema::Level::kFullTransitive) use = schema::Level::kFull;
    }
    auto report = schema::CheckCompatibility(text, format, history(against), use);
    if (!report.ok()) return ErrorCode(res, 422, 42201, report.status().message());
    Json out = {{"is_compatible", report->compatible}};
    if (verbose) out["messages"] = report->registry_messages;
    res.set_content(out.dump(), kType);
  };
  server.Post(R"(/compatibility/subjects/(.+)/versions/([^/]+))",
              [check](const httplib::Request& req, httplib::Response& res) { check(req, res, req.matches[1], req.matches[2]); });
  server.Post(R"(/compatibility/subjects/(.+)/versions)",
              [check](const httplib::Request& req, httplib::Response& res) { check(req, res, req.matches[1], ""); });

  server.Post(R"(/subjects/(.+)/versions)", [st, find, visible, effective, history, candidate, clock](const httplib::Request& req,
                                                                                                       httplib::Response& res) {
    std::string subject = req.matches[1], text;
    schema::Format format;
    if (!candidate(req, res, &text, &format)) return;
    std::lock_guard<std::mutex> lock(st->mu);
    SimSubject* s = find(subject);
    std::string canonical = Canonical(text);
    std::string type = schema::FormatName(format);
    if (s)
      for (const auto* v : visible(*s, false))
        if (Canonical(v->schema) == canonical && v->type == type) return res.set_content(Json{{"id", v->id}}.dump(), kType);
    auto level = schema::ParseLevel(effective(s));
    auto report = schema::CheckCompatibility(text, format, s ? history(visible(*s, false)) : std::vector<schema::EarlierSchema>{},
                                             level.ok() ? *level : schema::Level::kBackward);
    if (!report.ok()) return ErrorCode(res, 422, 42201, report.status().message());
    if (!report->compatible) {
      std::string details;
      for (const auto& m : report->registry_messages) details += (details.empty() ? "" : ", ") + m;
      return ErrorCode(res, 409, 409,
                       "Schema being registered is incompatible with an earlier schema for subject \"" + subject + "\", details: [" + details + "]");
    }
    int64_t id = 0, max_id = 0;
    for (const auto& x : st->subjects)
      for (const auto& v : x.versions) {
        max_id = std::max(max_id, v.id);
        if (Canonical(v.schema) == canonical && v.type == type) id = v.id;  // a schema keeps its id everywhere
      }
    if (id == 0) id = max_id + 1;
    if (!s) {
      st->subjects.push_back(SimSubject{subject, {}, {}});
      s = &st->subjects.back();
    }
    int64_t version = 0;
    for (const auto& v : s->versions) version = std::max(version, v.version);
    s->versions.push_back(SimVersion{version + 1, id, Now(*clock), text, type, false});
    res.set_content(Json{{"id", id}}.dump(), kType);
  });

  // Look-up: the version of the subject holding this schema.
  server.Post(R"(/subjects/([^/]+))", [st, find, visible, candidate, not_found](const httplib::Request& req, httplib::Response& res) {
    std::string text;
    schema::Format format;
    if (!candidate(req, res, &text, &format)) return;
    std::lock_guard<std::mutex> lock(st->mu);
    SimSubject* s = find(req.matches[1]);
    if (!s || visible(*s, false).empty()) return not_found(res, req.matches[1]);
    for (const auto* v : visible(*s, false))
      if (Canonical(v->schema) == Canonical(text) && v->type == schema::FormatName(format)) {
        Json body = {{"subject", s->name}, {"version", v->version}, {"id", v->id}, {"schema", v->schema}};
        if (v->type != "AVRO") body["schemaType"] = v->type;
        return res.set_content(body.dump(), kType);
      }
    ErrorCode(res, 404, 40403, "Schema not found");
  });

  server.Delete(R"(/subjects/(.+)/versions/([^/]+))", [st, find, visible, not_found](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(st->mu);
    SimSubject* s = find(req.matches[1]);
    if (!s || visible(*s, true).empty()) return not_found(res, req.matches[1]);
    std::string want = req.matches[2];
    bool permanent = req.get_param_value("permanent") == "true";
    auto vs = visible(*s, true);
    SimVersion* hit = nullptr;
    for (auto* v : vs)
      if (std::to_string(v->version) == want || ((want == "latest" || want == "-1") && !v->deleted)) hit = v;
    if (!hit) return ErrorCode(res, 404, 40402, "Version " + want + " not found.");
    if (permanent) {
      if (!hit->deleted)
        return ErrorCode(res, 404, 40407, "Subject '" + s->name + "' Version " + want + " was not deleted first before being permanently deleted");
      int64_t number = hit->version;
      s->versions.erase(std::remove_if(s->versions.begin(), s->versions.end(), [&](const SimVersion& v) { return &v == hit; }),
                        s->versions.end());
      return res.set_content(Json(number).dump(), kType);
    }
    if (hit->deleted) return ErrorCode(res, 404, 40406, "Subject '" + s->name + "' Version " + want + " was soft deleted. Set permanent=true to delete permanently");
    hit->deleted = true;  // soft: the version keeps its id and number, hidden from listings
    res.set_content(Json(hit->version).dump(), kType);
  });
  server.Delete(R"(/subjects/([^/]+))", [st, find, visible, not_found](const httplib::Request& req, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(st->mu);
    SimSubject* s = find(req.matches[1]);
    if (!s || visible(*s, true).empty()) return not_found(res, req.matches[1]);
    Json out = Json::array();
    if (req.get_param_value("permanent") == "true") {
      if (!visible(*s, false).empty())
        return ErrorCode(res, 404, 40405, "Subject '" + s->name + "' was not deleted first before being permanently deleted");
      for (const auto* v : visible(*s, true)) out.push_back(v->version);
      s->versions.clear();
      return res.set_content(out.dump(), kType);
    }
    auto live = visible(*s, false);
    if (live.empty()) return ErrorCode(res, 404, 40404, "Subject '" + s->name + "' was soft deleted. Set permanent=true to delete permanently");
    for (auto* v : live) {
      v->deleted = true;
      out.push_back(v->version);
    }
    res.set_content(out.dump(), kType);
  });
  server.set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.status == 404 && res.body.empty()) ErrorCode(res, 404, 404, "HTTP 404 Not Found");
  });
}

}  // namespace dw::sim
