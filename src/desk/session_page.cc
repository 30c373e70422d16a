// `/session`: signing in to read off loopback (see reader_sessions.h).
#include "base/log.h"
#include "desk/decision_form.h"
#include "desk/html.h"
#include "desk/reader_sessions.h"
#include "net/http_security.h"

namespace dw::desk {

Page SessionPage(const DeskOptions& options) {
  if (options.bearer_token.empty())
    return MessagePage(200, "No sign-in needed", "This server is on loopback without a token: every page reads as it is.");
  Page page;
  page.body = Document("Sign in",
                       "<h1>Sign in to read</h1>\n<p>Paste the server's token (the <code>--token-file</code> of "
                       "<code>dw serve</code>) once; this browser then reads with a session cookie. A session "
                       "reads only: deciding needs your approval link or your sign-in proxy.</p>\n"
                       "<form method=\"post\" action=\"/session\">\n<p><label for=\"token\">Token</label><br>"
                       "<input id=\"token\" name=\"token\" type=\"password\" autocomplete=\"off\" size=\"40\"></p>\n"
                       "<button type=\"submit\">Sign in</button>\n</form>\n");
  return page;
}

Page StartSessionPage(workspace::Services& services, ReaderSessions& sessions, const std::string& content_type,
                      const std::string& form, const actions::ProxiedIdentity& via, const DeskOptions& options) {
  if (content_type.rfind("application/x-www-form-urlencoded", 0) != 0)
    return MessagePage(415, "Not a form", "Sign in with the form: application/x-www-form-urlencoded.");
  std::map<std::string, std::string> fields;
  if (!ParseForm(form, &fields)) return MessagePage(400, "Bad form", "The form is malformed or repeats a field.");
  for (const auto& [k, v] : fields)
    if (k != "token") return MessagePage(400, "Bad form", "Unknown field '" + k.substr(0, 80) + "' (the form has token).");
  std::string reader;
  if (services.workspace_status().ok()) {
    if (auto person = actions::TrustedProxyPerson(services.workspace(), via); person.ok()) reader = *person;
  }
  if (reader.empty()) {
    const std::string sent = fields.count("token") ? fields["token"] : "";
    if (options.bearer_token.empty())
      return MessagePage(200, "No sign-in needed", "This server is on loopback without a token: every page reads as it is.");
    if (auto wait = sessions.SignInWait(via.peer_address); wait.count() > 0) {
      const long long seconds = (wait.count() + 999) / 1000;
      spdlog::warn("desk: a sign-in from {} was refused unread: {} wrong tokens within {} minutes", via.peer_address,
                   ReaderSessions::kMaxFailedSignIns, ReaderSessions::kFailedSignInWindow.count());
      return MessagePage(429, "Too many attempts",
                         "Too many wrong tokens from this address; try again in " + std::to_string(seconds) + " s.");
    }
    if (sent.empty() || !net::BearerCheck(options.bearer_token).Allows("Bearer " + sent)) {
      const int failed = sessions.RecordFailedSignIn(via.peer_address);
      spdlog::warn("desk: a sign-in from {} was refused: not this server's token ({} within {} minutes)", via.peer_address,
                   failed, ReaderSessions::kFailedSignInWindow.count());
      return MessagePage(403, "Refused", "That is not this server's token.");
    }
    reader = "bearer token";
  }
  spdlog::info("desk: {} signed in from {}", reader, via.peer_address);
  const std::string id = sessions.Start(reader);
  if (id.empty()) return MessagePage(503, "No session", "The random number generator failed; try again.");
  Page page;
  page.cookies.push_back(std::string(kSessionCookie) + "=" + id + "; Path=/; HttpOnly; SameSite=Strict" +
                         (options.secure_cookies ? "; Secure" : ""));
  page.body = Document("Signed in", "<h1>Signed in</h1>\n<p class=\"banner good\" role=\"status\">This browser reads "
                                    "the desk for 12 hours.</p>\n<p>" + Link("/", "Open the incidents") + "</p>\n");
  return page;
}

}  // namespace dw::desk
