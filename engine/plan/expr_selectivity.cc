// The selectivity of typed boolean expressions (Clause::Kind::kExpr), as PostgreSQL 15's
// clause_selectivity and the operators' restriction estimators (eqsel, scalarltsel,
// patternsel, nulltestsel, boolvarsel, scalararraysel) estimate them where the
// expression has no statistics of its own.
#include <algorithm>
#include <cmath>
#include <optional>

#include "engine/core/datetime.h"
#include "engine/core/stack_depth.h"
#include "engine/core/string_types.h"
#include "engine/core/value_arena.h"
#include "engine/plan/pattern_prefix.h"
#include "engine/plan/pseudo_constant.h"
#include "engine/plan/selectivity.h"

namespace tp {
namespace {

// selfuncs.h's pattern constants.
constexpr double kFixedCharSel = 0.20;
constexpr double kAnyCharSel = 0.9;
constexpr double kFullWildcardSel = 5.0;
constexpr double kDefaultMatchSel = 0.005;

// A column under binary-compatible casts (`(v)::text`), which examine_variable sees
// through; null for any other expression.
const TypedExpr* plain_column(const TypedExpr& e) {
  const TypedExpr* x = &e;
  while (x->kind == TypedExpr::Kind::kCall && x->form == TypedExpr::Form::kRelabel) x = &x->args[0];
  return x->kind == TypedExpr::Kind::kColumn ? x : nullptr;
}

const ColumnStats* column_stats(const RelationStatsView& rel, const TypedExpr* col) {
  const ColumnStats* st = col ? rel.columns[col->slot].stats : nullptr;
  return st && st->valid ? st : nullptr;
}

// get_variable_numdistinct for an expression: a column's statistics, two values for a
// boolean, else the table's rows when fewer than 200, else 200.
double numdistinct(const RelationStatsView& rel, const TypedExpr& var) {
  if (const TypedExpr* col = plain_column(var)) {
    bool is_default = false;
    return get_variable_numdistinct(rel, int(col->slot), &is_default);
  }
  if (var.type == TypeId::kBool) return 2.0;
  if (rel.tuples > 0 && rel.tuples < kDefaultNumDistinct) return clamp_row_est(rel.tuples);
  return kDefaultNumDistinct;
}

double null_fraction(const RelationStatsView& rel, const TypedExpr& var) {
  const ColumnStats* st = column_stats(rel, plain_column(var));
  return st ? st->null_frac : 0.0;
}

bool is_integer(TypeId t) {
  return t == TypeId::kInt2 || t == TypeId::kInt4 || t == TypeId::kInt8;
}
bool is_text(TypeId t) {
  return t == TypeId::kText || t == TypeId::kVarchar;
}
// timestamp and timestamp with time zone: the same microseconds (TimeZone is UTC).
bool is_timestamp(TypeId t) {
  return t == TypeId::kTimestamp || t == TypeId::kTimestamptz;
}

// date2timestamp_no_overflow: a date as a timestamp, past timestamp's range its end.
Datum date_as_timestamp(Datum d) {
  const auto date = int32_t(d);
  if (date == kDateNoBegin) return Datum(kTimestampNoBegin);
  if (date == kDateNoEnd || date >= 109203528 - kPostgresEpochJulian) return Datum(kTimestampNoEnd);
  return Datum(date_to_timestamp(date));
}

// A constant of a narrower type of the column's family (real against a double precision
// column, a date against a timestamp one) as the column's type, which PostgreSQL's
// estimators compare it as; any other constant as it is.
std::pair<Datum, TypeId> constant_as_column(const TypedExpr& col, const TypedExpr& constant) {
  const Datum v = constant.value.datum();
  if (col.type == TypeId::kFloat8 && constant.type == TypeId::kFloat4)
    return {float8_datum(double(datum_float4(v))), TypeId::kFloat8};
  if (is_timestamp(col.type) && constant.type == TypeId::kDate)
    return {date_as_timestamp(v), col.type};
  if (is_timestamp(col.type) && is_timestamp(constant.type)) return {v, col.type};
  return {v, constant.type};
}

// A column's statistics read as Datums of another type `as`: the column's own where
// its values already are (integers of any width, text and varchar), widened copies for
// a cross-type comparison PostgreSQL estimates with the column's statistics (real
// against double precision, date against timestamp). valid() is false for any other
// pair, which the caller estimates as an expression without statistics.
class StatsAs {
 public:
  StatsAs(const RelationStatsView& rel, const TypedExpr& col, TypeId as) : view_(rel) {
    const TypeId from = col.type;
    if (from == as || (is_integer(from) && is_integer(as)) || (is_text(from) && is_text(as)) ||
        (is_timestamp(from) && is_timestamp(as))) {
      valid_ = true;
      return;
    }
    const bool widen_float = from == TypeId::kFloat4 && as == TypeId::kFloat8;
    const bool widen_date = from == TypeId::kDate && is_timestamp(as);
    if (!widen_float && !widen_date) return;
    valid_ = true;
    ColumnStatsView& cv = view_.columns[col.slot];
    if (!cv.stats || !cv.stats->valid) return;
    widened_ = *cv.stats;
    const auto widen = [widen_float](Datum d) {
      return widen_float ? float8_datum(double(datum_float4(d))) : date_as_timestamp(d);
    };
    for (Datum& d : widened_.mcv_values) d = widen(d);
    for (Datum& d : widened_.histogram) d = widen(d);
    widened_.min_value = widen(widened_.min_value);
    widened_.max_value = widen(widened_.max_value);
    cv.convert_actual(widen);
    cv.stats = &widened_;
    cv.type = as;
  }
  StatsAs(const StatsAs&) = delete;
  StatsAs& operator=(const StatsAs&) = delete;
  bool valid() const { return valid_; }
  const RelationStatsView& view() const { return view_; }

