// The tests a team wrote in dbt, read from its manifest.json, as checks of the tables its models
// build (docs/quality.md, "Tests from dbt"). Generic tests the product can measure inside a table's
// one aggregate statement become ImportedTest entries keeping their dbt names, severity and
// `where`; every other test (a singular test's own SQL, an unknown macro, a setting with no
// translation) is listed with the reason, never dropped and never guessed.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "base/identifiers.h"
#include "base/json.h"
#include "base/status.h"
#include "config/workspace.h"
#include "observe/quality/check_spec.h"

namespace dw::observe::quality {

// Where the relations a manifest names live: a relation whose database matches a warehouse's
// (case-insensitively) is that warehouse's, else the fallback's.
struct DbtRelationPlaces {
  struct Warehouse {
    std::string name;
    std::string database;  // "" when unknown
    bool schemas = true;   // tables are named schema.table (false: SQLite)
  };
  std::vector<Warehouse> warehouses;
  std::string fallback;
};

// The workspace's warehouses with their databases; its default warehouse as the fallback (the only
// one, else the one called main, else the first by name), as the graph's reader places them.
DbtRelationPlaces DbtRelationPlacesOf(const config::Workspace& ws);

struct DbtTestsOfTable {
  TableRef ref;
  std::vector<ImportedTest> tests;
};

// A test the product does not run, and why.
struct DbtTestNotImported {
  std::string name;       // the test's dbt name
  std::string unique_id;  // test.<project>.<name>...
  std::string model;      // the unique id of what it tests ("" when the manifest does not say)
  std::string reason;
};

struct DbtTestImport {
  std::string project;  // metadata.project_name, else the tests' package
  int tests = 0;        // every test node of the manifest
  std::vector<DbtTestsOfTable> tables;  // in the order of the manifest's nodes
  std::vector<DbtTestNotImported> not_imported;
};

// Reads the test nodes of `manifest`. Every test lands either in `tables` or in `not_imported`
// (tests == imported + not_imported). Fails with kInvalidArgument only when the manifest as a
// whole is unreadable (no `nodes` object).
Result<DbtTestImport> ImportDbtTests(const Json& manifest, const DbtRelationPlaces& where);

// ImportDbtTests on the file at `path`. Fails naming the path when it cannot be read or parsed.
Result<DbtTestImport> ImportDbtTestsFile(const std::filesystem::path& path, const DbtRelationPlaces& where);

}  // namespace dw::observe::quality
