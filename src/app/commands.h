// One function per `dw` command; cli.cc parses arguments into these option structs.
#pragma once

#include <optional>
#include <string>

namespace dw::app {

struct GlobalOptions {
  std::string workspace;  // --workspace; empty: DW_WORKSPACE, else the current directory
  std::string log_level = "warn";
};

// `dw init DIR`: writes a commented workspace template; refuses to overwrite an existing one.
int CmdInit(const GlobalOptions& g, const std::string& dir, const std::string& name);

// `dw validate`: loads the workspace and prints every error with file:line and key path.
int CmdValidate(const GlobalOptions& g, const std::string& format);

// `dw describe`: what is configured, with reachability probes unless `probe` is false.
int CmdDescribe(const GlobalOptions& g, bool probe, const std::string& format);

// `dw mcp AGENT`: serves one agent over stdio (or the conformance fixtures).
int CmdMcp(const GlobalOptions& g, const std::string& agent, bool conformance_fixtures);

// `dw serve`: the Streamable HTTP server (/mcp, /mcp/<agent>, /healthz).
int CmdServe(const GlobalOptions& g, const std::string& listen, const std::string& token_file,
             bool conformance_fixtures);

// `dw agents [--check]`: lists the agents; with check, starts each one over stdio, lists its tools
// and calls describe_workspace through MCP.
int CmdAgents(const GlobalOptions& g, bool check, const std::string& format);

struct MonitorScoreOptions {
  std::string file;
  std::string seasonality = "auto";
  std::string direction = "both";
  std::optional<double> sensitivity;
  std::string out;  // empty: stdout
};
// `dw monitor score FILE.csv`: reads timestamp,value and writes timestamp,value,anomaly_score,
// is_anomaly,expected_low,expected_high, judging each point with only the points before it.
// Returns 2 on bad options, 1 when the file cannot be read or the output written.
int CmdMonitorScore(const GlobalOptions& g, const MonitorScoreOptions& o);

// `dw watch [--once]`: runs the workspace's monitors on their `every:` until SIGTERM/SIGINT;
// with once, runs each one now and returns 1 if any failed.
int CmdWatch(const GlobalOptions& g, bool once);

// `dw monitor plot NAME --out FILE.svg`: the stored series of NAME with its expected band and
// anomalies. Returns 1 when there is no point, the store fails, or the file cannot be written.
int CmdMonitorPlot(const GlobalOptions& g, const std::string& metric, const std::string& out_path);

}  // namespace dw::app
