// DeliverDue: the outbox's sender (the `dw watch` delivery job, `dw notify deliver`).
//
// Per round: the due messages (at most one per incident and channel, so an incident's messages
// keep their order), sent at once with up to `parallel` requests in flight per channel, each
// worker thread keeping its connection to the service open between requests; then every outcome
// of the round recorded in one store transaction. A retry is a due time on the message, never a
// sleep. A process killed after a send and before its round is recorded sends that message again
// on the next run: deduplicated by services that can (Opsgenie alias, PagerDuty dedup_key, Slack
// chat.update), one extra copy at most where they cannot.
#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include "base/log.h"
#include "net/connection_reuse.h"
#include "platforms/notify/channel.h"
#include "platforms/notify/notice.h"
#include "platforms/notify/notify.h"

namespace dw::platforms::notify {
namespace {

// Where a service cannot deduplicate, this many attempts that may have reached it (answers lost)
// end the retries: a third could show the message a third time.
constexpr int kMaxUnconfirmed = 2;

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

  // Sends `m` once and sets on it what the attempt came to (state, attempts, due time, error,
  // answer); nothing is stored yet. A Status error: the store could not be read.
  Status SendOne(store::OutboxMessage& m) {
    Delivery d;
    bool dedups = false;
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
      // The approval links are signed now, not stored (ApprovalLinkSpec): a message written before a
      // crash is sent with the same links by the next run.
      ResolveApprovalLinks(*notice, ws_.desk.url, o_.approval_link);
      dedups = (*channel)->Deduplicates(*notice, thread);
      d = (*channel)->Send(*notice, Strings(m.payload, "to"), Strings(m.payload, "cc"), thread, ctx_);
    }
    m.attempts += 1;
    // Attempts that may have reached a service that cannot deduplicate, kept on the message.
    int unconfirmed = m.answer.is_object() ? m.answer.value("unconfirmed_attempts", 0) : 0;
    if (d.outcome == Delivery::Outcome::kRetry && d.may_have_landed && !dedups) ++unconfirmed;
    const TimePoint now = ctx_.clock.Now();
    switch (d.outcome) {
      case Delivery::Outcome::kDelivered:
        m.state = "sent";
        m.answer = d.answer;
        m.answer["detail"] = d.detail;
        if (unconfirmed > 0) m.answer["unconfirmed_attempts"] = unconfirmed;  // it may show twice
        m.last_error.clear();
        break;
      case Delivery::Outcome::kRetry:
        if (unconfirmed >= kMaxUnconfirmed) {
          m.state = "failed";
          m.last_error = d.detail + " (not sent again: " + std::to_string(unconfirmed) +
                         " attempts may have reached the service with their answers lost, and it cannot "
                         "deduplicate; another attempt could show the message a third time)";
        } else if (m.attempts >= o_.max_attempts) {
          m.state = "failed";
          m.last_error = d.detail + " (gave up after " + std::to_string(m.attempts) + " attempts)";
        } else {
          m.last_error = d.detail;
          m.next_attempt_at = now + std::max(Backoff(o_, m.attempts), d.retry_after.value_or(std::chrono::milliseconds(0)));
        }
        if (!m.answer.is_object()) m.answer = Json::object();
        if (unconfirmed > 0) m.answer["unconfirmed_attempts"] = unconfirmed;
        break;
      case Delivery::Outcome::kRefused:
        m.state = "failed";
        m.last_error = d.detail;
        break;
    }
    m.last_error = RedactSecrets(m.last_error);
    return Status::Ok();
  }

 private:
  const config::Workspace& ws_;
  store::StateStore& store_;
  SendContext ctx_;
  const DeliveryOptions& o_;
  std::map<std::string, Result<std::unique_ptr<Channel>>> channels_;
};

void Count(const store::OutboxMessage& m, DeliveryReport* report) {
  if (m.state == "sent") ++report->sent;
  else if (m.state == "failed") ++report->failed;
  else ++report->retried;
  if (m.state != "sent") {
    std::string line = m.incident_id + " " + m.channel + " " + m.event + ": " + m.last_error;
    spdlog::warn("notify: {}", line);
    if (report->errors.size() < 100) report->errors.push_back(std::move(line));
  }
}

// Sends every message of `due` (mutated in place with its outcome): per channel, up to `parallel`
// workers pull the channel's messages, each worker reusing its connections.
Status SendRound(Sender& sender, std::vector<store::OutboxMessage>& due, int parallel) {
  std::map<std::string, std::vector<size_t>> by_channel;
  for (size_t i = 0; i < due.size(); ++i) by_channel[due[i].channel].push_back(i);
  struct Queue {
    const std::vector<size_t>* items;
    std::atomic<size_t> next{0};
  };
  std::vector<std::unique_ptr<Queue>> queues;
  for (const auto& [channel, items] : by_channel) {
    queues.push_back(std::make_unique<Queue>());
    queues.back()->items = &items;
  }
  Status first_error;
  std::mutex error_mu;
  auto work = [&](Queue* q) {
    net::ConnectionReuse keep_alive;
    for (size_t k = q->next++; k < q->items->size(); k = q->next++) {
      Status s = sender.SendOne(due[(*q->items)[k]]);
      if (!s.ok()) {
        std::lock_guard<std::mutex> lock(error_mu);
        if (first_error.ok()) first_error = s;
        return;
      }
    }
  };
  std::vector<std::thread> pool;
  for (auto& q : queues) {
    size_t workers = std::min<size_t>(std::max(1, parallel), q->items->size());
    for (size_t t = 0; t < workers; ++t) pool.emplace_back(work, q.get());
  }
  for (auto& t : pool) t.join();
  return first_error;
}

}  // namespace

Result<DeliveryReport> DeliverDue(const config::Workspace& ws, store::StateStore& store,
                                  net::HttpClient& http, net::MailClient& mail, const Clock& clock,
                                  const DeliveryOptions& options) {
  DeliveryReport report;
  Sender sender(ws, store, http, mail, clock, options);
  for (;;) {
    auto due = store.DueOutbox(clock.Now(), std::max(1, options.batch));
    if (!due.ok()) return due.status();
    if (due->empty()) break;
    sender.Prepare(*due);
    // DueOutbox returns at most one message per (incident, channel), so these may go at once.
    DW_RETURN_IF_ERROR(SendRound(sender, *due, options.parallel));
    // The round's outcomes in one commit (not one per message): a message is never sent again
    // before its attempt is recorded, since the next round reads after this commit.
    DW_RETURN_IF_ERROR(store.UpdateOutboxMessages(*due));
    for (const store::OutboxMessage& m : *due) Count(m, &report);
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
