// One physical table is one asset: a dbt model is stitched to the warehouse relation it builds,
// in the warehouse whose database the relation names, and every name a user can type for that
// table (the `checks:` key, the relation as dbt writes it, table://, the dbt unique id) resolves
// to it. Judged over a generated family: warehouse engines, several warehouses with their
// databases, relation spellings (quoted, backticked, upper-cased), ephemeral models and
// distractor projects, with seeds.
#include <gtest/gtest.h>

#include <cctype>
#include <random>

#include "base/identifiers.h"
#include "graph/asset_lookup.h"
#include "graph/dbt_manifest.h"
#include "warehouse/backends.h"
#include "tests/graph/graph_test_support.h"

namespace dw::graph {
namespace {

using test_support::GraphFixture;

struct Engine {
  const char* type;
  bool schemas;
  bool folds_upper;  // the engine (and its dbt adapter) spells names in upper case
};
constexpr Engine kEngines[] = {{"sqlite", false, false}, {"postgres", true, false},
                               {"bigquery", true, false}, {"snowflake", true, true}};

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

class DbtStitchingTest : public GraphFixture {
 protected:
  // A warehouse `name` of engine `e` whose relations carry database `db`.
  static config::WarehouseConfig Warehouse(const std::string& name, const Engine& e, const std::string& db) {
    config::WarehouseConfig w;
    w.name = name;
    w.type = e.type;
    if (std::string(e.type) == "postgres") w.dsn = "postgresql://dw@127.0.0.1:5432/" + db + "?sslmode=disable";
    if (std::string(e.type) == "bigquery") w.project = db;
    if (std::string(e.type) == "snowflake") w.database = db;
    if (std::string(e.type) == "sqlite") w.path = "warehouse.db";
    return w;
  }
};

TEST_F(DbtStitchingTest, TheDatabaseEachWarehouseHoldsIsReadFromItsConfiguration) {
  EXPECT_EQ(warehouse::WarehouseDatabase(Warehouse("a", kEngines[1], "analytics")), "analytics");
  config::WarehouseConfig kv = Warehouse("a", kEngines[1], "x");
  kv.dsn = "host=db.internal port=5432 dbname=shop_prod user=dw";
  EXPECT_EQ(warehouse::WarehouseDatabase(kv), "shop_prod");
  kv.dsn = "not a dsn = = =";
  EXPECT_EQ(warehouse::WarehouseDatabase(kv), "");
  EXPECT_EQ(warehouse::WarehouseDatabase(Warehouse("s", kEngines[0], "")), "main");
  EXPECT_EQ(warehouse::WarehouseDatabase(Warehouse("b", kEngines[2], "proj-1")), "proj-1");
  EXPECT_EQ(warehouse::WarehouseDatabase(Warehouse("f", kEngines[3], "ANALYTICS")), "ANALYTICS");
}

TEST_F(DbtStitchingTest, EveryNameOfABuiltTableResolvesToOneAssetAcrossAGeneratedFamily) {
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937 rng(seed);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint32_t>(n)); };
    const Engine& e = kEngines[pick(4)];
    // Two to four warehouses of that engine, each with its own database; the target is one of them.
    const int n_wh = 2 + pick(3);
    config::Workspace ws;
    std::vector<std::string> dbs;
    for (int i = 0; i < n_wh; ++i) {
      std::string db = std::string(e.type) == "sqlite" ? "main" : "db" + std::to_string(seed) + "_" + std::to_string(i);
      dbs.push_back(db);
      ws.warehouses["wh" + std::to_string(i)] = Warehouse("wh" + std::to_string(i), e, db);
    }
    if (std::string(e.type) == "sqlite") ws.warehouses = {{"wh0", ws.warehouses["wh0"]}};  // one SQLite file
    const int target = std::string(e.type) == "sqlite" ? 0 : pick(n_wh);
    const std::string wh_name = "wh" + std::to_string(target);
    const std::string schema = "marts" + std::to_string(pick(5));
    const std::string alias = "daily_revenue_" + std::to_string(seed);
    const std::string model = "fct_rev_" + std::to_string(seed);
    const std::string table_name = e.schemas ? schema + "." + alias : alias;
    // The workspace checks the table (as a user writes it: lower case).
    config::CheckConfig check;
    check.table = wh_name + "." + table_name;
    check.warehouse = wh_name;
    check.asset_id = "table://" + wh_name + "/" + table_name;
    ws.checks.push_back(check);

