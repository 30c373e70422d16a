// Benign: a refactor of a dbt model moves its checksum; the rebuild writes the same rows.
#include "replay/families/dbt_world.h"
#include "replay/families/families_list.h"

namespace dw::replay::families {

Result<Story> DbtUnchangedOutput(uint64_t seed) {
  Rng rng(seed);
  Draft d = Begin("dbt-unchanged-output", seed, true, rng, 5);
  ShopWorld w = DrawWorld(rng, d);
  DbtModel m = AddDbtModel(rng, d, w);
  TimePoint merged = Minutes(d.start, rng.Int(15, 5 * 60 - 60));
  TimePoint rebuilt = Minutes(merged, rng.Int(3, 30));
  d.world_note = "A refactor of the dbt model " + m.model + " (a CTE renamed) moves its checksum; the rebuild writes the same rows.";
  d.events.push_back({merged, "GitHub + dbt", "A refactor of " + m.model + " is merged; the manifest's checksum moves", "",
                      "target/manifest.json", DbtManifest(m, w, "beef" + std::to_string(rng.Int(100000, 999999)))});
  d.events.push_back({rebuilt, "dbt + warehouse", m.model + " is rebuilt: the same members in the same segments",
                      RebuildSql(m, m.threshold, rebuilt), "", ""});
  d.story.shape += ", " + std::to_string(m.members) + " members";
  AddDistractors(rng, d, w, rebuilt);
  ExpectQuiet(d);
  return Render(std::move(d));
}

}  // namespace dw::replay::families