 private:
  RelationStatsView view_;
  ColumnStats widened_;
  bool valid_ = false;
};

// like_selectivity: the pattern after its fixed prefix.
double like_rest_selectivity(std::string_view rest) {
  double sel = 1.0;
  size_t pos = 0;
  while (pos < rest.size() && (rest[pos] == '%' || rest[pos] == '_')) ++pos;
  for (; pos < rest.size(); ++pos) {
    if (rest[pos] == '%') {
      sel *= kFullWildcardSel;
    } else if (rest[pos] == '_') {
      sel *= kAnyCharSel;
    } else if (rest[pos] == '\\') {
      if (++pos >= rest.size()) break;
      sel *= kFixedCharSel;
    } else {
      sel *= kFixedCharSel;
    }
  }
  return std::min(sel, 1.0);
}

// The pattern operator applied to statistics values, as the executor applies it.
class PatternMatcher {
 public:
  PatternMatcher(const TypedExpr& call, bool negated)
      : call_(call), fn_(negated ? call.negator : call.fn) {
    st_.arena = &arena_;
  }
  bool matches(Datum value) {
    const Datum args[2] = {value, call_.args[1].value.datum()};
    const bool m = fn_(args, call_, st_) != 0;
    arena_.clear();
    return m;
  }

 private:
  const TypedExpr& call_;
  ScalarFn fn_;
  ValueArena arena_;
  EvalState st_;
};

// prefix_selectivity: `var >= prefix AND var < greater(prefix)` by the histogram, at
// least `var = prefix`; DEFAULT_MATCH_SEL without a histogram.
double prefix_selectivity(const RelationStatsView& rel, const TypedExpr* col, TypeId type,
                          const std::string& prefix) {
  const ColumnStats* st = column_stats(rel, col);
  if (!st || st->histogram.size() < 2) return kDefaultMatchSel;
  const int column = int(col->slot);
  const std::string low = make_varlena(prefix);
  double sel = ineq_histogram_selectivity(rel, column, CmpOp::kGe, pointer_datum(low.data()), type);
  if (const std::optional<std::string> greater = greater_string(prefix)) {
    const std::string high = make_varlena(*greater);
    const double top =
        ineq_histogram_selectivity(rel, column, CmpOp::kLt, pointer_datum(high.data()), type);
    sel = top + sel - 1.0;
  }
  return std::max(sel, eq_selectivity(rel, column, pointer_datum(low.data()), false, type));
}

double pattern_selectivity(const RelationStatsView& rel, const TypedExpr& call) {
  const std::string& op = call.name;
  const bool negated = op[0] == '!';
  const bool ci = op.find('*') != std::string::npos;
  const TypedExpr& var = call.args[0];
  const TypedExpr& pat = call.args[1];
  const double fallback = negated ? 1.0 - kDefaultMatchSel : kDefaultMatchSel;
  if (!pat.is_const() || var.is_const()) return fallback;
  if (pat.isnull) return 0.0;
  const TypeId vartype = var.type;
  if (vartype != TypeId::kText && vartype != TypeId::kBpchar) return fallback;
  const TypedExpr* col = plain_column(var);
  const ColumnStats* st = column_stats(rel, col);
  const double nullfrac = st ? st->null_frac : 0.0;
  const std::string_view pattern = varlena_payload(datum_pointer(pat.value.datum()));
  size_t rest_start = 0;
  const LikePrefix prefix = pattern_prefix(pattern, ci, rest_start);
  double result;
  if (prefix.exact) {
    const std::string value = make_varlena(prefix.prefix);
    result = col ? eq_selectivity(rel, int(col->slot), pointer_datum(value.data()), false, vartype)
                 : clamp_probability(1.0 / numdistinct(rel, var));
  } else {
    PatternMatcher match(call, negated);
    // The histogram's inner bounds that match, when there are ten bounds or more.
    const int hist_size = st ? int(st->histogram.size()) : 0;
    double selec = -1;
    if (hist_size >= 10) {
      int nmatch = 0;
      for (int i = 1; i < hist_size - 1; ++i) nmatch += match.matches(st->histogram[i]) ? 1 : 0;
      selec = double(nmatch) / double(hist_size - 2);
    }
    if (hist_size < 100) {
      const double prefixsel =
          prefix.prefix.empty() ? 1.0 : prefix_selectivity(rel, col, vartype, prefix.prefix);
      const double heursel = prefixsel * like_rest_selectivity(pattern.substr(rest_start));
      if (selec < 0) {
        selec = heursel;
      } else {
        const double weight = hist_size / 100.0;
        selec = selec * weight + heursel * (1.0 - weight);
      }
    }
    selec = std::clamp(selec, 0.0001, 0.9999);
    // The MCVs that match count exactly; the estimate covers the rest.
    double mcv_selec = 0, sumcommon = 0;
    if (st) {
      for (size_t i = 0; i < st->mcv_values.size(); ++i) {
        if (match.matches(st->mcv_values[i])) mcv_selec += st->mcv_freqs[i];
        sumcommon += st->mcv_freqs[i];
      }
    }
    result = selec * (1.0 - nullfrac - sumcommon) + mcv_selec;
  }
  return clamp_probability(negated ? 1.0 - result - nullfrac : result);
}

double comparison_selectivity(const RelationStatsView& rel, const TypedExpr& call) {
  // A pseudo-constant side estimates as its value now (estimate_expression_value).
  const TypedExpr l = plan_time_value(call.args[0]).value_or(call.args[0]);
  const TypedExpr r = plan_time_value(call.args[1]).value_or(call.args[1]);
  const bool lc = l.is_const(), rc = r.is_const();
  const std::string& name = call.name;
  if (lc == rc && !lc) {
    // A column against an InitPlan's value ($0): var_eq_non_const, or the inequality's
    // default.
    std::vector<uint32_t> ls, rs;
    expr_slots(l, ls);
    expr_slots(r, rs);
    if (ls.empty() != rs.empty()) {
      const TypedExpr& var = ls.empty() ? r : l;
      if (name == "=" || name == "<>") {
        const double nullfrac = null_fraction(rel, var);
        const double eq = clamp_probability(1.0 / numdistinct(rel, var) * (1.0 - nullfrac));
        return name == "=" ? eq : clamp_probability(1.0 - eq - nullfrac);
      }
      return kDefaultIneqSel;
    }
  }
  if (lc == rc) {
    // Two expressions over columns: the operators' defaults.
    if (name == "=") return kDefaultEqSel;
    if (name == "<>") return 1.0 - kDefaultEqSel;
    return kDefaultIneqSel;
  }
  const TypedExpr& var = lc ? r : l;
  const TypedExpr& constant = lc ? l : r;
  if (constant.isnull) return 0.0;
  const CmpOp op = lc ? commute(*cmp_op_of_name(name)) : *cmp_op_of_name(name);
  if (const TypedExpr* col = plain_column(var)) {
    const auto [value, type] = constant_as_column(*col, constant);
    const StatsAs as(rel, *col, type);
    if (as.valid()) {
      if (op == CmpOp::kEq || op == CmpOp::kNe)
        return eq_selectivity(as.view(), int(col->slot), value, op == CmpOp::kNe, type);
      return ineq_selectivity(as.view(), int(col->slot), op, value, type);
    }
  }
  if (op == CmpOp::kEq || op == CmpOp::kNe) {
    const double nullfrac = null_fraction(rel, var);
    const double eq = clamp_probability(1.0 / numdistinct(rel, var) * (1.0 - nullfrac));
    return op == CmpOp::kEq ? eq : clamp_probability(1.0 - eq - nullfrac);
  }
  return kDefaultIneqSel;
}

// boolvarsel: a boolean column is `column = true`.
double bool_column_selectivity(const RelationStatsView& rel, const TypedExpr& e) {
  const TypedExpr* col = plain_column(e);
  if (!column_stats(rel, col)) return 0.5;
  return eq_selectivity(rel, int(col->slot), Datum(1), false, TypeId::kBool);
}

// booltestsel: IS [NOT] TRUE / FALSE / UNKNOWN from the column's null fraction and its
// first MCV; without statistics from the argument's own selectivity.
double bool_test_selectivity(const RelationStatsView& rel, const TypedExpr& e) {
  const std::string& test = e.name;
  const ColumnStats* st = column_stats(rel, plain_column(e.args[0]));
  double selec;
  if (st) {
    const double freq_null = st->null_frac;
    if (test == "UNKNOWN") {
      selec = freq_null;
    } else if (!st->mcv_freqs.empty()) {
      const double freq_true =
          st->mcv_values[0] != 0 ? st->mcv_freqs[0] : 1.0 - st->mcv_freqs[0] - freq_null;
      selec = test == "TRUE" ? freq_true : 1.0 - freq_true - freq_null;
    } else {
      selec = (1.0 - freq_null) / 2.0;
    }
    if (e.negated) selec = 1.0 - selec;
  } else if (test == "UNKNOWN") {
    selec = e.negated ? 1.0 - kDefaultUnknownSel : kDefaultUnknownSel;
  } else {
    // The argument is taken to be TRUE or FALSE, never NULL.
    const double s = expr_selectivity(rel, e.args[0]);
    selec = (test == "TRUE") != e.negated ? s : 1.0 - s;
  }
  return clamp_probability(selec);
}

// scalararraysel over a constant list: each element's `=` (or `<>`) estimate combined.
double array_op_selectivity(const RelationStatsView& rel, const TypedExpr& e) {
  const bool any = !e.negated;
  const TypedExpr& var = e.args[0];
  const TypedExpr* col = plain_column(var);
  std::optional<StatsAs> as;
  const TypeId element_type = e.args.size() > 1 ? e.args[1].type : var.type;
  if (col) as.emplace(rel, *col, element_type);
  // Each element as estimate_expression_value sees it: pseudo-constants by their value.
  std::vector<std::optional<TypedExpr>> values;
  for (size_t i = 1; i < e.args.size(); ++i) values.push_back(plan_time_value(e.args[i]));
  const bool with_stats =
      as && as->valid() &&
      std::all_of(values.begin(), values.end(),
                  [](const std::optional<TypedExpr>& v) { return v.has_value(); });
  const double eq = clamp_probability(1.0 / numdistinct(rel, var));
  return clamp_probability(array_selectivity(any, e.args.size() - 1, [&](size_t i) {
    if (!values[i]) {
      // An element that reads the row is eqsel's default; one that reads none but has
      // no value at plan time (random()) var_eq_non_const's 1 / ndistinct.
      std::vector<uint32_t> slots;
      expr_slots(e.args[i + 1], slots);
      const double s = slots.empty() ? eq : kDefaultEqSel;
      return any ? s : 1.0 - s;
    }
    const TypedExpr& element = *values[i];
    if (element.isnull) return 0.0;  // a NULL element never matches (strict `=` / `<>`)
    if (with_stats)
      return eq_selectivity(as->view(), int(col->slot), element.value.datum(), !any, element_type);
    return any ? eq : 1.0 - eq;
  }));
}

}  // namespace

double expr_selectivity(const RelationStatsView& rel, const TypedExpr& e) {
  check_stack_depth();
  switch (e.kind) {
    case TypedExpr::Kind::kConst:
      return !e.isnull && e.value.datum() != 0 ? 1.0 : 0.0;
    case TypedExpr::Kind::kAnd: {
      // clauselist_selectivity over the arms: `x >= a AND x <= b` (a BETWEEN inside an
      // OR) is one range, not two independent bounds.
      std::vector<Clause> arms;
      for (const TypedExpr& a : e.args) arms.push_back(Clause::expression(a));
      return clauselist_selectivity(rel, arms);
    }
    case TypedExpr::Kind::kOr: {
      double s1 = 0.0;
      for (const TypedExpr& a : e.args) {
        const double s2 = expr_selectivity(rel, a);
        s1 = s1 + s2 - s1 * s2;
      }
      return s1;
    }
    case TypedExpr::Kind::kNot:
      return 1.0 - expr_selectivity(rel, e.args[0]);
    case TypedExpr::Kind::kIsNull: {
      const TypedExpr* col = plain_column(e.args[0]);
      if (col) return null_test_selectivity(rel, int(col->slot), e.negated);
      return e.negated ? 1.0 - kDefaultUnknownSel : kDefaultUnknownSel;
    }
    case TypedExpr::Kind::kColumn:
      return bool_column_selectivity(rel, e);
    case TypedExpr::Kind::kBoolTest:
      return bool_test_selectivity(rel, e);
    case TypedExpr::Kind::kCall:
      if (cmp_op_of_name(e.name)) return comparison_selectivity(rel, e);
      if (e.name.find("~~") != std::string::npos) return pattern_selectivity(rel, e);
      return 0.3333333;
    case TypedExpr::Kind::kAnyArray:
      return array_op_selectivity(rel, e);
    default:
      return 0.5;
  }
}

}  // namespace tp
