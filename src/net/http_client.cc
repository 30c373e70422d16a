#include "net/http_client.h"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <thread>

#include <curl/curl.h>

#include "base/log.h"
#include "base/url_redaction.h"
#include "net/connection_reuse.h"

namespace dw::net {
namespace {

constexpr size_t kErrorBodyCap = 64 * 1024;

struct Transfer {
  std::string body;
  std::map<std::string, std::string> headers;
  size_t cap = 0;
  bool overflow = false;
  // Streaming state.
  CURL* handle = nullptr;
  const std::function<bool(std::string_view)>* sink = nullptr;
  size_t streamed = 0;
  bool truncated = false;
};

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t len = size * n;
  if (t->sink != nullptr) {
    long code = 0;
    curl_easy_getinfo(t->handle, CURLINFO_RESPONSE_CODE, &code);
    if (code < 200 || code > 299) {  // keep the start of an error body for the message
      if (t->body.size() < kErrorBodyCap)
        t->body.append(data, std::min(len, kErrorBodyCap - t->body.size()));
      return len;
    }
    size_t room = t->cap - t->streamed;
    size_t take = std::min(len, room);
    if (take > 0 && !(*t->sink)(std::string_view(data, take))) {
      t->streamed += take;
      t->truncated = true;
      return 0;
    }
    t->streamed += take;
    if (take < len) {
      t->truncated = true;
      return 0;  // cap reached: stop reading
    }
    return len;
  }
  if (t->body.size() + len > t->cap) {
    t->overflow = true;
    return 0;  // makes curl abort the transfer with CURLE_WRITE_ERROR
  }
  t->body.append(data, len);
  return len;
}

size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  std::string line(data, size * n);
  auto colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::string value = line.substr(colon + 1);
    auto start = value.find_first_not_of(" \t");
    auto end = value.find_last_not_of(" \t\r\n");
    t->headers[name] = start == std::string::npos ? "" : value.substr(start, end - start + 1);
  }
  return size * n;
}

void GlobalInitOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

bool Retryable(long status) { return status == 429 || (status >= 500 && status <= 599); }

thread_local int reuse_depth = 0;

}  // namespace

ConnectionReuse::ConnectionReuse() { ++reuse_depth; }
ConnectionReuse::~ConnectionReuse() { --reuse_depth; }
bool ConnectionReuse::Active() { return reuse_depth > 0; }

namespace {

// This thread's easy handle for requests that reuse connections: libcurl keeps a handle's
// connections open between transfers (curl_easy_reset keeps them too), so the next request to the
// same host skips the handshake. One per thread, freed when the thread ends.
CURL* ReusableHandle() {
  struct Owned {
    CURL* h = curl_easy_init();
    ~Owned() {
      if (h != nullptr) curl_easy_cleanup(h);
    }
  };
  thread_local Owned owned;
  if (owned.h != nullptr) curl_easy_reset(owned.h);
  return owned.h;
}

class CurlHttpClient final : public HttpClient {
 public:
  CurlHttpClient() { GlobalInitOnce(); }

  Result<HttpResponse> Send(const HttpRequest& req) override {
    if (req.url.rfind("http://", 0) != 0 && req.url.rfind("https://", 0) != 0)
      return InvalidArgument("URL must start with http:// or https://: " + RedactUrl(req.url));
    int attempts = std::max(1, req.max_attempts);
    Status last;
    std::chrono::milliseconds backoff(200);
    for (int attempt = 1; attempt <= attempts; ++attempt) {
      size_t streamed_before_failure = 0;
      auto r = SendOnce(req, &streamed_before_failure);
      if (req.body_sink && streamed_before_failure > 0) return r;  // cannot replay a stream
      if (r.ok()) {
        r->attempts = attempt;
        if (!Retryable(r->status) || attempt == attempts) return r;
      } else {
        last = r.status();
        bool transient = last.code() == StatusCode::kUnavailable ||
                         last.code() == StatusCode::kDeadlineExceeded;
        if (!transient || attempt == attempts) return last;
      }
      std::this_thread::sleep_for(backoff);
      backoff *= 2;
    }
    return last;
  }

 private:
  Result<HttpResponse> SendOnce(const HttpRequest& req, size_t* streamed) {
    std::unique_ptr<CURL, void (*)(CURL*)> fresh(nullptr, curl_easy_cleanup);
    CURL* h = nullptr;
    if (ConnectionReuse::Active()) {
      h = ReusableHandle();  // reset below; its connection cache survives the reset
    } else {
      fresh.reset(curl_easy_init());
      h = fresh.get();
    }
    if (h == nullptr) return Internal("curl_easy_init failed");
    Transfer t;
    t.cap = req.max_response_bytes;
    t.handle = h;
    if (req.body_sink) t.sink = &req.body_sink;
    curl_easy_setopt(h, CURLOPT_URL, req.url.c_str());
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(req.timeout.count()));
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(req.connect_timeout.count()));
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, OnBody);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &t);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, OnHeader);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &t);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    if (req.accept_compressed) curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "");  // every encoding curl decodes
    // An idle kept connection older than this is closed rather than reused (servers drop theirs
    // after a few seconds; reusing a connection the server is closing costs a failed attempt).
    if (ConnectionReuse::Active()) curl_easy_setopt(h, CURLOPT_MAXAGE_CONN, 2L);
    if (req.method == "GET") {
      curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    } else {
      curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, req.method.c_str());
      if (!req.body.empty() || req.method == "POST" || req.method == "PUT") {
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, req.body.data());
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size()));
      }
    }
    if (!req.basic_user.empty()) {
      curl_easy_setopt(h, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
      curl_easy_setopt(h, CURLOPT_USERNAME, req.basic_user.c_str());
      curl_easy_setopt(h, CURLOPT_PASSWORD, req.basic_password.c_str());
    }
    curl_slist* headers = nullptr;
    for (const auto& [k, v] : req.headers) headers = curl_slist_append(headers, (k + ": " + v).c_str());
    if (!req.bearer_token.empty())
      headers = curl_slist_append(headers, ("Authorization: Bearer " + req.bearer_token).c_str());
    std::unique_ptr<curl_slist, void (*)(curl_slist*)> header_guard(headers, curl_slist_free_all);
    if (headers) curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);

    auto start = std::chrono::steady_clock::now();
    CURLcode rc = curl_easy_perform(h);
    auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - start);
    std::string where = req.method + " " + RedactUrl(req.url);
    *streamed = t.streamed;
    if (t.sink != nullptr && t.truncated && rc == CURLE_WRITE_ERROR) rc = CURLE_OK;
    if (t.overflow)
      return ResourceExhausted(where + ": response body larger than " +
                               std::to_string(req.max_response_bytes) + " bytes");
    if (rc == CURLE_OPERATION_TIMEDOUT)
      return DeadlineExceeded(where + ": timed out after " + std::to_string(elapsed.count()) + " ms");
    if (rc != CURLE_OK)
      return Unavailable(where + ": " + RedactSecrets(curl_easy_strerror(rc)));
    HttpResponse resp;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &resp.status);
    resp.body = std::move(t.body);
    resp.headers = std::move(t.headers);
    resp.elapsed = elapsed;
    resp.truncated = t.truncated;
    resp.streamed_bytes = t.streamed;
    return resp;
  }
};

}  // namespace

std::unique_ptr<HttpClient> MakeCurlHttpClient() { return std::make_unique<CurlHttpClient>(); }

// One implementation for every stage (base/url_redaction.h); kept here under the client's name.
std::string RedactUrl(std::string_view url) { return dw::RedactUrl(url); }

}  // namespace dw::net
