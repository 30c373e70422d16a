#include "replay/families/dbt_world.h"

#include <cmath>

namespace dw::replay::families {

namespace {
// How many members of `m` are vip at `threshold` (values 0..9999 spread by a multiplicative hash).
int VipCount(const DbtModel& m, int threshold) {
  int n = 0;
  for (int id = 1; id <= m.members; ++id) n += (id * 7919) % 10000 >= threshold;
  return n;
}
}  // namespace

std::string DbtManifest(const DbtModel& m, const ShopWorld& w, const std::string& checksum) {
  std::string source = "source." + m.package + ".app." + w.table;
  Json j = {{"metadata", {{"dbt_schema_version", "https://schemas.getdbt.com/dbt/manifest/v12.json"}, {"dbt_version", "1.9.1"},
                          {"project_name", m.package}}},
            {"nodes", {{"model." + m.package + "." + m.model,
                        {{"resource_type", "model"}, {"name", m.model}, {"package_name", m.package},
                         {"unique_id", "model." + m.package + "." + m.model}, {"original_file_path", "models/marts/" + m.model + ".sql"},
                         {"database", "main"}, {"schema", "main"}, {"alias", m.model},
                         {"checksum", {{"name", "sha256"}, {"checksum", checksum}}},
                         {"depends_on", {{"nodes", Json::array({source})}}}}}}},
            {"sources", {{source, {{"resource_type", "source"}, {"name", w.table}, {"source_name", "app"}, {"unique_id", source},
                                   {"database", "main"}, {"schema", "main"}, {"identifier", w.table}}}}},
            {"exposures", Json::object()}};
  return j.dump(1) + "\n";
}

std::string RebuildSql(const DbtModel& m, int threshold, TimePoint at) {
  return "DROP TABLE IF EXISTS " + m.model + ";\nCREATE TABLE " + m.model +
         " (member_id INTEGER PRIMARY KEY, segment TEXT NOT NULL, built_at TEXT NOT NULL);\n"
         "WITH RECURSIVE n(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM n WHERE id < " + std::to_string(m.members) +
         ")\nINSERT INTO " + m.model + " SELECT id, CASE WHEN (id * 7919) % 10000 >= " + std::to_string(threshold) +
         " THEN 'vip' ELSE 'regular' END, '" + SqlTs(at) + "Z' FROM n;\n";
}

DbtModel AddDbtModel(Rng& rng, Draft& d, const ShopWorld& w) {
  DbtModel m;
  m.model = "fct_" + w.table + "_segments";
  m.asset = "dbt://" + m.package + "/" + m.model;
  m.table_asset = "table://main/" + m.model;
  m.members = rng.Int(400, 3000);
  m.threshold = rng.Int(80, 95) * 100;
  d.lineage_yaml = "lineage:\n  dbt_manifest: target/manifest.json\n";
  d.workspace_files["target/manifest.json"] = DbtManifest(m, w, "c0ffee" + std::to_string(rng.Int(100000, 999999)));
  d.setup_sql += RebuildSql(m, m.threshold, Minutes(d.start, -60));
  d.check_yaml.push_back("  - table: main." + m.model + "\n    not_null: [member_id, segment]\n    unique: [member_id]\n"
                         "    accepted_values: {segment: [vip, regular]}\n");
  std::string metric = "vip_" + w.table;
  d.monitor_yaml.push_back("  - name: " + metric + "\n    warehouse: main\n    asset: " + m.table_asset +
                           "\n    sql: \"SELECT count(*) FROM " + m.model + " WHERE segment = 'vip'\"\n    every: 1h\n"
                           "    seasonality: none\n    direction: both\n");
  int vip = VipCount(m, m.threshold);
  std::string csv = "timestamp,value\n";
  for (TimePoint h = Minutes(d.start, -14 * 24 * 60); h < d.start; h = Minutes(h, 60))
    csv += Ts(h) + "," + std::to_string(std::lround(vip * rng.Real(0.98, 1.02))) + "\n";
  d.history[metric] = csv;
  return m;
}

}  // namespace dw::replay::families
