// One function per `dw` command; cli.cc parses arguments into these option structs.
#pragma once

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

// `dw collect`: one incremental pass of the change collector over every platform. Exit 0 when
// every platform was read, 1 when some platform failed or was unreachable (the others were still
// collected), 2 when the workspace or the state store is unusable.
int CmdCollect(const GlobalOptions& g, const std::string& format, const std::string& max_log_bytes);

}  // namespace dw::app
