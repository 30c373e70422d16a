// Sending one email over SMTP through libcurl (smtp:// with STARTTLS, or smtps://), the mail
// counterpart of http_client.h: timeouts, TLS rules and secret redaction decided in one place.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"

namespace dw::net {

struct MailRequest {
  std::string url;  // smtp://host:port (STARTTLS) or smtps://host:port (implicit TLS)
  std::string from;
  std::vector<std::string> recipients;  // every envelope recipient (To and Cc)
  std::string message;                  // the whole RFC 5322 message, headers and body, CRLF lines
  std::string username;                 // AUTH when non-empty
  std::string password;
  // smtp:// only: refuse to send unless the server upgrades to TLS with STARTTLS. False only for a
  // loopback server (the receiver in sim/ speaks no TLS).
  bool require_starttls = true;
  std::chrono::milliseconds timeout{20000};
};

struct MailResponse {
  long code = 0;  // the server's last SMTP reply code (250 when accepted)
};

class MailClient {
 public:
  virtual ~MailClient() = default;
  // Sends `request`. Errors: kInvalidArgument (bad URL, no recipient), kPermissionDenied (the
  // server refused the login), kFailedPrecondition (TLS required and not offered, or a 5xx reply:
  // the server refused the message for good), kUnavailable (connect/TLS failure, or a 4xx reply:
  // try again later), kDeadlineExceeded. Messages never contain credentials.
  virtual Result<MailResponse> Send(const MailRequest& request) = 0;
};

// The libcurl implementation; thread-safe.
std::unique_ptr<MailClient> MakeCurlMailClient();

}  // namespace dw::net
