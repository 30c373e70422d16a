// Message and alert expectations: what the notification receivers accepted during the replay and
// what the alerting services hold at its end, as a person on the other side would see it.
#include <algorithm>
#include <set>

#include "replay/expectations.h"

namespace dw::replay {
namespace {

Verdict Ok(const Expectation& x, std::string seen) { return {x.text, x.line, true, "ok: " + seen}; }
Verdict Failed(const Expectation& x, std::string detail) { return {x.text, x.line, false, "FAILED: " + detail}; }

std::string Clip(const std::string& s, size_t n) { return s.size() <= n ? s : s.substr(0, n - 3) + "..."; }

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out.empty() ? "nobody" : out;
}

bool Has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

// What the receiver accepted, one message a line: "approval_requested: [SEV1] Approval requested: ...".
std::string Seen(const std::vector<ReceivedMessage>& all) {
  if (all.empty()) return "the receiver accepted no message";
  std::string out = "the receiver accepted " + std::to_string(all.size()) + " message(s):";
  for (size_t i = 0; i < all.size() && i < 12; ++i)
    out += "\n          " + std::string(all[i].edit ? "(an edit) " : "") +
           (all[i].event.empty() ? std::string("?") : all[i].event) + ": " + Clip(all[i].headline, 110);
  if (all.size() > 12) out += "\n          and " + std::to_string(all.size() - 12) + " more";
  return out;
}

Verdict CheckMessage(const Expectation& x, NotifyReceivers& receivers, net::HttpClient& http) {
  const MessageExpectation& want = *x.message;
  auto all = receivers.Messages(http, want.channel);
  if (!all.ok()) return Failed(x, "the " + want.channel + " receiver could not be read: " + all.status().message());
  // The versions that tell the event; a message counts once however often it was edited to tell it.
  std::vector<const ReceivedMessage*> matching;
  std::set<std::string> messages;
  for (const auto& m : *all)
    if (want.event.empty() || m.event == want.event) {
      matching.push_back(&m);
      messages.insert(m.key);
    }
  const int arrived = static_cast<int>(messages.size());
  const std::string what = want.channel + " message" + (want.event.empty() ? "" : "s (" + want.event + ")");
  if (want.count ? arrived != *want.count : arrived == 0)
    return Failed(x, (want.count ? std::to_string(*want.count) : std::string("at least one")) + " " + what + ", but " +
                         std::to_string(arrived) + " arrived; " + Seen(*all));
  for (const ReceivedMessage* m : matching) {
    for (const auto& s : want.contains)
      if (m->text.find(s) == std::string::npos)
        return Failed(x, "every " + what + " holds '" + s + "', but \"" + Clip(m->headline, 110) + "\" does not");
    for (const auto& p : want.to)
      if (!Has(m->to, p))
        return Failed(x, "every " + what + " goes to " + p + ", but \"" + Clip(m->headline, 110) + "\" goes to " +
                             Join(m->to));
    for (const auto& p : want.cc)
      if (!Has(m->cc, p))
        return Failed(x, "every " + what + " copies " + p + ", but \"" + Clip(m->headline, 110) + "\" copies " +
                             Join(m->cc));
  }
  std::string seen = std::to_string(arrived) + " " + what + " arrived";
  if (matching.size() > messages.size()) seen += " (" + std::to_string(matching.size() - messages.size()) + " edit(s))";
  if (!matching.empty()) {
    seen += ": \"" + Clip(matching.front()->headline, 90) + "\"";
    if (!want.to.empty() || !want.cc.empty())
      seen += " to " + Join(matching.front()->to) + (matching.front()->cc.empty() ? "" : ", copied " + Join(matching.front()->cc));
  }
  return Ok(x, seen);
}

Verdict CheckAlert(const Expectation& x, NotifyReceivers& receivers, net::HttpClient& http) {
  const AlertExpectation& want = *x.alert;
  auto alerts = receivers.Alerts(http, want.channel);
  if (!alerts.ok()) return Failed(x, "the " + want.channel + " receiver could not be read: " + alerts.status().message());
  std::string held;
  std::vector<const ReceivedAlert*> matching;
  for (const auto& a : *alerts) {
    held += (held.empty() ? "" : "; ") + a.key + " " + a.state;
    if (a.state == want.state) matching.push_back(&a);
  }
  if (held.empty()) held = "none";
  const std::string what = want.channel + " alert(s) " + want.state;
  if (want.count ? static_cast<int>(matching.size()) != *want.count : matching.empty())
    return Failed(x, (want.count ? std::to_string(*want.count) : std::string("at least one")) + " " + what + ", but " +
                         std::to_string(matching.size()) + " are; the receiver holds: " + held);
  for (const ReceivedAlert* a : matching)
    for (const auto& s : want.note_contains)
      if (std::none_of(a->notes.begin(), a->notes.end(), [&](const std::string& n) { return n.find(s) != std::string::npos; }))
        return Failed(x, "a note holding '" + s + "' on alert " + a->key + ", but its notes are: " +
                             (a->notes.empty() ? std::string("none") : Clip(Join(a->notes), 300)));
  std::string seen = std::to_string(matching.size()) + " " + what;
  if (!matching.empty()) {
    seen += ": " + matching.front()->key;
    if (!matching.front()->notes.empty()) seen += ", note \"" + Clip(matching.front()->notes.back(), 90) + "\"";
  }
  return Ok(x, seen);
}

}  // namespace

Verdict CheckReceived(const Expectation& x, NotifyReceivers& receivers, net::HttpClient& http) {
  if (x.message) return CheckMessage(x, receivers, http);
  return CheckAlert(x, receivers, http);
}

}  // namespace dw::replay
