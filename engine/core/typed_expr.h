// TypedExpr: an expression bound to types, as PostgreSQL's planner holds one (a tree of
// Var, Const, OpExpr, FuncExpr, casts, BoolExpr, NullTest, CaseExpr, CoalesceExpr,
// NullIfExpr, MinMaxExpr, ScalarArrayOpExpr). The binder (engine/sql/expr_bind.h) makes
// one from the parser's sql::Expr with PostgreSQL 15's operator and function resolution
// and implicit casts; the executor evaluates it over a row of Datums; EXPLAIN prints it
// as PostgreSQL's ruleutils does; the planner costs it as cost_qual_eval does.
//
//   TypedExpr e = bind_expr(parsed, columns);     // `n * (1 - d)` over numeric columns
//   EvalState st{&arena, statement_time};
//   bool isnull;
//   Datum v = evaluate(e, row_values, row_nulls, st, isnull);   // a numeric in `arena`
//   deparse(e) == "(n * ('1'::numeric - d))"
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/datum.h"
#include "engine/core/datum_ops.h"
#include "engine/core/random.h"
#include "engine/core/types.h"
#include "engine/core/value_arena.h"

namespace tp {

struct TypedExpr;

// What one evaluation may use: where by-reference results go (they live until the
// caller clears the arena), the statement's start (CURRENT_DATE, LOCALTIMESTAMP) and the
// session's generator (random(), bound only where one is given).
struct EvalState {
  ValueArena* arena = nullptr;
  int64_t statement_time = 0;  // a timestamp (microseconds since 2000-01-01)
  Random* random = nullptr;
  // Set by a function whose result is NULL for non-NULL arguments (extract of a field an
  // infinite timestamp has not); the evaluator reads and clears it.
  bool null_result = false;
};

// One operator or function's code: `args` hold the evaluated arguments (none NULL: every
// function here is strict), `self` the node (its argument and result types, a cast's
// typmod).
using ScalarFn = Datum (*)(const Datum* args, const TypedExpr& self, EvalState& st);

struct TypedExpr {
  enum class Kind : uint8_t {
    kConst,
    kColumn,    // slot `slot` of the row
    kCall,      // an operator, function or cast: `fn` over `args`
    kAnd,       // args, three-valued
    kOr,        // args, three-valued
    kNot,       // args[0]
    kIsNull,    // args[0] IS NULL (negated: IS NOT NULL)
    kCase,      // args: (when, then) pairs, then the ELSE result (always present)
    kCoalesce,  // args: the first non-NULL
    kNullIf,    // args[0], NULL when it equals args[1] (`fn` is the equality)
    kMinMax,    // GREATEST (name "GREATEST") / LEAST over args, NULLs skipped
    kAnyArray,  // args[0] op ANY (args[1..]) (negated: op ALL); `fn` the comparison
    kBoolTest,  // args[0] IS [NOT] TRUE / FALSE / UNKNOWN (name "TRUE", ...; negated: NOT)
    // An InitPlan's value, PostgreSQL's PARAM_EXEC `$slot` (name "$0"): read from the
    // running plan's ParamSource, which runs the InitPlan the first time it is read.
    kParam,
    // A SubPlan run for each row (name "SubPlan 1" or "hashed SubPlan 1"): `slot` its
    // number for the ParamSource, args the values it takes from the row (the left side
    // of `x IN (SELECT ...)`, a correlated subquery's outer columns).
    kSubPlan,
  };
  // How a kCall prints (ruleutils' cases).
  enum class Form : uint8_t {
    kInfix,      // (a op b)
    kPrefix,     // (op a)
    kFunction,   // name(a, b)
    kCast,       // (a)::type, a constant 'v'::type
    kRelabel,    // a binary-compatible cast: prints as kCast, costs nothing
    kSqlSyntax,  // EXTRACT(f FROM x), POSITION(a IN b), SUBSTRING(..), TRIM(..), CURRENT_DATE
  };

