// The dbt world two families share: a model built from the world's table, its manifest (the
// checksum moves when the model's SQL is changed), its rebuilt table and an hourly monitor of
// one segment's size with two weeks of history.
#pragma once

#include "replay/families/loaders.h"

namespace dw::replay::families {

struct DbtModel {
  std::string package = "analytics", model, asset;  // dbt://analytics/<model>
  std::string table_asset;                          // table://main/<model>
  int members = 0, threshold = 0;                   // vip when the member's value >= threshold
};

// Declares the model (manifest in the workspace, the table's checks, the vip_<model> monitor and
// its history) and builds it in setup.
DbtModel AddDbtModel(Rng& rng, Draft& d, const ShopWorld& w);
// The manifest text with `checksum` for the model.
std::string DbtManifest(const DbtModel& m, const ShopWorld& w, const std::string& checksum);
// The SQL that rebuilds the model with `threshold`, stamped `at`.
std::string RebuildSql(const DbtModel& m, int threshold, TimePoint at);

}  // namespace dw::replay::families
