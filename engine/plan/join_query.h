// A SELECT over several tables, bound as PostgreSQL's planner sees it before the join
// search (deconstruct_jointree, distribute_qual_to_rels, the equivalence classes of
// equivclass.c):
//
//   SELECT a.v, b.w FROM a JOIN b ON a.x = b.y WHERE b.z < 5 ORDER BY a.v
//     rels      a (vars 0..), b (vars n..): each table column is one var
//     restrictions of b: b.z < 5               (a conjunct over one table)
//     classes   {a.x, b.y}                     (Var = Var of one btree family)
//     clauses   none                           (other conjuncts over several tables)
//     targets   a.v, b.w; order a.v
//
// Every expression above the scans is a TypedExpr whose column slots are var ids, each
// printed qualified ("a.v") as PostgreSQL's EXPLAIN prints a column once a query reads
// more than one relation. A var's `where_needed` says which relations read it above its
// own scan (kOutputNeed: the select list or ORDER BY), which decides the columns each
// scan and join returns and so their widths.
//
// A query with GROUP BY, HAVING or aggregates is bound as GroupedSelect over the vars
// (engine/plan/grouping_bind.h, its keys' and aggregates' columns var ids) in `grouped`,
// `targets` and `order` left empty; the vars it reads are needed by the output.
//
// Inner joins only (FROM lists, [INNER] JOIN ... ON / USING, CROSS JOIN): an outer join
// and what the join planner cannot run yet (DISTINCT over a join) are refused by name.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/typed_expr.h"
#include "engine/plan/join_cost.h"
#include "engine/plan/plan_context.h"
#include "engine/sql/ast.h"
#include "engine/storage/catalog.h"