  Kind kind = Kind::kConst;
  TypeId type = TypeId::kInt4;
  int32_t typmod = kNoTypmod;
  // kConst: the value (a NULL constant keeps its type).
  OwnedDatum value;
  bool isnull = false;
  // A string constant of unknown type still (a select-list 'abc' is text in the end),
  // and where it stands in the statement: its input errors point there.
  bool unknown_literal = false;
  int literal_position = -1;
  // An unknown literal that is the value of $param (engine/sql/params.h): the type it
  // is coerced to is the parameter's. A kParam with `param` set is $param of a generic
  // plan (is_extern_param): its value comes from the execution's parameters.
  int param = 0;
  // kColumn
  uint32_t slot = 0;
  std::string name;  // kColumn: the column as printed; kCall: operator or function name
  // kCall / kNullIf / kAnyArray
  ScalarFn fn = nullptr;
  // A comparison's or LIKE's negation (`<>` for `=`, `!~~` for `~~`): NOT pushed into
  // it, as PostgreSQL's negate_clause does.
  ScalarFn negator = nullptr;
  Form form = Form::kFunction;
  // kCall comparisons across types (int4 < int8, float4 = float8, date < timestamp):
  // the type both sides are compared as.
  TypeId compare_as = TypeId::kInt4;
  bool explicit_cast = false;  // kCall cast: CAST / :: (length coercion truncates)
  bool negated = false;      // kIsNull: IS NOT NULL; kAnyArray: op ALL (NOT IN); kBoolTest: IS NOT
  bool simple_case = false;  // kCase written CASE x WHEN v ...: each condition is x = v
  int cost_units = 0;        // kCall: the calls cost_qual_eval counts for this node
  // kCall numeric + - *: the operator. A tree of them over numeric columns and
  // constants is computed as scaled integers, one value written for the whole tree.
  char numeric_op = 0;
  std::vector<TypedExpr> args;
  // kSubPlan: PostgreSQL's cost_subplan, charged where the expression is evaluated (once
  // for the startup, per evaluation for the rest) on top of expr_cost_units.
  double subplan_startup = 0;
  double subplan_per_call = 0;

  bool is_const() const { return kind == Kind::kConst; }
};

// Where kParam and kSubPlan get their values: the running plan's subquery host
// (scans/subplan_host.h), which a thread sets as `current_param_source()` while it runs
// that plan. A subquery's plan runs inside an expression's evaluation, so it is reached
// through this hook rather than through every node's EvalState.
class ParamSource {
 public:
  virtual ~ParamSource() = default;
  virtual Datum param(uint32_t id, bool& isnull) = 0;
  virtual Datum subplan(uint32_t id, const Datum* args, const bool* arg_nulls, bool& isnull) = 0;
};
ParamSource*& current_param_source();

// The statement's own parameters ($1 .. $n, PostgreSQL's PARAM_EXTERN) while a generic
// plan runs: `param(n)` gives $n. Set by the thread that runs the plan (and by each of its
// parallel workers), apart from the subqueries' source, which nests per subquery.
ParamSource*& current_extern_params();

// $n of a generic plan (a PARAM_EXTERN), as opposed to an InitPlan's or an outer row's
// value (kParam too, told apart by their slots).
inline bool is_extern_param(const TypedExpr& e) {
  return e.kind == TypedExpr::Kind::kParam && e.param != 0;
}

// A reference to slot `slot` of the row, of `type`, printed as `name`.
inline TypedExpr column_expr(uint32_t slot, TypeId type, int32_t typmod, std::string name) {
  TypedExpr v;
  v.kind = TypedExpr::Kind::kColumn;
  v.slot = slot;
  v.type = type;
  v.typmod = typmod;
  v.name = std::move(name);
  return v;
}

// The value of `e` over one row (`values`/`nulls` indexed by slot; nulls may be null when
// the row has none). By-reference results are in st.arena or point into the row.
Datum evaluate(const TypedExpr& e, const Datum* values, const bool* nulls, EvalState& st,
               bool& isnull);

// A boolean expression as a qual: true only when it is true (NULL fails).
inline bool evaluate_qual(const TypedExpr& e, const Datum* values, const bool* nulls,
                          EvalState& st) {
  bool isnull = false;
  const Datum d = evaluate(e, values, nulls, st, isnull);
  return !isnull && d != 0;
}

// cost_qual_eval's per-row count of operator and function calls in `e` (each costs
// cpu_operator_cost); `= ANY` over n elements counts n / 2 calls, as PostgreSQL does.
double expr_cost_units(const TypedExpr& e);

// The SubPlans' costs in `e` (cost_qual_eval's share for them): added to `startup` and
// `per_call`.
void subplan_costs(const TypedExpr& e, double& startup, double& per_call);
// Whether `e` reads an InitPlan's value or runs a SubPlan (nothing to fold at plan time).
bool reads_subquery(const TypedExpr& e);
// Whether `e` reads an InitPlan's value or runs a SubPlan (a statement parameter, also a
// kParam, is neither).
bool reads_plan_value(const TypedExpr& e);

// As PostgreSQL's EXPLAIN prints it (ruleutils, showimplicit inside operators).
std::string deparse(const TypedExpr& e);

// NOT e, pushed down as PostgreSQL's negate_clause: an operator with a negator becomes
// it, NOT NOT e is e, AND and OR by De Morgan, IS NULL flips; anything else is wrapped.
TypedExpr negate_expr(TypedExpr e);

// Whether `e` reads any column; the slots it reads.
void expr_slots(const TypedExpr& e, std::vector<uint32_t>& slots);

// Whether `e` calls a volatile function (random(), clock_timestamp()): its value may
// differ per call, so the planner neither folds, estimates with, nor equates it.
bool expr_is_volatile(const TypedExpr& e);

}  // namespace tp
