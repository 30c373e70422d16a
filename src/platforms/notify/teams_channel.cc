// Microsoft Teams: a Workflows webhook ("When a Teams webhook request is received") carrying an
// Adaptive Card, the finding card: headline, the facts (severity, asset, cause ranked first, the
// customer-facing consumer and its deadline) and a button to the incident page. Workflows answer
// 202 Accepted; the flow runs afterwards.
#include <memory>

#include "platforms/notify/channel.h"
#include "platforms/notify/http_answer.h"
#include "platforms/notify/notice.h"

namespace dw::platforms::notify {

// The webhook body: a message with one Adaptive Card attachment.
Json TeamsMessage(const IncidentNotice& n, const std::vector<std::string>& to) {
  Json facts = Json::array();
  for (const auto& [label, value] : Facts(n)) facts.push_back({{"title", label}, {"value", value}});
  for (const auto& [label, value] : DecideLines(n)) facts.push_back({{"title", label}, {"value", value}});
  std::string who;
  for (const auto& p : to) who += (who.empty() ? "" : ", ") + p;
  if (!who.empty()) facts.push_back({{"title", n.event == EventKind::kEscalated ? "Escalated to" : "For"}, {"value", who}});
  Json body = Json::array();
  body.push_back({{"type", "TextBlock"}, {"text", Headline(n)}, {"weight", "Bolder"},
                  {"size", "Medium"}, {"wrap", true}});
  if (!n.diagnosis.empty())
    body.push_back({{"type", "TextBlock"}, {"text", n.diagnosis}, {"wrap", true}});
  body.push_back({{"type", "FactSet"}, {"facts", facts}});
  Json card = {{"$schema", "http://adaptivecards.io/schemas/adaptive-card.json"},
               {"type", "AdaptiveCard"}, {"version", "1.4"}, {"body", body}};
  if (!n.link.empty())
    card["actions"] = Json::array({{{"type", "Action.OpenUrl"}, {"title", "Open the incident"}, {"url", n.link}}});
  return Json{{"type", "message"},
              {"attachments", Json::array({{{"contentType", "application/vnd.microsoft.card.adaptive"},
                                            {"contentUrl", nullptr},
                                            {"content", card}}})}};
}

namespace {

class TeamsChannel final : public Channel {
 public:
  explicit TeamsChannel(std::string webhook) : webhook_(std::move(webhook)) {}
  std::string type() const override { return "teams"; }
  bool Handles(EventKind) const override { return true; }

  Delivery Send(const IncidentNotice& n, const std::vector<std::string>& to,
                const std::vector<std::string>&, const Json&, const SendContext& ctx) const override {
    auto r = ctx.http.Send(JsonPost(webhook_, TeamsMessage(n, to), ctx));
    if (!r.ok()) return FromTransportError("Teams", r.status());
    if (auto common = JudgeCommon("Teams", *r)) return *common;
    Delivery d;
    if (r->status >= 200 && r->status < 300) {
      d.outcome = Delivery::Outcome::kDelivered;
      d.detail = "Teams accepted the card (HTTP " + std::to_string(r->status) + ")";
      d.answer = {{"status", r->status}};
      return d;
    }
    d.outcome = Delivery::Outcome::kRefused;
    d.detail = "Teams refused the card (HTTP " + std::to_string(r->status) + "): " + Excerpt(r->body);
    if (r->status == 401 || r->status == 403 || r->status == 404)
      d.detail += "; the workflow's URL is wrong or its signature expired: copy it again from the workflow";
    return d;
  }

 private:
  std::string webhook_;
};

}  // namespace

Result<std::unique_ptr<Channel>> MakeTeamsChannel(const Json& s) {
  std::string webhook = s.value("webhook", "");
  DW_RETURN_IF_ERROR(CheckServiceUrl("notify.teams.webhook", webhook));
  return std::unique_ptr<Channel>(new TeamsChannel(webhook));
}

}  // namespace dw::platforms::notify
