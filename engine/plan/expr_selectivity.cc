// The selectivity of typed boolean expressions (Clause::Kind::kExpr), as PostgreSQL 15's
// clause_selectivity and the operators' restriction estimators (eqsel, scalarltsel,
// patternsel, nulltestsel, boolvarsel, scalararraysel) estimate them where the
// expression has no statistics of its own.
#include <cmath>

#include "engine/core/stack_depth.h"
#include "engine/core/string_types.h"
#include "engine/plan/selectivity.h"

namespace tp {
namespace {

// selfuncs.h's pattern constants.
constexpr double kFixedCharSel = 0.20;
constexpr double kAnyCharSel = 0.9;
constexpr double kFullWildcardSel = 5.0;

// A column under binary-compatible casts (`(v)::text`), which examine_variable sees
// through; null for any other expression.
const TypedExpr* plain_column(const TypedExpr& e) {
  const TypedExpr* x = &e;
  while (x->kind == TypedExpr::Kind::kCall && x->form == TypedExpr::Form::kRelabel) x = &x->args[0];
  return x->kind == TypedExpr::Kind::kColumn ? x : nullptr;
}

// get_variable_numdistinct for an expression: a column's statistics, two values for a
// boolean, else the table's rows when fewer than 200, else 200.
double numdistinct(const RelationStatsView& rel, const TypedExpr& var) {
  if (const TypedExpr* col = plain_column(var)) {
    const ColumnStatsView& cv = rel.columns[col->slot];
    if ((!cv.stats || cv.stats->n_distinct == 0) && col->type == TypeId::kBool && !cv.unique)
      return 2.0;
    bool is_default = false;
    return get_variable_numdistinct(rel, int(col->slot), &is_default);
  }
  if (var.type == TypeId::kBool) return 2.0;
  if (rel.tuples > 0 && rel.tuples < kDefaultNumDistinct) return clamp_row_est(rel.tuples);
  return kDefaultNumDistinct;
}

double null_fraction(const RelationStatsView& rel, const TypedExpr& var) {
  const TypedExpr* col = plain_column(var);
  const ColumnStats* st = col ? rel.columns[col->slot].stats : nullptr;
  return st ? st->null_frac : 0.0;
}

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

// The fixed prefix of a LIKE (ILIKE: up to the first letter, whose case is open) and
// the pattern's rest.
LikePrefix pattern_prefix(std::string_view pattern, bool case_insensitive, size_t& rest_start) {
  LikePrefix p = like_fixed_prefix(pattern);
  size_t consumed = 0, kept = 0;
  // Walk the pattern to find where the prefix ends in it (escapes take two bytes).
  while (kept < p.prefix.size() && consumed < pattern.size()) {
    if (case_insensitive && std::isalpha(uint8_t(p.prefix[kept]))) break;
    if (pattern[consumed] == '\\') ++consumed;
    ++consumed;
    ++kept;
  }
  if (kept < p.prefix.size()) {
    p.prefix.resize(kept);
    p.exact = false;
  }
  rest_start = consumed;
  return p;
}

double pattern_selectivity(const RelationStatsView& rel, const TypedExpr& call) {
  const std::string& op = call.name;
  const bool negated = op[0] == '!';
  const bool ci = op.find('*') != std::string::npos;
  const TypedExpr& var = call.args[0];
  const TypedExpr& pat = call.args[1];
  if (!pat.is_const() || pat.isnull || var.is_const()) return negated ? 1.0 - 0.005 : 0.005;
  const std::string_view pattern = varlena_payload(datum_pointer(pat.value.datum()));
  size_t rest_start = 0;
  const LikePrefix prefix = pattern_prefix(pattern, ci, rest_start);
  double selec;
  if (prefix.exact) {
    selec = 1.0 / numdistinct(rel, var);
  } else {
    const double prefixsel = prefix.prefix.empty() ? 1.0 : 1.0 / numdistinct(rel, var);
    selec = prefixsel * like_rest_selectivity(pattern.substr(rest_start));
  }
  selec = clamp_probability(selec);
  const double nullfrac = null_fraction(rel, var);
  selec *= 1.0 - nullfrac;
  return clamp_probability(negated ? 1.0 - selec - nullfrac : selec);
}

bool is_comparison_name(const std::string& op) {
  return op == "=" || op == "<>" || op == "<" || op == "<=" || op == ">" || op == ">=";
}

double comparison_selectivity(const RelationStatsView& rel, const TypedExpr& call) {
  const TypedExpr& l = call.args[0];
  const TypedExpr& r = call.args[1];
  const bool lc = l.is_const(), rc = r.is_const();
  const std::string& op = call.name;
  if (lc == rc) {
    // Two expressions over columns: the operators' defaults.
    if (op == "=") return kDefaultEqSel;
    if (op == "<>") return 1.0 - kDefaultEqSel;
    return kDefaultIneqSel;
  }
  const TypedExpr& var = lc ? r : l;
  const TypedExpr& constant = lc ? l : r;
  if (constant.isnull) return 0.0;
  if (op == "=" || op == "<>") {
    const double nullfrac = null_fraction(rel, var);
    const double eq = clamp_probability(1.0 / numdistinct(rel, var) * (1.0 - nullfrac));
    return op == "=" ? eq : clamp_probability(1.0 - eq - nullfrac);
  }
  return kDefaultIneqSel;
}

}  // namespace

double expr_selectivity(const RelationStatsView& rel, const TypedExpr& e) {
  check_stack_depth();
  switch (e.kind) {
    case TypedExpr::Kind::kConst:
      return !e.isnull && e.value.datum() != 0 ? 1.0 : 0.0;
    case TypedExpr::Kind::kAnd: {
      double s = 1.0;
      for (const TypedExpr& a : e.args) s *= expr_selectivity(rel, a);
      return s;
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
      // boolvarsel without statistics.
      return 0.5;
    case TypedExpr::Kind::kCall:
      if (is_comparison_name(e.name)) return comparison_selectivity(rel, e);
      if (e.name.find("~~") != std::string::npos) return pattern_selectivity(rel, e);
      return 0.3333333;
    case TypedExpr::Kind::kAnyArray: {
      const bool any = !e.negated;
      const TypedExpr& var = e.args[0];
      const double eq = clamp_probability(1.0 / numdistinct(rel, var));
      return clamp_probability(array_selectivity(any, e.args.size() - 1, [&](size_t i) {
        if (e.args[i + 1].isnull) return 0.0;  // a NULL element never matches (strict `=` / `<>`)
        return any ? eq : 1.0 - eq;
      }));
    }
    default:
      return 0.5;
  }
}

}  // namespace tp
