// How many rows a join returns, as PostgreSQL 15 estimates it: the join clauses'
// selectivity (selfuncs.c's eqjoinsel with eqjoinsel_inner and eqjoinsel_semi,
// neqjoinsel, the inequality operators' defaults), the join relation's size
// (costsize.c's calc_joinrel_size_estimate) and the semi/anti-join factors the join
// costs read (compute_semi_anti_join_factors).
//
// Pure functions over each side's column statistics and relation sizes, so the
// planner that grows joins (issue 31) can feed in what it knows and get EXPLAIN's
// `rows=`:
//
//   // SELECT * FROM a JOIN b ON a.x = b.y   (a: 10000 rows, b: 2000 rows)
//   JoinVar x{.stats = &a_stats.columns[0], .type = TypeId::kInt4, .tuples = 10000, .rows = 10000};
//   JoinVar y{.stats = &b_stats.columns[1], .type = TypeId::kInt8, .tuples = 2000, .rows = 2000};
//   double sel = eqjoinsel(x, y, JoinKind::kInner, TypeId::kInt8);
//   double rows = join_rows(JoinKind::kInner, x.rows, y.rows, sel);
//
// What is left to the caller: which clauses are join clauses, their product when
// there are several (clauselist_selectivity multiplies join clauses: the range-pair
// logic is for one relation's clauses), foreign keys (the planner's
// get_foreign_key_join_selectivity), and which side of a semi or anti join is the
// inner one (the subquery's).
#pragma once

#include "engine/core/types.h"
#include "engine/plan/join_cost.h"
#include "engine/plan/selectivity.h"

namespace tp {

// One side of a join clause `a.x = b.y`: a column and the relation it comes from.
struct JoinVar {
  // pg_statistic's row for the column; nullptr (or !valid): never analyzed, so no
  // null fraction, no MCVs and a default distinct count.
  const ColumnStats* stats = nullptr;
  TypeId type = TypeId::kInt8;  // the column's type (a boolean has two values)
  bool unique = false;          // a unique index covers exactly this column
  // The base relation's rel->tuples (its estimated size, what n_distinct < 0 scales)
  // and rel->rows (after its restriction clauses: what eqjoinsel_semi clamps the
  // inner side's distinct count by).
  double tuples = 0;
  double rows = 0;
};

// get_variable_numdistinct for a join variable: the statistics' n_distinct (a negative
// one a fraction of `tuples`), all rows for a unique column, two for a boolean without
// statistics, the rows of a table under 200 rows, else DEFAULT_NUM_DISTINCT (200) with
// `is_default` set.
double join_var_numdistinct(const JoinVar& var, bool* is_default);

// eqjoinsel_inner: the fraction of the Cartesian product where `outer = inner` holds,
// also used for left and full joins. `cmp_type` is the type the operator compares in
// (integers of any width compare as integers; text with varchar as text).
double eqjoinsel_inner(const JoinVar& outer, const JoinVar& inner, TypeId cmp_type);

// eqjoinsel_semi: the fraction of outer rows with at least one match among the inner
// ones, for semi and anti joins. `inner_rel_rows` is the rows of the join's inner input
// relation (the subquery's, after its restrictions: inner.rows when it is one table).
double eqjoinsel_semi(const JoinVar& outer, const JoinVar& inner, TypeId cmp_type,
                      double inner_rel_rows);

// eqjoinsel as the planner calls it for the join `kind` of the SpecialJoinInfo: the
// inner-join selectivity for inner, left, right and full joins; for semi and anti
// joins eqjoinsel_semi, at most inner_rel_rows times the inner-join selectivity.
// `inner_rel_rows` < 0 means inner.rows. A right join is passed as PostgreSQL plans
// it, a left join with the sides swapped, but either order gives the same selectivity.
double eqjoinsel(const JoinVar& outer, const JoinVar& inner, JoinKind kind, TypeId cmp_type,
                 double inner_rel_rows = -1);

// neqjoinsel (`a.x <> b.y`): for semi and anti joins every non-NULL outer row meets some
// different inner value (1 - the outer null fraction); otherwise 1 - eqjoinsel.
double neqjoinsel(const JoinVar& outer, const JoinVar& inner, JoinKind kind, TypeId cmp_type,
                  double inner_rel_rows = -1);

// A join clause comparing with < <= > >= (scalarltjoinsel and its kin), or any other
// operator without a join estimator: PostgreSQL's DEFAULT_INEQ_SEL, 1/3.
inline double ineqjoinsel() {
  return kDefaultIneqSel;
}

// calc_joinrel_size_estimate: the join's rows from its inputs' rows, `jselec` (the
// product of the join's own clauses' selectivities, as computed for `kind`) and
// `pselec` (clauses pushed down onto an outer join from WHERE, applied after it; 1
// when none), through clamp_row_est. Inner: the Cartesian product times jselec; left
// (right) and full: at least every row of the preserved side(s); semi: outer rows
// times jselec; anti: outer rows times 1 - jselec. For kRight `outer_rows` is the
// preserved side, as PostgreSQL swaps a right join into a left one.
double join_rows(JoinKind kind, double outer_rows, double inner_rows, double jselec,
                 double pselec = 1.0);

// mergejoinscansel for a merge clause `left = right` over two columns sorted ascending
// (or descending), NULLs last (or first): how much of each input a merge join skips
// before its first possible match and reads before either side runs out, from each
// column's range (get_variable_range: the histogram's ends and the extreme MCVs) and
// the other column's scalarineqsel at those bounds. Only the smaller end and the larger
// start are believed; NULLs sorted first add their fraction to both; a column without
// statistics gives the defaults (0 and 1). Returned as left = outer, right = inner.
MergeScanFractions mergejoinscansel(const RelationStatsView& left, int left_column,
                                    const RelationStatsView& right, int right_column,
                                    bool descending = false, bool nulls_first = false);

// compute_semi_anti_join_factors from the join clauses' selectivities: `jselec` as the
// SpecialJoinInfo's join type makes it (eqjoinsel_semi's for a semi or anti join; for a
// plain join whose inner side is unique, the inner-join selectivity) and `nselec` as
// an inner join, over the inner relation's `inner_rows`.
SemiAntiFactors semi_anti_join_factors(double jselec, double nselec, double inner_rows);

}  // namespace tp
