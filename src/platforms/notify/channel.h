// Inside platforms/notify/: one Channel per configured service, each speaking its service's wire
// format. Found by the workspace key (its type name) in one registry (channel_registry.cc).
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "base/clock.h"
#include "base/json.h"
#include "base/status.h"
#include "net/http_client.h"
#include "net/mail_client.h"
#include "platforms/notify/notify.h"

namespace dw::platforms::notify {

// What one attempt came to.
struct Delivery {
  enum class Outcome {
    kDelivered,  // the service accepted it (for Opsgenie: accepted for asynchronous processing)
    kRetry,      // 429, 5xx, timeout, connection failure: try again after a backoff
    kRefused,    // the service (or our own rules) refused it for good: recorded, not retried
  };
  Outcome outcome = Outcome::kRefused;
  std::string detail;  // the answer or the error in words (redacted)
  Json answer = Json::object();  // kept on the outbox message (request id, message ts, ...)
  std::optional<std::chrono::milliseconds> retry_after;  // the service said when (Retry-After)
  // kRetry only: the request may have been processed although no good answer came back (a 5xx,
  // a timeout, a connection dropped after the request went out). Where the service cannot
  // deduplicate, a second such attempt ends the retries (at most one extra copy).
  bool may_have_landed = false;
};

// What a channel needs from its surroundings for one send.
struct SendContext {
  net::HttpClient& http;
  net::MailClient& mail;
  const Clock& clock;
  std::chrono::milliseconds timeout{10'000};
};

class Channel {
 public:
  virtual ~Channel() = default;
  // The service name: slack, teams, opsgenie, pagerduty, email, console.
  virtual std::string type() const = 0;
  // True iff this channel has something to say for `event` (email: approvals and receipts only).
  virtual bool Handles(EventKind event) const = 0;
  // True iff Send needs the answers of this incident's earlier messages (Slack's message ts).
  virtual bool NeedsThread() const { return false; }
  // True iff the service deduplicates a repeat of this send, so a retry after a lost answer can
  // never show it twice (Opsgenie's alias, PagerDuty's dedup_key, Slack's chat.update of the
  // message in `thread`). Incoming webhooks and mail cannot.
  virtual bool Deduplicates(const IncidentNotice&, const Json& /*thread*/) const { return false; }
  // Sends `notice` (recipients in `to`/`cc`). `thread`: the answers of this incident's earlier
  // messages that were sent on this channel, merged (empty object when none).
  virtual Delivery Send(const IncidentNotice& notice, const std::vector<std::string>& to,
                        const std::vector<std::string>& cc, const Json& thread,
                        const SendContext& ctx) const = 0;
  // Asks the service whether it would accept this channel's credentials without posting anything
  // (Slack's auth.test for a bot token): kDelivered when it would. nullopt where the service has
  // no such call (incoming webhooks, Events API keys, mail), so only a real send can tell.
  virtual std::optional<Delivery> Validate(const SendContext& /*ctx*/) const { return std::nullopt; }
};

// Ok when the workspace configures a channel `name` under notify:; otherwise NotFound naming the
// channels it does configure.
Status RequireConfiguredChannel(const config::Workspace& workspace, const std::string& name);

// Builds the channel configured under notify.`name` (slack, teams, opsgenie, pagerduty, email, console)
// from its validated `settings`. InvalidArgument for an unknown name, or a URL that is not https
// outside loopback (a secret must never travel in clear text); the message names the key, never
// the secret.
Result<std::unique_ptr<Channel>> MakeChannel(const std::string& name, const Json& settings);

}  // namespace dw::platforms::notify
