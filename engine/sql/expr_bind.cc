#include "engine/sql/expr_bind.h"

#include <cctype>

#include "engine/core/error.h"
#include "engine/core/numeric.h"
#include "engine/core/stack_depth.h"
#include "engine/sql/expr_ops.h"

namespace tp {
namespace {

using expr::coerce;
using expr::CoercionContext;
using expr::is_unknown;

TypedExpr unknown_literal(const std::string& text, bool isnull, int position = -1, int param = 0) {
  TypedExpr c;
  c.param = param;
  c.kind = TypedExpr::Kind::kConst;
  c.type = TypeId::kText;
  c.unknown_literal = true;
  c.literal_position = position;
  c.isnull = isnull;
  if (!isnull) c.value = OwnedDatum::by_ref(make_varlena(text));
  return c;
}

TypedExpr boolean(TypedExpr e, const char* context, int position) {
  if (is_unknown(e) || (e.is_const() && e.isnull && e.unknown_literal))
    return expr::coerce_implicitly(std::move(e), TypeId::kBool, position);
  if (e.type != TypeId::kBool)
    throw Error(std::string("argument of ") + context + " must be type boolean, not type " +
                format_type(e.type, kNoTypmod))
        .at_position(position)
        .with_sqlstate(sqlstate::kDatatypeMismatch);
  return e;
}

TypedExpr junction(TypedExpr::Kind kind, std::vector<TypedExpr> args) {
  TypedExpr e;
  e.kind = kind;
  e.type = TypeId::kBool;
  e.args = std::move(args);
  return e;
}

std::string upper(std::string s) {
  for (char& c : s) c = char(std::toupper(uint8_t(c)));
  return s;
}

class Binder {
 public:
  Binder(const ColumnLookup& columns, const CallLookup& calls) : columns_(columns), calls_(calls) {}

  // A thin dispatcher: each kind's work (and its temporaries) is in a function of its
  // own, so a deeply nested expression's recursion through here costs small frames.
  TypedExpr bind(const sql::Expr& e) {
    check_stack_depth();
    switch (e.kind) {
      case sql::ExprKind::kIntConst:
      case sql::ExprKind::kNumConst:
      case sql::ExprKind::kStrConst:
      case sql::ExprKind::kNullConst:
      case sql::ExprKind::kBoolConst:
      case sql::ExprKind::kColumnRef:
        return leaf(e);
      case sql::ExprKind::kFuncCall:
        return function(e);
      case sql::ExprKind::kUnary:
        return unary(e);
      case sql::ExprKind::kBinary:
      case sql::ExprKind::kCompare:
        return binary(e);
      case sql::ExprKind::kLike:
        return like(e);
      case sql::ExprKind::kAnd:
      case sql::ExprKind::kOr:
      case sql::ExprKind::kNot:
      case sql::ExprKind::kIsNull:
      case sql::ExprKind::kBoolTest:
        return logical(e);
      case sql::ExprKind::kBetween:
        return between(e);
      case sql::ExprKind::kInList:
        return in_list(e);
      case sql::ExprKind::kCast:
        return cast(e);
      case sql::ExprKind::kCase:
        return case_expr(e);
      case sql::ExprKind::kSubLink:
        // The planner's subqueries (InitPlans, SubPlans); EXISTS and IN over a join's
        // WHERE are planned as semi and anti joins before binding.
        if (sublink_planned(e)) {
          TypedExpr bound = current_sublinks()->bind(e, columns_);
          if (e.name == "in" && bound.kind == TypedExpr::Kind::kSubPlan && e.negated)
            return negate_expr(std::move(bound));
          return bound;
        }
        throw Error("subqueries are not supported here")
            .at_position(e.position)
            .with_sqlstate(sqlstate::kFeatureNotSupported);
      default:
        throw Error("this expression is not supported here")
            .at_position(e.position)
            .with_sqlstate(sqlstate::kFeatureNotSupported);
    }
  }

