#include "scans/qual.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "engine/core/datum_ops.h"
#include "engine/core/stack_depth.h"

namespace tp::scans {

namespace {

// A kExpr clause that is one call over a column and a non-NULL constant, made a
// kColumnCall: the per-row path skips the expression walk.
void column_call(CompiledClause& t) {
  const TypedExpr& e = *t.expr;
  if (e.kind != TypedExpr::Kind::kCall || e.args.size() != 2) return;
  for (int col = 0; col < 2; ++col) {
    const TypedExpr& c = e.args[size_t(col)];
    const TypedExpr& k = e.args[size_t(1 - col)];
    if (c.kind != TypedExpr::Kind::kColumn || k.kind != TypedExpr::Kind::kConst || k.isnull)
      continue;
    t.kind = CompiledClause::Kind::kColumnCall;
    t.column = c.slot;
    t.value = k.value.datum();  // points into *t.expr, which the clause keeps
    t.column_first = col == 0;
    const bool like = e.name == "~~" || e.name == "!~~";
    if (like && col == 0 && (c.type == TypeId::kText || c.type == TypeId::kBpchar)) {
      // A pattern of literal bytes then only '%'s matches the values that start with
      // those bytes (char(n) with its padding, as bpcharlike reads it).
      const std::string_view pattern = varlena_payload(datum_pointer(t.value));
      const size_t wild = pattern.find_first_of("%_\\");
      if (wild != std::string_view::npos && wild > 0 &&
          pattern.find_first_not_of('%', wild) == std::string_view::npos) {
        t.kind = CompiledClause::Kind::kTextPrefix;
        t.prefix = std::string(pattern.substr(0, wild));
        t.negated = e.name[0] == '!';
      }
    }
    return;
  }
}

CompiledClause const_clause(bool v) {
  CompiledClause t;
  t.kind = CompiledClause::Kind::kConst;
  t.value = v ? 1 : 0;
  return t;
}

CompiledClause compile_in(const Clause& c, CompiledClause t) {
  t.kind = CompiledClause::Kind::kIn;
  t.negated = c.negated;
  for (const std::optional<int64_t>& v : c.list) {
    if (!v) {
      if (c.negated) return const_clause(false);  // x NOT IN (.., NULL) is never true
      continue;
    }
    t.list.push_back(*v);
  }
  std::sort(t.list.begin(), t.list.end());
  t.list.erase(std::unique(t.list.begin(), t.list.end()), t.list.end());
  return t;
}

CompiledClause compile(const Clause& c, const HeapTupleLayout& layout, bool& needs_values) {
  using K = Clause::Kind;
  check_stack_depth();
  CompiledClause t;
  auto set_column = [&](int column) {
    t.column = uint32_t(column);
    needs_values = needs_values || !layout.fixed(size_t(column));
    t.offset = layout.offset(size_t(column));
    // Eight bytes: int8, and the timestamps a parameterized recheck compares as integers.
    t.is_int8 = type_info(layout.type(size_t(column))).len == 8;
  };
  switch (c.kind) {
    case K::kCompare:
      // `column = $n` over an InitPlan's value: the typed comparison reads it.
      if (c.param && c.expr) return compile(Clause::expression(*c.expr), layout, needs_values);
      if (!c.value) return const_clause(false);  // comparison with NULL is never true
      t.kind = CompiledClause::Kind::kCompare;
      set_column(c.column);
      t.op = c.op;
      t.value = *c.value;
      return t;
    case K::kBetween: {  // normalize() removes these; kept for completeness
      t.kind = CompiledClause::Kind::kAnd;
      t.args.push_back(compile(Clause::cmp(c.column, CmpOp::kGe, c.lo), layout, needs_values));
      t.args.push_back(compile(Clause::cmp(c.column, CmpOp::kLe, c.hi), layout, needs_values));
      if (!c.negated) return t;
      CompiledClause n;
      n.kind = CompiledClause::Kind::kNot;
      n.args.push_back(std::move(t));
      return n;
    }
    case K::kIn:
      set_column(c.column);
      return compile_in(c, std::move(t));
    case K::kIsNull:
      t.kind = CompiledClause::Kind::kIsNull;
      t.column = uint32_t(c.column);
      t.negated = c.negated;
      return t;
    case K::kAnd:
    case K::kOr:
      t.kind = c.kind == K::kAnd ? CompiledClause::Kind::kAnd : CompiledClause::Kind::kOr;
      for (const Clause& a : c.args) t.args.push_back(compile(a, layout, needs_values));
      return t;
    case K::kNot:
      t.kind = CompiledClause::Kind::kNot;
      t.args.push_back(compile(c.args[0], layout, needs_values));
      return t;
    case K::kBool:
      return const_clause(c.value && *c.value != 0);
    case K::kExpr:
      t.kind = CompiledClause::Kind::kExpr;
      t.expr = c.expr;
      needs_values = true;
      column_call(t);
      return t;
  }
  return const_clause(false);
}

}  // namespace

Truth CompiledClause::evaluate_values(const Datum* values, const bool* isnull,
                                      EvalState& st) const {
  auto truth = [](bool b) { return b ? Truth::kTrue : Truth::kFalse; };
  switch (kind) {
    case Kind::kCompare:
      if (isnull[column]) return Truth::kUnknown;
      return truth(cmp_holds(op, values[column], value));
    case Kind::kIn:
      if (isnull[column]) return Truth::kUnknown;
      return truth(std::binary_search(list.begin(), list.end(), values[column]) != negated);
    case Kind::kIsNull:
      return truth(isnull[column] != negated);
    case Kind::kAnd: {
      Truth r = Truth::kTrue;
      for (const CompiledClause& c : args) {
        const Truth t = c.evaluate_values(values, isnull, st);
        if (t == Truth::kFalse) return t;
        if (t == Truth::kUnknown) r = t;
      }
      return r;
    }
    case Kind::kOr: {
      Truth r = Truth::kFalse;
      for (const CompiledClause& c : args) {
        const Truth t = c.evaluate_values(values, isnull, st);
        if (t == Truth::kTrue) return t;
        if (t == Truth::kUnknown) r = t;
      }
      return r;
    }
    case Kind::kNot: {
      const Truth t = args[0].evaluate_values(values, isnull, st);
      return t == Truth::kUnknown ? t : truth(t == Truth::kFalse);
    }
    case Kind::kConst:
      return truth(value != 0);
    case Kind::kColumnCall: {
      if (isnull[column]) return Truth::kUnknown;
      const Datum args[2] = {column_first ? values[column] : value,
                             column_first ? value : values[column]};
      const Datum v = expr->fn(args, *expr, st);
      if (st.null_result) {
        st.null_result = false;
        return Truth::kUnknown;
      }
      return truth(v != 0);
    }
    case Kind::kTextPrefix: {
      if (isnull[column]) return Truth::kUnknown;
      const std::string_view v = varlena_payload(datum_pointer(values[column]));
      const bool starts =
          v.size() >= prefix.size() && std::memcmp(v.data(), prefix.data(), prefix.size()) == 0;
      return truth(starts != negated);
    }
    case Kind::kParamCompare:
      if (isnull[column] || negated) return Truth::kUnknown;
      return truth(cmp_holds(op, compare_datums(type, values[column], Datum(value)), 0));
    case Kind::kExpr: {
      bool n = false;
      const Datum v = tp::evaluate(*expr, values, isnull, st, n);
      return n ? Truth::kUnknown : truth(v != 0);
    }
  }
  return Truth::kFalse;
}

namespace {

// One past the highest table column `c` reads.
size_t columns_read(const Clause& c) {
  size_t n = c.column >= 0 ? size_t(c.column) + 1 : 0;
  if (c.kind == Clause::Kind::kExpr && c.expr) {
    std::vector<uint32_t> slots;
    expr_slots(*c.expr, slots);
    for (uint32_t s : slots) n = std::max(n, size_t(s) + 1);
  }
  for (const Clause& a : c.args) n = std::max(n, columns_read(a));
  return n;
}

}  // namespace

CompiledQual compile_qual(std::span<const Clause> clauses, const HeapTupleLayout& layout) {
  CompiledQual qual;
  for (const Clause& c : clauses) {
    qual.clauses.push_back(compile(c, layout, qual.needs_values));
    qual.deform_columns = std::max(qual.deform_columns, columns_read(c));
  }
  return qual;
}

}  // namespace tp::scans
