// `dw serve`: every agent over MCP Streamable HTTP, and the desk's web pages at /, until SIGINT or
// SIGTERM.
#include <signal.h>

#include <fstream>
#include <iostream>
#include <sstream>

#include "actions/actions.h"
#include "agents/agents.h"
#include "app/cli_actions.h"
#include "app/command_start.h"
#include "app/commands.h"
#include "workspace/graph_answers.h"
#include "workspace/services.h"
#include "base/log.h"
#include "desk/desk.h"
#include "mcp/conformance_fixtures.h"
#include "mcp/http_transport.h"
#include "net/http_security.h"

namespace dw::app {
namespace {

// Splits "HOST:PORT" or "[V6]:PORT"; the port must be 0..65535.
Status ParseListen(const std::string& listen, std::string* host, int* port) {
  std::string h, p;
  if (!listen.empty() && listen[0] == '[') {
    auto close = listen.find(']');
    if (close == std::string::npos || close + 1 >= listen.size() || listen[close + 1] != ':')
      return InvalidArgument("--listen '" + listen + "': expected [IPV6]:PORT");
    h = listen.substr(1, close - 1);
    p = listen.substr(close + 2);
  } else {
    auto colon = listen.rfind(':');
    if (colon == std::string::npos || colon == 0)
      return InvalidArgument("--listen '" + listen + "': expected HOST:PORT, e.g. 127.0.0.1:8808");
    h = listen.substr(0, colon);
    p = listen.substr(colon + 1);
  }
  if (p.empty() || p.size() > 5 || p.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(p) > 65535)
    return InvalidArgument("--listen '" + listen + "': port must be a number from 0 to 65535");
  *host = h;
  *port = std::stoi(p);
  return Status::Ok();
}

// Reads the bearer token: the file's content without surrounding white space; never printed.
Result<std::string> ReadToken(const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFound("--token-file " + path + ": cannot read the file");
  std::stringstream ss;
  ss << in.rdbuf();
  std::string t = ss.str();
  auto b = t.find_first_not_of(" \t\r\n");
  auto e = t.find_last_not_of(" \t\r\n");
  if (b == std::string::npos) return InvalidArgument("--token-file " + path + ": the file is empty");
  t = t.substr(b, e - b + 1);
  if (t.size() < 16)
    return InvalidArgument("--token-file " + path + ": the token is shorter than 16 characters");
  RegisterSecret(t);
  return t;
}

}  // namespace

int CmdServe(const GlobalOptions& g, const std::string& listen, const std::string& token_file,
             bool conformance_fixtures) {
  mcp::HttpServerOptions options;
  if (Status st = ParseListen(listen, &options.host, &options.port); !st.ok()) {
    std::cerr << "dw serve: " << st.message() << "\n";
    return 2;
  }
  if (!token_file.empty()) {
    auto token = ReadToken(token_file);
    if (!token.ok()) {
      std::cerr << "dw serve: " << token.status().message() << "\n";
      return 2;
    }
    options.bearer_token = std::move(token).value();
  }

  std::vector<mcp::McpEndpoint> endpoints;
  std::shared_ptr<workspace::Services> services;
  if (conformance_fixtures) {
    auto catalog = std::make_shared<mcp::Catalog>();
    mcp::AddConformanceFixtures(*catalog);
    endpoints.push_back({"/mcp", catalog,
                         {"dw-conformance-fixtures", "Data Workers conformance fixtures", DW_VERSION,
                          "Test fixtures of the MCP conformance suite; no product tools."}});
  } else {
    StartedCommand start = StartCommand(g, "serve", {.require_workspace = false, .records = true});
    if (!start) return start.exit_code;
    services = start.services;
    if (!services->workspace_status().ok())
      spdlog::warn("{}", services->workspace_status().message());
    endpoints.push_back({"/mcp", agents::BuildCombinedCatalog(services),
                         {"dw", "Data Workers", DW_VERSION,
                          "Every Data Workers agent's tools. Call describe_workspace first."}});
    for (const auto& agent : agents::AllAgents())
      endpoints.push_back({"/mcp/" + agent.name, agents::BuildAgentCatalog(agent, services),
                           agents::ServerInfoFor(agent)});
  }

  // Block the stop signals before any thread starts, so only sigwait below receives them.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);

  // One HTTP server: MCP's endpoints and, when the workspace accepts events, the OpenLineage
  // intake (Marquez-compatible) register their routes on it.
  mcp::StreamableHttpServer server;
  if (services && services->workspace_status().ok() && services->workspace().lineage.openlineage) {
    Status st = server.http().AddJsonRoute("POST", "/api/v1/lineage", [services](const net::JsonRouteRequest& req) {
      return workspace::LineageRoute(*services, req);
    }, /*raw_body=*/true);
    if (!st.ok()) {
      std::cerr << "dw serve: " << st.message() << "\n";
      return 2;
    }
  }
  // The desk's web pages at / (reading, and deciding through signed approval links).
  bool desk_link_key_set = false;
  if (services) {
    desk::DeskOptions desk_options;
    desk_options.link_key = ApprovalLinkKeyFromEnv();
    // A guessable key would let anyone forge links: the desk refuses links rather than use it.
    if (!desk_options.link_key.empty()) {
      if (Status weak = actions::CheckApprovalLinkKey(desk_options.link_key); !weak.ok()) {
        std::cerr << "dw serve: " << weak.message() << "; approval links are off until it is replaced\n";
        desk_options.link_key.clear();
      }
    }
    desk_link_key_set = !desk_options.link_key.empty();
    // Off loopback the desk is reached through a TLS proxy: its cookies must never go out in clear.
    desk_options.secure_cookies = !net::IsLoopbackHost(options.host);
    // The sign-in form at /session checks the same token as every other route.
    desk_options.bearer_token = options.bearer_token;
    // Behind a proxy the browser names the desk by desk.url's host: accept it as Host and Origin.
    if (services->workspace_status().ok() && !services->workspace().desk.url.empty()) {
      const std::string& url = services->workspace().desk.url;
      const std::string rest = url.substr(url.find("://") + 3);
      std::string host = rest.substr(0, rest.find('/'));
      if (host.front() != '[') host = host.substr(0, host.find(':'));
      else host = host.substr(0, host.find(']') + 1);
      options.allowed_hosts.push_back(host);
    }
    if (Status st = desk::AddDeskRoutes(server.http(), services, desk_options); !st.ok()) {
      std::cerr << "dw serve: " << st.message() << "\n";
      return 2;
    }
  }
  if (Status st = server.Start(options, endpoints); !st.ok()) {
    std::cerr << "dw serve: " << st.message() << "\n";
    return 2;
  }
  std::string shown = options.host.find(':') != std::string::npos ? "[" + options.host + "]" : options.host;
  // Printed on stdout so scripts that asked for port 0 can read the chosen port.
  const std::string base = "http://" + shown + ":" + std::to_string(server.port());
  std::cout << "dw serve: listening on " << base << "/mcp" << std::endl;
  // What else the one server answers, so a person does not have to read the docs to find the desk.
  // On stderr: stdout stays the one line scripts read the port from (and may stop reading after).
  if (services) {
    std::cerr << "dw serve: the desk at " << base << "/"
              << (desk_link_key_set ? "" : " (approval links off: no usable DW_APPROVAL_LINK_KEY)") << "\n";
    if (services->workspace_status().ok() && services->workspace().lineage.openlineage)
      std::cerr << "dw serve: OpenLineage events to " << base << "/api/v1/lineage\n";
  }
  int sig = 0;
  sigwait(&stop, &sig);
  std::cerr << "dw serve: stopping (signal " << sig << ")\n";
  server.Stop();
  return 0;
}

}  // namespace dw::app
