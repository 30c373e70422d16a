// The one HTTP client of the project (libcurl underneath). Platform clients (Flink, Kestra, Kafka
// Connect, Schema Registry, notifications) and reachability probes all go through it, so timeouts,
// retries, auth, URL encoding, body caps and secret redaction are decided in one place.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/http.h"

namespace dw::net {

// The request, response and client interface are base/http.h's, named here under net:: as well.
using dw::EncodePathSegment;
using dw::HttpClient;
using dw::HttpRequest;
using dw::HttpResponse;
using dw::JoinUrl;

// The libcurl implementation; thread-safe (one easy handle per call).
std::unique_ptr<HttpClient> MakeCurlHttpClient();

// Returns `url` with any "user:password@" userinfo replaced by "user:***@".
std::string RedactUrl(std::string_view url);

}  // namespace dw::net
