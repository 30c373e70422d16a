// `dw lineage`, `dw blast-radius`, `dw ingest dbt|openlineage|kestra`: the context graph commands.
#include <iostream>
#include <memory>

#include "app/command_start.h"
#include "app/commands.h"
#include "workspace/graph_answers.h"
#include "graph/ingest.h"
#include "workspace/services.h"
#include "base/rfc3339.h"
#include "config/duration.h"
#include "config/time_zone.h"

namespace dw::app {
namespace {

// Loads the workspace with `clock`; prints the problem and returns nullptr when it fails.

int Fail(const char* cmd, const Status& st) {
  std::cerr << "dw " << cmd << ": " << st.message() << "\n";
  return 2;  // the command could not do its work (docs/cli.md)
}

std::string Origins(const Json& sources) {
  std::string out;
  for (const Json& s : sources) {
    out += (out.empty() ? "" : ", ") + s["origin"].get<std::string>() + " " + s["last_seen"].get<std::string>();
    if (s["stale"].get<bool>()) out += " (stale)";
  }
  return out;
}

void PrintWarnings(const Json& answer) {
  for (const Json& w : answer.value("warnings", Json::array())) std::cerr << "warning: " << w.get<std::string>() << "\n";
}

}  // namespace

int CmdLineage(const GlobalOptions& g, const LineageCommand& c) {
  StartedCommand start = StartCommand(g, "lineage");
  if (!start) return start.exit_code;
  const auto& services = start.services;
  graph::LineageOptions o;
  o.direction = c.direction;
  o.depth = c.depth;
  o.columns = c.columns;
  auto r = workspace::LineageAnswer(*services, c.asset, o);
  if (!r.ok()) return Fail("lineage", r.status());
  if (c.format == "json") {
    std::cout << r->dump(2) << "\n";
    return 0;
  }
  PrintWarnings(*r);
  std::cout << "lineage of " << (*r)["asset"].get<std::string>() << " (" << c.direction << ", depth " << c.depth
            << ")\n";
  for (const Json& e : (*r)["edges"]) {
    std::cout << "  " << e["src"].get<std::string>() << " -> " << e["dst"].get<std::string>();
    if (e["relation"] != "feeds") std::cout << " [" << e["relation"].get<std::string>() << "]";
    std::cout << "  (" << Origins(e["sources"]) << ")" << (e.value("in_cycle", false) ? " [cycle]" : "") << "\n";
  }
  if ((*r)["edges"].empty()) std::cout << "  no edges\n";
  for (const Json& cycle : (*r)["cycles"]) std::cout << "cycle: " << cycle.dump() << "\n";
  if ((*r)["truncated"].get<bool>()) std::cout << "(truncated)\n";
  return 0;
}

int CmdBlastRadius(const GlobalOptions& g, const BlastRadiusCommand& c) {
  StartedCommand start = StartCommand(g, "blast-radius");
  if (!start) return start.exit_code;
  const auto& services = start.services;
  std::optional<TimePoint> since;
  if (!c.since.empty()) {
    auto t = config::ParseTimeOrAgo("--since", c.since, services->clock().Now());
    if (!t.ok()) return Fail("blast-radius", t.status());
    since = *t;
  }
  graph::WalkOptions walk;
  walk.max_depth = c.depth;
  walk.include_stale = c.include_stale;
  auto r = workspace::BlastRadiusAnswer(*services, c.assets, since, walk);
  if (!r.ok()) return Fail("blast-radius", r.status());
  if (c.format == "json") {
    std::cout << r->dump(2) << "\n";
    return 0;
  }
  PrintWarnings(*r);
  const Json& b = *r;
  // One zone for every time the answer prints: the workspace's, with its offset.
  const config::TimeZone zone = config::ZoneOrUtc(b["timezone"].get<std::string>());
  auto local = [&zone](const std::string& rfc3339) {
    Result<TimePoint> t = ParseRfc3339(rfc3339);
    return t.ok() ? config::FormatWithOffset(*t, zone) : rfc3339;
  };
  std::cout << "blast radius at " << local(b["now"].get<std::string>()) << " (" << zone.name()
            << "): " << b["total"] << " downstream asset(s)" << (b["truncated"].get<bool>() ? ", truncated" : "")
            << "\n";
  for (const auto& [kind, group] : b["by_kind"].items()) {
    std::cout << "  " << kind << " (" << group["count"] << "):\n";
    for (const Json& a : group["assets"])
      std::cout << "    " << a["id"].get<std::string>() << "  depth " << a["depth"]
                << (a["owner"].get<std::string>().empty() ? "" : "  owner " + a["owner"].get<std::string>())
                << (a["customer_facing"].get<bool>() ? "  CUSTOMER-FACING" : "")
                << (a["placeholder"].get<bool>() ? "  (placeholder)" : "") << "\n";
    if (!group["listed_all"].get<bool>()) std::cout << "    ... and more (use --format json for counts)\n";
  }
  if (!b["consumers"].empty()) std::cout << "acts next:\n";
  for (const Json& cns : b["consumers"]) {
    std::cout << "  " << cns["id"].get<std::string>();
    if (cns.contains("next_run"))
      std::cout << "  next run " << local(cns["next_run"].get<std::string>()) << "  in " << cns["time_left"].get<std::string>();
    else if (cns.contains("acts"))
      std::cout << "  " << cns["acts"].get<std::string>();
    else
      std::cout << "  schedule problem: " << cns["schedule_error"].get<std::string>();
    std::cout << (cns["customer_facing"].get<bool>() ? "  CUSTOMER-FACING" : "") << "\n";
  }
  for (const Json& i : b["impact"]) {
    std::cout << "impact of " << i["asset"].get<std::string>() << ": ";
    if (i.contains("count"))
      std::cout << i["count"] << " since " << local(i["since"].get<std::string>()) << "\n";
    else if (i.contains("error"))
      std::cout << "error: " << i["error"].get<std::string>() << "\n";
    else
      std::cout << i["note"].get<std::string>() << "\n";
  }
  if (!b["owners"].empty()) {
    std::cout << "owners to involve:";
    for (const Json& o : b["owners"]) std::cout << " " << o["owner"].get<std::string>();
    std::cout << "\n";
  }
  for (const auto& [origin, p] : b["provenance"].items())
    std::cout << "from " << origin << " (" << p["kind"].get<std::string>() << "): " << p["edges"]
              << " edge(s), last seen " << local(p["newest_seen"].get<std::string>()) << "\n";
  return 0;
}

int CmdIngest(const GlobalOptions& g, const std::string& source, const std::string& path) {
  StartedCommand start = StartCommand(g, "ingest");
  if (!start) return start.exit_code;
  const auto& services = start.services;
  auto graph = services->graph();
  if (!graph.ok()) return Fail("ingest", graph.status());
  if (source != "kestra" && path.empty()) {
    std::cerr << "dw ingest: " << source << " needs the PATH of the file to read\n";
    return 2;
  }
  const graph::IngestSource what = source == "dbt"      ? graph::IngestSource::DbtManifestFile(path)
                                   : source == "kestra" ? graph::IngestSource::KestraApi({path})
                                                        : graph::IngestSource::OpenLineageFile(path);
  Result<Json> r = graph::Ingest(services->workspace(), services->http(), **graph, what);
  if (!r.ok()) return Fail("ingest", r.status());
  PrintWarnings(*r);  // flows skipped or partly read, with their reasons
  std::cout << r->dump() << "\n";
  // A file of events keeps its good lines; the bad ones are named here and make the exit 1.
  const size_t refused = r->value("refused_count", size_t{0});
  for (const Json& line : r->value("refused", Json::array()))
    std::cerr << "dw ingest: " << path << ":" << line["line"].get<size_t>() << ": " << line["error"].get<std::string>()
              << "\n";
  if (refused > r->value("refused", Json::array()).size())
    std::cerr << "dw ingest: " << refused << " line(s) refused in all\n";
  if (refused > 0) return 1;
  // Kestra flows the same way: a flow that could not be read is named on stderr (above) and the
  // others are stored; the run is partial (1), or did nothing when no listed flow could be read (2).
  const size_t skipped = r->value("flows_skipped", size_t{0});
  if (skipped == 0) return 0;
  if (r->value("flows_read", size_t{0}) == 0) {
    std::cerr << "dw ingest: none of the " << skipped << " flow(s) listed could be read\n";
    return 2;
  }
  std::cerr << "dw ingest: " << skipped << " flow(s) skipped; the others were stored\n";
  return 1;
}

}  // namespace dw::app