    // dbt spells the relation its adapter's way.
    std::string db = dbs[target], sc = schema, al = alias;
    if (e.folds_upper) db = Upper(db), sc = Upper(sc), al = Upper(al);
    const char q = std::string(e.type) == "bigquery" ? '`' : '"';
    auto quoted = [&](const std::string& s) { return std::string(1, q) + s + std::string(1, q); };
    const std::string relation = quoted(db) + "." + quoted(sc) + "." + quoted(al);
    const bool write_relation = pick(4) != 0;  // some manifests leave relation_name out
    Json node = {{"resource_type", "model"}, {"name", model}, {"package_name", "shop"}, {"database", db},
                 {"schema", sc}, {"alias", al}, {"config", {{"materialized", "table"}}},
                 {"depends_on", {{"nodes", Json::array({"model.shop.ephemeral_" + std::to_string(seed)})}}}};
    if (write_relation) node["relation_name"] = relation;
    Json ephemeral = {{"resource_type", "model"}, {"name", "ephemeral_" + std::to_string(seed)},
                      {"package_name", "shop"}, {"database", db}, {"schema", sc}, {"alias", "eph"},
                      {"relation_name", nullptr}, {"config", {{"materialized", "ephemeral"}}}};
    Json manifest = {{"metadata", {{"dbt_schema_version", "https://schemas.getdbt.com/dbt/manifest/v12.json"},
                                   {"project_name", "shop"}}},
                     {"nodes", {{"model.shop." + model, node}, {"model.shop.ephemeral_" + std::to_string(seed), ephemeral}}},
                     {"exposures", {{"exposure.shop.board", {{"name", "board"}, {"type", "dashboard"},
                                                             {"depends_on", {{"nodes", {"model.shop." + model}}}}}}}}};
    auto batch = graph_->Read([&](const GraphIndex& ix) {
      return DbtManifestBatch(manifest, RelationWarehousesOf(ws), ix);
    });
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    Apply(*batch);

    graph_->Read([&](const GraphIndex& ix) {
      const AssetIndex table = ix.Find(check.asset_id);
      EXPECT_NE(table, kNone) << "the checked table " << check.asset_id << " is not the table the model builds";
      std::vector<std::string> names = {check.table, check.asset_id, "model.shop." + model,
                                        db + "." + sc + "." + al};
      if (write_relation) names.push_back(relation);
      for (const std::string& name : names) {
        auto found = FindAsset(ix, name);
        EXPECT_TRUE(found.ok() && *found == table) << name << " -> "
                                                   << (found.ok() ? ix.id(*found) : found.status().ToString());
      }
      // The model is the table's producer; what reads the model reads the table.
      const AssetIndex producer = ix.Find("dbt://shop/" + model);
      EXPECT_NE(producer, kNone);
      if (producer == kNone || table == kNone) return 0;
      EXPECT_NE(ix.FindEdge(producer, table, Relation::kFeeds), kNone);
      EXPECT_NE(ix.FindEdge(table, ix.Find("dashboard://shop/board"), Relation::kFeeds), kNone);
      // An ephemeral model builds no table; no other warehouse gets one.
      for (AssetIndex a = 0; a < ix.asset_count(); ++a) {
        const std::string& id = ix.id(a);
        if (!id.starts_with("table://")) continue;
        EXPECT_EQ(id.find("eph"), std::string::npos) << "an ephemeral model built " << id;
        if (Lower(id).find(Lower(alias)) != std::string::npos) {
          EXPECT_EQ(a, table) << "a second name for the table: " << id;
        }
      }
      return 0;
    });
  }
}

TEST_F(DbtStitchingTest, ARelationInADatabaseNoWarehouseHoldsLandsInTheDefaultWarehouse) {
  config::Workspace ws;
  ws.warehouses["pg"] = Warehouse("pg", kEngines[1], "analytics_dev");
  Json manifest = {{"metadata", {{"dbt_schema_version", "https://schemas.getdbt.com/dbt/manifest/v12.json"},
                                 {"project_name", "shop"}}},
                   {"nodes", {{"model.shop.orders", {{"resource_type", "model"}, {"name", "orders"},
                                                     {"package_name", "shop"},
                                                     {"relation_name", "\"analytics\".\"raw\".\"orders\""}}}}}};
  auto batch = graph_->Read([&](const GraphIndex& ix) { return DbtManifestBatch(manifest, RelationWarehousesOf(ws), ix); });
  ASSERT_TRUE(batch.ok());
  Apply(*batch);
  EXPECT_NE(Edge("dbt://shop/orders", "table://pg/raw.orders"), nullptr);
}

