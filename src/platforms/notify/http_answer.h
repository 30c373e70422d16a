// How a notification service's HTTP answer is judged, the same for every channel: the transport
// failures, redirects (never followed: the request carries a credential), 429 with Retry-After,
// 5xx, an HTML page where the service answers JSON or text, and the URL rule (https outside
// loopback).
#pragma once

#include <optional>
#include <string>

#include "base/status.h"
#include "net/http_client.h"
#include "platforms/notify/channel.h"

namespace dw::platforms::notify {

// The most an answer of a notification service may weigh; larger is refused.
inline constexpr size_t kMaxAnswerBytes = 256 * 1024;

// True iff `url`'s host is 127.0.0.1, ::1 or localhost.
bool IsLoopbackUrl(const std::string& url);

// Ok iff `url` is https://, or http:// to a loopback host. `what` names the key ("notify.slack.webhook").
Status CheckServiceUrl(const std::string& what, const std::string& url);

// A POST of `body` (JSON) to `url` with `headers`, capped and timed out as notifications are.
net::HttpRequest JsonPost(const std::string& url, const Json& body, const SendContext& ctx);

// The Delivery for a request that got no usable answer (`status` from HttpClient::Send).
Delivery FromTransportError(const std::string& service, const Status& status);

// The Delivery for answers every service means the same way (3xx, 429, 5xx, an HTML page), or
// nullopt when the channel must read the answer itself.
std::optional<Delivery> JudgeCommon(const std::string& service, const net::HttpResponse& response);

// The first `n` characters of `body`, on one line, redacted (for error messages).
std::string Excerpt(const std::string& body, size_t n = 200);

}  // namespace dw::platforms::notify
