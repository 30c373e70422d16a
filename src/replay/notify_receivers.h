// The notification receivers of a replay: one dw-sim receiver process (slack, teams, opsgenie,
// pagerduty, smtp) per channel the scenario names under `receivers:`, and what each one recorded,
// read back as the messages a person would have seen. Message and alert expectations are checked
// against these records, never against the product's own outbox.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "net/http_client.h"
#include "replay/replay.h"
#include "replay/simulator_process.h"

namespace dw::replay {

// One message a receiver accepted (a request it answered with success, a mail it queued), or an
// edit of one: Slack's chat.update changes the message chat.postMessage made, so both carry the
// same `key` (the message's ts) and a person sees one message that told both events.
struct ReceivedMessage {
  std::string key;       // which message this is (or edits); distinct keys are distinct messages
  bool edit = false;     // a new version of the message `key`, not a new message
  std::string channel;   // the workspace channel: slack, teams, opsgenie, pagerduty, email
  std::string event;     // the notification event it tells ("" when the message does not say)
  std::string headline;  // "[SEV1] Approval requested: ..." (Opsgenie close: "close <alias>")
  std::string text;      // every string the message carries, one per line
  std::vector<std::string> to, cc;  // the people it names as recipients / copied
};

// An alert as the service holds it at the end: an Opsgenie alert or a PagerDuty incident.
struct ReceivedAlert {
  std::string key;    // the Opsgenie alias or the PagerDuty dedup_key
  std::string state;  // opsgenie: open | closed; pagerduty: triggered | acknowledged | resolved
  std::string title;
  std::vector<std::string> notes;
};

// The notification event a message headline tells ("[SEV1] Approval requested: ..." ->
// "approval_requested"), or "" when it tells none.
std::string EventOfHeadline(const std::string& headline);

class NotifyReceivers {
 public:
  // Starts a receiver for each entry of `specs` (channel -> script; inline scripts are written
  // into `script_dir`). On failure returns the channel that failed in `failed` and kUnavailable
  // with dw-sim's words, or kInvalidArgument for an inline script that cannot be written.
  static Result<std::unique_ptr<NotifyReceivers>> Start(const std::filesystem::path& sim_binary,
                                                        const std::map<std::string, ReceiverSpec>& specs,
                                                        const std::filesystem::path& script_dir,
                                                        std::string* failed);

  // channel -> the URL its receiver serves (http://127.0.0.1:PORT, smtp://127.0.0.1:PORT).
  const std::map<std::string, std::string>& urls() const { return urls_; }

  // Tells every HTTP receiver the simulated time (their scripted faults may have windows); the
  // SMTP receiver has no clock. Also reads what the SMTP receiver printed so far.
  Status SetClock(net::HttpClient& http, TimePoint t);

  // Every message `channel`'s receiver accepted, in the order it accepted them. kUnavailable when
  // the receiver cannot be read.
  Result<std::vector<ReceivedMessage>> Messages(net::HttpClient& http, const std::string& channel);

  // The alerts `channel` (opsgenie or pagerduty) holds now.
  Result<std::vector<ReceivedAlert>> Alerts(net::HttpClient& http, const std::string& channel);

 private:
  NotifyReceivers() = default;
  std::map<std::string, std::unique_ptr<SimulatorProcess>> processes_;
  std::map<std::string, std::string> urls_;
  std::string mail_output_;  // the SMTP receiver's printed lines, accumulated
};

}  // namespace dw::replay
