#include "app/cli.h"

#include <cstdlib>
#include <iostream>
#include <map>

#include <CLI/CLI.hpp>

#include "app/cli_actions.h"
#include "app/commands.h"
#include "app/redacted_output.h"
#include "base/build_info.h"
#include "base/log.h"

namespace dw::app {

int RunCli(int argc, char** argv) {
  RedactStandardStreams();
  CLI::App app{"dw: Data Workers, the operations desk for whether what data pipelines write is right"};
  app.require_subcommand(0, 1);
  // Global options anywhere on the line (`dw check --workspace DIR`, as kubectl and dbt take
  // theirs): a subcommand hands an option it does not know to its parent. Subcommands inherit
  // this setting when they are created, so it is set before any of them.
  app.fallthrough();
  GlobalOptions g;
  if (const char* lvl = std::getenv("DW_LOG_LEVEL")) g.log_level = lvl;
  app.set_version_flag("--version", std::string("dw ") + DW_VERSION + " (commit " + BuildCommit() + ", " +
                                         BuildType() + " build)");
  app.add_option("-w,--workspace", g.workspace,
                 "workspace folder (default: $DW_WORKSPACE, else the current directory)");
  app.add_option("--log-level", g.log_level, "stderr log level: trace, debug, info, warn, error, off");
  app.add_option("--now", g.now,
                 "evaluate as if it were this instant (ISO 8601), to replay an example or incident");

  std::string init_dir, init_name;
  auto* init = app.add_subcommand("init", "create a new workspace from a commented template");
  init->add_option("DIR", init_dir, "folder to create the workspace in")->required();
  init->add_option("--name", init_name, "workspace name (default: the folder's name)");

  std::string format = "text";
  auto* validate = app.add_subcommand("validate", "check the workspace file; report every error");
  validate->add_option("--format", format, "text or json")->check(CLI::IsMember({"text", "json"}));

  bool no_probe = false;
  auto* describe = app.add_subcommand("describe", "what the workspace configures, with probes");
  describe->add_flag("--no-probe", no_probe, "do not contact warehouses or platforms");
  describe->add_option("--format", format, "text or json")->check(CLI::IsMember({"text", "json"}));

  std::string agent;
  bool fixtures = false;
  int doctor_timeout = 10;
  auto* doctor = app.add_subcommand("doctor", "check everything the workspace depends on and say what to fix");
  doctor->add_option("--format", format, "text or json")->check(CLI::IsMember({"text", "json"}));
  doctor->add_option("--timeout", doctor_timeout, "seconds any one check waits for an answer (default 10)")
      ->check(CLI::Range(1, 600));

  std::string reference_out = "docs/reference";
  auto* reference = app.add_subcommand("reference", "write the reference pages generated from the code (commands, workspace keys, MCP tools)");
  reference->add_option("--out", reference_out, "folder to write commands.md, workspace-keys.md and tools.md to")
      ->capture_default_str();

  auto* mcp = app.add_subcommand("mcp", "serve one agent over MCP stdio");
  mcp->add_option("AGENT", agent, "dw-incidents, dw-quality, dw-context-catalog, dw-connectors, dw-schema");
  mcp->add_flag("--conformance-fixtures", fixtures,
                "serve only the MCP conformance suite's test fixtures (no product tools)");

  std::string listen = "127.0.0.1:8808", token_file;
  auto* serve = app.add_subcommand("serve", "serve every agent over MCP Streamable HTTP");
  serve->add_option("--listen", listen, "HOST:PORT to bind (default 127.0.0.1:8808)");
  serve->add_option("--token-file", token_file,
                    "file holding the bearer token clients must send (required off loopback)");
  serve->add_flag("--conformance-fixtures", fixtures,
                  "serve only the MCP conformance suite's test fixtures (no product tools)");

  bool check = false;
  auto* agents = app.add_subcommand("agents", "list the agents; --check starts each and calls it");
  agents->add_flag("--check", check, "start each agent over stdio and call describe_workspace");
  agents->add_option("--format", format, "text or json")->check(CLI::IsMember({"text", "json"}));

  CheckOptions check_options;
  int64_t max_scan_rows = -1;
  int64_t max_scan_bytes = -1;
  bool no_record = false;
  auto* check_cmd = app.add_subcommand("check", "run the workspace's quality checks (exit 1 on a failure)");
  check_cmd->add_option("TABLE", check_options.tables,
                        "tables to check (warehouse.schema.table, warehouse.table or table://...); "
                        "default: every configured table");
  check_cmd->add_option("--checks", check_options.checks,
                        "only these checks: a type (not_null) or a name (not_null:balance)")
      ->delimiter(',');
  check_cmd->add_option("--since", check_options.since,
                        "incremental: only rows whose time_column is at or after this timestamp, or "
                        "this long ago (90m, 1d)");
  check_cmd->add_option("--max-scan-rows", max_scan_rows,
                        "refuse the run if it would scan more rows than this (estimated)")
      ->check(CLI::NonNegativeNumber);
  check_cmd->add_option("--max-scan-bytes", max_scan_bytes,
                        "refuse the run if it would bill more bytes than this where a warehouse bills by bytes "
                        "read (BigQuery; priced by dry runs before anything runs)")
      ->check(CLI::NonNegativeNumber);
  check_cmd->add_flag("--no-record", no_record, "do not store the results in the state store");
  check_cmd->add_option("--format", check_options.format, "text or json")
      ->check(CLI::IsMember({"text", "json"}));
  LineageCommand lineage_cmd;
  auto* lineage = app.add_subcommand("lineage", "upstream and downstream of an asset in the context graph");
  lineage->add_option("ASSET", lineage_cmd.asset, "asset id or alias")->required();
  lineage->add_option("--direction", lineage_cmd.direction,
                      "upstream (or up), downstream (or down), or both (default both)")
      ->transform(CLI::CheckedTransformer(
          std::map<std::string, std::string>{{"up", "upstream"}, {"down", "downstream"},
                                             {"upstream", "upstream"}, {"downstream", "downstream"},
                                             {"both", "both"}}));
  lineage->add_option("--depth", lineage_cmd.depth, "hops to follow, 1 to 50 (default 5)")->check(CLI::Range(1, 50));
  lineage->add_flag("--columns", lineage_cmd.columns, "include column-level lineage where known");
  lineage->add_option("--format", lineage_cmd.format, "text or json")->check(CLI::IsMember({"text", "json"}));

  BlastRadiusCommand blast_cmd;
  auto* blast = app.add_subcommand("blast-radius", "everything downstream of damaged assets, who acts next and when");
  blast->add_option("ASSET", blast_cmd.assets, "asset ids or aliases")->required();
  blast->add_option("--since", blast_cmd.since,
                    "when the damage started (a timestamp, or a duration back from now: 6h); runs impact_sql counts");
  blast->add_option("--depth", blast_cmd.depth, "hops to follow, 1 to 50 (default 50)")->check(CLI::Range(1, 50));
  blast->add_flag("--include-stale", blast_cmd.include_stale, "also follow edges no source asserts any more");
  blast->add_option("--format", blast_cmd.format, "text or json")->check(CLI::IsMember({"text", "json"}));

  ChangesCommand changes_cmd;
  auto* changes = app.add_subcommand("changes", "the change timeline the collectors stored: restores, deploys, executions, revisions");
  changes->add_option("--asset", changes_cmd.asset, "one asset id (default: every asset)");
  changes->add_option("--since", changes_cmd.since, "from (a timestamp, or a duration back from now; default 24h)");
  changes->add_option("--until", changes_cmd.until, "to, exclusive (a timestamp or a duration back from now; default now)");
  changes->add_option("--kind", changes_cmd.kinds, "only these kinds (repeatable): restore, deploy, execution, ...");
  changes->add_option("--limit", changes_cmd.limit, "events a page, 1 to 500 (default 50)")->check(CLI::Range(1, 500));
  changes->add_option("--offset", changes_cmd.offset, "events to skip (the next page's offset)")->check(CLI::NonNegativeNumber);
  changes->add_option("--format", changes_cmd.format, "text or json")->check(CLI::IsMember({"text", "json"}));

  SchemaCommand schema_cmd;
  auto* schema = app.add_subcommand("schema", "schema compatibility (as Schema Registry decides it) and impact");
  schema->require_subcommand(1);
  auto* schema_check = schema->add_subcommand("check", "is FILE compatible with SUBJECT's history (exit 1 if not)");
  auto* schema_impact = schema->add_subcommand("impact", "what FILE's changed fields reach through the context graph");
  for (auto* sc : {schema_check, schema_impact}) {
    sc->add_option("SUBJECT", schema_cmd.subject, "registry subject, e.g. orders-value")->required();
    sc->add_option("FILE", schema_cmd.file, "the new schema (- for standard input)")->required();
    sc->add_option("--type", schema_cmd.schema_type, "AVRO or JSON (default AVRO)")->check(CLI::IsMember({"AVRO", "JSON"}));
    sc->add_option("--level", schema_cmd.level, "compatibility level (default: the subject's)");
    sc->add_option("--version", schema_cmd.version, "compare with this version only")->check(CLI::Range(1, 2147483647));
    sc->add_option("--platform", schema_cmd.platform, "the schema-registry platform, when several are configured");
    sc->add_option("--format", schema_cmd.format, "text or json")->check(CLI::IsMember({"text", "json"}));
  }
  schema_check->add_option("--previous", schema_cmd.previous, "inline: earlier schema files, oldest first (no registry read)");
  auto* schema_register = schema->add_subcommand("register", "propose registering FILE under SUBJECT; register it once approved");
  schema_register->add_option("SUBJECT", schema_cmd.subject, "registry subject")->required();
  schema_register->add_option("FILE", schema_cmd.file, "the schema to register (not needed with --proposal)");
  schema_register->add_option("--type", schema_cmd.schema_type, "AVRO or JSON (default AVRO)")->check(CLI::IsMember({"AVRO", "JSON"}));
  schema_register->add_option("--proposal", schema_cmd.proposal, "the approved proposal to carry out");
  schema_register->add_option("--domain", schema_cmd.domain, "whose approvers decide (default the topic's domain)");
  schema_register->add_option("--platform", schema_cmd.platform, "the schema-registry platform, when several are configured");
  schema_register->add_option("--format", schema_cmd.format, "text or json")->check(CLI::IsMember({"text", "json"}));

  std::string ingest_source, ingest_path;
  auto* ingest = app.add_subcommand("ingest", "store lineage from a file or a Kestra API in the context graph");
  ingest->add_option("SOURCE", ingest_source,
                     "dbt (a manifest.json), openlineage (JSON lines of run events) or kestra (the flows "
                     "of a Kestra platform, read through its API)")
      ->required()->check(CLI::IsMember({"dbt", "openlineage", "kestra"}));
  ingest->add_option("PATH", ingest_path,
                     "the file; for kestra, the platform's name (default: the workspace's only Kestra)");

  std::string max_log_bytes;
  auto* spend = app.add_subcommand("spend", "what the warehouses' queries cost: by dbt model, user, label, or ours against others'");
  std::string spend_since = "7d", spend_by = "model";
  spend->add_option("--since", spend_since, "a timestamp, or this long ago (default 7d)");
  spend->add_option("--by", spend_by, "model, user, label or dw")->check(CLI::IsMember({"model", "user", "label", "dw"}));
  spend->add_option("--format", format, "text or json")->check(CLI::IsMember({"text", "json"}));
  std::string tables_pattern;
  bool tables_refresh = false;
  auto* tables = app.add_subcommand("tables", "every table the automatic monitors watch: cadence, last load, verdict");
  tables->add_option("PATTERN", tables_pattern, "a glob over warehouse.schema.table (SQLite: warehouse.table)");
  tables->add_flag("--refresh", tables_refresh, "run one metadata pass over the warehouses first (records, like dw watch)");
  tables->add_option("--format", format, "text or json")->check(CLI::IsMember({"text", "json"}));
  auto* collect = app.add_subcommand("collect", "one pass of the change timeline over every platform");
  collect->add_option("--format", format, "text or json")->check(CLI::IsMember({"text", "json"}));
  collect->add_option("--max-log-bytes", max_log_bytes,
                      "bytes read per JobManager log file per pass (default 268435456)");

  MonitorScoreOptions score_opts;
  auto* monitor = app.add_subcommand("monitor", "metric monitors: score a series file, plot, mark expected, prune");
  monitor->require_subcommand(1);
  auto* score = monitor->add_subcommand(
      "score", "judge every point of a timestamp,value CSV with the product's detector");
  score->add_option("FILE", score_opts.file, "CSV with columns timestamp and value")->required();
  score->add_option("--seasonality", score_opts.seasonality,
                    "none, auto, hour_of_day, day_of_week, hour_of_week, day_of_month (default auto)");
  score->add_option("--direction", score_opts.direction, "both, drop or spike (default both)");
  score->add_option("--sensitivity", score_opts.sensitivity,
                    "robust deviations from the baseline that make an anomaly (default 4)");
  score->add_option("--out", score_opts.out, "write the scored CSV here instead of stdout");
  std::string plot_metric, plot_out;
  auto* plot = monitor->add_subcommand("plot", "draw a stored metric, its expected band and anomalies as SVG");
  plot->add_option("NAME", plot_metric, "monitor or metric name")->required();
  plot->add_option("--out", plot_out, "SVG file to write")->required();
  MonitorMarkOptions mark_opts;
  auto* mark = monitor->add_subcommand("mark", "mark a range of a metric expected: learnt as normal, not judged");
  mark->add_option("NAME", mark_opts.metric, "monitor or metric name")->required();
  mark->add_option("--from", mark_opts.from, "start, inclusive (RFC 3339 with its zone, or a duration back from now)")->required();
  mark->add_option("--to", mark_opts.to, "end, inclusive (RFC 3339 with its zone, or a duration back from now)")->required();
  mark->add_option("--note", mark_opts.note, "why these points are expected");
  mark->add_option("--as", mark_opts.as, "your email: who says these points are expected (a mark silences the monitor over its range)")
      ->required();
  auto* prune = monitor->add_subcommand("prune", "delete metric points older than their retention");

  IncidentsCommand inc_cmd;
  auto* incidents = app.add_subcommand("incidents", "incidents: scan signals, list, show, diagnose, and a person's transitions");
  incidents->require_subcommand(1);
  auto inc_format = [&](CLI::App* sub) {
    sub->add_option("--format", inc_cmd.format, "text or json")->check(CLI::IsMember({"text", "json"}));
  };
  auto* inc_scan = incidents->add_subcommand("scan", "one pass: signals observed since the last pass open or update incidents");
  inc_format(inc_scan);
  auto* inc_list = incidents->add_subcommand("list", "incidents from the store, newest first, with recurrence counts");
  inc_list->add_option("--asset", inc_cmd.asset, "root or damaged asset (canonical id)");
  inc_list->add_option("--domain", inc_cmd.domain, "domain");
  inc_list->add_option("--status", inc_cmd.status, "open, acknowledged, mitigated, resolved or closed")
      ->check(CLI::IsMember({"open", "acknowledged", "mitigated", "resolved", "closed"}));
  inc_list->add_option("--since", inc_cmd.since, "opened at or after (a timestamp, or a duration back from now: 1d)");
  inc_list->add_option("--until", inc_cmd.until, "opened before (a timestamp, or a duration back from now)");
  inc_list->add_option("--limit", inc_cmd.limit, "at most this many, 1 to 1000 (default 50)")->check(CLI::Range(1, 1000));
  inc_format(inc_list);
  std::vector<CLI::App*> inc_with_id;
  for (auto [name, what] : std::vector<std::pair<const char*, const char*>>{
           {"show", "one incident: signals, severity, transitions"},
           {"diagnose", "rank the incident's candidate causes, with score parts and evidence"},
           {"propose", "draft the proposals for its top cause (hold, diff, run plan, verification plan); store them and, at L2+, send them"},
           {"ack", "acknowledge (a person)"},
           {"mitigate", "mark mitigated (a person)"},
           {"resolve", "resolve (a person); writes the incident's receipt"},
           {"verify", "after the owner's fix: run the verification plan now; pass resolves it and writes the receipt"},
           {"close", "close as expected or false_positive (a person); the detector learns its points"}}) {
    auto* sub = incidents->add_subcommand(name, what);
    sub->add_option("ID", inc_cmd.id, "incident id")->required();
    inc_format(sub);
    if (std::string(name) != "show" && std::string(name) != "diagnose" && std::string(name) != "propose") {
      sub->add_option("--as", inc_cmd.actor,
                      std::string(name) == "verify" ? "your email: who asks for the verification"
                                                    : "your email: who makes the change")
          ->required();
      sub->add_option("--reason", inc_cmd.reason, "why, in your words");
    }
    if (std::string(name) == "close") {
      sub->add_flag("--expected", inc_cmd.expected, "what it flagged was expected (a planned change)");
      sub->add_flag("--false-positive", inc_cmd.false_positive, "what it flagged was not a problem");
    }
    inc_with_id.push_back(sub);
  }

  bool watch_once = false;
  auto* watch = app.add_subcommand("watch", "run the workspace's monitors on their every: until stopped");
  watch->add_flag("--once", watch_once, "run every monitor once now, then exit");
  WatchCommand watch_cmd;
  watch->add_flag("--status", watch_cmd.status, "show the replicas watching the state store, their leases and runs");
  watch->add_option("--format", watch_cmd.format, "text or json (with --status)")->check(CLI::IsMember({"text", "json"}));
  watch->add_option("--lease-time", watch_cmd.lease_time,
                    "PostgreSQL store: a silent replica's jobs are taken over after this (default 30s)");
  watch->add_option("--lease-history", watch_cmd.lease_history,
                    "PostgreSQL store: finished job leases and runs are kept this long (default: the "
                    "workspace's watch.lease_history, 24h; at least 10m)");

  std::shared_ptr<ActionCommands> action_commands = AddActionCommands(app);
  auto* notify = app.add_subcommand("notify", "notifications: test a channel, deliver the outbox, list an incident's");
  std::string notify_channel, notify_incident;
  auto* notify_test = notify->add_subcommand("test", "send a test message on a channel and show the service's answer");
  notify_test->add_option("CHANNEL", notify_channel, "slack, teams, opsgenie, pagerduty, email or console")->required();
  notify_test->add_option("--format", format, "text or json")->check(CLI::IsMember({"text", "json"}));
  auto* notify_deliver = notify->add_subcommand("deliver", "send every due message of the outbox once");
  notify_deliver->add_option("--format", format, "text or json")->check(CLI::IsMember({"text", "json"}));
  auto* notify_list = notify->add_subcommand("list", "every notification of an incident and its delivery state");
  notify_list->add_option("INCIDENT", notify_incident, "incident id")->required();
  notify_list->add_option("--format", format, "text or json")->check(CLI::IsMember({"text", "json"}));
  ReplayCommand replay_cmd;
  auto* replay = app.add_subcommand("replay", "play a scenario folder against the product on a simulated clock");
  replay->add_option("DIR", replay_cmd.dir, "scenario folder (holds scenario.yaml)");
  replay->add_option("--family", replay_cmd.family, "generate and replay variants of this scenario family");
  replay->add_option("--seed", replay_cmd.seed, "the first variant's seed (the others follow: N+1, ...)");
  replay->add_option("--count", replay_cmd.count, "how many variants");
  replay->add_option("--out", replay_cmd.out, "write the variants here (one scenario folder each) and keep them");
  replay->add_flag("--no-replay", replay_cmd.no_replay, "only write the variants (needs --out)");
  replay->add_option("--format", replay_cmd.format, "text or json")->check(CLI::IsMember({"text", "json"}));
  replay->add_option("--keep-scratch", replay_cmd.keep_scratch,
                     "replay in this new folder and keep it (the workspace copy, its warehouse and state)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  InitLogging(g.log_level);

  if (*init) return CmdInit(g, init_dir, init_name);
  if (*validate) return CmdValidate(g, format);
  if (*describe) return CmdDescribe(g, !no_probe, format);
  if (*doctor) return CmdDoctor(g, format, doctor_timeout);
  if (*reference) return CmdReference(app, reference_out);
  if (*mcp) return CmdMcp(g, agent, fixtures);
  if (*serve) return CmdServe(g, listen, token_file, fixtures);
  if (*agents) return CmdAgents(g, check, format);
  if (*check_cmd) {
    if (max_scan_rows >= 0) check_options.max_scan_rows = max_scan_rows;
    if (max_scan_bytes >= 0) check_options.max_scan_bytes = max_scan_bytes;
    check_options.record = !no_record;
    return CmdCheck(g, check_options);
  }
  if (*lineage) return CmdLineage(g, lineage_cmd);
  if (*blast) return CmdBlastRadius(g, blast_cmd);
  if (*changes) return CmdChanges(g, changes_cmd);
  if (*ingest) return CmdIngest(g, ingest_source, ingest_path);
  if (*schema_check) return CmdSchemaCheck(g, schema_cmd);
  if (*schema_impact) return CmdSchemaImpact(g, schema_cmd);
  if (*schema_register) return CmdSchemaRegister(g, schema_cmd);

  if (*collect) return CmdCollect(g, format, max_log_bytes);
  if (*spend) return CmdSpend(g, spend_since, spend_by, format);
  if (*tables) return CmdTables(g, tables_pattern, tables_refresh, format);

  if (*score) return CmdMonitorScore(g, score_opts);
  if (*plot) return CmdMonitorPlot(g, plot_metric, plot_out);
  if (*mark) return CmdMonitorMark(g, mark_opts);
  if (*prune) return CmdMonitorPrune(g);
  if (*watch) {
    watch_cmd.once = watch_once;
    return CmdWatch(g, watch_cmd);
  }
  if (*replay) return CmdReplay(g, replay_cmd);
  if (*incidents) {
    for (CLI::App* sub : incidents->get_subcommands()) inc_cmd.action = sub->get_name();
    return CmdIncidents(g, inc_cmd);
  }
  if (std::optional<int> rc = RunActionCommands(g, *action_commands)) return *rc;
  if (*notify_test) return CmdNotifyTest(g, notify_channel, format);
  if (*notify_deliver) return CmdNotifyDeliver(g, format);
  if (*notify_list) return CmdNotifyList(g, notify_incident, format);
  if (*notify) {
    std::cout << notify->help();
    return 2;
  }
  // No command: nothing was done, which a script must not mistake for success.
  std::cerr << app.help() << "dw: a command is required (see the list above)\n";
  return 2;
}

}  // namespace dw::app
