// Notifications: the front door of platforms/notify/. The stage that decides to tell people
// something (incidents/, actions/) calls Enqueue with plain data; the outbox in the state store
// keeps every message before it is sent; DeliverDue (the `dw watch` delivery job) sends what is
// due to Slack, Microsoft Teams, Opsgenie, PagerDuty or email, each in its own wire format, retries
// with backoff on 429/5xx/timeouts and records the answer or the failure on the message.
//
// Which channels get a notice comes from the workspace's `notify:` (channels, and routes per
// domain, severity and event; see docs/workspace.md). Secrets (tokens, keys, webhook URLs) are read
// from the workspace (substituted from ${ENV}) at send time and never written to the outbox, a log
// or an error.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/json.h"
#include "base/status.h"
#include "config/workspace.h"
#include "net/http_client.h"
#include "net/mail_client.h"
#include "store/state_store.h"

namespace dw::platforms::notify {

// What happened to an incident that people are told about.
enum class EventKind {
  kOpen,
  kSeverityRaised,
  kApprovalRequested,
  kApproved,
  kEscalated,
  kVerified,
  kResolved,
  kAttentionRequested,  // a verification failed: the incident stays open and needs a person
};
// "open", "severity_raised", "approval_requested", "approved", "escalated", "verified", "resolved",
// "attention_requested".
const char* EventKindName(EventKind kind);
std::optional<EventKind> ParseEventKind(const std::string& name);

// What a signed approval link binds (actions.h, "Signed approval links"): the approver, the
// proposal version, the request's expiry and a single-use nonce. The outbox keeps only these
// fields, never the link: the link is their HMAC made at send time with the sender's key
// (DW_APPROVAL_LINK_KEY, from the environment), so a reader of the outbox (an agent, a backup)
// holds nothing it can decide with, and a message written before a crash is still sendable.
struct ApprovalLinkSpec {
  std::string approver;
  std::string proposal_id;
  int64_t version = 0;
  int64_t expires_at_ms = 0;
  std::string nonce;
};

// Makes the signed token of a link (actions::ApprovalLinkSigner); an error when it cannot.
using ApprovalLinkSigner = std::function<Result<std::string>(const ApprovalLinkSpec&)>;

// One thing to tell people about an incident, as plain data (platforms/ sits left of incidents/
// and actions/, so it knows none of their types).
struct IncidentNotice {
  std::string incident_id;  // required
  std::string dedup_key;    // required: the incident's key (Opsgenie alias, PagerDuty dedup_key)
  EventKind event = EventKind::kOpen;
  std::string severity;     // SEV1 (worst) .. SEV4; required
  std::string domain;       // the workspace domain (routing, approvers, escalate_to)
  std::string title;        // one line: what is wrong
  std::string asset;        // the damaged asset id
  std::string cause;        // the cause ranked first, one sentence
  std::string diagnosis;    // the longer explanation (Opsgenie description, email body)
  std::string consumer;     // the customer-facing consumer at risk, e.g. sync://hightouch/...
  std::string deadline;     // when that consumer acts next (RFC 3339)
  std::string summary;      // approval: what is proposed; verified/resolved: the receipt's summary
  std::string link;         // the incident page; empty: notify.link with {incident} filled in
  // Distinguishes repeated events of one kind (severity_raised to SEV1 after SEV2): part of the
  // deduplication key. Empty for the others.
  std::string revision;
  // An approval request or escalation: one link per approver (stored), and how to decide without
  // one (the CLI command, when the workspace has no desk.url or the sender no key).
  std::vector<ApprovalLinkSpec> approval_links;
  std::string decide_hint;
  // People asked directly besides the domain's (RecipientsOf): the owner of what a proposal holds
  // or changes, whose approval the request needs too. Used when the notice is queued.
  std::vector<std::string> also_to;
  // Filled at send time, never stored: approver -> the desk URL of that approver's signed link.
  std::vector<std::pair<std::string, std::string>> approve_urls;
};

struct EnqueueReport {
  std::vector<std::string> queued;     // channels that got a new outbox message
  std::vector<std::string> duplicate;  // channels that already had this (incident, event)
};

// The channels that would carry `notice`: those the workspace routes it to that have something to
// say for its event (a misconfigured channel counts: its message is queued and fails visibly).
// Empty when nobody would be told, which a caller says instead of "sent". Pure.
std::vector<std::string> ChannelsCarrying(const config::Workspace& workspace, const IncidentNotice& notice);

// What `dw validate` warns about: each domain that sends approval requests (autonomy L2 or above,
// with approvers) or escalations (escalate_to) to no channel at any severity, keyed by
// "domains.<name>"; such a request is recorded and pending, and nobody is told. Pure.
std::vector<std::pair<std::string, std::string>> UnroutedDecisionWarnings(const config::Workspace& workspace);

// Writes one outbox message per channel the workspace routes `notice` to (a channel that has
// nothing to say for the event, e.g. email for `open`, is skipped), in one transaction, due now.
// The approvers of the notice's domain are the recipients of an approval request (its owners
// copied), escalate_to those of an escalation, its owners those of attention_requested (its
// approvers copied). InvalidArgument for a notice without incident id,
// dedup key or severity, or a domain the workspace does not define. An (incident, channel, event)
// already in the outbox is not written again (reported as duplicate).
Result<EnqueueReport> Enqueue(const config::Workspace& workspace, store::StateStore& store,
                              const Clock& clock, const IncidentNotice& notice);

struct DeliveryOptions {
  int max_attempts = 8;                                   // then the message is given up (failed)
  std::chrono::milliseconds first_backoff{10'000};        // doubles per attempt...
  std::chrono::milliseconds max_backoff{15 * 60 * 1000};  // ...up to this
  int batch = 200;      // messages read from the outbox at a time (one round, one commit)
  int parallel = 4;     // sends at once per channel (never two of one incident on one channel)
  std::chrono::milliseconds request_timeout{10'000};
  // Signs the approval links of approval requests and escalations at send time, under the
  // workspace's desk.url. Unset (no DW_APPROVAL_LINK_KEY where the sender runs): those messages
  // carry the CLI command instead, and say why.
  ApprovalLinkSigner approval_link;
};

struct DeliveryReport {
  int sent = 0;
  int retried = 0;  // failed attempts that will be tried again
  int failed = 0;   // given up, or refused for good (the error is recorded on the message)
  std::vector<std::string> errors;  // one line per failed attempt (redacted)
};

// Sends every outbox message due at the clock's now, in order per (incident, channel), until none
// is due: in rounds of up to `batch` messages, up to `parallel` requests in flight per channel over
// kept-alive connections, the round's outcomes recorded in one commit before the next round reads
// (so a message is never retried before its attempt is recorded). A retry is a due time on the
// message, never a sleep. Where the service cannot deduplicate (Channel::Deduplicates), a second
// attempt that may have reached it with the answer lost gives the message up (at most one extra
// copy). Never fails for a message's sake; a Status error means the outbox could not be read or
// written (the round's sends are then sent again by the next run).
Result<DeliveryReport> DeliverDue(const config::Workspace& workspace, store::StateStore& store,
                                  net::HttpClient& http, net::MailClient& mail, const Clock& clock,
                                  const DeliveryOptions& options = {});

// What a channel's service answered to one request.
struct TestAnswer {
  std::string channel;
  std::string type;     // slack, teams, opsgenie, pagerduty, email
  bool delivered = false;
  std::string answer;   // the service's answer, or the error (redacted)
};

// `dw notify test CHANNEL`: sends a test message on `channel` now (not through the outbox) and
// reports the answer. NotFound for a channel the workspace does not configure.
Result<TestAnswer> SendTest(const config::Workspace& workspace, const std::string& channel,
                            net::HttpClient& http, net::MailClient& mail, const Clock& clock);

// Whether a channel would work, found without sending a message.
struct ChannelCheck {
  std::string channel;
  std::string type;         // slack, teams, ...; the channel's name when it could not be built
  bool configured = false;  // its settings make a channel (URLs, required keys)
  // Set when the service has a call that validates credentials without posting (Slack's
  // auth.test): whether it accepted them. Unset otherwise: only `dw notify test` can tell.
  std::optional<bool> accepted;
  std::string detail;       // the service's answer or the configuration error (redacted)
};

// `dw doctor`'s look at notify.`channel`: builds the channel from its settings and, where the
// service allows it, validates its credentials; nothing is sent. NotFound for a channel the
// workspace does not configure.
Result<ChannelCheck> CheckChannel(const config::Workspace& workspace, const std::string& channel,
                                  net::HttpClient& http, net::MailClient& mail, const Clock& clock,
                                  std::chrono::milliseconds timeout);

// One outbox message as `dw incidents show` lists it.
struct NotificationStatus {
  std::string channel;
  std::string event;
  std::string state;  // pending | sent | failed
  int attempts = 0;
  std::string last_error;
  Json answer;
  TimePoint updated_at;
};

// Every notification of `incident_id`, in the order they were written.
Result<std::vector<NotificationStatus>> NotificationsOf(store::StateStore& store,
                                                        const std::string& incident_id);

// The channel names the workspace configures under notify:, sorted.
std::vector<std::string> ChannelNames(const config::Workspace& workspace);

}  // namespace dw::platforms::notify
