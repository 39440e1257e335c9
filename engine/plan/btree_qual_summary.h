// From index clauses to the numbers btcostestimate works with.
//
//   // index on (b), WHERE b BETWEEN 1000 AND 5000 AND c = 7: index clauses are
//   // the two comparisons on b; c = 7 stays a qpqual (a Filter).
//   BtreeQuals q = summarize_btree_quals(rel, {1}, false,
//       restriction_clauses(Clause::between(1, 1000, 5000)));
//   IndexScanCost c = cost_index_scan(settings, size, index, q, qual_cost(settings, filter));
#pragma once

#include <optional>
#include <span>
#include <vector>

#include "engine/plan/cost_model.h"
#include "engine/plan/selectivity.h"

namespace tp {

// How btcostestimate and the index paths see an index clause on one column.
struct IndexQualShape {
  bool in_list = false;  // = ANY (list)
  size_t list_size = 1;
  bool equality = false;  // =, or an IN list
  bool is_null = false;   // IS NULL (not IS NOT NULL)
};

// The shape of a clause a btree can use as an index qual on `column`: a comparison
// other than <> with a non-NULL constant, an IN list (= ANY), or IS [NOT] NULL, over
// an integer column (Clause's own kinds) or a column of any type (a typed expression,
// engine/plan/typed_index_qual.h); none for any other clause.
std::optional<IndexQualShape> index_qual_shape(const Clause& clause, int column);
inline bool is_btree_indexable(const Clause& clause, int column) {
  return index_qual_shape(clause, column).has_value();
}
// An IN list (= ANY) an index can search, on whichever column.
bool is_index_in_list(const Clause& clause);

// Contract: `index_columns` are the table columns of the index keys in order;
// every clause of `index_clauses` is indexable on one of them (asserted).
// Returns the selectivity of all the clauses, that of the boundary clauses
// (equalities on a leading prefix of the keys plus any clauses on the next
// key), the operator count, the IN-list scan multipliers, whether a unique
// index is matched by '=' on every key, and the leading key's correlation.
BtreeQuals summarize_btree_quals(const RelationStatsView& rel,
                                 const std::vector<int>& index_columns, bool unique,
                                 std::span<const Clause> index_clauses);

}  // namespace tp
