// A value computed by a row source (VALUES, SELECT without FROM, generate_series) into
// a column's stored type, as INSERT's assignment does in PostgreSQL: a string goes
// through the column type's input function with its typmod (an unknown-typed literal
// in PostgreSQL: '2026-12-05' into a date, '' into char(84) padded to 84 blanks); a
// number is cast (numeric literals exactly from their text, rounded to numeric(p, s));
// any value goes into a string column as its text (PostgreSQL's assignment casts to
// text), "value too long" when it does not fit varchar(n) / char(n). What PostgreSQL
// refuses is 42804 "column ... is of type ... but expression is of type ...".
//
//   OwnedDatum d = column_datum(Value::text("abc"), {"c", TypeId::kBpchar, length_typmod(5)}, now);
//   // 'abc  ' with a 4-byte varlena header
#pragma once

#include <cstdint>

#include "engine/core/datum_ops.h"
#include "engine/core/heap_tuple.h"
#include "engine/sql/value.h"

namespace tp {

// `now`: the statement's time ('now', 'today'). A NULL is refused as value_to_column
// refuses it (tidepool's columns hold no NULLs yet).
OwnedDatum column_datum(const Value& v, const Column& column, int64_t now);

}  // namespace tp
