// The parts of the typed-expression binder shared by its files (not for other callers):
// reading and making Datums in an evaluation, PostgreSQL's type categories and casts,
// and the resolution of operators and functions as PostgreSQL 15's parser does it
// (exact match, unknown literals taking the other side's type, the preferred type of a
// category, implicit casts), each producing a TypedExpr.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/core/datetime.h"
#include "engine/core/datum.h"
#include "engine/core/typed_expr.h"

namespace tp::expr {

// ---- Datums inside an evaluation ----
inline std::string_view text_arg(Datum d) {
  return varlena_payload(datum_pointer(d));
}
Datum text_result(EvalState& st, std::string_view s);
// A varlena made elsewhere (numeric's functions return one), copied into the arena.
Datum varlena_result(EvalState& st, const std::string& varlena);
Datum interval_result(EvalState& st, const Interval& v);
inline Interval interval_arg(Datum d) {
  Interval v;
  std::memcpy(&v, datum_pointer(d), sizeof v);
  return v;
}
// A number of any numeric type as a double (float8's view of it).
double float_arg(Datum d, TypeId t);

// ---- types ----
enum class Category : char {
  kBool = 'B',
  kNumeric = 'N',
  kString = 'S',
  kDatetime = 'D',
  kTimespan = 'T',
};
Category category(TypeId t);
// The category's preferred type (float8, text, interval, bool).
bool is_preferred(TypeId t);
inline bool is_integer(TypeId t) {
  return t == TypeId::kInt2 || t == TypeId::kInt4 || t == TypeId::kInt8;
}
inline bool is_float(TypeId t) {
  return t == TypeId::kFloat4 || t == TypeId::kFloat8;
}
inline bool is_string(TypeId t) {
  return t == TypeId::kText || t == TypeId::kVarchar || t == TypeId::kBpchar;
}
inline bool is_unknown(const TypedExpr& e) {
  return e.kind == TypedExpr::Kind::kConst && e.unknown_literal;
}

enum class CoercionContext { kImplicit, kAssignment, kExplicit };
bool can_coerce(TypeId from, TypeId to, CoercionContext ctx);
// `e` as `to(typmod)`: a cast (folded when `e` is a constant), or `e` itself. Throws
// PostgreSQL's "cannot cast type x to y" (42846) where no cast exists in `ctx`.
TypedExpr coerce(TypedExpr e, TypeId to, int32_t typmod, CoercionContext ctx, int position);
// An unknown literal or NULL as `to`, else coerce(.., kImplicit).
TypedExpr coerce_implicitly(TypedExpr e, TypeId to, int position);

// A call node; folded to a constant when every argument is one and `immutable`.
TypedExpr make_call(std::string name, ScalarFn fn, TypeId result, std::vector<TypedExpr> args,
                    TypedExpr::Form form, int cost_units = 1, bool immutable = true);
// `e` (an immutable call, a CASE, ...) as the constant it is when every argument is one.
TypedExpr fold(TypedExpr e);

// eval_const_expressions' simplifications of a bound expression, bottom-up: a call
// (every one here strict) with a NULL constant argument is NULL; AND / OR flattened,
// their constants dropped or deciding the whole; NOT of a constant; COALESCE without its
// NULL constants, ending at its first non-NULL one; NULLIF with a NULL argument its first
// argument; IS [NOT] NULL and = ANY of constants evaluated; a CASE's constant conditions
// drop their arms or end it; a comparison of two constants of one type folded.
TypedExpr simplify_constants(TypedExpr e);
// A constant of `t` owning `d`'s bytes.
TypedExpr make_const(TypeId t, int32_t typmod, Datum d, bool isnull);
// A comparison's code (CmpOp in `op`), comparing as `self.compare_as`.
ScalarFn compare_fn(const std::string& op);

// ---- resolution ----
TypedExpr resolve_operator(const std::string& op, TypedExpr l, TypedExpr r, int position);
TypedExpr resolve_prefix(const std::string& op, TypedExpr a, int position);
TypedExpr resolve_function(const std::string& name, std::vector<TypedExpr> args, bool sql_syntax,
                           int position);
// random(): volatile float8 from EvalState::random.
TypedExpr random_call();
// select_common_type over `args` (CASE results, COALESCE, IN lists, GREATEST), which are
// then coerced to it; `context` names the construct in errors ("CASE", "COALESCE").
TypeId unify_types(std::vector<TypedExpr*> args, const char* context, int position);

[[noreturn]] void no_operator(const std::string& op, const TypedExpr* l, const TypedExpr& r,
                              int position);

}  // namespace tp::expr
