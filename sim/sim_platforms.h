// Route installers of the simulated platforms (one file each); see sim_support.h.
// Each throws std::invalid_argument (or a JSON exception) naming what is wrong in the script;
// InstallSimulator turns that into a Status.
#pragma once

#include <httplib.h>

#include <memory>

#include "base/json.h"
#include "sim/sim_support.h"

namespace dw::sim {

void InstallFlink(const Json& script, httplib::Server& server, std::shared_ptr<SimClock> clock);
void InstallKestra(const Json& script, httplib::Server& server, std::shared_ptr<SimClock> clock);
void InstallKafkaConnect(const Json& script, httplib::Server& server, std::shared_ptr<SimClock> clock);
void InstallSchemaRegistry(const Json& script, httplib::Server& server, std::shared_ptr<SimClock> clock);
// BigQuery's REST API and Google's token endpoint over tables in an embedded SQLite (bigquery_sim.cc).
void InstallBigQuery(const Json& script, httplib::Server& server, std::shared_ptr<SimClock> clock);
// Snowflake's SQL API v2 with key-pair JWT login over tables in an embedded SQLite (snowflake_sim.cc).
void InstallSnowflake(const Json& script, httplib::Server& server, std::shared_ptr<SimClock> clock);
// The notification receivers (notify_receivers.cc): each validates requests as its service does,
// records them for GET /_sim/received, keeps the service's state for GET /_sim/state, and applies
// the `after` faults (answer lost, work done) of `faults`.
void InstallSlack(const Json& script, httplib::Server& server, FaultList faults);
void InstallTeams(const Json& script, httplib::Server& server, FaultList faults);
void InstallOpsgenie(const Json& script, httplib::Server& server, FaultList faults);
void InstallPagerDuty(const Json& script, httplib::Server& server, FaultList faults);

}  // namespace dw::sim
