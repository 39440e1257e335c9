// ORDER BY bound over one table as PostgreSQL's pathkeys: each key a table column or a
// computed expression (an output column named by position or alias, or any expression
// over the table, which the scan then computes as a resjunk column).
//
//   BoundOrder order = bind_order_by(rel, select, {columns, names, exprs, false}, fixed);
//   order.keys     // (table column, DESC); a computed key's is computed_key(i)
//   order.text     // "Sort Key: ((a + 1)) DESC, b"
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/typed_expr.h"
#include "engine/sql/ast.h"
#include "engine/storage/catalog.h"

namespace tp {

// The select list as ORDER BY reads it.
struct OrderTargets {
  const std::vector<int>& columns;  // table column per output column, -1: computed
  const std::vector<std::string>& names;
  const std::vector<std::shared_ptr<TypedExpr>>& exprs;  // per output column, or null
  bool aggregates = false;                               // an aggregate select list
};

struct BoundOrder {
  std::vector<std::pair<int, bool>> keys;  // table column (or computed_key), descending
  std::vector<bool> nulls_first;           // per key (default: as DESC)
  std::string text;                        // "Sort Key: a, b DESC"
  std::vector<int> written;  // every ORDER BY column (or computed key), once (fixed ones too)
  // The leading keys an index scan could give: those before the first that asks for
  // NULLS FIRST ascending or NULLS LAST descending, which no B-tree scan (NULLS LAST
  // forward, NULLS FIRST backward) returns, or that is computed; a Sort (or an
  // Incremental Sort over the keys before it) does.
  size_t index_orderable_keys = SIZE_MAX;
  // The expressions only ORDER BY reads (resjunk columns), after the select list's.
  std::vector<std::shared_ptr<TypedExpr>> resjunk;
  bool computed_keys = false;  // some key is computed

  bool computed() const { return computed_keys; }
};

// A computed key's stand-in for a table column: -1 - i, i the select-list entry it is
// (OrderTargets::exprs), or past them, select-list size + its index in `resjunk`.
inline int computed_key(size_t i) {
  return -1 - int(i);
}
inline size_t computed_index(int key) {
  return size_t(-1 - key);
}

// ORDER BY as PostgreSQL's pathkeys: a key on a column WHERE fixes (`fixed`) or on an
// expression it fixes (`fixed_exprs`, deparsed), or on one already sorted by, is dropped
// (ORDER BY b, c WHERE b = 4 sorts by c; ORDER BY b WHERE b = 4 needs no sort at all).
BoundOrder bind_order_by(const RelationEntry& rel, const sql::Select& s, const OrderTargets& t,
                         const std::vector<int>& fixed,
                         const std::vector<std::string>& fixed_exprs = {});

}  // namespace tp
