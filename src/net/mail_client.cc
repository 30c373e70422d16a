#include "net/mail_client.h"

#include <algorithm>
#include <cstring>
#include <mutex>

#include <curl/curl.h>

#include "base/log.h"
#include "net/http_client.h"

namespace dw::net {
namespace {

struct Upload {
  const std::string* data;
  size_t offset = 0;
};

size_t ReadMessage(char* buffer, size_t size, size_t n, void* user) {
  auto* u = static_cast<Upload*>(user);
  size_t room = size * n;
  size_t left = u->data->size() - u->offset;
  size_t take = std::min(room, left);
  std::memcpy(buffer, u->data->data() + u->offset, take);
  u->offset += take;
  return take;
}

class CurlMailClient final : public MailClient {
 public:
  CurlMailClient() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
  }

  Result<MailResponse> Send(const MailRequest& req) override {
    const bool implicit_tls = req.url.rfind("smtps://", 0) == 0;
    if (!implicit_tls && req.url.rfind("smtp://", 0) != 0)
      return InvalidArgument("mail server URL must start with smtp:// or smtps://: " + RedactUrl(req.url));
    if (req.recipients.empty()) return InvalidArgument("an email needs at least one recipient");
    std::unique_ptr<CURL, void (*)(CURL*)> curl(curl_easy_init(), curl_easy_cleanup);
    if (!curl) return Internal("curl_easy_init failed");
    CURL* h = curl.get();
    curl_easy_setopt(h, CURLOPT_URL, req.url.c_str());
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(req.timeout.count()));
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 5000L);
    if (!implicit_tls)
      curl_easy_setopt(h, CURLOPT_USE_SSL, req.require_starttls ? static_cast<long>(CURLUSESSL_ALL)
                                                                : static_cast<long>(CURLUSESSL_TRY));
    if (!req.username.empty()) {
      curl_easy_setopt(h, CURLOPT_USERNAME, req.username.c_str());
      curl_easy_setopt(h, CURLOPT_PASSWORD, req.password.c_str());
    }
    curl_easy_setopt(h, CURLOPT_MAIL_FROM, ("<" + req.from + ">").c_str());
    curl_slist* rcpt = nullptr;
    for (const auto& r : req.recipients) rcpt = curl_slist_append(rcpt, ("<" + r + ">").c_str());
    std::unique_ptr<curl_slist, void (*)(curl_slist*)> rcpt_guard(rcpt, curl_slist_free_all);
    curl_easy_setopt(h, CURLOPT_MAIL_RCPT, rcpt);
    Upload upload{&req.message};
    curl_easy_setopt(h, CURLOPT_READFUNCTION, ReadMessage);
    curl_easy_setopt(h, CURLOPT_READDATA, &upload);
    curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
    CURLcode rc = curl_easy_perform(h);
    long code = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    std::string where = "SMTP " + RedactUrl(req.url);
    std::string detail = RedactSecrets(curl_easy_strerror(rc));
    if (code > 0) detail += " (server replied " + std::to_string(code) + ")";
    switch (rc) {
      case CURLE_OK: return MailResponse{code};
      case CURLE_LOGIN_DENIED: return PermissionDenied(where + ": the server refused the login: " + detail);
      case CURLE_USE_SSL_FAILED:
        return FailedPrecondition(where + ": the server does not offer STARTTLS and TLS is required: " + detail);
      case CURLE_OPERATION_TIMEDOUT: return DeadlineExceeded(where + ": timed out: " + detail);
      default: break;
    }
    if (code >= 500) return FailedPrecondition(where + ": the server refused the message: " + detail);
    return Unavailable(where + ": " + detail);
  }
};

}  // namespace

std::unique_ptr<MailClient> MakeCurlMailClient() { return std::make_unique<CurlMailClient>(); }

}  // namespace dw::net
