// A LATERAL subquery PostgreSQL plans on its own (is_simple_subquery fails: ORDER BY,
// LIMIT, OFFSET, DISTINCT, GROUP BY, aggregates, a volatile select list), as the FROM
// item engine/plan/from_subqueries.cc leaves in place for the join binder to plan
// (engine/plan/lateral.h): its output columns are what the query reads of it, and the
// one table before it that it reads is named in FromItem::lateral_outer.
#pragma once

#include <string>
#include <vector>

#include "engine/plan/from_subquery_names.h"
#include "engine/sql/ast.h"

namespace tp::from_subqueries {

// A pulled-up LATERAL subquery's WHERE conjunct over the items before it: it belongs to
// the lowest join holding those items (deconstruct_jointree's postponed quals).
struct Postponed {
  sql::ExprPtr qual;
  size_t first_item;  // the first item it reads (the lowest join holding it takes it)
  size_t level;       // of those items (the depth of the levels around there)
};

// `where` rewritten in `all`: a conjunct reading the items before the LATERAL subquery
// (`lateral`, null for another) postponed, the others ANDed into `quals`.
void lateral_where(const sql::Expr* where, const Scope& all, const Scope* lateral,
                   sql::ExprPtr& quals, std::vector<Postponed>& postponed, size_t level);

// The conjuncts a join of the items from `begin` at `level` takes, ANDed.
sql::ExprPtr take_postponed(std::vector<Postponed>& postponed, size_t level, size_t begin);

// Whether PostgreSQL plans `q` on its own rather than pulling it up.
bool planned_alone(const sql::Select& q);

// `f` as that FROM item: `item` gets its columns (references `alias.column`, kept in
// `pool`), read from the items before it (`visible`'s; those of `not_lateral` are
// PostgreSQL's 42P10). `leaves`: every table's name at this point, which the
// subquery's own table may not repeat.
sql::FromItem lateral_alone(const sql::FromItem& f, Item& item, const std::vector<Item>& items,
                            const std::vector<NsCol>& visible,
                            const std::vector<size_t>& not_lateral,
                            const std::vector<std::string>& leaves,
                            std::vector<sql::ExprPtr>& pool);

}  // namespace tp::from_subqueries
