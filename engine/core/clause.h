// Clause: a WHERE clause bound to one table's columns, the one form both the planner's
// estimator (engine/plan/selectivity.h) and the executor (scans/qual.h compiles it to
// tuple offsets) read. It is deliberately small: comparisons of a column with a constant,
// BETWEEN, IN lists, IS [NOT] NULL, AND, OR, NOT and the constants TRUE / FALSE over int4
// and int8 columns, so a constant is an int64 (nullopt: SQL NULL); every other boolean
// expression is one kExpr leaf holding its TypedExpr (engine/core/typed_expr.h).
//
//   // WHERE a BETWEEN 1000 AND 5000 AND c = 7, with a, c columns 0 and 2
//   Clause w = Clause::and_of({Clause::between(0, 1000, 5000), Clause::cmp(2, CmpOp::kEq, 7)});
//   std::vector<Clause> list = restriction_clauses(w);  // a >= 1000, a <= 5000, c = 7
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/typed_expr.h"

namespace tp {

enum class CmpOp : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };

// `const op column` is `column commute(op) const`.
CmpOp commute(CmpOp op);
// NOT (column op const) is `column negate(op) const`.
CmpOp negate(CmpOp op);
// "=", "<>", "<", "<=", ">", ">=".
const char* cmp_op_name(CmpOp op);
// The comparison an operator name is ("=", "<>", "<", "<=", ">", ">="), or none.
std::optional<CmpOp> cmp_op_of_name(const std::string& name);

// `a op b`.
inline bool cmp_holds(CmpOp op, int64_t a, int64_t b) {
  switch (op) {
    case CmpOp::kEq:
      return a == b;
    case CmpOp::kNe:
      return a != b;
    case CmpOp::kLt:
      return a < b;
    case CmpOp::kLe:
      return a <= b;
    case CmpOp::kGt:
      return a > b;
    case CmpOp::kGe:
      return a >= b;
  }
  return false;
}

// A comparison PostgreSQL makes in numeric: an integer column against a numeric
// constant (`a < 2.5`, `a IN (1, 2.5)`, `b < 9223372036854775808`) is
// `(a)::numeric < 2.5` there. The Clause holding it evaluates as the integer clause it
// is equivalent to (`a <= 2`; `a = 2.5` is an empty IN list), but is planned as
// PostgreSQL plans it: no index, no statistics (the default selectivities), the cast
// and the comparison per row.
struct NumericCompare {
  CmpOp op = CmpOp::kEq;  // as written: = / <> for an IN list (= ANY, <> ALL)
  bool array = false;     // an IN list
  size_t elements = 1;    // the list's elements, fractions included
  std::string text;       // the constant as EXPLAIN prints it ("2.5", "'{1,2.5}'::numeric[]")
};

struct Clause {
  enum class Kind : uint8_t {
    kCompare,  // column op value (value nullopt = NULL constant)
    kBetween,  // column BETWEEN lo AND hi (negated: NOT BETWEEN)
    kIn,       // column IN (list)  (negated: NOT IN)
    kIsNull,   // column IS NULL    (negated: IS NOT NULL)
    kAnd,
    kOr,
    kNot,
    kBool,  // constant TRUE / FALSE (value 1 / 0)
    // Any other boolean expression (a column of another type, a function, LIKE, CASE,
    // two columns): one opaque qual over the row's values, `expr`, whose column slots
    // are the table's column numbers.
    kExpr,
  };
  Kind kind = Kind::kBool;
  int column = -1;  // the table column
  CmpOp op = CmpOp::kEq;
  bool negated = false;
  std::optional<int64_t> value;  // kCompare; kBool: 1 or 0
  int64_t lo = 0, hi = 0;
  std::vector<std::optional<int64_t>> list;  // kIn
  std::vector<Clause> args;                  // kAnd / kOr / kNot
  std::optional<NumericCompare> numeric;     // kCompare / kIn: compared in numeric
  std::shared_ptr<const TypedExpr> expr;     // kExpr
  // kCompare written `constant op column` (`5 < a`): the same clause as `a > 5`, but
  // printed as written wherever PostgreSQL keeps the original (a Filter, a Recheck
  // Cond); index conditions print it column first (index_form).
  bool constant_left = false;
  // An index condition made from another clause that the index cannot apply as it is
  // (`t LIKE 'abc%'` searched as t >= 'abc' AND t < 'abd'): that clause. It only
  // narrows the index search, lossily: a bitmap heap scan rechecks the original, and
  // the original stays a Filter.
  std::shared_ptr<const Clause> derived_from;
  // kCompare `column op $param`: a parameterized scan's join clause, its value set at each
  // rescan from the outer row (`value` unused); printed as `param_name`, the outer column
  // (as `param_name op column` when written that way round: `constant_left`).
  std::optional<uint32_t> param;
  std::string param_name;
  // `column = ANY (ARRAY[$1, 7])` of a generic plan: the parameters whose values are the
  // runtime key's list with the constants beside them (`param` is the first parameter;
  // param_name prints the array), and how many elements it was written with.
  std::vector<uint32_t> param_array;
  std::vector<Datum> array_constants;
  size_t array_elements = 0;
  // The param clause as an Index Only Scan prints it: the index's own column, a varchar
  // key without the cast to text an Index Scan's condition shows.
  bool param_key_bare = false;

  // The NULL boolean constant (kBool without a value), which filters as FALSE but stays
  // NULL under NOT.
  static Clause null_constant();
  static Clause cmp(int column, CmpOp op, std::optional<int64_t> value);
  static Clause param_eq(int column, uint32_t param, std::string name);
  static Clause param_cmp(int column, CmpOp op, uint32_t param, std::string name);
  static Clause between(int column, int64_t lo, int64_t hi, bool negated = false);
  static Clause in(int column, std::vector<std::optional<int64_t>> list, bool negated = false);
  static Clause is_null(int column, bool negated = false);
  static Clause and_of(std::vector<Clause> args);
  static Clause or_of(std::vector<Clause> args);
  static Clause not_of(Clause arg);
  static Clause boolean(bool v);
  static Clause expression(TypedExpr e);
};

// The clauses as index conditions print them: the column on the left.
std::vector<Clause> index_form(std::vector<Clause> clauses);

// Rewrites as PostgreSQL does before planning: BETWEEN into a pair of
// comparisons (NOT BETWEEN into an OR), NOT pushed down through AND/OR (De
// Morgan) into negated operators, NOT NOT removed, nested ANDs (and ORs)
// flattened. Contract: the result contains no kNot and no kBetween.
Clause normalize(const Clause& c);

// Splits a WHERE clause into PostgreSQL's list of implicitly ANDed restriction
// clauses (normalized, top-level ANDs flattened, TRUE dropped).
std::vector<Clause> restriction_clauses(const Clause& where);

}  // namespace tp
