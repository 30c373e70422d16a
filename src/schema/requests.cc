// RunCheck and RunImpact: the requests the surfaces translate their arguments into.
#include "schema/schema.h"

namespace dw::schema {

Result<const config::PlatformConfig*> RegistryPlatform(const std::map<std::string, config::PlatformConfig>& platforms,
                                                       const std::string& name) {
  std::vector<const config::PlatformConfig*> registries;
  std::string known;
  for (const auto& [n, p] : platforms)
    if (p.type == "schema-registry") {
      registries.push_back(&p);
      known += (known.empty() ? "" : ", ") + n;
      if (n == name) return &p;
    }
  if (!name.empty())
    return NotFound("no schema-registry platform named '" + name + "'" + (known.empty() ? "; none is configured" : "; configured: " + known));
  if (registries.empty())
    return NotFound("no schema-registry platform is configured; add one under platforms: in dataworkers.yaml "
                    "(type: schema-registry, url: ...) or pass the earlier schemas inline in `previous`");
  if (registries.size() > 1) return InvalidArgument("several schema-registry platforms are configured (" + known + "); name one with `platform`");
  return registries[0];
}

namespace {

std::string Summary(const CompatibilityReport& r, const std::string& against) {
  if (r.level == Level::kNone) return std::string("compatible: level NONE checks nothing") + (against.empty() ? "" : " (" + against + ")");
  if (r.checked_versions.empty() && r.compatible) return "compatible: there is no earlier version to check against";
  if (r.compatible) return std::string("compatible at ") + LevelName(r.level) + " with " + against;
  std::string s = std::string("incompatible at ") + LevelName(r.level) + ": " + std::to_string(r.incompatibilities.size()) +
                  " problem(s)";
  if (!r.incompatibilities.empty()) s += "; first: " + r.incompatibilities[0].advice;
  return s;
}

std::string Versions(const std::vector<int64_t>& v) {
  std::string s;
  for (auto x : v) s += (s.empty() ? "" : ", ") + (x > 0 ? "v" + std::to_string(x) : std::string("the given schema"));
  return s.empty() ? "nothing" : s;
}

}  // namespace

Result<Json> RunCheck(const CheckRequest& req, const config::PlatformConfig* registry, net::HttpClient& http) {
  if (req.previous) {
    std::vector<EarlierSchema> history;
    for (size_t i = 0; i < req.previous->size(); ++i) history.push_back({static_cast<int64_t>(i + 1), (*req.previous)[i], req.format});
    auto r = CheckCompatibility(req.schema, req.format, history, req.level.value_or(Level::kBackward));
    if (!r.ok()) return r.status();
    Json out = ReportJson(*r);
    out["mode"] = "inline";
    out["summary"] = Summary(*r, "the " + std::to_string(history.size()) + " earlier schema(s) given, checked as " + Versions(r->checked_versions));
    return out;
  }
  if (req.subject.empty()) return InvalidArgument("name a `subject` (read from the registry), or give the earlier schemas inline in `previous`");
  if (Status s = ValidateSubject(req.subject); !s.ok()) return s;
  if (!registry) return FailedPrecondition("no schema-registry platform to read subject " + req.subject + " from");
  platforms::schema_registry::RegistryClient client(*registry, http);
  if (req.schema.empty()) {
    // No schema: judge the subject's latest version against the versions before it.
    auto h = ReadHistory(client, req.subject, true);
    if (!h.ok()) return h.status();
    if (h->versions.empty()) return NotFound("Subject '" + req.subject + "' not found (error 40401): it has no versions to check");
    EarlierSchema latest = h->versions.back();
    h->versions.pop_back();
    auto r = CheckCompatibility(latest.text, latest.format, h->versions, req.level.value_or(h->level));
    if (!r.ok()) return r.status();
    Json out = ReportJson(*r);
    out["mode"] = "subject";
    out["subject"] = req.subject;
    out["checked_schema_version"] = latest.version;
    out["summary"] = "v" + std::to_string(latest.version) + " of " + req.subject + ": " +
                     Summary(*r, req.subject + " " + Versions(r->checked_versions));
    return out;
  }
  auto r = CheckSubject(client, req.subject, req.schema, req.format, req.level, req.version);
  if (!r.ok()) return r.status();
  Json out = ReportJson(*r);
  out["mode"] = "subject";
  out["subject"] = req.subject;
  out["summary"] = Summary(*r, req.subject + " " + Versions(r->checked_versions));
  return out;
}

Result<Json> RunImpact(const ImpactRequest& req, const config::PlatformConfig& registry, net::HttpClient& http,
                       const graph::ContextGraph& graph, const ImpactOptions& options, TimePoint now) {
  if (Status s = ValidateSubject(req.subject); !s.ok()) return s;
  auto proposed = Parse(req.schema, req.format);
  if (!proposed.ok()) return proposed.status();
  platforms::schema_registry::RegistryClient client(registry, http);
  auto h = ReadHistory(client, req.subject, false, req.version);
  if (!h.ok()) return h.status();
  if (h->versions.empty())
    return NotFound("subject " + req.subject + " has no versions in the registry (error 40401): there is nothing the change could break yet");
  const EarlierSchema& before = h->versions.back();
  if (before.format != req.format)
    return InvalidArgument("version " + std::to_string(before.version) + " of " + req.subject + " is " + FormatName(before.format) +
                           ", the proposed schema " + FormatName(req.format) + ": incompatible because of different schema type");
  auto old = Parse(before.text, before.format);
  if (!old.ok()) return InvalidArgument("version " + std::to_string(before.version) + " in the registry does not parse: " + old.status().message());
  Level level = req.level.value_or(h->level);
  // The verdict against the compared version (a transitive level checks the whole history).
  bool transitive = level == Level::kBackwardTransitive || level == Level::kForwardTransitive || level == Level::kFullTransitive;
  std::vector<EarlierSchema> against = {before};
  if (transitive && !req.version) {
    auto all = ReadHistory(client, req.subject, true);
    if (!all.ok()) return all.status();
    against = all->versions;
  }
  auto verdict = CheckCompatibility(req.schema, req.format, against, level);
  if (!verdict.ok()) return verdict.status();
  return graph.Read([&](const graph::GraphIndex& index) {
    return AssessImpact(index, req.subject, *old, before.version, *proposed, *verdict, options, now);
  });
}

}  // namespace dw::schema