 private:
  [[gnu::noinline]] TypedExpr leaf(const sql::Expr& e) {
    switch (e.kind) {
      case sql::ExprKind::kIntConst:
        return expr::make_const(e.ival == int64_t(int32_t(e.ival)) ? TypeId::kInt4 : TypeId::kInt8,
                                kNoTypmod, e.ival, false);
      case sql::ExprKind::kNumConst: {
        const std::string v = numeric_in(e.sval, kNoTypmod);
        return expr::make_const(TypeId::kNumeric, kNoTypmod, pointer_datum(v.data()), false);
      }
      case sql::ExprKind::kStrConst:
        return unknown_literal(e.sval, false, e.position, e.param);
      case sql::ExprKind::kNullConst:
        return unknown_literal("", true, -1, e.param);
      case sql::ExprKind::kBoolConst:
        return expr::make_const(TypeId::kBool, kNoTypmod, e.ival != 0, false);
      default: {
        // A correlated subquery's reference to the outer query: a parameter the SubPlan
        // sets per outer row (current_outer_refs), when its own tables lack the name.
        if (const OuterRefs* outer = current_outer_refs()) {
          try {
            const BoundColumnRef c = columns_(e);
            return column_expr(c.slot, c.type, c.typmod, c.printed);
          } catch (const Error& err) {
            if (err.sqlstate() != sqlstate::kUndefinedColumn &&
                err.sqlstate() != sqlstate::kUndefinedTable)
              throw;
            if (std::optional<TypedExpr> p = outer->resolve(e)) return *p;
            throw;
          }
        }
        const BoundColumnRef c = columns_(e);
        return column_expr(c.slot, c.type, c.typmod, c.printed);
      }
    }
  }

  [[gnu::noinline]] TypedExpr unary(const sql::Expr& e) {
    return expr::resolve_prefix(e.name, bind(*e.args[0]), e.position);
  }

  [[gnu::noinline]] TypedExpr binary(const sql::Expr& e) {
    return expr::resolve_operator(e.name, bind(*e.args[0]), bind(*e.args[1]), e.position);
  }

  // AND, OR, NOT, IS [NOT] NULL, IS [NOT] TRUE / FALSE / UNKNOWN.
  [[gnu::noinline]] TypedExpr logical(const sql::Expr& e) {
    std::vector<TypedExpr> args;
    switch (e.kind) {
      case sql::ExprKind::kAnd:
      case sql::ExprKind::kOr: {
        const bool is_and = e.kind == sql::ExprKind::kAnd;
        for (const auto& a : e.args)
          args.push_back(boolean(bind(*a), is_and ? "AND" : "OR", a->position));
        return junction(is_and ? TypedExpr::Kind::kAnd : TypedExpr::Kind::kOr, std::move(args));
      }
      case sql::ExprKind::kNot:
        args.push_back(boolean(bind(*e.args[0]), "NOT", e.args[0]->position));
        return junction(TypedExpr::Kind::kNot, std::move(args));
      case sql::ExprKind::kIsNull: {
        args.push_back(bind(*e.args[0]));
        TypedExpr n = junction(TypedExpr::Kind::kIsNull, std::move(args));
        n.negated = e.negated;
        return n;
      }
      default: {
        args.push_back(boolean(bind(*e.args[0]), ("IS " + upper(e.name)).c_str(), e.position));
        TypedExpr t = junction(TypedExpr::Kind::kBoolTest, std::move(args));
        t.name = upper(e.name);
        t.negated = e.negated;
        return t;
      }
    }
  }

  [[gnu::noinline]] TypedExpr function(const sql::Expr& e) {
    if (calls_)
      if (std::optional<TypedExpr> mine = calls_(e)) return std::move(*mine);
    if (e.star_arg || e.distinct || e.name == "count" || e.name == "sum" || e.name == "avg" ||
        e.name == "min" || e.name == "max")
      throw Error("aggregate functions are not allowed here")
          .at_position(e.position)
          .with_sqlstate(sqlstate::kGroupingError);
    std::vector<TypedExpr> args;
    for (const auto& a : e.args) args.push_back(bind(*a));
    return expr::resolve_function(e.name, std::move(args), e.sql_syntax, e.position);
  }

  [[gnu::noinline]] TypedExpr like(const sql::Expr& e) {
    if (e.args.size() > 2)
      throw Error("LIKE ... ESCAPE is not supported yet")
          .at_position(e.position)
          .with_sqlstate(sqlstate::kFeatureNotSupported);
    const std::string op = e.negated ? "!" + e.name : e.name;
    return expr::resolve_operator(op, bind(*e.args[0]), bind(*e.args[1]), e.position);
  }

  TypedExpr compare(const char* op, const sql::Expr& l, const sql::Expr& r, int position) {
    return expr::resolve_operator(op, bind(l), bind(r), position);
  }