namespace tp {

struct GroupedSelect;
struct LateralSubquery;

// A set of base relations, one bit each (PostgreSQL's Relids).
using Relids = uint64_t;
// The bit in `where_needed` for the query's output.
inline constexpr Relids kOutputNeed = Relids(1) << 63;
// join_collapse_limit's and geqo_threshold's scale: more tables are refused.
inline constexpr size_t kMaxJoinRels = 12;

struct JoinBaseRel {
  const RelationEntry* rel = nullptr;
  std::string refname;     // its alias, else the table's name: what qualifies its columns
  std::string alias;       // the alias when it differs from the table's name, else ""
  uint32_t first_var = 0;  // the var of column 0
  std::string prefix;      // "refname." as EXPLAIN qualifies the columns, quoted if needed
  // Conjuncts over this relation alone, in the order written (a class's `col = const`
  // given to every member after them, as generate_base_implied_equalities does).
  std::vector<const sql::Expr*> restrictions;
  std::vector<int> constant_columns;  // columns a restriction `col = constant` fixes
  // A LATERAL subquery planned on its own (engine/plan/lateral.h; `rel` is its output
  // columns), parameterized by the base relation `lateral_outer`.
  std::shared_ptr<LateralSubquery> lateral;
  int lateral_outer = -1;
};

struct QueryVar {
  int rel = 0;
  int column = 0;
  TypeId type = TypeId::kInt4;
  int32_t typmod = kNoTypmod;
  int width = 0;            // attr_widths: ANALYZE's average, else the type's
  Relids where_needed = 0;  // relations (and kOutputNeed) reading it above its scan
};

// An equivalence class without a constant that spans several relations: its members in
// the order they joined it. A join of two relation sets checks one `outer = inner` pair
// of it (generate_join_implied_equalities).
// An expression member of a class (`(s2.n)::double precision` of `s0.f = s2.n`): over
// the vars of one relation.
struct ClassExpr {
  TypedExpr expr;
  int rel = 0;
};

struct JoinClass {
  std::vector<uint32_t> members;  // vars
  std::vector<ClassExpr> exprs;   // expression members
  // The relations of its expression members (`(s3.a)::numeric` of `x.n = s3.a AND x.n =
  // 1100` in a class with a constant, which the constant restricts too).
  Relids expression_rels = 0;
  // PostgreSQL lists exprs[0] first: the class began with `f(y) = x` (process_equivalence
  // keeps its members in the order the clauses brought them).
  bool expr_first = false;
};

// A conjunct over several relations that is no class's: a Join Filter where all of them
// are joined (`relids`: PostgreSQL's required_relids, which an outer join widens: its
// own ON clause waits for both its sides, a WHERE clause over a nullable relation for
// the join that nulls it).
struct JoinFilterClause {
  TypedExpr expr;  // slots are vars
  Relids relids = 0;
  // A WHERE or inner ON clause; false for an outer join's own ON clause, which decides
  // matches rather than filtering rows (EXPLAIN's Join Filter against Filter).
  bool pushed_down = true;
  Relids outer_relids = 0;     // an ON clause's preserved side: no scan there may apply it
  Relids nullable_relids = 0;  // relations an outer join below it may null
  // An outer join's `outer = inner` whose sides a WHERE constant both fix now: checked
  // still, but it no longer narrows the join's rows.
  bool redundant = false;
};

// An outer (or anti) join (PostgreSQL's SpecialJoinInfo): the relations each side must
// hold when it is done (min_*), and those written on each side (syn_*).
struct SpecialJoin {
  JoinKind kind = JoinKind::kLeft;  // kLeft, kFull or kAnti
  Relids min_lefthand = 0;
  Relids min_righthand = 0;
  Relids syn_lefthand = 0;
  Relids syn_righthand = 0;
  // A semi join whose quals are `lhs expr = rhs var` equalities (and restrictions of one
  // side): its right side may be made unique on those vars and inner-joined instead
  // (compute_semijoin_info, create_unique_path).
  std::vector<uint32_t> semi_rhs_vars;
  // The right sides as expressions, when some is no plain column (`x = (q.id)::numeric`):
  // the unique-ified side is grouped by their values, computed below it.
  std::vector<TypedExpr> semi_rhs_exprs;
  bool semi_can_unique = false;
  // Its right side may be made distinct by hashing (every clause's operator hashes; a
  // date against a timestamp only sorts: Unique over a Sort).
  bool semi_can_hash = true;
  bool lhs_strict = false;         // its ON clause is strict for some left relation
  bool delay_upper_joins = false;  // a WHERE clause must see it done before joins above
};

struct JoinOrderItem {
  std::shared_ptr<TypedExpr> expr;
  bool descending = false;
  bool nulls_first = false;
  std::string shown;  // as a Sort Key names it (drop_redundant_order_keys)
};

// An entry of SELECT DISTINCT's clause as PostgreSQL's transformDistinctClause makes it:
// the select-list entries ORDER BY names first, in its order and directions, then every
// other entry ascending.
struct JoinDistinctItem {
  size_t target = 0;
  bool descending = false;
  bool nulls_first = false;
};

struct JoinQuery {
  std::vector<JoinBaseRel> rels;
  std::vector<QueryVar> vars;
  std::vector<JoinClass> classes;
  // Classes with a constant (`a.x = b.y AND b.y = 5`): they join nothing, but their
  // members are known equal (estimate_num_groups counts them once).
  std::vector<JoinClass> constant_classes;
  std::vector<JoinFilterClause> filters;
  std::vector<SpecialJoin> special_joins;           // bottom-up, as written
  std::vector<std::shared_ptr<TypedExpr>> targets;  // over vars
  std::vector<std::string> names;
  std::vector<JoinOrderItem> order;
  std::string order_text;  // EXPLAIN's Sort Key
  std::optional<int64_t> limit;
  int64_t offset = 0;
  // The `col = const` conjuncts written for a class's other members.
  std::vector<std::unique_ptr<sql::Expr>> derived;
  std::shared_ptr<GroupedSelect> grouped;  // GROUP BY, HAVING or aggregates
  std::vector<JoinDistinctItem> distinct;  // SELECT DISTINCT's clause (empty: none)
  // Vars a WHERE constant fixes (`x = 5`, or a class with one) for the whole query.
  std::vector<uint32_t> fixed;

  bool is_fixed(uint32_t var) const {
    return std::find(fixed.begin(), fixed.end(), var) != fixed.end();
  }
  // WHERE folds to FALSE or NULL: no row at all (a Result with a false One-Time Filter).
  bool where_false = false;
  // WHERE conjuncts over InitPlans' values and no column (`EXISTS (...)` as $0): a gating
  // Result's One-Time Filter above the join (scans/subplan_host.h).
  std::vector<TypedExpr> gating;
  // Relations a LEFT JOIN reads nothing from and cannot multiply (remove_useless_joins).
  Relids removed = 0;
  // The joinlist's sub-lists (join_collapse.h): a join relation holds all of each or
  // none of it, or lies inside it.
  std::vector<Relids> subproblems;

