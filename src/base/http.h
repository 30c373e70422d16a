// The HTTP client as an interface every stage may be handed, like the Clock: the request, the
// response and the client that sends one, and the pure helpers that spell a URL. The libcurl
// implementation lives in net/ (net/http_client.h, MakeCurlHttpClient); a stage left of net/ (the
// REST warehouses) names what it needs here and is given an implementation, so no stage left of
// net/ compiles against libcurl or against net/'s headers.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace dw {

struct HttpRequest {
  std::string method = "GET";
  std::string url;  // absolute; build paths with JoinUrl so segments are encoded
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::chrono::milliseconds timeout{10000};
  std::chrono::milliseconds connect_timeout{3000};
  size_t max_response_bytes = 16 * 1024 * 1024;  // larger bodies fail with kResourceExhausted
  int max_attempts = 1;  // >1 retries 429, 5xx and connection errors with exponential backoff
  // Asks for a compressed answer (gzip, deflate) and hands back the decoded body: for services that
  // compress large results whatever is asked (Snowflake's result partitions).
  bool accept_compressed = false;
  // Auth: at most one of these.
  std::string basic_user;
  std::string basic_password;
  std::string bearer_token;
  // Streaming: when set, the body of a 2xx response is handed to `body_sink` chunk by chunk as it
  // arrives instead of being kept in HttpResponse::body, so a gigabyte log costs no memory. The
  // cap then bounds the bytes delivered: at max_response_bytes the transfer stops and the response
  // is returned with `truncated` set (not an error). A sink that returns false stops the transfer
  // the same way. Non-2xx bodies are still kept in `body` (up to 64 KiB) for the error message.
  // A streamed request is retried only if no byte reached the sink.
  std::function<bool(std::string_view chunk)> body_sink;
};

struct HttpResponse {
  long status = 0;
  std::string body;
  std::map<std::string, std::string> headers;  // lower-cased names
  std::chrono::milliseconds elapsed{0};
  int attempts = 0;
  bool truncated = false;        // streaming only: stopped at the cap or by the sink
  size_t streamed_bytes = 0;     // streaming only: bytes handed to the sink
};

class HttpClient {
 public:
  virtual ~HttpClient() = default;
  // Performs `request`. Any HTTP status is a response (callers judge 4xx/5xx); a Status error means
  // no usable response: kUnavailable (connect/DNS/TLS failure), kDeadlineExceeded (timeout),
  // kResourceExhausted (body over the cap), kInvalidArgument (bad URL). Error messages never
  // contain credentials.
  virtual Result<HttpResponse> Send(const HttpRequest& request) = 0;
};

// Percent-encodes one path segment (RFC 3986 unreserved characters stay as they are); "." and
// ".." are encoded too, so a name never climbs the path.
std::string EncodePathSegment(std::string_view segment);

// Joins a base URL ("http://h:8081" or with a path prefix) and path segments, encoding each segment.
std::string JoinUrl(std::string_view base, const std::vector<std::string>& segments);

}  // namespace dw