// A graph an older dw stored kept the model's relation as an alias of the model itself. Reading
// the manifest again stitches the model to its table: the relation, as dbt writes it and unquoted,
// names the table in the live index and after a reload, and the model's row keeps no alias of it.
TEST_F(DbtStitchingTest, ARelationAnOlderGraphNamedTheModelByNamesTheTableOnceTheManifestIsReadAgain) {
  config::Workspace ws;
  ws.warehouses["pg"] = Warehouse("pg", kEngines[1], "analytics");
  for (const std::string model : {"fct_daily_revenue", "zz_orders", "a_customers"}) {
    SCOPED_TRACE(model);
    const std::string relation = "\"analytics\".\"marts\".\"" + model + "\"", unquoted = "analytics.marts." + model;
    const std::string model_id = "dbt://shop/" + model, table_id = "table://pg/marts." + model;
    // The row as the older dw wrote it: the relation on the model, from its dbt source.
    store::GraphAsset old;
    old.id = model_id;
    old.kind = "dbt";
    old.attrs = {{"placeholder", false},
                 {"aliases", {relation, unquoted}},
                 {"sources", {{"dbt", {{"aliases", {relation, unquoted}}, {"last_seen", 1764000000000}}}}}};
    ASSERT_TRUE(store_->UpsertAssets({old}).ok());
    Open();
    graph_->Read([&](const GraphIndex& ix) {
      EXPECT_EQ(ix.FindAlias(relation), ix.Find(model_id)) << "the older graph's answer, before the manifest";
      return 0;
    });
    Json manifest = {{"metadata", {{"dbt_schema_version", "https://schemas.getdbt.com/dbt/manifest/v12.json"},
                                   {"project_name", "shop"}}},
                     {"nodes", {{"model.shop." + model, {{"resource_type", "model"}, {"name", model},
                                                          {"package_name", "shop"}, {"relation_name", relation},
                                                          {"config", {{"materialized", "table"}}}}}}}};
    auto batch = graph_->Read([&](const GraphIndex& ix) { return DbtManifestBatch(manifest, RelationWarehousesOf(ws), ix); });
    ASSERT_TRUE(batch.ok()) << batch.status().ToString();
    Apply(*batch);
    for (int reloaded = 0; reloaded < 2; ++reloaded) {
      SCOPED_TRACE(reloaded ? "after a reload" : "in the live index");
      graph_->Read([&](const GraphIndex& ix) {
        const AssetIndex table = ix.Find(table_id);
        EXPECT_NE(table, kNone);
        for (const std::string& name : {relation, unquoted, "model.shop." + model}) {
          EXPECT_EQ(ix.FindAlias(name), table) << name;
          auto found = FindAsset(ix, name);
          EXPECT_TRUE(found.ok() && *found == table) << name;
        }
        const AssetIndex m = ix.Find(model_id);
        EXPECT_NE(m, kNone);
        if (m != kNone) {
          EXPECT_TRUE(ix.details(m).aliases.empty());
        }
        return 0;
      });
      auto row = store_->GetAsset(model_id);
      ASSERT_TRUE(row.ok() && row->has_value());
      EXPECT_FALSE((*row)->attrs.contains("aliases")) << (*row)->attrs.dump();
      Open();
    }
  }
}

// Any source's names, whatever the kinds: a name no source gives an asset any more stops answering
// it at once and after a reload; a name another source still gives stays; a name that moved from
// one asset to another answers the new one, whichever of the two is indexed last.
TEST_F(DbtStitchingTest, ANameNoSourceGivesAnyMoreNeverAnswersAndAMovedNameAnswersItsNewAsset) {
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"dbt://shop/orders", "table://pg/raw.orders"},
      {"table://pg/raw.orders", "dbt://shop/orders"},
      {"kafka://main/orders", "table://wh/orders"},
      {"table://wh/orders", "kafka://main/orders"},
  };
  auto facts = [](const std::string& id, std::vector<std::string> aliases) {
    AssetFacts f;
    f.id = id;
    f.aliases = std::move(aliases);
    return f;
  };
  auto batch = [](Origin o, std::vector<AssetFacts> assets) {
    SourceBatch b;
    b.origin = o;
    b.assets = std::move(assets);
    return b;
  };
  for (size_t i = 0; i < pairs.size(); ++i) {
    const std::string x = pairs[i].first, y = pairs[i].second;
    SCOPED_TRACE(x + " then " + y);
    const std::string n = std::to_string(i);
    const std::string gone = "gone-" + n, kept = "kept-" + n, moved = "moved-" + n, fresh = "fresh-" + n;
    Apply(batch(Origin::kDbt, {facts(x, {gone, kept, moved})}));
    Apply(batch(Origin::kNotes, {facts(x, {kept})}));
    clock_.Advance(std::chrono::hours(1));
    // The dbt source restates x without `gone` and `moved`, and gives `moved` to y, in one batch.
    Apply(batch(Origin::kDbt, {facts(x, {kept, fresh}), facts(y, {moved})}));
    for (int reloaded = 0; reloaded < 2; ++reloaded) {
      SCOPED_TRACE(reloaded ? "after a reload" : "in the live index");
      graph_->Read([&](const GraphIndex& ix) {
        EXPECT_EQ(ix.FindAlias(gone), kNone);
        EXPECT_EQ(ix.FindAlias(kept), ix.Find(x));
        EXPECT_EQ(ix.FindAlias(fresh), ix.Find(x));
        EXPECT_EQ(ix.FindAlias(moved), ix.Find(y));
        return 0;
      });
      if (!reloaded) Open();
    }
    // The notes stop giving `kept`: the dbt source still gives it, so it stays; once dbt drops it
    // as well, it is gone.
    Apply(batch(Origin::kNotes, {facts(x, {})}));
    graph_->Read([&](const GraphIndex& ix) {
      EXPECT_EQ(ix.FindAlias(kept), ix.Find(x));
      return 0;
    });
    clock_.Advance(std::chrono::hours(1));
    Apply(batch(Origin::kDbt, {facts(x, {fresh})}));
    graph_->Read([&](const GraphIndex& ix) {
      EXPECT_EQ(ix.FindAlias(kept), kNone);
      return 0;
    });
  }
}

}  // namespace
}  // namespace dw::graph