  [[gnu::noinline]] TypedExpr between(const sql::Expr& e) {
    const sql::Expr &x = *e.args[0], &lo = *e.args[1], &hi = *e.args[2];
    auto range = [&](const sql::Expr& a, const sql::Expr& b) {
      std::vector<TypedExpr> args;
      if (e.negated) {
        args.push_back(compare("<", x, a, e.position));
        args.push_back(compare(">", x, b, e.position));
        return junction(TypedExpr::Kind::kOr, std::move(args));
      }
      args.push_back(compare(">=", x, a, e.position));
      args.push_back(compare("<=", x, b, e.position));
      return junction(TypedExpr::Kind::kAnd, std::move(args));
    };
    if (!e.symmetric) return range(lo, hi);
    std::vector<TypedExpr> both;
    both.push_back(range(lo, hi));
    both.push_back(range(hi, lo));
    return junction(e.negated ? TypedExpr::Kind::kAnd : TypedExpr::Kind::kOr, std::move(both));
  }

  [[gnu::noinline]] TypedExpr in_list(const sql::Expr& e) {
    const char* op = e.negated ? "<>" : "=";
    std::vector<TypedExpr> items;
    for (int64_t v : e.int_items)
      items.push_back(
          expr::make_const(v == int64_t(int32_t(v)) ? TypeId::kInt4 : TypeId::kInt8, -1, v, false));
    for (size_t i = 1; i < e.args.size(); ++i) items.push_back(bind(*e.args[i]));
    TypedExpr left = bind(*e.args[0]);
    if (items.size() == 1 && !e.array)
      return expr::resolve_operator(op, std::move(left), std::move(items[0]), e.position);
    // As transformAExprIn: the items that read no column (constants, `now() - interval
    // '1 day'`) make one `= ANY (ARRAY[...])` when there are two or more of them; each
    // item that reads a column is an equality of its own, ORed (ANDed for NOT IN) after
    // it. A constant left side keeps every item apart: it folds to a constant anyway.
    // `x = ANY (ARRAY[...])` as written is one array whatever its items read.
    if (e.array && !left.is_const()) return any_array(std::move(left), std::move(items), e);
    std::vector<TypedExpr> array_items, column_items;
    for (TypedExpr& i : items) {
      std::vector<uint32_t> slots;
      expr_slots(i, slots);
      (slots.empty() ? array_items : column_items).push_back(i);
    }
    std::vector<TypedExpr> tests;
    if (array_items.size() > 1 && !left.is_const()) {
      tests.push_back(any_array(left, std::move(array_items), e));
      items = std::move(column_items);
    }
    for (TypedExpr& i : items)
      tests.push_back(expr::resolve_operator(op, left, std::move(i), e.position));
    if (tests.size() == 1) return std::move(tests[0]);
    return junction(e.negated ? TypedExpr::Kind::kAnd : TypedExpr::Kind::kOr, std::move(tests));
  }

  // `left op ANY (ARRAY[items])` (op ALL for NOT IN) over the items' common type.
  TypedExpr any_array(TypedExpr left, std::vector<TypedExpr> items, const sql::Expr& e) {
    const char* op = e.negated ? "<>" : "=";
    std::vector<TypedExpr*> all{&left};
    for (TypedExpr& i : items) all.push_back(&i);
    const TypeId t = expr::unify_types(all, "IN", e.position);
    for (TypedExpr& i : items) i = expr::coerce_implicitly(std::move(i), t, e.position);
    // The operator for (left, element): it may cast both (varchar's elements become text).
    TypedExpr probe =
        expr::resolve_operator(op, left, column_expr(0, t, kNoTypmod, "\x01"), e.position);
    TypedExpr any;
    any.kind = TypedExpr::Kind::kAnyArray;
    any.type = TypeId::kBool;
    any.name.assign(e.negated ? "<>" : "=");
    any.negated = e.negated;
    any.fn = probe.fn;
    any.negator = probe.negator;  // NOT (x = ANY ...) is x <> ALL ..., as negate_clause's
    any.compare_as = probe.compare_as;
    any.cost_units = 1;
    const TypeId elem = probe.args[1].type;
    any.args.push_back(std::move(probe.args[0]));
    for (TypedExpr& i : items)
      any.args.push_back(expr::coerce_implicitly(std::move(i), elem, e.position));
    return any;
  }

  [[gnu::noinline]] TypedExpr cast(const sql::Expr& e) {
    if (e.name == "regclass" || e.name == "regtype")
      throw Error("::" + e.name + " is not supported here")
          .at_position(e.position)
          .with_sqlstate(sqlstate::kFeatureNotSupported);
    TypedExpr x = bind(*e.args[0]);
    TypedExpr c = coerce(std::move(x), e.cast_type.id, e.cast_type.typmod,
                         CoercionContext::kExplicit, e.position);
    c.explicit_cast = c.kind == TypedExpr::Kind::kCall;
    return c;
  }

