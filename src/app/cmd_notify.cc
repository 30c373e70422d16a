// `dw notify test CHANNEL`, `dw notify deliver` and `dw notify list INCIDENT`: thin calls into
// platforms/notify/notify.h.
#include <iostream>

#include "actions/actions.h"
#include "app/command_start.h"
#include "app/commands.h"
#include "platforms/notify/notify.h"
#include "workspace/incident_desk.h"
#include "workspace/services.h"

namespace dw::app {

int CmdNotifyTest(const GlobalOptions& g, const std::string& channel, const std::string& format) {
  StartedCommand start = StartCommand(g, "notify test");
  if (!start) return start.exit_code;
  const auto& services = start.services;
  auto mail = net::MakeCurlMailClient();
  auto answer = platforms::notify::SendTest(services->workspace(), channel, services->http(), *mail,
                                            services->clock());
  if (!answer.ok()) {
    std::cerr << "dw notify test: " << answer.status().message() << "\n";
    return 2;
  }
  if (format == "json") {
    std::cout << Json{{"channel", answer->channel}, {"type", answer->type},
                      {"delivered", answer->delivered}, {"answer", answer->answer}}.dump(2)
              << std::endl;
  } else {
    std::cout << answer->channel << ": " << (answer->delivered ? "delivered" : "NOT delivered") << ": "
              << answer->answer << std::endl;
  }
  return answer->delivered ? 0 : 1;
}

int CmdNotifyDeliver(const GlobalOptions& g, const std::string& format) {
  StartedCommand start = StartCommand(g, "notify deliver");
  if (!start) return start.exit_code;
  const auto& services = start.services;
  auto store = services->state();
  if (!store.ok()) {
    std::cerr << "dw notify deliver: " << store.status().message() << "\n";
    return 1;
  }
  auto mail = net::MakeCurlMailClient();
  platforms::notify::DeliveryOptions options;
  // Approval requests carry links signed now with the key of this process (never stored).
  options.approval_link = actions::ApprovalLinkSignerFor(actions::ApprovalLinkKeyFromEnvironment());
  auto report = platforms::notify::DeliverDue(services->workspace(), **store, services->http(), *mail,
                                              services->clock(), options);
  if (!report.ok()) {
    std::cerr << "dw notify deliver: " << report.status().message() << "\n";
    return 1;
  }
  if (format == "json") {
    std::cout << Json{{"sent", report->sent}, {"retried", report->retried}, {"failed", report->failed},
                      {"errors", report->errors}}.dump(2)
              << std::endl;
  } else {
    std::cout << report->sent << " sent, " << report->retried << " to retry, " << report->failed
              << " failed" << std::endl;
    for (const auto& e : report->errors) std::cout << "  " << e << std::endl;
  }
  return report->failed > 0 ? 1 : 0;
}

int CmdNotifyList(const GlobalOptions& g, const std::string& given, const std::string& format) {
  StartedCommand start = StartCommand(g, "notify list");
  if (!start) return start.exit_code;
  const auto& services = start.services;
  auto store = services->state();
  if (!store.ok()) {
    std::cerr << "dw notify list: " << store.status().message() << "\n";
    return 1;
  }
  // The incident's id, whole or a prefix one incident alone has (2 when several have it).
  auto desk = workspace::OpenIncidentDesk(*services);
  Result<std::string> resolved = desk.ok() ? workspace::ResolveIncidentId(**desk, given) : Result<std::string>(desk.status());
  if (!resolved.ok()) {
    std::cerr << "dw notify list: " << resolved.status().message() << "\n";
    return resolved.status().code() == StatusCode::kInvalidArgument ? 2 : 1;
  }
  const std::string& incident = *resolved;
  auto list = platforms::notify::NotificationsOf(**store, incident);
  if (!list.ok()) {
    std::cerr << "dw notify list: " << list.status().message() << "\n";
    return 1;
  }
  if (format == "json") {
    Json out = Json::array();
    for (const auto& n : *list)
      out.push_back({{"channel", n.channel}, {"event", n.event}, {"state", n.state},
                     {"attempts", n.attempts}, {"last_error", n.last_error}, {"answer", n.answer},
                     {"updated_at", FormatRfc3339(n.updated_at)}});
    std::cout << out.dump(2) << std::endl;
    return 0;
  }
  if (list->empty()) std::cout << "no notifications for " << incident << std::endl;
  for (const auto& n : *list) {
    std::cout << n.channel << " " << n.event << ": " << n.state << " after " << n.attempts << " attempt(s)";
    if (!n.last_error.empty()) std::cout << ": " << n.last_error;
    else if (n.answer.contains("detail")) std::cout << ": " << n.answer["detail"].get<std::string>();
    std::cout << std::endl;
  }
  return 0;
}

}  // namespace dw::app
