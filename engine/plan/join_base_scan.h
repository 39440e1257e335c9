// A join's base relation as the scan chooser takes it (join_select.h): its ScanQuery,
// the restrictions placed on it (PostgreSQL's baserestrictinfo), the columns the join
// reads and sorts by, the ORDER BY's keys it may give.
#pragma once

#include <vector>

#include "engine/plan/join_path.h"
#include "engine/plan/join_query.h"
#include "engine/plan/scan_choice.h"

namespace tp {

// `rel`'s restrictions with equivalence classes applied (equalities last), its output
// and merge columns, the leading ORDER BY keys an index of it may give.
ScanQuery base_scan_query(const JoinBaseRel& r, int rel, const JoinQuery& q,
                          const std::vector<PathKey>& query_pathkeys);

// A pulled-up subquery's WHERE folded to FALSE or NULL beside other restrictions on an
// outer join's nullable side: a pseudo-constant qual, so the scan sits under a Result
// whose One-Time Filter it is and never runs (selectivity 0, no cost of its own).
void gate_on_false(ScanQuery& sq);

}  // namespace tp
