// A table's storage options, as `WITH (...)` in CREATE TABLE and `ALTER TABLE
// ... SET (...)` write them: fillfactor (10..100) and parallel_workers
// (0..1024), checked with PostgreSQL's reloptions.c messages.
//
//   TableOptions o = table_options(alter.options);   // throws tp::Error
#pragma once

#include <optional>
#include <vector>

#include "engine/sql/ast.h"

namespace tp::sql {

struct TableOptions {
  std::optional<int> fillfactor;
  std::optional<int> parallel_workers;
};

// Checks `options` (each name known, given once, with an integer value in its
// range; an integer option written without a value reads as "true", as
// PostgreSQL's) and returns their values. Errors name the option and position.
TableOptions table_options(const std::vector<RelOption>& options);

// A B-tree index's storage options, as `CREATE INDEX ... WITH (...)` writes
// them: deduplicate_items (a boolean, PostgreSQL's spellings). fillfactor is
// refused by name: tidepool's B-trees keep PostgreSQL's default fill.
struct IndexOptions {
  std::optional<bool> deduplicate_items;
};
IndexOptions index_options(const std::vector<RelOption>& options);

// The option names a RESET list may name: unknown ones are ignored, as
// PostgreSQL does; a value is an error ("RESET must not include values").
void check_reset_options(const std::vector<RelOption>& options);

}  // namespace tp::sql
