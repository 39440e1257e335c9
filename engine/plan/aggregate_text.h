// The select list's aggregates as psql prints them: each aggregate's result type
// (PostgreSQL's: count -> bigint, sum(int4) -> bigint, sum(int8) and avg -> numeric,
// min/max keep the column's type) and the text of its result.
#pragma once

#include <cstdint>
#include <string>

#include "engine/core/heap_tuple.h"
#include "engine/core/value_arena.h"
#include "scans/sort_limit_agg.h"

namespace tp {

// The SQL type of an output column, which decides how it prints.
enum class OutputType { kInt4, kInt8, kNumeric };

// One aggregate of the select list.
struct OutputAggregate {
  scans::AggKind kind = scans::AggKind::kCountStar;
  ColumnType input = ColumnType::kInt4;  // the argument's column type
  OutputType type = OutputType::kInt8;
  TypeId result = TypeId::kInt8;  // PostgreSQL's result type (max(varchar) is text)
  int width = 8;                  // EXPLAIN's width of it (get_typavgwidth, no typmod)
};

// The aggregate of `kind` over a column of type `input` (count(*): Int8), with its
// PostgreSQL result type.
OutputAggregate output_aggregate(scans::AggKind kind, ColumnType input);

// The text of one aggregate result as psql prints it (avg: PostgreSQL's numeric division
// scale). Empty for NULL (no input rows): aggregate_is_null tells it from an empty text.
std::string format_aggregate(const OutputAggregate& agg, const scans::AggState& state);

bool aggregate_is_null(const OutputAggregate& agg, const scans::AggState& state);

// The result as a value of the aggregate's SQL type (a grouped row's slot), by-reference
// bytes in `arena`; `isnull` for NULL.
Datum aggregate_datum(const OutputAggregate& agg, const scans::AggState& state, ValueArena& arena,
                      bool& isnull);

// PostgreSQL's numeric division num / den (den > 0) with its result scale
// (select_div_scale), rounded half away from zero. For avg().
std::string numeric_div_text(__int128 num, int64_t den);

}  // namespace tp
