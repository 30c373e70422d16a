// Incident: a revision of the hourly loader maps a column the upstream renamed; from its next run
// on the column lands NULL (a schema change that nulls a column).
#include "replay/families/families_list.h"

namespace dw::replay::families {

Result<Story> KestraRevisionNullsColumn(uint64_t seed) {
  Rng rng(seed);
  Draft d = Begin("kestra-revision-nulls-column", seed, false, rng, 6);
  ShopWorld w = DrawWorld(rng, d);
  HourlyLoader l{w.domain, "load_" + w.table, "kestra://kestra/" + w.domain + ".load_" + w.table, rng.Int(0, 59), rng.Int(60, 600)};
  TimePoint saved = Minutes(d.start, rng.Int(10, 6 * 60 - 150));
  d.world_note = "A Kestra flow loads " + w.table + " every hour; revision 2 maps customer_id from a field the upstream renamed, "
                 "so every run after it lands customer_id NULL.";
  d.setup_sql = CreateTableSql(w);
  auto runs = AddHourlyLoads(rng, d, w, l, [&](TimePoint run) {
    bool after = run > saved;
    return LoadStyle{true, after ? 2 : 1, 1, after};
  });
  std::string select = "INSERT INTO " + w.table + " (id, customer_id, amount) SELECT id, {{ row.customer_id }}, amount FROM staging." + w.table;
  std::string revised = select;
  revised.replace(revised.find("row.customer_id"), 15, "row.customerId");
  TimePoint first_bad = PlantLoaderRevision(d, w, l, runs, saved, select, revised, "customer_id now read from row.customerId");
  AddDistractors(rng, d, w, first_bad);
  ExpectIncident(d);
  return Render(std::move(d));
}

}  // namespace dw::replay::families
