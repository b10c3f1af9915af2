// The versioned schema of the results database. PRAGMA user_version is the schema version;
// migrations()[N-1] takes a database from version N-1 to N and runs inside one transaction.
// Never edit a released migration: append a new one and document it in schema_doc().
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace tune::store {

struct Migration {
  int version;           // the user_version after it ran
  std::string_view sql;  // DDL/DML run inside the migration's transaction
};

// All migrations in order; migrations().back().version is the newest version this build knows.
std::span<const Migration> migrations();

// The newest schema version this build can read and write.
int schema_version();

// PRAGMA application_id of a tune database ("TUNE" in ASCII), set by migration 1; any other
// non-zero application_id means the file belongs to another program.
inline constexpr std::int32_t kApplicationId = 0x54554E45;

// Every table and column with its meaning, as printed by `tune db schema`.
std::string schema_doc();

}  // namespace tune::store
