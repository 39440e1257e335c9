// The compiled form of a WHERE clause, for the per-row path. The planner binds the WHERE
// clause into tp::Clause (engine/core/clause.h), the form its estimator reads;
// compile_qual() turns a list of those into CompiledClauses whose columns are resolved to
// their byte offset and width inside a heap tuple, so a test is a load and a compare.
// evaluate() on a tuple does no allocation.
//
//   CompiledQual q = compile_qual(restriction_clauses(where), HeapTupleLayout(table.columns));
//   if (q.evaluate(page + item->off)) ...   // the tuple passes every clause
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/core/clause.h"
#include "engine/core/datum.h"
#include "engine/core/heap_tuple.h"
#include "engine/core/typed_expr.h"

namespace tp::scans {

// SQL's three truth values: a comparison with a NULL is unknown, and a row passes a qual
// only when it is true.
enum class Truth : uint8_t { kFalse, kTrue, kUnknown };

// One Clause, compiled. BETWEEN becomes an AND of two comparisons, a comparison with a
// NULL constant a constant false (it is never true), IN lists are sorted. A tuple without
// NULLs is tested at byte offsets (evaluate); one with NULLs, deformed, by its values
// with three-valued logic (evaluate_values).
struct CompiledClause {
  // kParamCompare: a parameterized Bitmap Heap Scan's recheck `key op $n` over a key that
  // is no integer (numeric, text, float8, ...): the column's value against the
  // parameter's Datum, which the scan sets at each open, by the type's btree order.
  // kColumnCall: a typed expression that is one strict call over a column and a
  // non-NULL constant (`price < 5.00`), the function called directly; kTextPrefix: the
  // commonest of those, `t [NOT] LIKE 'abc%'` on text or char(n), a comparison of bytes.
  enum class Kind : uint8_t {
    kCompare,
    kIn,
    kIsNull,
    kAnd,
    kOr,
    kNot,
    kConst,
    kExpr,
    kColumnCall,
    kTextPrefix,
    kParamCompare
  };
  Kind kind = Kind::kConst;
  CmpOp op = CmpOp::kEq;
  bool negated = false;              // kIn: NOT IN; kIsNull: IS NOT NULL; kTextPrefix: NOT LIKE;
                                     // kParamCompare: the parameter is NULL (never true)
  TypeId type = TypeId::kInt4;       // kParamCompare: the column's type
  uint32_t column = 0;               // the column's position in the row
  bool is_int8 = false;              // the column's width: int8 (else int4)
  uint32_t offset = 0;               // the column's byte offset inside the tuple
  int64_t value = 0;                 // kCompare; kConst: 0 / 1; kColumnCall: the constant
  bool column_first = true;          // kColumnCall: the column is the first argument
  std::vector<int64_t> list;         // kIn, sorted and deduplicated
  std::string prefix;                // kTextPrefix
  std::vector<CompiledClause> args;  // kAnd / kOr / kNot
  std::shared_ptr<const TypedExpr> expr;  // kExpr, kColumnCall: over the deformed row's values

  int64_t load(const char* tuple) const {
    if (is_int8) {
      int64_t v;
      std::memcpy(&v, tuple + offset, 8);
      return v;
    }
    int32_t v;
    std::memcpy(&v, tuple + offset, 4);
    return v;
  }

  // True when the heap tuple passes.
  bool evaluate(const char* tuple) const {
    switch (kind) {
      case Kind::kCompare:
        return cmp_holds(op, load(tuple), value);
      case Kind::kIn:
        return std::binary_search(list.begin(), list.end(), load(tuple)) != negated;
      case Kind::kAnd:
        for (const CompiledClause& c : args)
          if (!c.evaluate(tuple)) return false;
        return true;
      case Kind::kOr:
        for (const CompiledClause& c : args)
          if (c.evaluate(tuple)) return true;
        return false;
      case Kind::kIsNull:
        return negated;  // the tuple has no NULL
      case Kind::kNot:
        return !args[0].evaluate(tuple);
      case Kind::kConst:
        return value != 0;
      case Kind::kExpr:  // CompiledQual::needs_values sends these rows to evaluate_values
      case Kind::kColumnCall:
      case Kind::kTextPrefix:
      case Kind::kParamCompare:
        return false;
    }
    return false;
  }

  // The clause over a deformed row (the table's columns' values, NULL flags).
  Truth evaluate_values(const Datum* values, const bool* isnull, EvalState& st) const;
};

// Implicitly ANDed compiled clauses (PostgreSQL's qual list); empty passes all.
struct CompiledQual {
  std::vector<CompiledClause> clauses;
  // Some clause reads a row's values rather than fixed offsets (a typed expression, an
  // integer column after a variable-length one): every row is deformed for it.
  bool needs_values = false;
  // The leading columns a deformed row needs for it (one past the highest it reads).
  size_t deform_columns = 0;

  bool empty() const { return clauses.empty(); }
  // A tuple without NULLs.
  bool evaluate(const char* tuple) const {
    for (const CompiledClause& c : clauses)
      if (!c.evaluate(tuple)) return false;
    return true;
  }
  // A deformed row: passes when every clause is true.
  bool evaluate_values(const Datum* values, const bool* isnull, EvalState& st) const {
    for (const CompiledClause& c : clauses)
      if (c.evaluate_values(values, isnull, st) != Truth::kTrue) return false;
    return true;
  }
};

// `clauses` (columns of the table `layout` describes) as one per-row qual.
CompiledQual compile_qual(std::span<const Clause> clauses, const HeapTupleLayout& layout);

}  // namespace tp::scans
