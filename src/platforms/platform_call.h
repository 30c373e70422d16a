// The one way a platform client talks to its platform: a request to a path under the configured
// URL, with the platform's credentials and timeout, whose failures become Status values that name
// the platform and the endpoint and say what to do. Each platform's own error body ({"errors":[..]}
// for Flink, {"message"} for Kestra, {"error_code","message"} for Kafka Connect and Schema
// Registry) is quoted; an HTML page from a proxy is called what it is.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "base/json.h"
#include "base/status.h"
#include "config/workspace.h"
#include "net/http_client.h"

namespace dw::platforms {

// Thrown by the Field helpers below when a response has the wrong shape; PlatformCall catches it at
// the client edge and returns it as a Status (it never leaves the platforms/ module).
class ResponseShapeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Returns j[key] as T. Throws ResponseShapeError naming `key` when it is missing or has another type.
std::string StringField(const Json& j, std::string_view key);
int64_t IntField(const Json& j, std::string_view key);
bool BoolField(const Json& j, std::string_view key);
const Json& ArrayField(const Json& j, std::string_view key);
const Json& ObjectField(const Json& j, std::string_view key);
// Optional variants: `fallback` when the key is missing or null; still throws on a wrong type.
std::string OptStringField(const Json& j, std::string_view key, std::string fallback = "");
int64_t OptIntField(const Json& j, std::string_view key, int64_t fallback = 0);
// Throws ResponseShapeError unless j is an object (what says what was expected, e.g. "job details").
void RequireObject(const Json& j, std::string_view what);

struct StreamOutcome {
  size_t bytes = 0;
  bool truncated = false;  // stopped at the byte cap (or by the sink)
};

class PlatformCall {
 public:
  // `platform` and `http` must outlive this object.
  PlatformCall(const config::PlatformConfig& platform, net::HttpClient& http);

  const config::PlatformConfig& platform() const { return platform_; }
  // The absolute URL of `segments` (each percent-encoded) plus `query` ("a=b&c=d", already encoded).
  std::string Url(const std::vector<std::string>& segments, std::string_view query = "") const;

  // GETs a JSON document. Errors (each naming "<type> '<name>'" and the endpoint): the transport
  // failure (kUnavailable / kDeadlineExceeded / kResourceExhausted), a non-2xx status mapped to a
  // code (401/403 kPermissionDenied, 404 kNotFound, 409 kFailedPrecondition, 429 and 5xx
  // kUnavailable, other 4xx kInvalidArgument) with the platform's own message, an HTML page, or a
  // body that is not JSON (kDataLoss).
  Result<Json> GetJson(const std::vector<std::string>& segments, std::string_view query = "") const;
  // POSTs `body` as JSON with `content_type` and parses the JSON answer; errors as GetJson.
  Result<Json> PostJson(const std::vector<std::string>& segments, std::string_view query,
                        const Json& body, std::string_view content_type = "application/json") const;
  // GETs a text document, handing it to `sink` in chunks, at most `max_bytes` of it. Errors as
  // GetJson; reaching the cap is not an error (see StreamOutcome::truncated).
  Result<StreamOutcome> GetStream(const std::vector<std::string>& segments, size_t max_bytes,
                                  const std::function<bool(std::string_view)>& sink) const;

  // Wraps `parse` (which may throw ResponseShapeError or a JSON exception): its exception becomes a
  // kDataLoss Status naming the platform, `endpoint` and what was wrong.
  template <typename T, typename F>
  Result<T> Parse(std::string_view endpoint, F&& parse) const {
    try {
      return parse();
    } catch (const std::exception& e) {
      return ShapeError(endpoint, e.what());
    }
  }

  // "<type> '<name>'", e.g. "flink 'flink'".
  std::string Label() const;

 private:
  net::HttpRequest Request(std::string method, std::string url) const;
  Status StatusFromResponse(const std::string& method, const std::string& url,
                            const net::HttpResponse& resp) const;
  Status ShapeError(std::string_view endpoint, std::string_view what) const;

  const config::PlatformConfig& platform_;
  net::HttpClient& http_;
};

}  // namespace dw::platforms
