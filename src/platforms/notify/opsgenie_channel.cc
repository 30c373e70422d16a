// Opsgenie Alert API v2. An incident is one alert whose alias is the incident's dedup key, so a
// retry or a second open never creates a second alert (Opsgenie deduplicates open alerts by
// alias): open creates it (priority from severity, the diagnosis in the description), a raised
// severity updates its priority, resolved closes it by alias with the receipt's summary as the
// note. Opsgenie processes these asynchronously: 202 with a requestId means accepted, and the
// requestId is kept on the outbox message (GET /v2/alerts/requests/{id} tells the outcome).
#include <memory>

#include "platforms/notify/channel.h"
#include "platforms/notify/http_answer.h"
#include "platforms/notify/notice.h"

namespace dw::platforms::notify {
namespace {

std::string Clip(const std::string& s, size_t n) { return s.size() <= n ? s : s.substr(0, n - 3) + "..."; }

}  // namespace

// The create-alert body of `n`.
Json OpsgenieAlert(const IncidentNotice& n) {
  std::string description = n.diagnosis;
  for (const auto& [label, value] : Facts(n)) description += (description.empty() ? "" : "\n") + label + ": " + value;
  if (!n.link.empty()) description += "\nIncident page: " + n.link;
  Json details = {{"incident", n.incident_id}, {"severity", n.severity}};
  if (!n.asset.empty()) details["asset"] = n.asset;
  if (!n.consumer.empty()) details["consumer"] = n.consumer;
  if (!n.deadline.empty()) details["deadline"] = n.deadline;
  if (!n.link.empty()) details["link"] = n.link;
  Json tags = Json::array({"data-workers", n.severity});
  if (!n.domain.empty()) tags.push_back(n.domain);
  Json alert = {{"message", Clip(Headline(n), 130)}, {"alias", Clip(n.dedup_key, 512)},
                {"description", Clip(description, 15000)}, {"priority", OpsgeniePriority(n.severity)},
                {"source", "Data Workers"}, {"tags", tags}, {"details", details}};
  if (!n.asset.empty()) alert["entity"] = Clip(n.asset, 512);
  return alert;
}

namespace {

class OpsgenieChannel final : public Channel {
 public:
  OpsgenieChannel(std::string key, std::string url) : key_(std::move(key)), url_(std::move(url)) {}
  std::string type() const override { return "opsgenie"; }
  bool Handles(EventKind e) const override {
    return e == EventKind::kOpen || e == EventKind::kSeverityRaised || e == EventKind::kResolved;
  }

  bool Deduplicates(const IncidentNotice&, const Json&) const override { return true; }  // by alias

  Delivery Send(const IncidentNotice& n, const std::vector<std::string>&,
                const std::vector<std::string>&, const Json&, const SendContext& ctx) const override {
    net::HttpRequest req;
    std::string action;
    const std::string alias = net::EncodePathSegment(n.dedup_key);
    if (n.event == EventKind::kResolved) {
      action = "close alert";
      req = JsonPost(url_ + "/v2/alerts/" + alias + "/close?identifierType=alias",
                     {{"user", "Data Workers"}, {"source", "Data Workers"},
                      {"note", Clip(n.summary.empty() ? "Resolved" : n.summary, 25000)}}, ctx);
    } else if (n.event == EventKind::kSeverityRaised) {
      action = "update priority";
      req = JsonPost(url_ + "/v2/alerts/" + alias + "/priority?identifierType=alias",
                     {{"priority", OpsgeniePriority(n.severity)}}, ctx);
      req.method = "PUT";
    } else {
      action = "create alert";
      req = JsonPost(url_ + "/v2/alerts", OpsgenieAlert(n), ctx);
    }
    req.headers.push_back({"Authorization", "GenieKey " + key_});
    auto r = ctx.http.Send(req);
    const std::string service = "Opsgenie " + action;
    if (!r.ok()) return FromTransportError(service, r.status());
    if (auto common = JudgeCommon(service, *r)) return *common;
    Delivery d;
    Json j = Json::parse(r->body, nullptr, false);
    std::string message = j.is_object() ? j.value("message", "") : "";
    if (j.is_object() && j.contains("errors") && j["errors"].is_object())
      for (const auto& [field, why] : j["errors"].items())
        message += " " + field + ": " + (why.is_string() ? why.get<std::string>() : why.dump());
    if (r->status == 202 || r->status == 200) {
      if (!j.is_object() || !j.contains("requestId")) {
        d.outcome = Delivery::Outcome::kRefused;
        d.detail = service + " answered HTTP " + std::to_string(r->status) +
                   " without a requestId: " + Excerpt(r->body);
        return d;
      }
      d.outcome = Delivery::Outcome::kDelivered;
      d.answer = {{"requestId", j["requestId"]}, {"alias", n.dedup_key}, {"action", action}};
      d.detail = service + ": accepted for asynchronous processing (requestId " +
                 j["requestId"].get<std::string>() + ")";
      return d;
    }
    d.outcome = Delivery::Outcome::kRefused;
    d.detail = service + " refused (HTTP " + std::to_string(r->status) + "): " +
               (message.empty() ? Excerpt(r->body) : Excerpt(message, 400));
    if (r->status == 401 || r->status == 403) d.detail += "; check notify.opsgenie.api_key (an API integration key)";
    if (r->status == 404) d.detail += "; no alert has alias " + n.dedup_key;
    return d;
  }

 private:
  std::string key_, url_;
};

}  // namespace

Result<std::unique_ptr<Channel>> MakeOpsgenieChannel(const Json& s) {
  std::string url = s.value("url", "https://api.opsgenie.com");
  while (!url.empty() && url.back() == '/') url.pop_back();
  DW_RETURN_IF_ERROR(CheckServiceUrl("notify.opsgenie.url", url));
  return std::unique_ptr<Channel>(new OpsgenieChannel(s.value("api_key", ""), url));
}

}  // namespace dw::platforms::notify