  Relids all_rels() const { return ((Relids(1) << rels.size()) - 1) & ~removed; }
  bool is_removed(size_t rel) const { return (removed >> rel) & 1; }
  uint32_t var_of(int rel, int column) const {
    return rels[size_t(rel)].first_var + uint32_t(column);
  }
  // The relations `e` reads.
  Relids relids_of(const TypedExpr& e) const;
  // A column as EXPLAIN prints it: "o.cust", or a LATERAL subquery's output column as
  // the expression of its plan it is ("o.id": setrefs removed the Subquery Scan).
  std::string column_name(int rel, int column) const;
  // A var's pathkey: its class's index, or a key of its own (classes.size() + var).
  uint32_t key_of(uint32_t var) const;
  // The var estimate_num_groups counts for a class's first member: the var itself, or
  // the one var an expression member that comes first reads.
  uint32_t first_member_var(uint32_t key) const;
  // The same for a var in no class that a WHERE's `f(x) = var` (f(x) written first)
  // would have made one of: x, the one var f reads; else `var` itself.
  uint32_t expression_class_var(uint32_t var) const;
  // The vars a relation of `relids` returns (those read above it), ascending.
  std::vector<uint32_t> output_vars(Relids relids) const;
  // The two vars of each outer join's `x = y` of one family, both ways round: merge
  // clauses of vars no class holds (an order by either is useful for merging).
  std::vector<std::pair<uint32_t, uint32_t>> outer_join_merge_pairs() const;
  // A var as EXPLAIN prints it ("o.cust"), and `a = b` of two vars bound as written.
  std::string var_name(uint32_t var) const;
  TypedExpr var_equality(uint32_t a, uint32_t b) const;
  // A var as an expression, and `a = b` of two class members (vars or expressions).
  TypedExpr var_expr(uint32_t var) const;
  TypedExpr member_equality(TypedExpr a, TypedExpr b) const;
  // A dummy relation's columns print bare (`Hash Cond: (s0.a = k)`): its Result has no
  // relation to qualify them by.
  void unqualify(int rel);
};

// Whether `a = b` is one btree operator family's (and so makes an equivalence class, and
// a hash or merge clause the join nodes can compare slot to slot).
inline bool same_btree_family(TypeId a, TypeId b) {
  auto integer = [](TypeId t) {
    return t == TypeId::kInt2 || t == TypeId::kInt4 || t == TypeId::kInt8;
  };
  auto string = [](TypeId t) { return t == TypeId::kText || t == TypeId::kVarchar; };
  return a == b || (integer(a) && integer(b)) || (string(a) && string(b));
}
// Whether `a = b` hashes across its types (and a semi join unique-ifies over it):
// same_btree_family's, and real with double precision (float_ops), whose hashes agree.
inline bool same_hash_family(TypeId a, TypeId b) {
  auto floating = [](TypeId t) { return t == TypeId::kFloat4 || t == TypeId::kFloat8; };
  return same_btree_family(a, b) || (floating(a) && floating(b));
}
// The same, with the cross-type families a WHERE's equality merges over: date, timestamp
// and timestamptz (datetime_ops), real and double precision (float_ops). An equivalence
// class spans these; a clause between two of its members of different datetime types
// merges but does not hash.
inline bool same_merge_family(TypeId a, TypeId b) {
  auto datetime = [](TypeId t) {
    return t == TypeId::kDate || t == TypeId::kTimestamp || t == TypeId::kTimestamptz;
  };
  return same_hash_family(a, b) || (datetime(a) && datetime(b));
}

// Whether `s` reads more than one relation (a FROM list or a join, or a subquery in
// WHERE that joins the query as a semi or anti join).
bool is_join_select(const sql::Select& s);

// Binds `s` (is_join_select). Throws PostgreSQL's errors for unknown, ambiguous and
// out-of-scope columns and relations, and refuses by name what is not built yet.
JoinQuery bind_join_query(PlanContext& ctx, const sql::Select& s);

// ORDER BY's keys as PostgreSQL's pathkeys keep them (join_vars.cc): a key WHERE fixes
// to a constant, or of a class an earlier key sorts, left out; the Sort Key's text.
void drop_redundant_order_keys(JoinQuery& q, bool distinct);

}  // namespace tp
