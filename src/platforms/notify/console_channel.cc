// The console: a channel for a team without Slack or mail, and for a first day with the product.
// Each notification is printed on the standard error of the process that delivers it (`dw watch`,
// `dw serve`, or the command that queued it), as the lines the other channels carry, and is kept
// in the outbox like any other (the desk and `dw incidents show` list it). Standard error, not
// output: an agent's MCP server speaks its protocol on standard output. A signed approval link is
// never printed (a console ends up in logs, and a link decides as its approver): the line says
// how to decide instead.
#include <cstdio>
#include <memory>
#include <mutex>

#include "platforms/notify/channel.h"
#include "platforms/notify/notice.h"

namespace dw::platforms::notify {
namespace {

// The text printed for `n` to `to` (copied: `cc`): the headline, then one indented line per fact.
std::string ConsoleText(const IncidentNotice& n, const std::vector<std::string>& to, const std::vector<std::string>& cc) {
  std::string out = "notify: " + Headline(n) + " (" + n.incident_id + ")\n";
  for (const auto& [label, value] : Facts(n)) out += "  " + label + ": " + value + "\n";
  if (!n.decide_hint.empty()) out += "  How to decide: " + n.decide_hint + "\n";
  auto list = [](const std::vector<std::string>& people) {
    std::string s;
    for (const auto& p : people) s += (s.empty() ? "" : ", ") + p;
    return s;
  };
  if (!to.empty()) out += std::string("  ") + (n.event == EventKind::kEscalated ? "Escalated to" : "For") + ": " + list(to) + "\n";
  if (!cc.empty()) out += "  Copied: " + list(cc) + "\n";
  if (!n.link.empty()) out += "  Incident page: " + n.link + "\n";
  return out;
}

class ConsoleChannel final : public Channel {
 public:
  std::string type() const override { return "console"; }
  bool Handles(EventKind) const override { return true; }

  Delivery Send(const IncidentNotice& n, const std::vector<std::string>& to, const std::vector<std::string>& cc,
                const Json&, const SendContext&) const override {
    const std::string text = ConsoleText(n, to, cc);
    // One write per notice, under a lock: deliveries on several threads never interleave lines.
    static std::mutex mu;
    std::lock_guard<std::mutex> lock(mu);
    Delivery d;
    if (std::fwrite(text.data(), 1, text.size(), stderr) != text.size() || std::fflush(stderr) != 0) {
      d.outcome = Delivery::Outcome::kRetry;
      d.detail = "the console (standard error) could not be written";
      return d;
    }
    d.outcome = Delivery::Outcome::kDelivered;
    d.detail = "printed on the console (standard error) of the process that delivered it";
    d.answer = {{"via", "console"}};
    return d;
  }

  // Nothing to accept or refuse: the process's own standard error.
  std::optional<Delivery> Validate(const SendContext&) const override {
    Delivery d;
    d.outcome = Delivery::Outcome::kDelivered;
    d.detail = "prints on the standard error of the process that delivers (dw watch, dw notify deliver)";
    return d;
  }
};

}  // namespace

Result<std::unique_ptr<Channel>> MakeConsoleChannel(const Json&) {
  return std::unique_ptr<Channel>(new ConsoleChannel());
}

}  // namespace dw::platforms::notify
