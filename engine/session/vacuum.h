// VACUUM's part of VACUUM [ANALYZE]: what PostgreSQL 15's lazy vacuum would read and
// record for an insert-only table, whose every committed tuple is visible to all.
#pragma once

#include <string>
#include <vector>

#include "engine/session/session.h"
#include "engine/storage/table_stats.h"

namespace tp {

// Whether VACUUM's options ask for ANALYZE; any option but ANALYZE is refused by name.
bool vacuum_analyzes(const std::vector<std::string>& options);

// Vacuums `rel`: the pages PostgreSQL's lazy vacuum would scan (every page but runs
// of at least 32 the visibility map marks all-visible; always the last one) are read
// through a read stream and a ring, and their tuples counted, and `st` gets relpages and reltuples
// as PostgreSQL records them (vac_estimate_reltuples: the old density over the pages skipped). The
// returned map marks every page all-visible; the caller writes it before its commit.
VisibilityMap vacuum_relation(Session& session, const RelationEntry& rel, TableStats& st);

}  // namespace tp
