// Scalar values and the expression evaluator used by INSERT sources and
// SELECT without FROM. Types follow PostgreSQL's: int4 and int8 with overflow
// checks, numeric (literals with a decimal point) rounding half away from
// zero, float8 (random()) rounding half to even, text.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "engine/core/heap_tuple.h"
#include "engine/core/random.h"
#include "engine/core/types.h"
#include "engine/sql/ast.h"

namespace tp {

enum class ValueType { kNull, kBool, kInt4, kInt8, kNumeric, kFloat8, kText };

struct Value {
  ValueType type = ValueType::kNull;
  int64_t i = 0;  // Bool, Int4, Int8
  double d = 0;   // Numeric, Float8
  std::string s;  // Text; Numeric: a literal's exact text (empty once computed)

  static Value int4(int64_t v) { return {ValueType::kInt4, v, 0, {}}; }
  static Value int8(int64_t v) { return {ValueType::kInt8, v, 0, {}}; }
  static Value float8(double v) { return {ValueType::kFloat8, 0, v, {}}; }
  static Value numeric(double v) { return {ValueType::kNumeric, 0, v, {}}; }
  static Value text(std::string v) { return {ValueType::kText, 0, 0, std::move(v)}; }
  static Value boolean(bool v) { return {ValueType::kBool, v ? 1 : 0, 0, {}}; }

  // As psql shows it.
  std::string to_string() const;
  bool is_numeric_type() const { return type != ValueType::kText && type != ValueType::kBool; }
};

const char* value_type_name(ValueType t);

// What an expression may refer to while it is evaluated.
struct EvalContext {
  Random* random = nullptr;
  // Resolves a column reference (already bound to an index by the caller).
  std::function<Value(const sql::Expr&)> column;
  // Scalar functions with side effects on the session (setseed).
  std::function<Value(const sql::Expr&, const std::vector<Value>&)> session_function;
  // ::regclass / ::regtype of a value as the object's OID (the catalog views' WHERE,
  // where an oid column is compared with one); unset, the cast gives the name.
  std::function<Value(const sql::Expr& cast, const Value& operand)> oid_of_name;
};

Value evaluate(const sql::Expr& e, EvalContext& ctx);

// Converts a value for storage in a column of type `t` (rounding fractions as
// PostgreSQL's casts do). Throws "integer out of range" and the like.
int64_t value_to_column(const Value& v, ColumnType t, const std::string& column_name);

// A numeric or float8 as a bound on an integer column: its floor and whether a
// fraction remains, exactly for a numeric literal; `beyond` is +1 above every
// bigint (NaN and +Infinity too) and -1 below every bigint, when floor is unused.
struct IntegerBound {
  int64_t floor = 0;
  bool fractional = false;
  int beyond = 0;
};
IntegerBound integer_bound(const Value& v);

// Explicit cast (expr::type).
Value cast_value(const Value& v, const std::string& type);

// ::regtype's input as an OID: a type's name (either of type_of_name's), or a number
// (an OID, as PostgreSQL's regtypein takes one, whether or not a type has it); 42704
// for a name tidepool has no type of.
int64_t regtype_of(const Value& v);

// PostgreSQL's pg_size_pretty.
std::string size_pretty(int64_t bytes);

}  // namespace tp
