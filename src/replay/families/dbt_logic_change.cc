// Incident: a change to a dbt model's logic (its checksum moves) rebuilds it with different
// output: the vip segment shrinks or grows by a large factor.
#include "replay/families/dbt_world.h"
#include "replay/families/families_list.h"

namespace dw::replay::families {

Result<Story> DbtLogicChange(uint64_t seed) {
  Rng rng(seed);
  Draft d = Begin("dbt-logic-change", seed, false, rng, 5);
  ShopWorld w = DrawWorld(rng, d);
  DbtModel m = AddDbtModel(rng, d, w);
  TimePoint merged = Minutes(d.start, rng.Int(15, 5 * 60 - 120));
  TimePoint rebuilt = Minutes(merged, rng.Int(3, 30));
  // The new threshold moves the segment by a factor of about 2 either way.
  bool grows = rng.Chance(0.5);
  int threshold = grows ? 10000 - (10000 - m.threshold) * rng.Int(20, 30) / 10 : 10000 - (10000 - m.threshold) * rng.Int(3, 5) / 10;
  d.world_note = "The dbt model " + m.model + " changes its vip rule (threshold " + std::to_string(m.threshold) + " to " +
                 std::to_string(threshold) + "); the rebuild " + (grows ? "grows" : "shrinks") + " the vip segment.";
  d.events.push_back({merged, "GitHub + dbt", "A change to " + m.model + "'s vip rule is merged; the manifest's checksum moves", "",
                      "target/manifest.json", DbtManifest(m, w, "beef" + std::to_string(rng.Int(100000, 999999)))});
  d.events.push_back({rebuilt, "dbt + warehouse", m.model + " is rebuilt with the new rule", RebuildSql(m, threshold, rebuilt), "", ""});
  d.story.damaged_asset = m.table_asset;
  d.story.cause = {{"model_change"}, m.asset};
  d.story.first_bad_write = rebuilt;
  d.story.shape += ", " + std::to_string(m.members) + " members";
  AddDistractors(rng, d, w, rebuilt);
  ExpectIncident(d);
  return Render(std::move(d));
}

}  // namespace dw::replay::families
