// Incident: a revision of the hourly loader reads amounts in cents where the table holds euros.
#include "replay/families/families_list.h"

namespace dw::replay::families {

Result<Story> KestraUnitChange(uint64_t seed) {
  Rng rng(seed);
  Draft d = Begin("kestra-unit-change", seed, false, rng, 6);
  ShopWorld w = DrawWorld(rng, d);
  HourlyLoader l{w.domain, "load_" + w.table, "kestra://kestra/" + w.domain + ".load_" + w.table, rng.Int(0, 59), rng.Int(60, 600)};
  TimePoint saved = Minutes(d.start, rng.Int(10, 6 * 60 - 150));
  d.world_note = "A Kestra flow loads " + w.table + " every hour; revision 2 reads amount_cents where it read amount_eur, "
                 "so every amount after it is a hundred times too large.";
  d.setup_sql = CreateTableSql(w);
  auto runs = AddHourlyLoads(rng, d, w, l, [&](TimePoint run) {
    bool after = run > saved;
    return LoadStyle{true, after ? 2 : 1, after ? 100.0 : 1.0, false};
  });
  std::string select = "INSERT INTO " + w.table + " (id, customer_id, amount) SELECT id, customer_id, amount_eur FROM staging." + w.table;
  std::string revised = select;
  revised.replace(revised.find("amount_eur"), 10, "amount_cents");
  TimePoint first_bad = PlantLoaderRevision(d, w, l, runs, saved, select, revised, "amount now read from amount_cents");
  AddDistractors(rng, d, w, first_bad);
  ExpectIncident(d);
  return Render(std::move(d));
}

}  // namespace dw::replay::families
