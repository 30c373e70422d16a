// DeliverDue: the outbox's sender (the `dw watch` delivery job, `dw notify deliver`).
#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "base/log.h"
#include "platforms/notify/channel.h"
#include "platforms/notify/notice.h"
#include "platforms/notify/notify.h"

namespace dw::platforms::notify {
namespace {

std::vector<std::string> Strings(const Json& j, const char* key) {
  std::vector<std::string> out;
  if (!j.contains(key) || !j[key].is_array()) return out;
  for (const auto& v : j[key])
    if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

std::chrono::milliseconds Backoff(const DeliveryOptions& o, int attempts) {
  auto b = o.first_backoff;
  for (int i = 1; i < attempts && b < o.max_backoff; ++i) b *= 2;
  return std::min(b, o.max_backoff);
}

// The answers of the incident's messages already sent on `channel`, merged oldest first.
Result<Json> ThreadOf(store::StateStore& store, const store::OutboxMessage& m) {
  auto all = store.OutboxFor(m.incident_id);
  if (!all.ok()) return all.status();
  Json thread = Json::object();
  for (const auto& other : *all)
    if (other.channel == m.channel && other.state == "sent" && other.id != m.id && other.answer.is_object())
      thread.update(other.answer);
  return thread;
}

class Sender {
 public:
  Sender(const config::Workspace& ws, store::StateStore& store, net::HttpClient& http,
         net::MailClient& mail, const Clock& clock, const DeliveryOptions& o)
      : ws_(ws), store_(store), ctx_{http, mail, clock, o.request_timeout}, o_(o) {}

  // Builds the channels `due` needs (once per run).
  void Prepare(const std::vector<store::OutboxMessage>& due) {
    for (const auto& m : due) {
      if (channels_.count(m.channel)) continue;
      if (!ws_.notify.contains(m.channel))
        channels_.emplace(m.channel, Result<std::unique_ptr<Channel>>(NotFound(
            "channel '" + m.channel + "' is no longer configured under notify:")));
      else
        channels_.emplace(m.channel, MakeChannel(m.channel, ws_.notify[m.channel]));
    }
  }

  // Sends `m` once and records the outcome on it. A Status error: the store failed.
  Status SendOne(store::OutboxMessage m, DeliveryReport* report, std::mutex* report_mu) {
    Delivery d;
    const auto& channel = channels_.at(m.channel);
    auto notice = NoticeFromJson(m.payload.value("notice", Json::object()));
    if (!channel.ok()) {
      d.detail = channel.status().message();
    } else if (!notice.ok()) {
      d.detail = notice.status().message();
    } else {
      Json thread = Json::object();
      if ((*channel)->NeedsThread()) {
        auto t = ThreadOf(store_, m);
        if (!t.ok()) return t.status();
        thread = std::move(t).value();
      }
      d = (*channel)->Send(*notice, Strings(m.payload, "to"), Strings(m.payload, "cc"), thread, ctx_);
    }
    m.attempts += 1;
    const TimePoint now = ctx_.clock.Now();
    switch (d.outcome) {
      case Delivery::Outcome::kDelivered:
        m.state = "sent";
        m.answer = d.answer;
        m.answer["detail"] = d.detail;
        m.last_error.clear();
        break;
      case Delivery::Outcome::kRetry:
        if (m.attempts >= o_.max_attempts) {
          m.state = "failed";
          m.last_error = d.detail + " (gave up after " + std::to_string(m.attempts) + " attempts)";
        } else {
          m.last_error = d.detail;
          m.next_attempt_at = now + std::max(Backoff(o_, m.attempts), d.retry_after.value_or(std::chrono::milliseconds(0)));
        }
        break;
      case Delivery::Outcome::kRefused:
        m.state = "failed";
        m.last_error = d.detail;
        break;
    }
    m.last_error = RedactSecrets(m.last_error);
    DW_RETURN_IF_ERROR(store_.UpdateOutbox(m));
    std::lock_guard<std::mutex> lock(*report_mu);
    if (m.state == "sent") ++report->sent;
    else if (m.state == "failed") ++report->failed;
    else ++report->retried;
    if (m.state != "sent") {
      std::string line = m.incident_id + " " + m.channel + " " + m.event + ": " + m.last_error;
      spdlog::warn("notify: {}", line);
      if (report->errors.size() < 100) report->errors.push_back(std::move(line));
    }
    return Status::Ok();
  }

 private:
  const config::Workspace& ws_;
  store::StateStore& store_;
  SendContext ctx_;
  const DeliveryOptions& o_;
  std::map<std::string, Result<std::unique_ptr<Channel>>> channels_;
};

}  // namespace

Result<DeliveryReport> DeliverDue(const config::Workspace& ws, store::StateStore& store,
                                  net::HttpClient& http, net::MailClient& mail, const Clock& clock,
                                  const DeliveryOptions& options) {
  DeliveryReport report;
  std::mutex report_mu;
  Sender sender(ws, store, http, mail, clock, options);
  for (;;) {
    auto due = store.DueOutbox(clock.Now(), std::max(1, options.batch));
    if (!due.ok()) return due.status();
    if (due->empty()) break;
    sender.Prepare(*due);
    // DueOutbox returns at most one message per (incident, channel), so these may go at once.
    std::atomic<size_t> next{0};
    Status first_error;
    std::mutex error_mu;
    auto work = [&] {
      for (size_t i = next++; i < due->size(); i = next++) {
        Status s = sender.SendOne((*due)[i], &report, &report_mu);
        if (!s.ok()) {
          std::lock_guard<std::mutex> lock(error_mu);
          if (first_error.ok()) first_error = s;
          return;
        }
      }
    };
    size_t threads = std::min<size_t>(std::max(1, options.parallel), due->size());
    std::vector<std::thread> pool;
    for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    if (!first_error.ok()) return first_error;
  }
  return report;
}

Result<std::vector<NotificationStatus>> NotificationsOf(store::StateStore& store,
                                                        const std::string& incident_id) {
  auto all = store.OutboxFor(incident_id);
  if (!all.ok()) return all.status();
  std::vector<NotificationStatus> out;
  for (const auto& m : *all)
    out.push_back({m.channel, m.event, m.state, m.attempts, m.last_error, m.answer, m.updated_at});
  return out;
}

}  // namespace dw::platforms::notify
