#include "engine/core/typed_expr.h"

#include <algorithm>

#include "engine/core/error.h"
#include "engine/core/numeric.h"
#include "engine/core/stack_depth.h"

namespace tp {
namespace {

// The value of a comparison-like call over two evaluated operands.
Datum call2(const TypedExpr& e, Datum a, Datum b, EvalState& st) {
  const Datum args[2] = {a, b};
  return e.fn(args, e, st);
}

Datum evaluate_bool(const TypedExpr& e, const Datum* values, const bool* nulls, EvalState& st,
                    bool& isnull) {
  // AND: false wins, then NULL; OR: true wins, then NULL.
  const bool is_and = e.kind == TypedExpr::Kind::kAnd;
  bool saw_null = false;
  for (const TypedExpr& a : e.args) {
    bool n = false;
    const Datum v = evaluate(a, values, nulls, st, n);
    if (n) {
      saw_null = true;
    } else if ((v != 0) != is_and) {
      isnull = false;
      return is_and ? 0 : 1;
    }
  }
  isnull = saw_null;
  return is_and ? 1 : 0;
}

Datum evaluate_any(const TypedExpr& e, const Datum* values, const bool* nulls, EvalState& st,
                   bool& isnull) {
  bool n = false;
  const Datum left = evaluate(e.args[0], values, nulls, st, n);
  if (n) {
    isnull = true;
    return 0;
  }
  // ANY: true at the first match; ALL (negated): false at the first mismatch.
  const bool all = e.negated;
  bool saw_null = false;
  for (size_t i = 1; i < e.args.size(); ++i) {
    bool en = false;
    const Datum v = evaluate(e.args[i], values, nulls, st, en);
    if (en) {
      saw_null = true;
      continue;
    }
    const bool holds = call2(e, left, v, st) != 0;
    if (holds != all) {
      isnull = false;
      return all ? 0 : 1;
    }
  }
  isnull = saw_null;
  return all ? 1 : 0;
}

Datum evaluate_call(const TypedExpr& e, const Datum* values, const bool* nulls, EvalState& st,
                    bool& isnull) {
  // Every function here is strict: a NULL argument makes a NULL result, uncalled.
  constexpr size_t kMaxArgs = 4;
  Datum args[kMaxArgs];
  // No function the binder resolves takes more (substring's three are the most); a node
  // with more would write past `args`, so it fails instead.
  if (e.args.size() > kMaxArgs)
    throw Error("function " + e.name + " has more than 4 arguments")
        .with_sqlstate(sqlstate::kInternalError);
  for (size_t i = 0; i < e.args.size(); ++i) {
    const TypedExpr& a = e.args[i];
    bool n = false;
    // Columns and constants, most arguments, read here rather than through a call.
    if (a.kind == TypedExpr::Kind::kColumn) {
      n = nulls != nullptr && nulls[a.slot];
      args[i] = values[a.slot];
    } else if (a.kind == TypedExpr::Kind::kConst) {
      n = a.isnull;
      args[i] = a.value.datum();
    } else {
      args[i] = evaluate(a, values, nulls, st, n);
    }
    if (n) {
      // PostgreSQL evaluates every argument before its strictness check: a SubPlan
      // after the NULL still runs (EXPLAIN ANALYZE counts its loops).
      for (size_t j = i + 1; j < e.args.size(); ++j)
        if (e.args[j].kind == TypedExpr::Kind::kSubPlan) {
          bool ignored = false;
          evaluate(e.args[j], values, nulls, st, ignored);
        }
      isnull = true;
      return 0;
    }
  }
  isnull = false;
  const Datum result = e.fn(args, e, st);
  if (st.null_result) {
    st.null_result = false;
    isnull = true;
    return 0;
  }
  return result;
}

enum class Scaled : uint8_t { kValue, kNull, kOther };

// `e` as scaled units when it is numeric + - * over numeric columns, constants and more
// of the same, every value and step within numeric_scaled_combine's bounds; kNull when
// an operand is NULL (every operator is strict), kOther for the general evaluation.
Scaled scaled_value(const TypedExpr& e, const Datum* values, const bool* nulls,
                    ScaledNumeric& out) {
  switch (e.kind) {
    case TypedExpr::Kind::kColumn:
      if (e.type != TypeId::kNumeric) return Scaled::kOther;
      if (nulls != nullptr && nulls[e.slot]) return Scaled::kNull;
      return numeric_scaled_of(datum_pointer(values[e.slot]), out) ? Scaled::kValue
                                                                   : Scaled::kOther;
    case TypedExpr::Kind::kConst:
      if (e.type != TypeId::kNumeric) return Scaled::kOther;
      if (e.isnull) return Scaled::kNull;
      return numeric_scaled_of(datum_pointer(e.value.datum()), out) ? Scaled::kValue
                                                                    : Scaled::kOther;
    case TypedExpr::Kind::kCall: {
      if (e.numeric_op == 0) return Scaled::kOther;
      ScaledNumeric x, y;
      const Scaled left = scaled_value(e.args[0], values, nulls, x);
      if (left != Scaled::kValue) return left;
      const Scaled right = scaled_value(e.args[1], values, nulls, y);
      if (right != Scaled::kValue) return right;
      return numeric_scaled_combine(e.numeric_op, x, y, out) ? Scaled::kValue : Scaled::kOther;
    }
    default:
      return Scaled::kOther;
  }
}

// A numeric + - * tree as scaled_value computes it, its one value written to the arena;
// false when the tree is out of that path's reach (the general evaluation's then).
bool evaluate_scaled(const TypedExpr& e, const Datum* values, const bool* nulls, EvalState& st,
                     bool& isnull, Datum& out) {
  ScaledNumeric v;
  switch (scaled_value(e, values, nulls, v)) {
    case Scaled::kValue: {
      isnull = false;
      char* bytes = st.arena->allocate(kScaledNumericMaxBytes);
      numeric_write_scaled(v, bytes);
      out = pointer_datum(bytes);
      return true;
    }
    case Scaled::kNull:
      isnull = true;
      out = 0;
      return true;
    case Scaled::kOther:
      break;
  }
  return false;
}

[[gnu::noinline]] Datum evaluate_subquery(const TypedExpr& e, const Datum* values,
                                          const bool* nulls, EvalState& st, bool& isnull) {
  if (is_extern_param(e)) {
    ParamSource* params = current_extern_params();
    if (params == nullptr)
      throw Error("$" + std::to_string(e.param) + " was read outside the execution that binds it")
          .with_sqlstate(sqlstate::kInternalError);
    return params->param(uint32_t(e.param), isnull);
  }
  ParamSource* source = current_param_source();
  if (source == nullptr)
    throw Error("a subquery's value was read outside the plan that runs it")
        .with_sqlstate(sqlstate::kInternalError);
  if (e.kind == TypedExpr::Kind::kParam) return source->param(e.slot, isnull);
  Datum args[8];
  bool arg_nulls[8];
  for (size_t i = 0; i < e.args.size() && i < 8; ++i)
    args[i] = evaluate(e.args[i], values, nulls, st, arg_nulls[i]);
  return source->subplan(e.slot, args, arg_nulls, isnull);
}

}  // namespace

Datum evaluate(const TypedExpr& e, const Datum* values, const bool* nulls, EvalState& st,
               bool& isnull) {
  switch (e.kind) {
    case TypedExpr::Kind::kConst:
      isnull = e.isnull;
      return e.value.datum();
    case TypedExpr::Kind::kColumn:
      isnull = nulls != nullptr && nulls[e.slot];
      return values[e.slot];
    case TypedExpr::Kind::kCall:
      if (Datum v = 0; e.numeric_op != 0 && evaluate_scaled(e, values, nulls, st, isnull, v))
        return v;
      return evaluate_call(e, values, nulls, st, isnull);
    case TypedExpr::Kind::kAnd:
    case TypedExpr::Kind::kOr:
      return evaluate_bool(e, values, nulls, st, isnull);
    case TypedExpr::Kind::kNot: {
      const Datum v = evaluate(e.args[0], values, nulls, st, isnull);
      return isnull ? 0 : v == 0;
    }
    case TypedExpr::Kind::kIsNull: {
      bool n = false;
      evaluate(e.args[0], values, nulls, st, n);
      isnull = false;
      return n != e.negated;
    }
    case TypedExpr::Kind::kCase: {
      const size_t pairs = (e.args.size() - 1) / 2;
      for (size_t i = 0; i < pairs; ++i) {
        bool n = false;
        const Datum when = evaluate(e.args[2 * i], values, nulls, st, n);
        if (!n && when != 0) return evaluate(e.args[2 * i + 1], values, nulls, st, isnull);
      }
      return evaluate(e.args.back(), values, nulls, st, isnull);
    }
    case TypedExpr::Kind::kCoalesce:
      for (const TypedExpr& a : e.args) {
        const Datum v = evaluate(a, values, nulls, st, isnull);
        if (!isnull) return v;
      }
      return 0;
    case TypedExpr::Kind::kNullIf: {
      const Datum a = evaluate(e.args[0], values, nulls, st, isnull);
      if (isnull) return 0;
      bool n = false;
      const Datum b = evaluate(e.args[1], values, nulls, st, n);
      if (!n && call2(e, a, b, st) != 0) {
        isnull = true;
        return 0;
      }
      return a;
    }
    case TypedExpr::Kind::kMinMax: {
      const bool greatest = e.name == "GREATEST";
      bool found = false;
      Datum best = 0;
      for (const TypedExpr& a : e.args) {
        bool n = false;
        const Datum v = evaluate(a, values, nulls, st, n);
        if (n) continue;
        if (!found || (compare_datums(e.type, v, best) > 0) == greatest) best = v;
        found = true;
      }
      isnull = !found;
      return best;
    }
    case TypedExpr::Kind::kAnyArray:
      return evaluate_any(e, values, nulls, st, isnull);
    case TypedExpr::Kind::kBoolTest: {
      bool n = false;
      const Datum v = evaluate(e.args[0], values, nulls, st, n);
      isnull = false;
      const bool holds = e.name == "UNKNOWN" ? n : !n && (v != 0) == (e.name == "TRUE");
      return holds != e.negated;
    }
    case TypedExpr::Kind::kParam:
    case TypedExpr::Kind::kSubPlan:
      return evaluate_subquery(e, values, nulls, st, isnull);
  }
  isnull = true;
  return 0;
}

ParamSource*& current_extern_params() {
  thread_local ParamSource* source = nullptr;
  return source;
}

ParamSource*& current_param_source() {
  thread_local ParamSource* source = nullptr;
  return source;
}

double expr_cost_units(const TypedExpr& e) {
  check_stack_depth();
  double units = 0;
  if (e.kind == TypedExpr::Kind::kAnyArray) {
    units += double(e.cost_units) * double(e.args.size() - 1) * 0.5;
  } else if (e.kind == TypedExpr::Kind::kCall || e.kind == TypedExpr::Kind::kNullIf) {
    units += e.cost_units;
  } else if (e.kind == TypedExpr::Kind::kMinMax) {
    units += 1;  // cost_qual_eval counts GREATEST / LEAST as one call
  }
  for (const TypedExpr& a : e.args) units += expr_cost_units(a);
  return units;
}

namespace {

const char* negated_operator(const std::string& op) {
  static const char* const kPairs[][2] = {
      {"=", "<>"}, {"<", ">="}, {">", "<="}, {"~~", "!~~"}, {"~~*", "!~~*"}};
  for (const auto& p : kPairs) {
    if (op == p[0]) return p[1];
    if (op == p[1]) return p[0];
  }
  return nullptr;
}

}  // namespace

TypedExpr negate_expr(TypedExpr e) {
  check_stack_depth();
  switch (e.kind) {
    case TypedExpr::Kind::kCall:
      if (e.negator != nullptr) {
        if (const char* name = negated_operator(e.name)) {
          std::swap(e.fn, e.negator);
          e.name = name;
          return e;
        }
      }
      break;
    case TypedExpr::Kind::kNot:
      return std::move(e.args[0]);
    case TypedExpr::Kind::kAnyArray:
      // NOT (x = ANY (...)) is x <> ALL (...): the negated operator, ANY and ALL swapped.
      if (e.negator != nullptr) {
        if (const char* name = negated_operator(e.name)) {
          std::swap(e.fn, e.negator);
          e.name = name;
          e.negated = !e.negated;
          return e;
        }
      }
      break;
    case TypedExpr::Kind::kIsNull:
    case TypedExpr::Kind::kBoolTest:
      e.negated = !e.negated;
      return e;
    case TypedExpr::Kind::kAnd:
    case TypedExpr::Kind::kOr:
      e.kind = e.kind == TypedExpr::Kind::kAnd ? TypedExpr::Kind::kOr : TypedExpr::Kind::kAnd;
      for (TypedExpr& a : e.args) a = negate_expr(std::move(a));
      return e;
    case TypedExpr::Kind::kConst:
      if (e.type == TypeId::kBool && !e.isnull) {
        e.value = OwnedDatum::by_value(e.value.datum() == 0);
        return e;
      }
      break;
    default:
      break;
  }
  TypedExpr n;
  n.kind = TypedExpr::Kind::kNot;
  n.type = TypeId::kBool;
  n.args.push_back(std::move(e));
  return n;
}

bool expr_is_volatile(const TypedExpr& e) {
  if (e.kind == TypedExpr::Kind::kCall && (e.name == "random" || e.name == "clock_timestamp"))
    return true;
  return std::any_of(e.args.begin(), e.args.end(), expr_is_volatile);
}

void subplan_costs(const TypedExpr& e, double& startup, double& per_call) {
  if (e.kind == TypedExpr::Kind::kSubPlan) {
    startup += e.subplan_startup;
    per_call += e.subplan_per_call;
  }
  for (const TypedExpr& a : e.args) subplan_costs(a, startup, per_call);
}

bool reads_subquery(const TypedExpr& e) {
  if (e.kind == TypedExpr::Kind::kParam || e.kind == TypedExpr::Kind::kSubPlan) return true;
  return std::any_of(e.args.begin(), e.args.end(), reads_subquery);
}

bool reads_plan_value(const TypedExpr& e) {
  if (e.kind == TypedExpr::Kind::kSubPlan) return true;
  if (e.kind == TypedExpr::Kind::kParam && !is_extern_param(e)) return true;
  return std::any_of(e.args.begin(), e.args.end(), reads_plan_value);
}

void expr_slots(const TypedExpr& e, std::vector<uint32_t>& slots) {
  check_stack_depth();
  if (e.kind == TypedExpr::Kind::kColumn &&
      std::find(slots.begin(), slots.end(), e.slot) == slots.end())
    slots.push_back(e.slot);
  for (const TypedExpr& a : e.args) expr_slots(a, slots);
}

}  // namespace tp
