#include "engine/sql/column_value.h"

#include "engine/core/error.h"
#include "engine/core/numeric.h"
#include "engine/core/type_io.h"

namespace tp {
namespace {

[[noreturn]] void mismatch(const Value& v, const Column& column) {
  throw Error("column \"" + column.name + "\" is of type " + format_type(column.type, kNoTypmod) +
                  " but expression is of type " + value_type_name(v.type),
              "", "You will need to rewrite or cast the expression.")
      .with_sqlstate(sqlstate::kDatatypeMismatch);
}

// A number's exact text: a numeric literal's own digits, else its computed value.
std::string number_text(const Value& v) {
  if (v.type == ValueType::kNumeric && !v.s.empty()) return v.s;
  return v.to_string();
}

OwnedDatum numeric_datum(const Value& v, const Column& column) {
  switch (v.type) {
    case ValueType::kInt4:
    case ValueType::kInt8:
      return OwnedDatum::by_ref(
          numeric_apply_typmod(numeric_from_int64(v.i).data(), column.typmod));
    case ValueType::kNumeric:
      if (!v.s.empty()) return OwnedDatum::by_ref(numeric_in(v.s, column.typmod));
      [[fallthrough]];
    case ValueType::kFloat8:
      return OwnedDatum::by_ref(
          numeric_apply_typmod(numeric_from_double(v.d).data(), column.typmod));
    default:
      mismatch(v, column);
  }
}

}  // namespace

OwnedDatum column_datum(const Value& v, const Column& column, int64_t now) {
  if (v.type == ValueType::kNull || column.type == TypeId::kInt4 || column.type == TypeId::kInt8)
    return OwnedDatum::by_value(value_to_column(v, column.type, column.name));
  if (v.type == ValueType::kText) return datum_in(column.type, column.typmod, v.s, now);
  switch (column.type) {
    case TypeId::kInt2: {
      if (v.type == ValueType::kBool) mismatch(v, column);
      const int64_t i = value_to_column(v, TypeId::kInt8, column.name);
      if (i < INT16_MIN || i > INT16_MAX) int_errors::out_of_range(2);
      return OwnedDatum::by_value(i);
    }
    case TypeId::kBool:
      if (v.type != ValueType::kBool) mismatch(v, column);
      return OwnedDatum::by_value(v.i != 0 ? 1 : 0);
    case TypeId::kFloat4:
    case TypeId::kFloat8:
      if (v.type == ValueType::kBool) mismatch(v, column);
      // Through the text, as PostgreSQL's numeric and integer casts to float round once.
      return datum_in(column.type, column.typmod, number_text(v), now);
    case TypeId::kNumeric:
      return numeric_datum(v, column);
    case TypeId::kText:
    case TypeId::kVarchar:
    case TypeId::kBpchar: {
      const std::string text =
          v.type == ValueType::kBool ? (v.i ? "true" : "false") : number_text(v);
      return datum_in(column.type, column.typmod, text, now);
    }
    default:
      mismatch(v, column);
  }
}

}  // namespace tp
