// One function per `dw` command; cli.cc parses arguments into these option structs. Every command
// returns the exit code of docs/cli.md: 0 ok, 1 the thing it checks failed, 2 it could not do its
// work.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"

namespace CLI {
class App;  // CLI11; only cli.cc and cmd_reference.cc include it
}  // namespace CLI

namespace dw::app {

struct GlobalOptions {
  std::string workspace;  // --workspace; empty: DW_WORKSPACE, else the current directory
  std::string log_level = "warn";
  std::string now;        // --now; empty: the system clock
};

// The clock commands read time from: the system clock, or with --now a clock fixed at that
// instant (to replay an example or an incident as of its time). Fails with kInvalidArgument when
// --now is not an ISO 8601 timestamp. The clock lives for the whole process.
Result<const Clock*> CommandClock(const GlobalOptions& g);
// CommandClock for a command that keeps running (`dw watch`): with --now the clock starts at that
// instant and then advances with real time, so the schedule moves on.
Result<const Clock*> RunningCommandClock(const GlobalOptions& g);

// `dw init DIR`: writes a commented workspace template; refuses to overwrite an existing one.
int CmdInit(const GlobalOptions& g, const std::string& dir, const std::string& name);

// `dw validate`: loads the workspace and prints every error with file:line and key path.
int CmdValidate(const GlobalOptions& g, const std::string& format);

// `dw describe`: what is configured, with reachability probes unless `probe` is false.
int CmdDescribe(const GlobalOptions& g, bool probe, const std::string& format);
// `dw reference --out DIR`: writes the reference pages generated from `app` (the whole command
// line), the workspace schema and the agents' catalogs (commands.md, workspace-keys.md, tools.md).
// 0 written, 2 the folder or a page could not be written.
int CmdReference(const CLI::App& app, const std::string& out_dir);
// `dw doctor`: checks everything the workspace depends on (workspace/doctor.h). Exit 0 all good,
// 1 something to fix, 2 no workspace to check (or bad arguments).
int CmdDoctor(const GlobalOptions& g, const std::string& format, int timeout_seconds);

// `dw mcp AGENT`: serves one agent over stdio (or the conformance fixtures).
int CmdMcp(const GlobalOptions& g, const std::string& agent, bool conformance_fixtures);

// `dw serve`: the Streamable HTTP server (/mcp, /mcp/<agent>, /healthz).
int CmdServe(const GlobalOptions& g, const std::string& listen, const std::string& token_file,
             bool conformance_fixtures);

// `dw agents [--check]`: lists the agents; with check, starts each one over stdio, lists its tools
// and calls describe_workspace through MCP.
int CmdAgents(const GlobalOptions& g, bool check, const std::string& format);

struct CheckOptions {
  std::vector<std::string> tables;  // empty: every configured table
  std::vector<std::string> checks;  // empty: every configured check
  std::string since;                // "": a full run; else a timestamp or a duration back from now
  std::optional<int64_t> max_scan_rows;
  std::optional<int64_t> max_scan_bytes;
  std::string format = "text";
  bool record = true;
};

// `dw check [TABLE...]`: runs the configured checks and prints the results. Exit code 0 when every
// check passed, 1 when one failed, 2 when one could not run, the run was refused, or the results
// could not be recorded.
int CmdCheck(const GlobalOptions& g, const CheckOptions& options);
struct LineageCommand {
  std::string asset;
  std::string direction = "both";
  int depth = 5;
  bool columns = false;
  std::string format = "text";
};

// `dw lineage ASSET`: upstream and/or downstream edges with their sources and last-seen times.
int CmdLineage(const GlobalOptions& g, const LineageCommand& c);

struct BlastRadiusCommand {
  std::vector<std::string> assets;
  std::string since;  // RFC 3339; runs impact_sql counts when set
  int depth = 50;
  bool include_stale = false;
  std::string format = "text";
};

// `dw blast-radius ASSET... [--since T]`: everything downstream, who acts next and when.
int CmdBlastRadius(const GlobalOptions& g, const BlastRadiusCommand& c);

struct ChangesCommand {
  std::string asset;               // an asset id; empty: every asset
  std::string since = "24h";       // a timestamp, or a duration back from now
  std::string until;               // a timestamp or duration; empty: now
  std::vector<std::string> kinds;  // empty: every kind
  int limit = 50;
  int offset = 0;
  std::string format = "text";
};

// `dw changes [--asset ID] [--since T] [--until T] [--kind K]...`: the change timeline the
// collectors stored (the get_change_timeline tool's answer), newest first, times in the
// workspace's zone. Exit 0 with the page (empty included), 2 for a bad option or an unusable store.
int CmdChanges(const GlobalOptions& g, const ChangesCommand& c);

// `dw ingest dbt PATH` / `dw ingest openlineage FILE` / `dw ingest kestra [PLATFORM]`: stores what
// the file, or the Kestra platform's flows, assert in the graph. Exit 0 stored, 2 anything else (a
// missing file or a directory, bad input, no such platform, unreachable).
int CmdIngest(const GlobalOptions& g, const std::string& source, const std::string& path);

// `dw collect`: one incremental pass of the change collector over every platform. Exit 0 when
// every platform was read, 1 when some platform failed or was unreachable (the others were still
// collected), 2 when the workspace or the state store is unusable.
int CmdCollect(const GlobalOptions& g, const std::string& format, const std::string& max_log_bytes);

// `dw spend [--since T] [--by model|user|label|dw]`: what each warehouse that bills per query
// (Snowflake credits, BigQuery bytes and slot time) spent since T, totalled by the dimension, with
// Data Workers' own share. Exit 0 when every such warehouse was read, 1 when one could not be (the
// others are reported), 2 for an unusable workspace or option.
int CmdSpend(const GlobalOptions& g, const std::string& since, const std::string& by, const std::string& format);

// `dw tables [PATTERN] [--refresh] [--format json]`: every table the automatic monitors know
// (docs/auto-monitors.md): its monitors, learnt cadence, last load, last verdict and the checks
// declared beside them; --refresh runs one metadata pass first. Exit 0 when every table is on time
// or learning, 1 when one is late, changed or abnormal or a warehouse could not be read, 2 for an
// unusable workspace or store.
int CmdTables(const GlobalOptions& g, const std::string& pattern, bool refresh, const std::string& format);

struct MonitorScoreOptions {
  std::string file;
  std::string seasonality = "auto";
  std::string direction = "both";
  std::optional<double> sensitivity;
  std::string out;  // empty: stdout
};
// `dw monitor score FILE.csv`: reads timestamp,value and writes timestamp,value,anomaly_score,
// is_anomaly,expected_low,expected_high, judging each point with only the points before it.
// Returns 2 on bad options, when the file cannot be read or the output written; 0 otherwise.
int CmdMonitorScore(const GlobalOptions& g, const MonitorScoreOptions& o);

// `dw incidents ...` (incidents/): one signal pass, the history, one incident, its diagnosis, and
// a person's transitions.
struct IncidentsCommand {
  std::string action;  // scan, list, show, diagnose, ack, mitigate, resolve, close, verify
  std::string id;
  std::string actor;   // --as
  std::string reason;  // --reason
  bool expected = false;        // close --expected
  bool false_positive = false;  // close --false-positive
  std::string asset, domain, status, since, until;  // list filters
  int limit = 50;
  std::string format = "text";
};
// An incident id may be abbreviated to a prefix one incident alone has (workspace::
// ResolveIncidentId). Exit 0 on success; 1 when the incident does not exist, the move is not
// allowed, a verification fails or the store fails; 2 for a bad argument (a time, an actor that is
// not an email, close without a kind, a prefix several incidents have).
int CmdIncidents(const GlobalOptions& g, const IncidentsCommand& c);

// `dw watch [--once]`: runs the workspace's monitors on their `every:` until SIGTERM/SIGINT;
// with once, runs each one now and returns 1 if any failed (a collection pass that could not read a
// platform, or check results that could not be recorded, count); 2 when it cannot start.
// On a PostgreSQL store several replicas share the jobs through leases (`lease_time`), keeping
// `lease_history` of finished leases and runs; on SQLite
// a second `dw watch` on the same file is refused (2). `status`: prints who watches the store
// (docs/watch.md) and returns 0, or 2 when the store cannot be read.
struct WatchCommand {
  bool once = false;
  bool status = false;
  std::string format = "text";
  std::string lease_time = "30s";
  std::string lease_history;  // "" = the workspace's watch.lease_history
};
int CmdWatch(const GlobalOptions& g, const WatchCommand& cmd);

// `dw monitor plot NAME --out FILE.svg`: the stored series of NAME with its expected band and
// anomalies. Returns 2 for an unknown metric, no point, a store error or a file that cannot be
// written.
int CmdMonitorPlot(const GlobalOptions& g, const std::string& metric, const std::string& out_path);

struct MonitorMarkOptions {
  std::string metric;
  std::string from;  // RFC 3339
  std::string to;    // RFC 3339
  std::string note;
  std::string as;    // the person marking (their email)
};
// `dw monitor mark NAME --from T --to T --as EMAIL [--note TEXT]`: stores the range as expected,
// naming who said so (see observe/metrics/metric_marks.h). Returns 2 on a bad time, an --as that
// is not a person's email, an unknown metric or a store error.
int CmdMonitorMark(const GlobalOptions& g, const MonitorMarkOptions& o);

// `dw monitor prune`: deletes metric points older than their retention and says how many.
// Returns 2 on a bad workspace or store error.
int CmdMonitorPrune(const GlobalOptions& g);

struct SchemaCommand {
  std::string subject;
  std::string file;                   // the new schema; "-" for standard input
  std::string schema_type = "AVRO";   // AVRO or JSON
  std::string level;                  // "": the subject's (check/impact) or BACKWARD (inline)
  int64_t version = 0;                // 0: the latest (or all versions for transitive levels)
  std::vector<std::string> previous;  // check inline: files of earlier schemas, oldest first
  std::string platform;
  std::string format = "text";
  std::string proposal;  // register: the approved proposal to carry out
  std::string domain;    // register: whose approvers decide
};

// `dw schema check SUBJECT FILE [--level L]`: the registry's verdict, offline. Exit 0 compatible,
// 1 incompatible, 2 when the check could not run (bad schema, unknown level, registry unreachable).
int CmdSchemaCheck(const GlobalOptions& g, const SchemaCommand& c);
// `dw schema impact SUBJECT FILE`: what the change reaches through the context graph. Exit 0, or 2.
int CmdSchemaImpact(const GlobalOptions& g, const SchemaCommand& c);
// `dw schema register SUBJECT [FILE] [--proposal ID]`: drafts the registration as a proposal sent
// for approval (exit 3: waiting), or registers the approved proposal (exit 0; 1 when the registry
// refused it; 2 when nothing could be done).
int CmdSchemaRegister(const GlobalOptions& g, const SchemaCommand& c);

// `dw notify test CHANNEL`: sends a test message on the channel now and prints the service's
// answer. Exit 0 when delivered, 1 when not, 2 for an unknown channel or workspace.
int CmdNotifyTest(const GlobalOptions& g, const std::string& channel, const std::string& format);
// `dw notify deliver`: one delivery pass over the outbox (what `dw watch` runs every 30 s). Exit 1
// when a message was given up.
int CmdNotifyDeliver(const GlobalOptions& g, const std::string& format);
// `dw notify list INCIDENT`: every notification of the incident (its id, or a prefix one incident
// alone has) with its delivery state. Exit 2 for a prefix several incidents have, naming them.
int CmdNotifyList(const GlobalOptions& g, const std::string& incident, const std::string& format);

struct ReplayCommand {
  std::string dir;           // the scenario folder (holding scenario.yaml)
  std::string format = "text";
  std::string keep_scratch;  // when set: replay in this (new) folder and keep it afterwards
  // --family NAME: generate that family's variants instead (docs/scenarios.md, Families).
  std::string family;
  uint64_t seed = 1;
  int count = 1;
  std::string out;         // where the variants are written (default: a temporary folder, removed)
  bool no_replay = false;  // write the variants only (needs --out)
};

// `dw replay DIR`: plays a scenario (docs/scenarios.md) against the product on a simulated clock.
// Exit 0 when every expectation holds, 1 when one fails, 2 when the scenario is malformed.
// `dw replay --family NAME --seed N --count K [--out DIR] [--no-replay]`: writes K variants of the
// family and replays each; exit 0 when every variant concluded what was planted (its cause first,
// or quiet), 1 when one did not, 2 for bad input (an unknown family, a count or seed out of bounds).
int CmdReplay(const GlobalOptions& g, const ReplayCommand& c);

}  // namespace dw::app
