// After PostgreSQL 15: var_eq_const, scalarineqsel, ineq_histogram_selectivity,
// mcv_selectivity, scalararraysel, nulltestsel, get_variable_numdistinct
// (selfuncs.c) and clauselist_selectivity with its range-pair logic
// (clausesel.c). Statistics fractions are float4, as in pg_statistic.
#include "engine/plan/selectivity.h"

#include <algorithm>
#include <cmath>

#include "engine/core/datum_ops.h"
#include "engine/core/error.h"
#include "engine/plan/convert_to_scalar.h"
#include "engine/plan/pseudo_constant.h"

namespace tp {

namespace {

// `a` against `b` in the order of type `t` (integers as integers).
int compare_values(TypeId t, Datum a, Datum b) {
  if (datum_is_integral(t)) return a < b ? -1 : (a > b ? 1 : 0);
  return compare_datums(t, a, b);
}

// Whether `a op b` holds, given compare_values(a, b).
bool op_holds(CmpOp op, int cmp) {
  switch (op) {
    case CmpOp::kEq:
      return cmp == 0;
    case CmpOp::kNe:
      return cmp != 0;
    case CmpOp::kLt:
      return cmp < 0;
    case CmpOp::kLe:
      return cmp <= 0;
    case CmpOp::kGt:
      return cmp > 0;
    case CmpOp::kGe:
      return cmp >= 0;
  }
  return false;
}

const ColumnStats* stats_of(const RelationStatsView& rel, int column) {
  TP_ASSERT(column >= 0 && column < static_cast<int>(rel.columns.size()));
  const ColumnStats* s = rel.columns[column].stats;
  return s != nullptr && s->valid ? s : nullptr;
}

// The binary search of ineq_histogram_selectivity over the histogram bounds `values`:
// the leftmost bound where the operator succeeds (isgt) or fails (!isgt), i.e. the right
// end of the bin holding the constant. Endpoints may be replaced by the index's actual
// min / max when the search touches them (PostgreSQL refreshes only what it probes);
// `have_end` is set when one was.
int histogram_bound(const ColumnStatsView& view, std::vector<Datum>& values, TypeId type, CmpOp op,
                    Datum constval, bool& have_end) {
  const int nvalues = static_cast<int>(values.size());
  const bool isgt = op == CmpOp::kGt || op == CmpOp::kGe;
  // The index's extremes, read only once a probe reaches an endpoint.
  auto actual = [&]() -> const ActualRange* {
    const ActualRange& r = view.actual();
    return r.min && r.max ? &r : nullptr;
  };
  if (nvalues == 2)
    if (const ActualRange* r = actual()) {
      values[0] = *r->min;
      values[1] = *r->max;
      have_end = true;
    }
  int lobound = 0;
  int hibound = nvalues;
  while (lobound < hibound) {
    const int probe = (lobound + hibound) / 2;
    if (nvalues > 2 && (probe == 0 || probe == nvalues - 1))
      if (const ActualRange* r = actual()) {
        values[probe] = probe == 0 ? *r->min : *r->max;
        have_end = true;
      }
    bool ltcmp = op_holds(op, compare_values(type, values[probe], constval));
    if (isgt) ltcmp = !ltcmp;
    if (ltcmp) {
      lobound = probe + 1;
    } else {
      hibound = probe;
    }
  }
  return lobound;
}

// The fraction of the histogram's population with "x <= const" (x < const for < and
// >=), given the bound `i` histogram_bound found: values[i-1] <= constant <= values[i].
double histogram_fraction(const RelationStatsView& rel, int column, const ColumnStats& st,
                          const std::vector<Datum>& values, TypeId type, int i, CmpOp op,
                          Datum constval) {
  const int nvalues = static_cast<int>(values.size());
  if (i <= 0) return 0.0;  // below the histogram: nothing satisfies "x <= const"
  if (i >= nvalues) return 1.0;
  const bool isgt = op == CmpOp::kGt || op == CmpOp::kGe;
  const bool iseq = op == CmpOp::kLe || op == CmpOp::kGe;
  double eq_selec = 0;
  if (i == 1 || isgt == iseq) {
    // Selectivity of "x = const" for a non-MCV value, before scaling by the
    // non-MCV fraction (the caller does that).
    bool isdefault;
    double otherdistinct = get_variable_numdistinct(rel, column, &isdefault);
    otherdistinct -= static_cast<double>(st.mcv_freqs.size());
    if (otherdistinct > 1) eq_selec = 1.0 / otherdistinct;
  }
  double val, low, high, binfrac;
  if (!convert_to_scalar(type, constval, values[i - 1], values[i], val, low, high)) {
    binfrac = 0.5;  // no scale for the type: the bucket's middle
  } else if (high <= low) {
    binfrac = 0.5;
  } else if (val <= low) {
    binfrac = 0.0;
  } else if (val >= high) {
    binfrac = 1.0;
  } else {
    binfrac = (val - low) / (high - low);
    if (std::isnan(binfrac) || binfrac < 0.0 || binfrac > 1.0) binfrac = 0.5;
  }
  // i-1 whole bins plus part of bin i: the fraction with "x <= const".
  double histfrac = static_cast<double>(i - 1) + binfrac;
  histfrac /= static_cast<double>(nvalues - 1);
  // The first bound is the smallest value of its bucket, so the first bin is
  // narrower by one value's share.
  if (i == 1) histfrac += eq_selec * (1.0 - binfrac);
  // "x < const" and "x >= const" exclude / include the constant itself.
  if (isgt == iseq) histfrac -= eq_selec;
  return histfrac;
}

// The histogram probe of ineq_histogram_selectivity: fraction of the
// histogram's population satisfying `column op value`, or -1 without a usable
// histogram. `op` is one of < <= > >=.
double histogram_selectivity(const RelationStatsView& rel, int column, const ColumnStats& st,
                             TypeId type, CmpOp op, Datum constval) {
  const int nvalues = static_cast<int>(st.histogram.size());
  if (nvalues <= 1) return -1.0;
  const bool isgt = op == CmpOp::kGt || op == CmpOp::kGe;
  std::vector<Datum> values = st.histogram;
  bool have_end = false;
  const int i = histogram_bound(rel.columns[column], values, type, op, constval, have_end);
  const double histfrac = histogram_fraction(rel, column, st, values, type, i, op, constval);
  double hist_selec = isgt ? (1.0 - histfrac) : histfrac;
  if (have_end) {
    hist_selec = clamp_probability(hist_selec);
  } else {
    // Histograms are approximate and may be stale: never trust less than a
    // hundredth of a bin at either end.
    const double cutoff = 0.01 / static_cast<double>(nvalues - 1);
    if (hist_selec < cutoff) {
      hist_selec = cutoff;
    } else if (hist_selec > 1.0 - cutoff) {
      hist_selec = 1.0 - cutoff;
    }
  }
  return hist_selec;
}

// One entry of clauselist_selectivity's range-pair list.
struct RangePair {
  int column;
  bool numeric;          // on (column)::numeric, another expression than the column
  std::string expr;      // a typed qual's expression side, as printed ("" for the others)
  int null_column = -1;  // the column whose NULLs the pair adds back (-1: none known)
  bool have_lo = false, have_hi = false;
  double lo = 0, hi = 0;
};

// A clause addRangeClause pairs: `x < c`, `x >= c`, `c > x`, ... for an integer column,
// its (x)::numeric, or a typed expression; nullopt for the others.
std::optional<RangePair> range_bound(const Clause& clause, bool& is_lobound) {
  // An index key over an InitPlan's or a subquery's outer value (`k < $1`) keeps its
  // expression: a Param is a pseudo-constant to PostgreSQL, so the clause pairs.
  if (clause.kind == Clause::Kind::kExpr || (clause.param && clause.expr)) {
    const TypedExpr& e = *clause.expr;
    if (e.kind != TypedExpr::Kind::kCall || e.form != TypedExpr::Form::kInfix ||
        e.args.size() != 2 || is_pseudo_constant(e.args[0]) == is_pseudo_constant(e.args[1]))
      return std::nullopt;
    const bool lt = e.name == "<" || e.name == "<=", gt = e.name == ">" || e.name == ">=";
    if (!lt && !gt) return std::nullopt;
    const bool var_left = !is_pseudo_constant(e.args[0]);
    is_lobound = var_left ? gt : lt;
    const TypedExpr* var = &e.args[var_left ? 0 : 1];
    // A plain column pairs with the integer clauses on it (`(a < 5) = false AND a < 8`).
    if (var->kind == TypedExpr::Kind::kColumn)
      return RangePair{int(var->slot), false, "", int(var->slot)};
    RangePair pair{-1, false, deparse(*var)};
    // A column under relabeling casts has its own null fraction.
    while (var->kind == TypedExpr::Kind::kCall && var->form == TypedExpr::Form::kRelabel)
      var = &var->args[0];
    if (var->kind == TypedExpr::Kind::kColumn) pair.null_column = int(var->slot);
    return pair;
  }
  // A join clause (`d <= $1`, the outer row's value) bounds no range: PostgreSQL pairs
  // only clauses of one relation.
  if (clause.param) return std::nullopt;
  const bool numeric = clause.numeric.has_value();
  const CmpOp op = numeric ? clause.numeric->op : clause.op;
  const bool comparison = numeric ? !clause.numeric->array : clause.kind == Clause::Kind::kCompare;
  if (!comparison || op == CmpOp::kEq || op == CmpOp::kNe) return std::nullopt;
  // "x < c" and "x <= c" bound from above, "x > c" and "x >= c" from below.
  is_lobound = op == CmpOp::kGt || op == CmpOp::kGe;
  return RangePair{clause.column, numeric, "", numeric ? -1 : clause.column};
}

bool is_range_op(CmpOp op) {
  return op != CmpOp::kEq && op != CmpOp::kNe;
}

}  // namespace

double get_variable_numdistinct(const RelationStatsView& rel, int column, bool* is_default) {
  *is_default = false;
  const ColumnStats* st = stats_of(rel, column);
  // Without statistics a boolean presumably holds two values.
  double stadistinct =
      st ? st->n_distinct : (rel.columns[column].type == TypeId::kBool ? 2.0 : 0.0);
  const double stanullfrac = st ? st->null_frac : 0.0;
  // A unique index proves uniqueness whatever the statistics say; NULLs still count.
  if (rel.columns[column].unique) stadistinct = -1.0 * (1.0 - stanullfrac);
  if (stadistinct > 0.0) return clamp_row_est(stadistinct);
  const double ntuples = rel.tuples;
  if (ntuples <= 0.0) {
    *is_default = true;
    return kDefaultNumDistinct;
  }
  if (stadistinct < 0.0) return clamp_row_est(-stadistinct * ntuples);
  // Unknown: a small table has about as many values as rows.
  if (ntuples < kDefaultNumDistinct) return clamp_row_est(ntuples);
  *is_default = true;
  return kDefaultNumDistinct;
}

double eq_selectivity(const RelationStatsView& rel, int column, const StatsValue& value,
                      bool negate_result, TypeId type) {
  if (!value) return 0.0;  // strict operator: NULL never matches, even for <>
  const ColumnStats* st = stats_of(rel, column);
  const double nullfrac = st ? st->null_frac : 0.0;
  double selec;
  if (rel.columns[column].unique && rel.tuples >= 1.0) {
    selec = 1.0 / rel.tuples;
  } else if (st) {
    size_t i = 0;
    bool match = false;
    for (; i < st->mcv_values.size(); ++i) {
      if (compare_values(type, st->mcv_values[i], *value) == 0) {
        match = true;
        break;
      }
    }
    if (match) {
      selec = st->mcv_freqs[i];
    } else {
      // Not an MCV: the non-MCV, non-NULL rows shared evenly among the other
      // distinct values, but never more than the rarest MCV.
      double sumcommon = 0.0;
      for (float f : st->mcv_freqs) sumcommon += f;
      selec = 1.0 - sumcommon - nullfrac;
      selec = clamp_probability(selec);
      bool isdefault;
      const double otherdistinct = get_variable_numdistinct(rel, column, &isdefault) -
                                   static_cast<double>(st->mcv_freqs.size());
      if (otherdistinct > 1) selec /= otherdistinct;
      if (!st->mcv_freqs.empty() && selec > st->mcv_freqs.back()) selec = st->mcv_freqs.back();
    }
  } else {
    bool isdefault;
    selec = 1.0 / get_variable_numdistinct(rel, column, &isdefault);
  }
  if (negate_result) selec = 1.0 - selec - nullfrac;
  return clamp_probability(selec);
}

double ineq_selectivity(const RelationStatsView& rel, int column, CmpOp op, const StatsValue& value,
                        TypeId type) {
  TP_ASSERT(is_range_op(op));
  if (!value) return 0.0;
  const ColumnStats* st = stats_of(rel, column);
  if (!st) return kDefaultIneqSel;
  // MCVs that satisfy the operator count directly.
  double mcv_selec = 0.0;
  double sumcommon = 0.0;
  for (size_t i = 0; i < st->mcv_values.size(); ++i) {
    if (op_holds(op, compare_values(type, st->mcv_values[i], *value)))
      mcv_selec += st->mcv_freqs[i];
    sumcommon += st->mcv_freqs[i];
  }
  const double hist_selec = histogram_selectivity(rel, column, *st, type, op, *value);
  // The histogram describes only the non-NULL, non-MCV rows.
  double selec = 1.0 - st->null_frac - sumcommon;
  if (hist_selec >= 0.0) {
    selec *= hist_selec;
  } else {
    selec *= 0.5;  // no histogram: assume half of the rest matches
  }
  selec += mcv_selec;
  return clamp_probability(selec);
}

double ineq_histogram_selectivity(const RelationStatsView& rel, int column, CmpOp op, Datum value,
                                  TypeId type) {
  const ColumnStats* st = stats_of(rel, column);
  return st ? histogram_selectivity(rel, column, *st, type, op, value) : -1.0;
}

double in_list_selectivity(const RelationStatsView& rel, int column,
                           std::span<const StatsValue> list, bool negated) {
  return clamp_probability(array_selectivity(!negated, list.size(), [&](size_t i) {
    return eq_selectivity(rel, column, list[i], negated);
  }));
}

double null_test_selectivity(const RelationStatsView& rel, int column, bool is_not_null) {
  const ColumnStats* st = stats_of(rel, column);
  double selec;
  if (st) {
    selec = is_not_null ? 1.0 - st->null_frac : st->null_frac;
  } else {
    selec = is_not_null ? 1.0 - kDefaultUnknownSel : kDefaultUnknownSel;
  }
  return clamp_probability(selec);
}

// A comparison of (col)::numeric, an expression without statistics: selfuncs.c's
// defaults. `=` is 1 / ndistinct (the table's rows if under 200, else 200), `<>` its
// complement, an inequality DEFAULT_INEQ_SEL; an array sums its elements' `=` (or
// subtracts their `<>` complements) while that stays a probability, as scalararraysel.
double numeric_selectivity(const RelationStatsView& rel, const Clause& clause) {
  const NumericCompare& n = *clause.numeric;
  const double nd = rel.tuples > 0 && rel.tuples < kDefaultNumDistinct ? clamp_row_est(rel.tuples)
                                                                       : kDefaultNumDistinct;
  const double eq = 1.0 / nd;
  if (!n.array) {
    if (n.op == CmpOp::kEq) return eq;
    if (n.op == CmpOp::kNe) return 1.0 - eq;
    return kDefaultIneqSel;
  }
  const bool any = n.op == CmpOp::kEq;
  return clamp_probability(
      array_selectivity(any, n.elements, [&](size_t) { return any ? eq : 1.0 - eq; }));
}

double var_eq_non_const(const RelationStatsView& rel, int column) {
  const ColumnStats* st = stats_of(rel, column);
  if (rel.columns[size_t(column)].unique && rel.tuples >= 1.0) return 1.0 / rel.tuples;
  bool is_default = false;
  const double ndistinct = get_variable_numdistinct(rel, column, &is_default);
  if (!st) return clamp_probability(1.0 / ndistinct);
  double selec = 1.0 - st->null_frac;
  if (ndistinct > 1) selec /= ndistinct;
  // Never more than the most common value's share.
  if (!st->mcv_freqs.empty() && selec > st->mcv_freqs[0]) selec = st->mcv_freqs[0];
  return clamp_probability(selec);
}

double clause_selectivity(const RelationStatsView& rel, const Clause& clause) {
  if (clause.numeric) return numeric_selectivity(rel, clause);
  // A join clause's other side is no constant here (scalarineqsel's default for `<`).
  if (clause.param) {
    // `= ANY (ARRAY[$1, $2])`: scalararraysel sums an equality's elements (distinct
    // values match disjoint rows).
    if (!clause.param_array.empty())
      return clamp_probability(double(clause.array_elements) *
                               var_eq_non_const(rel, clause.column));
    if (clause.op == CmpOp::kEq) return var_eq_non_const(rel, clause.column);
    return clause.op == CmpOp::kNe ? 1.0 - var_eq_non_const(rel, clause.column) : kDefaultIneqSel;
  }
  switch (clause.kind) {
    case Clause::Kind::kCompare:
      if (clause.op == CmpOp::kEq || clause.op == CmpOp::kNe) {
        return eq_selectivity(rel, clause.column, clause.value, clause.op == CmpOp::kNe);
      }
      return ineq_selectivity(rel, clause.column, clause.op, clause.value);
    case Clause::Kind::kBetween:
    case Clause::Kind::kNot:
      return clause_selectivity(rel, normalize(clause));
    case Clause::Kind::kIn:
      return in_list_selectivity(rel, clause.column, clause.list, clause.negated);
    case Clause::Kind::kIsNull:
      return null_test_selectivity(rel, clause.column, clause.negated);
    case Clause::Kind::kBool:
      return clause.value.value_or(0) != 0 ? 1.0 : 0.0;
    case Clause::Kind::kExpr:
      return expr_selectivity(rel, *clause.expr);
    case Clause::Kind::kAnd:
      return clauselist_selectivity(rel, clause.args);
    case Clause::Kind::kOr: {
      double s1 = 0.0;
      for (const Clause& a : clause.args) {
        const double s2 = clause_selectivity(rel, a);
        s1 = s1 + s2 - s1 * s2;
      }
      return s1;
    }
  }
  TP_ASSERT(false);
  return 1.0;
}

double clauselist_selectivity(const RelationStatsView& rel, std::span<const Clause> clauses) {
  // A BETWEEN, a NOT or a nested AND in an implicitly ANDed list is what
  // PostgreSQL flattens before estimating: splice it in, then estimate.
  const bool needs_flattening = std::any_of(clauses.begin(), clauses.end(), [](const Clause& c) {
    return c.kind == Clause::Kind::kBetween || c.kind == Clause::Kind::kNot ||
           c.kind == Clause::Kind::kAnd;
  });
  if (needs_flattening) {
    std::vector<Clause> flat;
    for (const Clause& c : clauses) {
      Clause n = normalize(c);
      if (n.kind == Clause::Kind::kAnd) {
        for (Clause& a : n.args) flat.push_back(std::move(a));
      } else {
        flat.push_back(std::move(n));
      }
    }
    return clauselist_selectivity(rel, flat);
  }
  if (clauses.size() == 1) return clause_selectivity(rel, clauses[0]);
  double s1 = 1.0;
  // PostgreSQL prepends new pairs to its list; keep that order so products
  // round the same way.
  std::vector<RangePair> pairs;
  for (const Clause& clause : clauses) {
    const double s2 = clause_selectivity(rel, clause);
    bool is_lobound = false;
    if (std::optional<RangePair> bound = range_bound(clause, is_lobound)) {
      auto it = std::find_if(pairs.begin(), pairs.end(), [&](const RangePair& p) {
        return p.column == bound->column && p.numeric == bound->numeric && p.expr == bound->expr;
      });
      if (it == pairs.end()) {
        RangePair p = std::move(*bound);
        (is_lobound ? p.have_lo : p.have_hi) = true;
        (is_lobound ? p.lo : p.hi) = s2;
        pairs.insert(pairs.begin(), std::move(p));
      } else if (is_lobound) {
        // Two bounds on the same side: keep the more restrictive.
        if (!it->have_lo || it->lo > s2) it->lo = s2;
        it->have_lo = true;
      } else {
        if (!it->have_hi || it->hi > s2) it->hi = s2;
        it->have_hi = true;
      }
      continue;
    }
    s1 = s1 * s2;
  }
  for (const RangePair& p : pairs) {
    if (p.have_lo && p.have_hi) {
      double s2;
      if (p.hi == kDefaultIneqSel || p.lo == kDefaultIneqSel) {
        s2 = kDefaultRangeIneqSel;  // a side used the default: no real information
      } else {
        s2 = p.hi + p.lo - 1.0;
        // Both sides excluded the NULLs: add them back once.
        s2 += p.null_column >= 0 ? null_test_selectivity(rel, p.null_column, false)
                                 : kDefaultUnknownSel;
        if (s2 <= 0.0) {
          // Slightly negative is roundoff in a very tight range; very
          // negative means a default estimate slipped through.
          s2 = s2 < -0.01 ? kDefaultRangeIneqSel : 1.0e-10;
        }
      }
      s1 *= s2;
    } else {
      s1 *= p.have_lo ? p.lo : p.hi;
    }
  }
  return s1;
}

namespace {

void add_qual_cost(const CostSettings& cs, const Clause& e, QualCost* qc) {
  constexpr size_t kMinHashedInList = 9;  // MIN_ARRAY_SIZE_FOR_HASHED_SAOP
  if (e.numeric) {
    qc->per_tuple += cs.cpu_operator_cost;  // the cast (col)::numeric, once a row
    const double n = static_cast<double>(e.numeric->elements);
    if (!e.numeric->array) {
      qc->per_tuple += cs.cpu_operator_cost;
    } else if (e.numeric->elements >= kMinHashedInList) {
      qc->startup += n * cs.cpu_operator_cost;
      qc->per_tuple += cs.cpu_operator_cost + cs.cpu_operator_cost;
    } else {
      qc->per_tuple += cs.cpu_operator_cost * n * 0.5;
    }
    return;
  }
  switch (e.kind) {
    case Clause::Kind::kCompare:
      // A subquery's `column = f(outer values)` keeps its typed form: f's calls count.
      qc->per_tuple += (e.param && e.expr ? expr_cost_units(*e.expr) : 1.0) * cs.cpu_operator_cost;
      return;
    case Clause::Kind::kBetween:
    case Clause::Kind::kNot:
      add_qual_cost(cs, normalize(e), qc);
      return;
    case Clause::Kind::kIn: {
      const double n = static_cast<double>(e.list.size());
      if (e.list.size() >= kMinHashedInList) {
        // Hash the list once, then one hash and one comparison per tuple.
        qc->startup += n * cs.cpu_operator_cost;
        qc->per_tuple += cs.cpu_operator_cost + cs.cpu_operator_cost;
      } else {
        // A linear search stops, on average, halfway.
        qc->per_tuple += cs.cpu_operator_cost * n * 0.5;
      }
      return;
    }
    case Clause::Kind::kIsNull:
    case Clause::Kind::kBool:
      return;
    case Clause::Kind::kExpr:
      qc->per_tuple += expr_cost_units(*e.expr) * cs.cpu_operator_cost;
      subplan_costs(*e.expr, qc->startup, qc->per_tuple);
      return;
    case Clause::Kind::kAnd:
    case Clause::Kind::kOr:
      for (const Clause& a : e.args) add_qual_cost(cs, a, qc);
      return;
  }
}

}  // namespace

QualCost qual_cost(const CostSettings& cs, std::span<const Clause> clauses) {
  QualCost qc;
  for (const Clause& c : clauses) add_qual_cost(cs, c, &qc);
  return qc;
}

std::vector<Clause> order_qual_clauses(const CostSettings& cs, std::vector<Clause> clauses) {
  std::stable_sort(clauses.begin(), clauses.end(), [&](const Clause& a, const Clause& b) {
    return qual_cost(cs, std::span(&a, 1)).per_tuple < qual_cost(cs, std::span(&b, 1)).per_tuple;
  });
  return clauses;
}

}  // namespace tp
