// The names of one query level while engine/plan/from_subqueries.cc pulls its subqueries
// up: the FROM items it sees (tables and subqueries, each column what a reference to it
// becomes), the columns an unqualified name may mean (PostgreSQL's namespace: a join's
// columns as its join RTE lists them), and the copy of an expression with every column
// reference replaced, with PostgreSQL's errors for names that resolve to nothing, to
// several columns, or to a level a subquery without LATERAL may not read.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/types.h"
#include "engine/sql/ast.h"

namespace tp::from_subqueries {

// A base table's qualifier until every level is flattened and EXPLAIN's names are known:
// a character no written name holds, then the table's place in the range table.
constexpr char kLeafMark = '\x01';

// A FROM item as one query level sees it: its name and its columns, each what a
// reference to it becomes (a base table's column, or a pulled-up select-list entry).
struct Item {
  std::string name;
  int position = 0;
  std::vector<std::string> columns;
  std::vector<const sql::Expr*> exprs;
  // Under the nullable side of an outer join: a pulled-up expression read above it
  // would need PostgreSQL's PlaceHolderVar unless it is strict over the subquery's columns.
  bool nullable = false;
  bool subquery = false;
};

// A column an unqualified name may mean (PostgreSQL's namespace item with its columns
// visible): each item's, and a join's as its join RTE lists them (USING's merged ones
// first, once).
struct NsCol {
  std::string name;
  const sql::Expr* expr;
  size_t item;
};

// Where a level's names resolve: items[begin, end) by their names (an ON clause sees
// its join's only), `cols` for unqualified names.
struct Scope {
  const std::vector<Item>* items;
  size_t begin;
  size_t end;
  const std::vector<NsCol>* cols;
  // The levels around this one, innermost last, as far as they are read: a name of
  // theirs is PostgreSQL's "invalid reference" (no LATERAL), not a missing one.
  const std::vector<const std::vector<Item>*>* outer;
  // A subquery in WHERE: the level around it, whose names it reads (correlated) when
  // its own tables do not have them.
  const Scope* parent = nullptr;
  // What a subquery in an expression becomes (null: refused by name).
  const std::function<sql::ExprPtr(const sql::Expr&, const Scope&)>* sublink = nullptr;
  // A LATERAL subquery's view of the FROM items before it: the items it reads are noted
  // in `touched`; those of `not_lateral` (the other side of a RIGHT or FULL join) are
  // PostgreSQL's 42P10.
  std::vector<size_t>* touched = nullptr;
  const std::vector<size_t>* not_lateral = nullptr;
};

// A copy of `e` with each column reference replaced by what it names in `scope`.
sql::ExprPtr rewrite(const sql::Expr& e, const Scope& scope);
// What a column reference names in `scope`.
const sql::Expr* resolve(const sql::Expr& ref, const Scope& scope);
// `*` (the level's columns) or `alias.*` (one item's) as select-list entries.
void expand_star(const sql::Expr& star, const Scope& scope, std::vector<sql::Target>& out);
// USING's column `name` on one side of its join (`which`: "left" or "right").
const NsCol& using_side(const std::string& name, const std::vector<NsCol>& side, int position,
                        const char* which);
// buildMergedJoinVar: JOIN ... USING's merged column of `l` and `r` (their types when
// known).
const NsCol& merged_column(const sql::FromItem& f, const NsCol& l, const NsCol& r,
                           std::optional<TypeId> lt, std::optional<TypeId> rt);
// `e`, read from `item`: refused by name where PostgreSQL would need a PlaceHolderVar.
const sql::Expr* checked(const sql::Expr* e, const Item& item, int position);

// Whether `e` calls a volatile function (random(), nextval(), ...): is_simple_subquery's
// contain_volatile_functions over a select list.
bool calls_volatile(const sql::Expr& e);
// `a AND b`, either of them possibly absent.
sql::ExprPtr and_of(sql::ExprPtr a, sql::ExprPtr b);
// Each FROM item's name (alias, else table or WITH query name) and position, in order.
void item_names(const sql::FromItem& f, std::vector<std::pair<std::string, int>>& out);
// A FROM item's column aliases (buildRelationAliases), or a WITH query's own
// (analyzeCTETargetList, its error at the WITH query's name), over `item`'s columns.
void alias_columns(Item& item, const std::vector<std::string>& aliases,
                   const sql::CommonTableExpr* cte = nullptr);

}  // namespace tp::from_subqueries
