// Incident: a change to a dbt model changes one column's type (a key written as text, a label
// written as a code, a time written as epoch seconds); the rebuild lands it and every reader that
// joins or filters on the column breaks, while the row count stays as it was.
#include "replay/families/dbt_world.h"
#include "replay/families/families_list.h"

namespace dw::replay::families {

Result<Story> DbtTypeChange(uint64_t seed) {
  Rng rng(seed);
  Draft d = Begin("dbt-type-change", seed, false, rng, 5);
  ShopWorld w = DrawWorld(rng, d);
  DbtModel m = AddDbtModel(rng, d, w);
  // The schema check a team puts on a model other teams read.
  d.check_yaml.push_back("  - table: main." + m.model + "\n    schema: true\n");
  TimePoint merged = Minutes(d.start, rng.Int(15, 5 * 60 - 120));
  TimePoint rebuilt = Minutes(merged, rng.Int(3, 30));
  struct Change {
    const char* what;
    const char* columns;  // the rebuilt table's columns
    const char* select;   // its rows from n(id), the vip rule as before
  };
  const std::string rule = "CASE WHEN (id * 7919) % 10000 >= " + std::to_string(m.threshold);
  const std::string at = SqlTs(rebuilt) + "Z";
  const std::vector<Change> changes = {
      {"member_id becomes text (a prefixed surrogate key)", "member_id TEXT PRIMARY KEY, segment TEXT NOT NULL, built_at TEXT NOT NULL", "printf('M%06d', id), {rule} THEN 'vip' ELSE 'regular' END, '{at}'"},
      {"built_at becomes epoch seconds", "member_id INTEGER PRIMARY KEY, segment TEXT NOT NULL, built_at INTEGER NOT NULL", "id, {rule} THEN 'vip' ELSE 'regular' END, CAST(strftime('%s', '{at0}') AS INTEGER)"},
      {"segment becomes a numeric code", "member_id INTEGER PRIMARY KEY, segment INTEGER NOT NULL, built_at TEXT NOT NULL", "id, {rule} THEN 1 ELSE 0 END, '{at}'"},
  };
  const Change& c = rng.Pick(changes);
  auto fill = [&](std::string s) {
    for (auto [key, value] : std::vector<std::pair<std::string, std::string>>{{"{rule}", rule}, {"{at0}", SqlTs(rebuilt)}, {"{at}", at}}) {
      for (size_t p = s.find(key); p != std::string::npos; p = s.find(key, p + value.size())) s.replace(p, key.size(), value);
    }
    return s;
  };
  const std::string sql = "DROP TABLE IF EXISTS " + m.model + ";\nCREATE TABLE " + m.model + " (" + c.columns + ");\n" +
                          "WITH RECURSIVE n(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM n WHERE id < " + std::to_string(m.members) +
                          ")\nINSERT INTO " + m.model + " SELECT " + fill(c.select) + " FROM n;\n";
  d.world_note = "The dbt model " + m.model + " is changed: " + c.what + "; the rebuild lands the new type for every reader.";
  d.events.push_back({merged, "GitHub + dbt", "A change to " + m.model + " is merged (" + c.what + "); the manifest's checksum moves", "",
                      "target/manifest.json", DbtManifest(m, w, "f00d" + std::to_string(rng.Int(100000, 999999)))});
  d.events.push_back({rebuilt, "dbt + warehouse", m.model + " is rebuilt with the new type", sql, "", ""});
  d.story.damaged_asset = m.table_asset;
  d.story.cause = {{"model_change"}, m.asset};
  d.story.first_bad_write = rebuilt;
  d.story.shape += ", " + std::to_string(m.members) + " members, " + c.what;
  AddDistractors(rng, d, w, rebuilt);
  ExpectIncident(d);
  return Render(std::move(d));
}

}  // namespace dw::replay::families
