// Slack: an incoming webhook (one message per event), or with a bot token chat.postMessage for the
// first event and chat.update of that same message (its channel and ts are kept on the outbox
// message) for every later one, so the incident's message is edited as it moves. Block Kit body;
// Slack's error codes (invalid_payload, invalid_blocks, channel_not_found, no_service, ...) and
// 429 with Retry-After are read as Slack documents them.
#include <memory>

#include "platforms/notify/channel.h"
#include "platforms/notify/http_answer.h"
#include "platforms/notify/notice.h"

namespace dw::platforms::notify {
namespace {

// Slack mrkdwn treats &, < and > as control characters.
std::string Mrkdwn(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else out.push_back(c);
  }
  return out;
}

std::string Clip(const std::string& s, size_t n) { return s.size() <= n ? s : s.substr(0, n - 3) + "..."; }

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

// The Block Kit message of `n` (shared by the webhook and the bot API).
Json SlackMessage(const IncidentNotice& n, const std::vector<std::string>& to,
                  const std::vector<std::string>& cc) {
  Json blocks = Json::array();
  blocks.push_back({{"type", "header"},
                    {"text", {{"type", "plain_text"}, {"text", Clip(Headline(n), 150)}}}});
  if (!n.cause.empty())
    blocks.push_back({{"type", "section"},
                      {"text", {{"type", "mrkdwn"},
                                {"text", Clip("*Cause (ranked first):* " + Mrkdwn(n.cause), 3000)}}}});
  Json fields = Json::array();
  for (const auto& [label, value] : Facts(n)) {
    if (label == "Cause (ranked first)") continue;
    fields.push_back({{"type", "mrkdwn"}, {"text", Clip("*" + label + "*\n" + Mrkdwn(value), 2000)}});
    if (fields.size() == 10) break;  // Slack's limit per section
  }
  if (!fields.empty()) blocks.push_back({{"type", "section"}, {"fields", fields}});
  if (!to.empty()) {
    std::string who = (n.event == EventKind::kEscalated ? "Escalated to " : "For ") + Mrkdwn(Join(to));
    if (!cc.empty()) who += "; copied: " + Mrkdwn(Join(cc));
    blocks.push_back({{"type", "context"}, {"elements", {{{"type", "mrkdwn"}, {"text", Clip(who, 3000)}}}}});
  }
  if (!n.link.empty())
    blocks.push_back({{"type", "section"},
                      {"text", {{"type", "mrkdwn"}, {"text", "<" + n.link + "|Open the incident page>"}}}});
  // How to decide: each approver's own signed link, or the CLI command.
  for (const auto& [label, value] : DecideLines(n)) {
    const bool url = value.rfind("http", 0) == 0;
    blocks.push_back({{"type", "section"},
                      {"text", {{"type", "mrkdwn"},
                                {"text", Clip(url ? "<" + value + "|" + Mrkdwn(label) + ">" : "*" + Mrkdwn(label) + ":* " + Mrkdwn(value), 3000)}}}});
  }
  return Json{{"text", Clip(Headline(n), 3000)}, {"blocks", blocks}};
}

namespace {

// Slack API error codes worth another try (Slack: "retry the request" / transient).
bool TransientSlackError(const std::string& e) {
  return e == "ratelimited" || e == "internal_error" || e == "fatal_error" ||
         e == "service_unavailable" || e == "request_timeout";
}

class SlackChannel final : public Channel {
 public:
  SlackChannel(std::string webhook, std::string token, std::string channel, std::string api_url)
      : webhook_(std::move(webhook)), token_(std::move(token)), channel_(std::move(channel)),
        api_url_(std::move(api_url)) {}

  std::string type() const override { return "slack"; }
  bool Handles(EventKind) const override { return true; }
  bool NeedsThread() const override { return !token_.empty(); }
  // chat.update of the incident's message is idempotent; a first chat.postMessage or a webhook
  // post is not.
  bool Deduplicates(const IncidentNotice&, const Json& thread) const override {
    return !token_.empty() && thread.contains("ts") && thread["ts"].is_string();
  }

  Delivery Send(const IncidentNotice& n, const std::vector<std::string>& to,
                const std::vector<std::string>& cc, const Json& thread,
                const SendContext& ctx) const override {
    Json message = SlackMessage(n, to, cc);
    if (token_.empty()) return ViaWebhook(message, ctx);
    return ViaApi(message, thread, ctx);
  }

