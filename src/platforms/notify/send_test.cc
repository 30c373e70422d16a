// `dw notify test CHANNEL`: one real request (two for the services where a test opens something,
// which is closed again at once) and the service's own answer.
#include "platforms/notify/channel.h"
#include "platforms/notify/notice.h"
#include "platforms/notify/notify.h"
#include "platforms/notify/routing.h"

namespace dw::platforms::notify {

Result<TestAnswer> SendTest(const config::Workspace& ws, const std::string& name,
                            net::HttpClient& http, net::MailClient& mail, const Clock& clock) {
  DW_RETURN_IF_ERROR(RequireConfiguredChannel(ws, name));
  TestAnswer out;
  out.channel = name;
  auto channel = MakeChannel(name, ws.notify[name]);
  if (!channel.ok()) {
    out.type = name;
    out.answer = channel.status().message();
    return out;
  }
  out.type = (*channel)->type();
  IncidentNotice n;
  n.incident_id = "dw-notify-test";
  n.dedup_key = "dw-notify-test-" + std::to_string(ToUnixMillis(clock.Now()));
  n.severity = "SEV4";
  n.title = "Test message from Data Workers (nothing is wrong)";
  n.summary = "Sent by `dw notify test " + name + "` to check the channel.";
  n.link = IncidentLink(ws, n.incident_id);
  n.event = (*channel)->Handles(EventKind::kOpen) ? EventKind::kOpen : EventKind::kApprovalRequested;
  SendContext ctx{http, mail, clock};
  Delivery d = (*channel)->Send(n, {}, {}, Json::object(), ctx);
  out.delivered = d.outcome == Delivery::Outcome::kDelivered;
  out.answer = d.detail;
  // A test alert or incident must not stay open on somebody's pager.
  if (out.delivered && (out.type == "opsgenie" || out.type == "pagerduty")) {
    n.event = EventKind::kResolved;
    Delivery closed = (*channel)->Send(n, {}, {}, d.answer, ctx);
    out.answer += "; then " + closed.detail;
    out.delivered = closed.outcome == Delivery::Outcome::kDelivered;
  }
  return out;
}

}  // namespace dw::platforms::notify
