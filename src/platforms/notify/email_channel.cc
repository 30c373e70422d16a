// Email over SMTP (net/mail_client.h): approval requests, escalations and receipts, each a
// multipart/alternative message with a plain-text and an HTML part. smtp:// must upgrade with
// STARTTLS (except to a loopback server); smtps:// is TLS from the first byte; the login comes from
// notify.email.username/password (substituted from ${ENV}).
#include <ctime>
#include <memory>

#include "base/markup_escape.h"
#include "platforms/notify/channel.h"
#include "platforms/notify/http_answer.h"
#include "platforms/notify/notice.h"

namespace dw::platforms::notify {
namespace {

// Header values are one line: a CR or LF in a title must not start a header of its own.
std::string OneLine(std::string s) {
  for (char& c : s)
    if (c == '\r' || c == '\n') c = ' ';
  return s;
}

// SMTP lines stay under 1000 octets.
std::string Wrap(const std::string& text) {
  std::string out;
  size_t col = 0;
  for (char c : text) {
    if (c == '\n') {
      out += "\r\n";
      col = 0;
      continue;
    }
    if (c == '\r') continue;
    if (col >= 900) {
      out += "\r\n";
      col = 0;
    }
    out.push_back(c);
    ++col;
  }
  return out;
}

std::string RfcDate(TimePoint t) {
  std::time_t secs = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%a, %d %b %Y %H:%M:%S +0000", &tm);
  return buf;
}

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

// The whole RFC 5322 message of `n`.
std::string EmailMessage(const IncidentNotice& n, const std::string& from,
                         const std::vector<std::string>& to, const std::vector<std::string>& cc,
                         TimePoint now) {
  std::string intro;
  if (n.event == EventKind::kApprovalRequested)
    intro = "Your approval is requested. Nothing changes until a named approver decides.";
  else if (n.event == EventKind::kEscalated)
    intro = "An approval request was not answered in time and is escalated to you. It is never granted by default.";
  else if (n.event == EventKind::kAttentionRequested)
    intro = "The verification after the fix failed: the incident stays open and needs a person.";
  else
    intro = "The incident's receipt.";
  std::string text = Headline(n) + "\n\n" + intro + "\n\n";
  std::string html = "<html><body><h2>" + EscapeMarkup(Headline(n)) + "</h2><p>" + EscapeMarkup(intro) + "</p><table>";
  for (const auto& [label, value] : Facts(n)) {
    text += label + ": " + value + "\n";
    html += "<tr><th align=\"left\">" + EscapeMarkup(label) + "</th><td>" + EscapeMarkup(value) + "</td></tr>";
  }
  html += "</table>";
  if (!n.diagnosis.empty()) {
    text += "\n" + n.diagnosis + "\n";
    html += "<p>" + EscapeMarkup(n.diagnosis) + "</p>";
  }
  for (const auto& [label, value] : DecideLines(n)) {
    const bool url = value.rfind("http", 0) == 0;
    text += "\n" + label + ": " + value + "\n";
    html += url ? "<p><a href=\"" + EscapeMarkup(value) + "\">" + EscapeMarkup(label) + "</a></p>"
                : "<p>" + EscapeMarkup(label) + ": " + EscapeMarkup(value) + "</p>";
  }
  if (!n.link.empty()) {
    text += "\nIncident page: " + n.link + "\n";
    html += "<p><a href=\"" + EscapeMarkup(n.link) + "\">Open the incident page</a></p>";
  }
  html += "</body></html>";
  const std::string boundary = "dw-" + std::to_string(ToUnixMillis(now)) + "-alt";
  std::string m;
  m += "From: Data Workers <" + OneLine(from) + ">\r\n";
  m += "To: " + OneLine(Join(to)) + "\r\n";
  if (!cc.empty()) m += "Cc: " + OneLine(Join(cc)) + "\r\n";
  m += "Subject: " + OneLine(Headline(n)) + "\r\n";
  m += "Date: " + RfcDate(now) + "\r\n";
  m += "Message-ID: <" + OneLine(n.incident_id + "." + EventKey(n)) + "@data-workers>\r\n";
  m += "MIME-Version: 1.0\r\n";
  m += "Content-Type: multipart/alternative; boundary=\"" + boundary + "\"\r\n\r\n";
  m += "--" + boundary + "\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n";
  m += Wrap(text) + "\r\n";
  m += "--" + boundary + "\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n";
  m += Wrap(html) + "\r\n";
  m += "--" + boundary + "--\r\n";
  return m;
}

namespace {

class EmailChannel final : public Channel {
 public:
  EmailChannel(std::string url, std::string from, std::vector<std::string> to, std::string user,
               std::string password)
      : url_(std::move(url)), from_(std::move(from)), to_(std::move(to)), user_(std::move(user)),
        password_(std::move(password)) {}
  std::string type() const override { return "email"; }
  bool Handles(EventKind e) const override {
    return e == EventKind::kApprovalRequested || e == EventKind::kEscalated ||
           e == EventKind::kAttentionRequested || e == EventKind::kVerified || e == EventKind::kResolved;
  }

  Delivery Send(const IncidentNotice& n, const std::vector<std::string>& to,
                const std::vector<std::string>& cc, const Json&, const SendContext& ctx) const override {
    Delivery d;
    net::MailRequest req;
    req.url = url_;
    req.from = from_;
    std::vector<std::string> rcpt_to = to.empty() ? to_ : to;
    if (rcpt_to.empty()) {
      d.outcome = Delivery::Outcome::kRefused;
      d.detail = "email: nobody to send to (no approvers or escalate_to in the domain, and no notify.email.to)";
      return d;
    }
    req.recipients = rcpt_to;
    req.recipients.insert(req.recipients.end(), cc.begin(), cc.end());
    req.message = EmailMessage(n, from_, rcpt_to, cc, ctx.clock.Now());
    req.username = user_;
    req.password = password_;
    req.require_starttls = !IsLoopbackUrl(url_);
    req.timeout = ctx.timeout;
    auto r = ctx.mail.Send(req);
    if (r.ok()) {
      d.outcome = Delivery::Outcome::kDelivered;
      d.answer = {{"smtp_code", r->code}, {"recipients", req.recipients.size()}};
      d.detail = "the mail server accepted the message for " + Join(req.recipients) +
                 " (SMTP " + std::to_string(r->code) + ")";
      return d;
    }
    const auto code = r.status().code();
    d.outcome = code == StatusCode::kUnavailable || code == StatusCode::kDeadlineExceeded
                    ? Delivery::Outcome::kRetry
                    : Delivery::Outcome::kRefused;
    d.may_have_landed = code == StatusCode::kDeadlineExceeded;  // the server may have queued it
    d.detail = "email: " + r.status().message();
    return d;
  }

 private:
  std::string url_, from_;
  std::vector<std::string> to_;
  std::string user_, password_;
};

}  // namespace

Result<std::unique_ptr<Channel>> MakeEmailChannel(const Json& s) {
  std::string url = s.value("smtp", "");
  if (url.rfind("smtps://", 0) != 0 && url.rfind("smtp://", 0) != 0)
    return InvalidArgument("notify.email.smtp must be an smtp:// (STARTTLS) or smtps:// URL");
  std::vector<std::string> to;
  for (const auto& t : s.value("to", Json::array()))
    if (t.is_string()) to.push_back(t.get<std::string>());
  return std::unique_ptr<Channel>(new EmailChannel(url, s.value("from", ""), to,
                                                   s.value("username", ""), s.value("password", "")));
}

}  // namespace dw::platforms::notify
