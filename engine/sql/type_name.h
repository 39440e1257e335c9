// Type names as PostgreSQL 15's grammar reads them (gram.y's Typename): the SQL
// spellings with their modifiers (`character varying(10)`, `numeric(15,2)`,
// `double precision`, `float(24)`, `timestamp(3) without time zone`, `interval day to
// second(2)`) and pg_type's own names (`int4`, `float8`, `"varchar"(4)`), resolved to a
// TypeId and PostgreSQL's atttypmod, with its errors for modifiers out of range.
// A type PostgreSQL has and tidepool does not store (json, time, arrays, ...) is
// refused by name (0A000); a name PostgreSQL does not know is 42704.
//
//   TypeRef t = ...;   // ExprParser::type_name() at "varchar(10)"
//   t.id == TypeId::kVarchar, t.typmod == 14, format_type(t.id, t.typmod) == "character
//   varying(10)"
#pragma once

#include <cstdint>
#include <string>

#include "engine/core/types.h"

namespace tp::sql {

struct TypeRef {
  TypeId id = TypeId::kInt4;
  int32_t typmod = kNoTypmod;
  int position = 0;  // where the name starts in the statement (1-based)
};

}  // namespace tp::sql
