// simplify_constants: what PostgreSQL's eval_const_expressions does to a bound
// expression beyond folding calls of constants (which the binder does as it goes).
// It runs once the whole tree is bound, as PostgreSQL's does after parse analysis:
// the binder still resolves operators over NULL arguments by their types.
#include <algorithm>

#include "engine/core/stack_depth.h"
#include "engine/core/value_arena.h"
#include "engine/sql/expr_ops.h"

namespace tp::expr {
namespace {

TypedExpr bool_const(bool v) {
  return make_const(TypeId::kBool, kNoTypmod, v ? 1 : 0, false);
}
TypedExpr null_of(const TypedExpr& e) {
  return make_const(e.type, e.typmod, 0, true);
}
bool is_null_const(const TypedExpr& e) {
  return e.is_const() && e.isnull;
}

// AND / OR: nested ones flattened, constants that decide nothing dropped (TRUE in an
// AND, FALSE in an OR), one that decides all taking the whole, NULL constants kept once
// at the end; nothing left is the identity (or NULL).
TypedExpr and_or(TypedExpr e) {
  const bool is_and = e.kind == TypedExpr::Kind::kAnd;
  std::vector<TypedExpr> flat;
  for (TypedExpr& a : e.args) {
    if (a.kind == e.kind) {
      for (TypedExpr& inner : a.args) flat.push_back(std::move(inner));
    } else {
      flat.push_back(std::move(a));
    }
  }
  std::vector<TypedExpr> out;
  bool have_null = false;
  for (TypedExpr& a : flat) {
    if (!a.is_const()) {
      out.push_back(std::move(a));
    } else if (a.isnull) {
      have_null = true;
    } else if ((a.value.datum() != 0) != is_and) {
      return bool_const(!is_and);  // FALSE in an AND, TRUE in an OR
    }
  }
  if (have_null) out.push_back(null_of(e));
  if (out.empty()) return bool_const(is_and);
  if (out.size() == 1) return std::move(out[0]);
  e.args = std::move(out);
  return e;
}

// COALESCE: NULL constants drop out; a non-NULL constant ends the list (and is the
// value when it comes first); nothing left is NULL.
TypedExpr coalesce(TypedExpr e) {
  std::vector<TypedExpr> out;
  for (TypedExpr& a : e.args) {
    if (is_null_const(a)) continue;
    const bool stop = a.is_const();
    if (stop && out.empty()) return std::move(a);
    out.push_back(std::move(a));
    if (stop) break;
  }
  if (out.empty()) return null_of(e);
  e.args = std::move(out);
  return e;
}

bool all_const(const TypedExpr& e) {
  for (const TypedExpr& a : e.args)
    if (!a.is_const()) return false;
  return true;
}

// The value of a node whose arguments are all constants.
TypedExpr evaluated(const TypedExpr& e) {
  ValueArena arena;
  EvalState st{&arena, 0};
  bool isnull = false;
  const Datum v = evaluate(e, nullptr, nullptr, st, isnull);
  return make_const(e.type, e.typmod, v, isnull);
}

// A CASE whose conditions are constants: a FALSE or NULL one drops its arm, the first
// TRUE one's result is the value (eval_const_expressions' CaseExpr).
TypedExpr simplify_case(TypedExpr e) {
  std::vector<TypedExpr> kept;
  TypedExpr* value = &e.args.back();  // the ELSE, unless a TRUE condition comes first
  for (size_t i = 0; i + 1 < e.args.size(); i += 2) {
    TypedExpr& when = e.args[i];
    if (!when.is_const()) {
      kept.push_back(std::move(when));
      kept.push_back(std::move(e.args[i + 1]));
    } else if (!when.isnull && when.value.datum() != 0) {
      value = &e.args[i + 1];
      break;
    }
  }
  kept.push_back(std::move(*value));
  if (kept.size() == 1) return std::move(kept[0]);
  e.args = std::move(kept);
  return e;
}

// A comparison of two constants of one type (immutable, unlike a date against a
// timestamptz): a simplified argument made it foldable.
bool foldable_comparison(const TypedExpr& e) {
  static const char* const kOps[] = {"=", "<>", "<", "<=", ">", ">="};
  return e.form == TypedExpr::Form::kInfix && e.args.size() == 2 && all_const(e) &&
         e.args[0].type == e.args[1].type &&
         std::any_of(std::begin(kOps), std::end(kOps),
                     [&](const char* op) { return e.name == op; });
}

}  // namespace

TypedExpr simplify_constants(TypedExpr e) {
  check_stack_depth();
  for (TypedExpr& a : e.args) a = simplify_constants(std::move(a));
  switch (e.kind) {
    case TypedExpr::Kind::kCall:
      // A strict function with a NULL argument is never called (evaluate_function).
      for (const TypedExpr& a : e.args)
        if (is_null_const(a)) return null_of(e);
      return foldable_comparison(e) ? evaluated(e) : e;
    case TypedExpr::Kind::kCase:
      return simplify_case(std::move(e));
    case TypedExpr::Kind::kAnd:
    case TypedExpr::Kind::kOr:
      return and_or(std::move(e));
    case TypedExpr::Kind::kNot:
      // negate_clause: NOT of a constant is its value; NOT pushed into what has a negation.
      if (is_null_const(e.args[0])) return null_of(e);
      return negate_expr(std::move(e.args[0]));
    case TypedExpr::Kind::kCoalesce:
      return coalesce(std::move(e));
    case TypedExpr::Kind::kNullIf:
      // A NULL on either side is never equal: the first argument is the value.
      if (is_null_const(e.args[0]) || is_null_const(e.args[1])) return std::move(e.args[0]);
      return e;
    case TypedExpr::Kind::kAnyArray:
      // A strict operator: a NULL left side makes every comparison NULL.
      if (is_null_const(e.args[0])) return null_of(e);
      return all_const(e) ? evaluated(e) : e;
    case TypedExpr::Kind::kIsNull:
    case TypedExpr::Kind::kBoolTest:
      return all_const(e) ? evaluated(e) : e;
    default:
      return e;
  }
}

}  // namespace tp::expr
