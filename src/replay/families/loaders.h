// The two writers most families plant their cause in: a Kestra flow that loads the world's table
// every hour, and a Kafka Connect sink that lands it every ten minutes from P partitions. Each
// writes its routine history (executions, earlier arrivals) and its story's writes; a family
// bends them (a revision from some run on, a trigger disabled, a task failed).
#pragma once

#include <functional>

#include "replay/families/story_kit.h"

namespace dw::replay::families {

// What one hourly run writes, as the family decides from the run's time.
struct LoadStyle {
  bool runs = true;           // false: the run does not happen (a trigger disabled)
  int revision = 1;           // the flow revision the run executes
  double amount_scale = 1;    // 100: amounts written in cents
  bool null_customer = false;  // customer ids lost
  int shift_minutes = 0;       // landed_at written this far from the real time (a time-zone slip)
};

struct HourlyLoader {
  std::string ns, flow, asset;  // kestra://kestra/<ns>.<flow>
  int minute = 0;               // runs every hour at :minute
  int rows = 0;                 // rows per run (before noise)
};

// The ExecutionTrigger Kestra gives a run of the `schedule` trigger for `slot` (its
// trigger.variables.date: the run's own time, or a past slot for a backfill).
Json ScheduleTrigger(TimePoint slot);

// Declares the loader (asset writing the table, Kestra flow with revision 1) and adds its runs
// every hour at :minute from 6 hours before the clock to its end: those before the clock are
// setup rows and past executions, the later ones events. `style` says what each run writes.
// Returns the times of the runs inside the clock.
std::vector<TimePoint> AddHourlyLoads(Rng& rng, Draft& d, const ShopWorld& w, HourlyLoader& l,
                                      const std::function<LoadStyle(TimePoint run)>& style);

// Checks of an hourly-loaded table (freshness, not null, unique, range of amounts in euros).
void AddLoadedTableChecks(Draft& d, const ShopWorld& w, const std::string& max_age);

// The cause of the revision families: revision 2 of loader `l`, saved at `saved`, changes its
// SELECT from `before` to `after` (`what` says how, on the timeline). Serves both revisions from
// the Kestra simulator, adds the table's checks, and plants the revision (or the executions that
// ran it) as the cause of `w`'s damage. Returns its first bad write: the first run after the save.
TimePoint PlantLoaderRevision(Draft& d, const ShopWorld& w, const HourlyLoader& l, const std::vector<TimePoint>& runs,
                         TimePoint saved, const std::string& before, const std::string& after,
                         const std::string& what);

struct SinkStream {
  std::string name, asset;  // connect://connect/<name>
  int partitions = 2;
  int per_10m = 0;          // rows per ten minutes, all partitions
  double noise = 0.05;
};

// Declares the sink (reading kafka://prod/<table>, writing the table) and its 10-minute
// arrivals over the clock; `landed(window_end, part)` is the share (0..1) of that partition's
// rows that land in the window. Adds a volume check, the rows_per_10m monitor and 14 days of its
// history.
void AddSinkArrivals(Rng& rng, Draft& d, const ShopWorld& w, SinkStream& s,
                     const std::function<double(TimePoint window_end, int part)>& landed);

// The incident expectation from the story's damaged asset and planted cause; or none at all.
void ExpectIncident(Draft& d);
void ExpectQuiet(Draft& d);

}  // namespace dw::replay::families

namespace dw::replay::families {

// A new variant's draft: its name, and a clock of `hours` hours starting at a drawn day (from
// Monday 2026-09-07 on, up to 13 weeks later; a day of week when `weekday` >= 0, 0 = Monday)
// and hour (05:00 to 10:00).
Draft Begin(const std::string& family, uint64_t seed, bool benign, Rng& rng, int hours, int weekday = -1);

}  // namespace dw::replay::families
