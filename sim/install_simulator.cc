#include "sim/sim_platforms.h"

namespace dw::sim {

Status InstallSimulator(Platform platform, const Json& script, httplib::Server& server) {
  if (!script.is_object()) return InvalidArgument("the script must be a JSON object");
  try {
    std::optional<int64_t> now;
    if (script.contains("now")) now = ScriptTime(script["now"], "now");
    auto clock = std::make_shared<SimClock>(now);
    auto faults = std::make_shared<std::vector<Fault>>(ParseFaults(script));
    FaultList scratch_faults{std::make_shared<std::vector<Fault>>(), std::make_shared<std::mutex>()};
    httplib::Server scratch;  // parse everything first: nothing is registered on a bad script
    switch (platform) {
      case Platform::kFlink: InstallFlink(script, scratch, clock); break;
      case Platform::kKestra: InstallKestra(script, scratch, clock); break;
      case Platform::kKafkaConnect: InstallKafkaConnect(script, scratch, clock); break;
      case Platform::kSchemaRegistry: InstallSchemaRegistry(script, scratch, clock); break;
      case Platform::kSlack: InstallSlack(script, scratch, scratch_faults); break;
      case Platform::kTeams: InstallTeams(script, scratch, scratch_faults); break;
      case Platform::kOpsgenie: InstallOpsgenie(script, scratch, scratch_faults); break;
      case Platform::kPagerDuty: InstallPagerDuty(script, scratch, scratch_faults); break;
      case Platform::kBigQuery: InstallBigQuery(script, scratch, clock); break;
      case Platform::kSnowflake: InstallSnowflake(script, scratch, clock); break;
    }
    FaultList fault_list{faults, std::make_shared<std::mutex>()};
    InstallCommon(server, clock, fault_list.faults, fault_list.mu);
    // As many requests at once as a client in a hurry sends (a run's jobs in flight on a warehouse,
    // each waiting out the script's latency): httplib's default pool is a few threads.
    server.new_task_queue = [] { return new httplib::ThreadPool(64); };
    switch (platform) {
      case Platform::kFlink: InstallFlink(script, server, clock); break;
      case Platform::kKestra: InstallKestra(script, server, clock); break;
      case Platform::kKafkaConnect: InstallKafkaConnect(script, server, clock); break;
      case Platform::kSchemaRegistry: InstallSchemaRegistry(script, server, clock); break;
      case Platform::kSlack: InstallSlack(script, server, fault_list); break;
      case Platform::kTeams: InstallTeams(script, server, fault_list); break;
      case Platform::kOpsgenie: InstallOpsgenie(script, server, fault_list); break;
      case Platform::kPagerDuty: InstallPagerDuty(script, server, fault_list); break;
      case Platform::kBigQuery: InstallBigQuery(script, server, clock); break;
      case Platform::kSnowflake: InstallSnowflake(script, server, clock); break;
    }
  } catch (const std::exception& e) {
    return InvalidArgument(std::string("script: ") + e.what());
  }
  return Status::Ok();
}

}  // namespace dw::sim
