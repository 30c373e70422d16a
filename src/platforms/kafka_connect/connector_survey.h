// Which Kafka Connect platforms to ask and what a failure means, for "how are the connectors?":
// one connector or all of them, on every kafka-connect platform of the workspace or the one named.
// A platform that cannot be read is listed in `errors` (its connectors are unknown, not healthy);
// only when nothing at all could be read is the survey itself an error.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "config/workspace.h"
#include "net/http_client.h"
#include "platforms/kafka_connect/connect_client.h"

namespace dw::platforms::kafka_connect {

struct ConnectorSurvey {
  std::vector<std::pair<std::string, ConnectorStatus>> connectors;  // (platform name, status)
  std::vector<std::string> errors;  // one sentence per platform that could not be read
};

// `connector` empty: every connector; `platform` empty: every kafka-connect platform.
// Errors, each a sentence that says what to do: kNotFound when no kafka-connect platform is
// configured or none is named `platform`, or when `connector` is on none of the platforms read;
// kUnavailable when `connector` (or, for all connectors, every platform) could not be read.
Result<ConnectorSurvey> SurveyConnectors(const config::Workspace& ws, net::HttpClient& http,
                                         const std::string& connector, const std::string& platform);

}  // namespace dw::platforms::kafka_connect
