// PagerDuty Events API v2 (POST /v2/enqueue). The incident's dedup key is the event's dedup_key,
// so every event of one incident lands on one PagerDuty incident and a retry is deduplicated by
// PagerDuty: open, a raised severity and an escalation trigger; an approval acknowledges; resolved
// resolves. Bodies as in ../shared/reference/notifications/.
#include <memory>

#include "platforms/notify/channel.h"
#include "platforms/notify/http_answer.h"
#include "platforms/notify/notice.h"

namespace dw::platforms::notify {
namespace {

std::string Clip(const std::string& s, size_t n) { return s.size() <= n ? s : s.substr(0, n - 3) + "..."; }

std::string ActionOf(EventKind e) {
  if (e == EventKind::kResolved) return "resolve";
  if (e == EventKind::kApproved) return "acknowledge";
  return "trigger";
}

}  // namespace

// The Events API v2 body of `n` (the routing key filled in by the caller).
Json PagerDutyEvent(const IncidentNotice& n, const std::string& routing_key, const std::string& timestamp) {
  Json event = {{"routing_key", routing_key}, {"event_action", ActionOf(n.event)},
                {"dedup_key", Clip(n.dedup_key, 255)}};
  if (event["event_action"] != "trigger") return event;
  Json details = Json::object();
  for (const auto& [label, value] : Facts(n)) details[label] = value;
  if (!n.diagnosis.empty()) details["Diagnosis"] = n.diagnosis;
  event["payload"] = {{"summary", Clip(Headline(n), 1024)},
                      {"source", n.asset.empty() ? "data-workers" : n.asset},
                      {"severity", PagerDutySeverity(n.severity)},
                      {"timestamp", timestamp},
                      {"component", n.asset},
                      {"group", n.domain},
                      {"class", "data incident"},
                      {"custom_details", details}};
  event["client"] = "Data Workers";
  if (!n.link.empty()) {
    event["client_url"] = n.link;
    event["links"] = Json::array({{{"href", n.link}, {"text", "Incident page"}}});
  }
  return event;
}

namespace {

class PagerDutyChannel final : public Channel {
 public:
  PagerDutyChannel(std::string key, std::string url) : key_(std::move(key)), url_(std::move(url)) {}
  std::string type() const override { return "pagerduty"; }
  bool Handles(EventKind e) const override {
    return e == EventKind::kOpen || e == EventKind::kSeverityRaised || e == EventKind::kEscalated ||
           e == EventKind::kApproved || e == EventKind::kResolved;
  }

  bool Deduplicates(const IncidentNotice&, const Json&) const override { return true; }  // dedup_key

  Delivery Send(const IncidentNotice& n, const std::vector<std::string>&,
                const std::vector<std::string>&, const Json&, const SendContext& ctx) const override {
    Json body = PagerDutyEvent(n, key_, FormatRfc3339(ctx.clock.Now()));
    const std::string service = "PagerDuty " + body["event_action"].get<std::string>();
    auto r = ctx.http.Send(JsonPost(url_ + "/v2/enqueue", body, ctx));
    if (!r.ok()) return FromTransportError(service, r.status());
    if (auto common = JudgeCommon(service, *r)) return *common;
    Delivery d;
    Json j = Json::parse(r->body, nullptr, false);
    if (r->status == 202 && j.is_object() && j.value("status", "") == "success") {
      d.outcome = Delivery::Outcome::kDelivered;
      d.answer = {{"dedup_key", j.value("dedup_key", n.dedup_key)}, {"action", body["event_action"]}};
      d.detail = service + ": " + j.value("message", "Event processed") + " (dedup_key " +
                 d.answer["dedup_key"].get<std::string>() + ")";
      return d;
    }
    std::string why = j.is_object() ? j.value("message", "") : "";
    if (j.is_object() && j.contains("errors") && j["errors"].is_array())
      for (const auto& e : j["errors"]) why += "; " + (e.is_string() ? e.get<std::string>() : e.dump());
    d.outcome = Delivery::Outcome::kRefused;
    d.detail = service + " refused (HTTP " + std::to_string(r->status) + "): " +
               (why.empty() ? Excerpt(r->body) : Excerpt(why, 400));
    return d;
  }

 private:
  std::string key_, url_;
};

}  // namespace

Result<std::unique_ptr<Channel>> MakePagerDutyChannel(const Json& s) {
  std::string url = s.value("url", "https://events.pagerduty.com");
  while (!url.empty() && url.back() == '/') url.pop_back();
  DW_RETURN_IF_ERROR(CheckServiceUrl("notify.pagerduty.url", url));
  return std::unique_ptr<Channel>(new PagerDutyChannel(s.value("routing_key", ""), url));
}

}  // namespace dw::platforms::notify
