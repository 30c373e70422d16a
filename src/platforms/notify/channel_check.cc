// `dw doctor`'s look at a channel: its settings build a channel, and where the service has a call
// that validates credentials without posting, the service accepts them. Nothing is sent.
#include "platforms/notify/channel.h"
#include "platforms/notify/notify.h"
#include "platforms/notify/routing.h"

namespace dw::platforms::notify {

Status RequireConfiguredChannel(const config::Workspace& ws, const std::string& name) {
  // `link` and `routes` sit beside the channels under notify: but are not channels.
  if (name != "link" && name != "routes" && ws.notify.contains(name)) return Status::Ok();
  std::string known;
  for (const auto& n : ChannelNames(ws)) known += (known.empty() ? "" : ", ") + n;
  return NotFound("no channel '" + name + "' under notify: (configured: " + (known.empty() ? "none" : known) + ")");
}

Result<ChannelCheck> CheckChannel(const config::Workspace& ws, const std::string& name, net::HttpClient& http,
                                  net::MailClient& mail, const Clock& clock, std::chrono::milliseconds timeout) {
  DW_RETURN_IF_ERROR(RequireConfiguredChannel(ws, name));
  ChannelCheck out;
  out.channel = name;
  auto channel = MakeChannel(name, ws.notify[name]);
  if (!channel.ok()) {
    out.type = name;
    out.detail = channel.status().message();
    return out;
  }
  out.type = (*channel)->type();
  out.configured = true;
  SendContext ctx{http, mail, clock, timeout};
  if (std::optional<Delivery> d = (*channel)->Validate(ctx)) {
    out.accepted = d->outcome == Delivery::Outcome::kDelivered;
    out.detail = d->detail;
  } else {
    out.detail = "configured; " + out.type + " has no call that checks it without sending a message";
  }
  return out;
}

}  // namespace dw::platforms::notify
