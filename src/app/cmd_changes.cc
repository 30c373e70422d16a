// `dw changes`: the change timeline, as the get_change_timeline tool answers it.
#include <cstdio>
#include <iostream>

#include "app/command_start.h"
#include "app/commands.h"
#include "config/duration.h"
#include "config/time_zone.h"
#include "workspace/change_answers.h"

namespace dw::app {

int CmdChanges(const GlobalOptions& g, const ChangesCommand& c) {
  StartedCommand start = StartCommand(g, "changes");
  if (!start) return start.exit_code;
  auto& services = *start.services;
  auto fail = [](const Status& s) {
    std::cerr << "dw changes: " << s.message() << "\n";
    return 2;
  };
  const TimePoint now = services.clock().Now();
  observe::changes::TimelineQuery q;
  auto from = config::ParseTimeOrAgo("--since", c.since, now);
  if (!from.ok()) return fail(from.status());
  q.from = *from;
  q.to = now + std::chrono::milliseconds(1);
  if (!c.until.empty()) {
    auto to = config::ParseTimeOrAgo("--until", c.until, now);
    if (!to.ok()) return fail(to.status());
    q.to = *to;
  }
  q.asset_id = c.asset;
  q.kinds = c.kinds;
  q.limit = c.limit;
  q.offset = c.offset;
  auto answer = workspace::ChangeTimelineAnswer(services, q);
  if (!answer.ok()) return fail(answer.status());
  const Json& a = *answer;
  if (c.format == "json") {
    std::cout << a.dump(2) << "\n";
    return 0;
  }
  const config::TimeZone zone = config::ZoneOrUtc(a["timezone"].get<std::string>());
  std::cout << a["events"].size() << " of " << a["total"] << " change(s)"
            << (c.asset.empty() ? "" : " on " + c.asset) << " from " << config::FormatWithOffset(q.from, zone)
            << " to " << config::FormatWithOffset(q.to, zone) << " (" << zone.name() << "), newest first\n";
  for (const Json& e : a["events"]) {
    char risk[16];
    std::snprintf(risk, sizeof risk, "%.2f", e["risk"].get<double>());
    std::cout << "  " << e["happened_local"].get<std::string>() << "  " << e["kind"].get<std::string>() << "  "
              << e["asset_id"].get<std::string>() << "  risk " << risk << "  " << e["reason"].get<std::string>() << "\n";
  }
  if (a.contains("next_offset")) std::cout << "more: --offset " << a["next_offset"] << "\n";
  if (a["total"] == 0) std::cout << "  nothing stored in this range (dw collect reads the platforms)\n";
  return 0;
}

}  // namespace dw::app
