// The versioned schema of the state store, as DDL for each dialect. Migrations only ever append:
// to change the schema, add the next version to the list in migrations.cc (one place) and the
// store applies it at open.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace dw::store {

struct Migration {
  int version;                   // 1, 2, ... with no gaps
  std::string_view description;  // recorded in schema_migrations
  // ';'-separated statements for both dialects, with two placeholders: {ID} (an auto-increment
  // BIGINT primary key) and {DOUBLE} (a double-precision column). RenderDdl fills them in.
  std::string_view ddl;
  // The one backend the DDL is for ("postgresql": a storage setting SQLite has no form of), or
  // empty for both. The other backend records the version without running anything.
  std::string_view only_on = {};
};

// `ddl` with the placeholders spelled for `backend` ("sqlite" or "postgresql").
std::string RenderDdl(std::string_view ddl, std::string_view backend);

// Every migration, by version ascending. CurrentSchemaVersion() is the last one's version.
std::span<const Migration> AllMigrations();

}  // namespace dw::store
