// The versioned schema of the state store, as DDL for each dialect. Migrations only ever append:
// to change the schema, add the next version to the list in migrations.cc (one place) and the
// store applies it at open.
#pragma once

#include <span>
#include <string_view>

namespace dw::store {

struct Migration {
  int version;                   // 1, 2, ... with no gaps
  std::string_view description;  // recorded in schema_migrations
  std::string_view sqlite_ddl;   // ';'-separated statements
  std::string_view postgres_ddl;
};

// Every migration, by version ascending. CurrentSchemaVersion() is the last one's version.
std::span<const Migration> AllMigrations();

}  // namespace dw::store
