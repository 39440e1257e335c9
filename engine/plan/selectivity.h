// Clause selectivity as PostgreSQL 15 estimates it (selfuncs.c, clausesel.c)
// over tidepool's ANALYZE statistics: integer restrictions (tp::Clause) and typed ones
// (expr_selectivity), a column of any type read by its type's order and scalar scale.
//
//   // WHERE a BETWEEN 1000 AND 5000 AND c = 7
//   std::vector<Clause> where = {Clause::between(0, 1000, 5000), Clause::cmp(2, CmpOp::kEq, 7)};
//   RelationStatsView rel{.tuples = 1e6, .columns = {{&stats.columns[0]}, ..}};
//   double sel = clauselist_selectivity(rel, where);   // 0.004017 * 0.0101
//   double rows = clamp_row_est(sel * rel.tuples);
//   QualCost qc = qual_cost(settings, where);            // 3 operators: 0.0075
//
// The clauses are tp::Clause (engine/core/clause.h), the form the executor compiles
// too. normalize() does what PostgreSQL's parser and eval_const_expressions do before
// estimation (BETWEEN becomes two comparisons, NOT is pushed into the operators), so
// the numbers match PostgreSQL's for the same statistics.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/core/clause.h"
#include "engine/plan/cost_model.h"
#include "engine/plan/statistics.h"

namespace tp {

// A column's current smallest and largest values, read from an index on it
// (PostgreSQL's get_actual_variable_range): Datums of the column's type; by-reference
// ones point into `bytes`.
struct ActualRange {
  std::optional<Datum> min;
  std::optional<Datum> max;
  std::shared_ptr<const std::string> bytes;
};

// What the estimator knows about one column.
struct ColumnStatsView {
  const ColumnStats* stats = nullptr;  // nullptr or !valid: never analyzed
  bool unique = false;                 // a unique index covers exactly this column
  TypeId type = TypeId::kInt8;         // the column's type (a boolean has two values)

  // The range refines histogram endpoints. Reading it descends an index at both ends, so
  // it is read the first time an estimate needs it (as PostgreSQL reads it only where a
  // histogram search reaches an endpoint), once for every copy of this view.
  const ActualRange& actual() const {
    if (!actual_) actual_ = std::make_shared<LazyRange>();
    return actual_->get();
  }
  void read_actual_with(std::function<ActualRange()> read) {
    actual_ = std::make_shared<LazyRange>();
    actual_->read = std::move(read);
  }
  // This view's range from now on is the range converted value by value (to the type it
  // is compared as), still read when first needed; the copies made before keep theirs.
  void convert_actual(std::function<Datum(Datum)> convert) {
    std::shared_ptr<LazyRange> before = actual_;
    read_actual_with([before, convert = std::move(convert)] {
      ActualRange r = before ? before->get() : ActualRange{};
      if (r.min) r.min = convert(*r.min);
      if (r.max) r.max = convert(*r.max);
      return r;
    });
  }

 private:
  struct LazyRange {
    std::function<ActualRange()> read;
    std::optional<ActualRange> range;
    const ActualRange& get() {
      if (!range) range = read ? read() : ActualRange{};
      return *range;
    }
  };
  mutable std::shared_ptr<LazyRange> actual_;
};

struct RelationStatsView {
  double tuples = 0;  // reltuples
  std::vector<ColumnStatsView> columns;
};

// PostgreSQL's selectivity constants (selfuncs.h).
inline constexpr double kDefaultEqSel = 0.005;
inline constexpr double kDefaultIneqSel = 0.3333333333333333;
inline constexpr double kDefaultRangeIneqSel = 0.005;
inline constexpr double kDefaultNumDistinct = 200;
inline constexpr double kDefaultUnknownSel = 0.005;  // IS NULL without statistics

// CLAMP_PROBABILITY: a selectivity kept within [0, 1].
inline double clamp_probability(double p) {
  return p < 0.0 ? 0.0 : (p > 1.0 ? 1.0 : p);
}

// Selectivity of one (normalized or not) clause.
double clause_selectivity(const RelationStatsView& rel, const Clause& clause);

// Selectivity of implicitly ANDed clauses: independent clauses multiply, but
// `col > x` / `col < y` pairs on one column are estimated together as
// hi + lo - 1 (+ null fraction), falling back to 0.005 when either side used
// the default 1/3.
double clauselist_selectivity(const RelationStatsView& rel, std::span<const Clause> clauses);

// The pieces, exposed for tests and for the planner's own use.
double get_variable_numdistinct(const RelationStatsView& rel, int column, bool* is_default);
// `column = value` for a value unknown at plan time (a join's outer column, a parameter):
// 1 / ndistinct of the non-NULL rows, at most the most common value's frequency; 1 / rows
// for a unique column.
double var_eq_non_const(const RelationStatsView& rel, int column);
// `column = value` (`<>` when negated) and `column op value` for < <= > >=: `value` is a
// Datum of the column's type `type` (an integer clause's constant: a bigint).
double eq_selectivity(const RelationStatsView& rel, int column, const StatsValue& value,
                      bool negate, TypeId type = TypeId::kInt8);
double ineq_selectivity(const RelationStatsView& rel, int column, CmpOp op, const StatsValue& value,
                        TypeId type = TypeId::kInt8);
// ineq_histogram_selectivity: the fraction of the histogram's population (the non-NULL,
// non-MCV rows) with `column op value` (< <= > >=); -1 without a histogram.
double ineq_histogram_selectivity(const RelationStatsView& rel, int column, CmpOp op, Datum value,
                                  TypeId type);
double in_list_selectivity(const RelationStatsView& rel, int column,
                           std::span<const StatsValue> list, bool negated);
double null_test_selectivity(const RelationStatsView& rel, int column, bool is_not_null);

// scalararraysel's combination of an array's element selectivities: "= ANY" (use_or)
// assumes distinct elements, so their probabilities add; "<> ALL" multiplies; both fall
// back to independent events when the disjoint estimate leaves [0, 1].
template <typename ElementSelectivity>
double array_selectivity(bool use_or, size_t n, ElementSelectivity element) {
  double s1 = use_or ? 0.0 : 1.0;
  double s1disjoint = s1;
  for (size_t i = 0; i < n; ++i) {
    const double s2 = element(i);
    if (use_or) {
      s1 = s1 + s2 - s1 * s2;
      s1disjoint += s2;
    } else {
      s1 = s1 * s2;
      s1disjoint += s2 - 1.0;
    }
  }
  return s1disjoint >= 0.0 && s1disjoint <= 1.0 ? s1disjoint : s1;
}

// A typed boolean expression's selectivity (engine/core/typed_expr.h), as
// clause_selectivity walks PostgreSQL's expression nodes: comparisons and LIKE of an
// expression with a constant by their operators' estimators (without statistics on
// the expression: eqsel's 1 / ndistinct, DEFAULT_INEQ_SEL, patternsel's prefix and
// rest), IS NULL, boolean columns, AND / OR / NOT, and boolvarsel's defaults.
double expr_selectivity(const RelationStatsView& rel, const TypedExpr& e);

// Per-tuple evaluation cost of restriction clauses: cpu_operator_cost per
// comparison; IN lists cost half their length (linear search), or, from 9
// elements on, one hash and one comparison per tuple plus hashing the list at
// startup. AND / OR / NOT and IS NULL are free.
QualCost qual_cost(const CostSettings& cs, std::span<const Clause> clauses);
// PostgreSQL's order_qual_clauses: a scan's Filter cheapest first (stable on ties).
std::vector<Clause> order_qual_clauses(const CostSettings& cs, std::vector<Clause> clauses);

}  // namespace tp