  [[gnu::noinline]] TypedExpr case_expr(const sql::Expr& e) {
    size_t i = 0;
    const sql::Expr* operand = e.case_operand ? e.args[i++].get() : nullptr;
    const size_t end = e.args.size() - (e.case_else ? 1 : 0);
    std::vector<TypedExpr> conditions, results;
    for (; i + 1 < end; i += 2) {
      const sql::Expr& when = *e.args[i];
      conditions.push_back(operand ? compare("=", *operand, when, when.position)
                                   : boolean(bind(when), "CASE/WHEN", when.position));
      results.push_back(bind(*e.args[i + 1]));
    }
    results.push_back(e.case_else ? bind(*e.args.back()) : unknown_literal("", true));
    // PostgreSQL weighs the ELSE result first (transformCaseExpr puts it at the front).
    std::vector<TypedExpr*> ptrs{&results.back()};
    for (size_t k = 0; k + 1 < results.size(); ++k) ptrs.push_back(&results[k]);
    const TypeId t = expr::unify_types(ptrs, "CASE", e.position);
    TypedExpr c;
    c.kind = TypedExpr::Kind::kCase;
    c.type = t;
    c.simple_case = operand != nullptr;
    for (size_t k = 0; k < conditions.size(); ++k) {
      c.args.push_back(std::move(conditions[k]));
      c.args.push_back(expr::coerce_implicitly(std::move(results[k]), t, e.position));
    }
    c.args.push_back(expr::coerce_implicitly(std::move(results.back()), t, e.position));
    return c;
  }

  const ColumnLookup& columns_;
  const CallLookup& calls_;
};

}  // namespace

const SubLinkBinding*& current_sublinks() {
  thread_local const SubLinkBinding* binding = nullptr;
  return binding;
}

const OuterRefs*& current_outer_refs() {
  thread_local const OuterRefs* refs = nullptr;
  return refs;
}

bool names_outer_table(const sql::Expr& ref) {
  const OuterRefs* outer = current_outer_refs();
  return outer != nullptr && !ref.qualifier.empty() && outer->outer_only(ref.qualifier);
}

bool sublink_planned(const sql::Expr& sublink) {
  const SubLinkBinding* b = current_sublinks();
  return b != nullptr && b->planned(sublink);
}

TypedExpr bind_expr(const sql::Expr& e, const ColumnLookup& columns, const CallLookup& calls) {
  return expr::simplify_constants(Binder(columns, calls).bind(e));
}

TypedExpr bind_condition(const sql::Expr& e, const ColumnLookup& columns, const char* context,
                         const CallLookup& calls) {
  return boolean(bind_expr(e, columns, calls), context, e.position);
}

void coerce_to_common_type(const std::vector<TypedExpr*>& exprs, const char* context,
                           int position) {
  const TypeId t = expr::unify_types(exprs, context, position);
  for (TypedExpr* e : exprs) *e = expr::coerce_implicitly(std::move(*e), t, position);
}

TypedExpr random_call() {
  return expr::random_call();
}

TypedExpr assign_to_column(TypedExpr e, const std::string& column, TypeId type, int32_t typmod,
                           int position) {
  const bool untyped = is_unknown(e) || (e.is_const() && e.isnull);
  if (!untyped && !expr::can_coerce(e.type, type, CoercionContext::kAssignment))
    throw Error("column \"" + column + "\" is of type " + format_type(type, kNoTypmod) +
                    " but expression is of type " + format_type(e.type, kNoTypmod),
                "", "You will need to rewrite or cast the expression.")
        .at_position(position)
        .with_sqlstate(sqlstate::kDatatypeMismatch);
  return coerce(std::move(e), type, typmod, CoercionContext::kAssignment, position);
}

TypedExpr finish_output(TypedExpr e) {
  return read_unknown_as(std::move(e), TypeId::kText, 0);
}

TypedExpr read_unknown_as(TypedExpr e, TypeId to, int position) {
  if (is_unknown(e)) return expr::coerce_implicitly(std::move(e), to, position);
  return e;
}

bool calls_aggregate(const sql::Expr& e) {
  check_stack_depth();
  if (e.kind == sql::ExprKind::kFuncCall && (e.star_arg || e.name == "count" || e.name == "sum" ||
                                             e.name == "avg" || e.name == "min" || e.name == "max"))
    return true;
  for (const auto& a : e.args)
    if (calls_aggregate(*a)) return true;
  return false;
}

}  // namespace tp