 private:
  Delivery ViaWebhook(const Json& message, const SendContext& ctx) const {
    auto r = ctx.http.Send(JsonPost(webhook_, message, ctx));
    if (!r.ok()) return FromTransportError("Slack", r.status());
    if (auto common = JudgeCommon("Slack", *r)) return *common;
    Delivery d;
    std::string body = Excerpt(r->body, 100);
    if (r->status == 200) {
      d.outcome = Delivery::Outcome::kDelivered;
      d.detail = "Slack accepted the message (" + body + ")";
      d.answer = {{"via", "webhook"}};
      return d;
    }
    // Incoming webhooks answer a plain-text error code with a 4xx status.
    d.outcome = Delivery::Outcome::kRefused;
    d.detail = "Slack refused the message (HTTP " + std::to_string(r->status) + " " + body + ")";
    if (body == "channel_not_found" || body == "channel_is_archived")
      d.detail += ": the webhook's channel is gone; create a new webhook";
    else if (body == "no_service" || body == "no_team" || body == "team_disabled")
      d.detail += ": the webhook is disabled or revoked; create a new one";
    else if (body == "invalid_payload" || body == "invalid_blocks" || body == "no_text")
      d.detail += ": Slack could not read the message";
    return d;
  }

  Delivery ViaApi(const Json& message, const Json& thread, const SendContext& ctx) const {
    const bool update = thread.contains("ts") && thread["ts"].is_string();
    Json body = message;
    body["channel"] = update && thread.contains("channel") ? thread["channel"] : Json(channel_);
    if (update) body["ts"] = thread["ts"];
    const std::string method = update ? "chat.update" : "chat.postMessage";
    net::HttpRequest req = JsonPost(api_url_ + "/" + method, body, ctx);
    req.bearer_token = token_;
    auto r = ctx.http.Send(req);
    if (!r.ok()) return FromTransportError("Slack " + method, r.status());
    if (auto common = JudgeCommon("Slack " + method, *r)) return *common;
    Delivery d;
    Json j = Json::parse(r->body, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("ok")) {
      d.detail = "Slack " + method + " answered HTTP " + std::to_string(r->status) +
                 " with something that is not its JSON answer: " + Excerpt(r->body);
      return d;
    }
    if (j.value("ok", false)) {
      d.outcome = Delivery::Outcome::kDelivered;
      d.answer = {{"via", method}, {"channel", j.value("channel", body["channel"].get<std::string>())},
                  {"ts", j.value("ts", update ? thread["ts"].get<std::string>() : std::string())}};
      d.detail = std::string("Slack ") + (update ? "updated" : "posted") + " message " +
                 d.answer["ts"].get<std::string>() + " in " + d.answer["channel"].get<std::string>();
      return d;
    }
    std::string error = j.value("error", "unknown_error");
    d.outcome = TransientSlackError(error) ? Delivery::Outcome::kRetry : Delivery::Outcome::kRefused;
    d.detail = "Slack " + method + " failed: " + error;
    if (error == "channel_not_found") d.detail += " (invite the bot to channel " + channel_ + ", or fix notify.slack.channel)";
    if (error == "invalid_auth" || error == "not_authed" || error == "token_revoked")
      d.detail += " (check the bot token in notify.slack.token)";
    return d;
  }

  std::optional<Delivery> Validate(const SendContext& ctx) const override {
    if (token_.empty()) return std::nullopt;  // a webhook answers only to a post
    net::HttpRequest req = JsonPost(api_url_ + "/auth.test", Json::object(), ctx);
    req.bearer_token = token_;
    auto r = ctx.http.Send(req);
    if (!r.ok()) return FromTransportError("Slack auth.test", r.status());
    if (auto common = JudgeCommon("Slack auth.test", *r)) return *common;
    Delivery d;
    Json j = Json::parse(r->body, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("ok")) {
      d.detail = "Slack auth.test answered HTTP " + std::to_string(r->status) +
                 " with something that is not its JSON answer: " + Excerpt(r->body);
      return d;
    }
    if (j.value("ok", false)) {
      d.outcome = Delivery::Outcome::kDelivered;
      d.detail = "Slack accepted the bot token (team " + j.value("team", std::string("?")) + ", bot user " +
                 j.value("user", std::string("?")) + ")";
      return d;
    }
    d.detail = "Slack auth.test failed: " + j.value("error", std::string("unknown_error")) +
               " (check the bot token in notify.slack.token)";
    return d;
  }

  std::string webhook_, token_, channel_, api_url_;
};

}  // namespace

Result<std::unique_ptr<Channel>> MakeSlackChannel(const Json& s) {
  std::string webhook = s.value("webhook", ""), token = s.value("token", "");
  std::string api_url = s.value("api_url", "https://slack.com/api");
  while (!api_url.empty() && api_url.back() == '/') api_url.pop_back();
  if (!token.empty()) {
    if (s.value("channel", "").empty())
      return InvalidArgument("notify.slack: a bot token needs 'channel' (the channel id to post in)");
    DW_RETURN_IF_ERROR(CheckServiceUrl("notify.slack.api_url", api_url));
  } else {
    DW_RETURN_IF_ERROR(CheckServiceUrl("notify.slack.webhook", webhook));
  }
  return std::unique_ptr<Channel>(new SlackChannel(webhook, token, s.value("channel", ""), api_url));
}

}  // namespace dw::platforms::notify
