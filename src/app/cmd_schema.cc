// `dw schema check` and `dw schema impact`: read the files, translate the options, call the schema
// stage (schema/schema.h) and print its answer.
#include <fstream>
#include <iostream>
#include <sstream>

#include "app/command_start.h"
#include "app/commands.h"
#include "workspace/services.h"
#include "config/workspace.h"
#include "actions/actions.h"
#include "schema/schema.h"

namespace dw::app {
namespace {

int Fail(const char* cmd, const Status& st) {
  std::cerr << "dw schema " << cmd << ": " << st.message() << "\n";
  return 2;
}

Result<std::string> ReadSchemaFile(const std::string& path) {
  std::stringstream ss;
  if (path == "-") {
    ss << std::cin.rdbuf();
    return ss.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot read schema file " + path);
  ss << in.rdbuf();
  return ss.str();
}

void PrintVerdict(const Json& v) {
  std::cout << (v["compatible"].get<bool>() ? "compatible" : "INCOMPATIBLE") << " at " << v["level"].get<std::string>()
            << " (" << v["schema_type"].get<std::string>() << ")";
  if (!v["checked_versions"].empty()) std::cout << ", checked against version(s) " << v["checked_versions"].dump();
  std::cout << "\n";
  for (const auto& i : v["incompatibilities"])
    std::cout << "  " << i["type"].get<std::string>() << " at " << i["path"].get<std::string>() << " (" << i["direction"].get<std::string>()
              << "): " << i["message"].get<std::string>() << "\n";
  for (const auto& n : v["notes"]) std::cout << "  note: " << n.get<std::string>() << "\n";
}

// What check and impact read the same way from their options: the schema file's text, its format,
// the level and the version to compare with.
struct SchemaOptions {
  std::string text;
  schema::Format format = schema::Format::kAvro;
  std::optional<schema::Level> level;
  std::optional<int64_t> version;
};

Result<SchemaOptions> ReadSchemaOptions(const SchemaCommand& c) {
  SchemaOptions o;
  auto text = ReadSchemaFile(c.file);
  if (!text.ok()) return text.status();
  o.text = std::move(text).value();
  auto format = schema::ParseFormat(c.schema_type);
  if (!format.ok()) return format.status();
  o.format = *format;
  if (!c.level.empty()) {
    auto l = schema::ParseLevel(c.level);
    if (!l.ok()) return l.status();
    o.level = *l;
  }
  if (c.version > 0) o.version = c.version;
  return o;
}

}  // namespace

int CmdSchemaCheck(const GlobalOptions& g, const SchemaCommand& c) {
  auto o = ReadSchemaOptions(c);
  if (!o.ok()) return Fail("check", o.status());
  schema::CheckRequest req;
  req.subject = c.subject;
  req.schema = o->text;
  req.format = o->format;
  req.level = o->level;
  req.version = o->version;
  std::shared_ptr<workspace::Services> services;
  const config::PlatformConfig* registry = nullptr;
  auto http = net::MakeCurlHttpClient();
  if (Result<const Clock*> clock = CommandClock(g); !clock.ok()) return Fail("check", clock.status());
  if (!c.previous.empty()) {
    req.previous.emplace();
    for (const auto& p : c.previous) {
      auto t = ReadSchemaFile(p);
      if (!t.ok()) return Fail("check", t.status());
      req.previous->push_back(*t);
    }
  } else {
    StartedCommand start = StartCommand(g, "schema check");
    if (!start) return start.exit_code;
    services = start.services;
    auto p = schema::RegistryPlatform(services->workspace().platforms, c.platform);
    if (!p.ok()) return Fail("check", p.status());
    registry = *p;
  }
  auto r = schema::RunCheck(req, registry, services ? services->http() : *http);
  if (!r.ok()) return Fail("check", r.status());
  if (c.format == "json") std::cout << r->dump(2) << "\n";
  else PrintVerdict(*r);
  return (*r)["compatible"].get<bool>() ? 0 : 1;
}

int CmdSchemaImpact(const GlobalOptions& g, const SchemaCommand& c) {
  auto o = ReadSchemaOptions(c);
  if (!o.ok()) return Fail("impact", o.status());
  StartedCommand start = StartCommand(g, "schema impact");
  if (!start) return start.exit_code;
  auto services = start.services;
  auto registry = schema::RegistryPlatform(services->workspace().platforms, c.platform);
  if (!registry.ok()) return Fail("impact", registry.status());
  auto graph = services->graph();
  if (!graph.ok()) return Fail("impact", graph.status());
  schema::ImpactRequest req;
  req.subject = c.subject;
  req.schema = o->text;
  req.format = o->format;
  req.level = o->level;
  req.version = o->version;
  schema::ImpactOptions options;
  options.timezone = services->workspace().timezone;
  auto r = schema::RunImpact(req, **registry, services->http(), **graph, options, services->clock().Now());
  if (!r.ok()) return Fail("impact", r.status());
  if (c.format == "json") {
    std::cout << r->dump(2) << "\n";
    return 0;
  }
  const Json& b = *r;
  std::cout << b["summary"].get<std::string>() << "\n";
  for (const auto& f : b["changed_fields"])
    std::cout << "  field " << f["field"].get<std::string>() << ": " << f["change"].get<std::string>()
              << (f.contains("renamed_to") ? " to " + f["renamed_to"].get<std::string>() : "") << "\n";
  for (const auto& a : b["reached"])
    std::cout << "  " << a["asset"].get<std::string>() << "  fields " << a["fields"].dump() << "  (" << a["lineage"].get<std::string>()
              << " lineage" << (a["coarser"].get<bool>() ? ", coarser" : "") << ")" << (a.contains("owner") ? "  owner " + a["owner"].get<std::string>() : "")
              << "\n";
  for (const auto& cns : b["consumers"])
    std::cout << "  acts next: " << cns["asset"].get<std::string>()
              << (cns.contains("next_run") ? " at " + cns["next_run"].get<std::string>() + " (in " + cns["time_left"].get<std::string>() + ")" : "") << "\n";
  PrintVerdict(b["verdict"]);
  return 0;
}

int CmdSchemaRegister(const GlobalOptions& g, const SchemaCommand& c) {
  std::string text;
  if (c.proposal.empty()) {
    if (c.file.empty()) return Fail("register", InvalidArgument("give the schema FILE to draft a registration, or --proposal ID"));
    auto t = ReadSchemaFile(c.file);
    if (!t.ok()) return Fail("register", t.status());
    text = *t;
  }
  auto format = schema::ParseFormat(c.schema_type);
  if (!format.ok()) return Fail("register", format.status());
  StartedCommand start = StartCommand(g, "schema register", {.records = true});
  if (!start) return start.exit_code;
  auto services = start.services;
  auto registry = schema::RegistryPlatform(services->workspace().platforms, c.platform);
  if (!registry.ok()) return Fail("register", registry.status());
  auto store = services->state();
  if (!store.ok()) return Fail("register", store.status());
  auto graph = services->graph();
  actions::RegisterSchemaRequest req;
  req.subject = c.subject;
  req.schema = text;
  req.format = *format;
  req.proposal_id = c.proposal;
  req.domain = c.domain;
  req.actor = "agent:dw-cli";  // the command drafts; the person who ran it may still approve
  auto r = actions::RegisterStreamSchema(req, **store, services->workspace(), **registry, services->http(), graph.ok() ? *graph : nullptr,
                                        services->clock());
  if (!r.ok()) return Fail("register", r.status());
  if (c.format == "json") std::cout << r->dump(2) << "\n";
  else std::cout << (*r)["summary"].get<std::string>() << "\n";
  // docs/cli.md's one convention: the thing this command checks is whether the schema is now
  // registered, so a proposal still waiting for its approval is 1 like a refusal (a pipeline never
  // proceeds as if it were registered); stdout says which.
  return (*r)["registered"].get<bool>() ? 0 : 1;
}

}  // namespace dw::app
