// The one place a channel is found by its name under notify: (which is also its type).
#include <map>

#include "platforms/notify/channel.h"

namespace dw::platforms::notify {

Result<std::unique_ptr<Channel>> MakeSlackChannel(const Json& settings);
Result<std::unique_ptr<Channel>> MakeTeamsChannel(const Json& settings);
Result<std::unique_ptr<Channel>> MakeOpsgenieChannel(const Json& settings);
Result<std::unique_ptr<Channel>> MakePagerDutyChannel(const Json& settings);
Result<std::unique_ptr<Channel>> MakeEmailChannel(const Json& settings);
Result<std::unique_ptr<Channel>> MakeConsoleChannel(const Json& settings);

Result<std::unique_ptr<Channel>> MakeChannel(const std::string& name, const Json& settings) {
  using Factory = Result<std::unique_ptr<Channel>> (*)(const Json&);
  static const std::map<std::string, Factory> kFactories = {
      {"slack", MakeSlackChannel},         {"teams", MakeTeamsChannel},
      {"opsgenie", MakeOpsgenieChannel},   {"pagerduty", MakePagerDutyChannel},
      {"email", MakeEmailChannel},         {"console", MakeConsoleChannel},
  };
  auto it = kFactories.find(name);
  if (it == kFactories.end())
    return InvalidArgument("notify." + name + " is not a channel (use slack, teams, opsgenie, pagerduty, email or console)");
  if (!settings.is_object()) return InvalidArgument("notify." + name + " must be a mapping");
  return it->second(settings);
}

}  // namespace dw::platforms::notify
