// Read-only client of the Kafka Connect REST API: connectors with their status, one connector's
// status, and the health verdict (a FAILED task under a RUNNING connector is unhealthy: the
// connector's own state alone is not health).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "platforms/platform_call.h"

namespace dw::platforms::kafka_connect {

struct TaskStatus {
  int64_t id = 0;
  std::string state;  // UNASSIGNED, RUNNING, PAUSED, FAILED, RESTARTING
  std::string worker_id;
  std::string trace;  // empty unless failed
};

struct ConnectorStatus {
  std::string name;
  std::string type;   // source | sink (may be empty)
  std::string state;  // the connector's own state (also STOPPED)
  std::string worker_id;
  std::string trace;
  std::vector<TaskStatus> tasks;
};

// "healthy" (connector and every task RUNNING), "paused" (PAUSED or STOPPED by someone),
// "degraded" (RESTARTING/UNASSIGNED anywhere, or no tasks), "unhealthy" (the connector or any
// task FAILED).
std::string Verdict(const ConnectorStatus& status);
// The first `n` lines of a Java stack trace, and its last "Caused by:" line when that is further
// down (platforms/java_trace.h).
std::string TraceHead(const std::string& trace, int n = 3);

class ConnectClient {
 public:
  ConnectClient(const config::PlatformConfig& platform, net::HttpClient& http);
  // GET /connectors?expand=status: every connector with its status, by name.
  Result<std::map<std::string, ConnectorStatus>> Connectors() const;
  // GET /connectors/{name}/status (the name is percent-encoded).
  Result<ConnectorStatus> Status(const std::string& name) const;

  const PlatformCall& call() const { return call_; }

 private:
  PlatformCall call_;
};

// Parses one status body ({name, connector{state, worker_id, trace?}, tasks[], type}); throws
// ResponseShapeError (caught by PlatformCall::Parse).
ConnectorStatus ParseConnectorStatus(const Json& j);

}  // namespace dw::platforms::kafka_connect
