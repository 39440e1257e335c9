// The Aggregate's transitions for inputs other than int4 and int8 (AggSpec::typed), as
// PostgreSQL 15's aggregates over those types: count of any type; min and max by the
// type's btree order (text byte-wise, numeric by value); sum and avg of smallint (in
// 128 bits: sum is bigint, avg numeric), of numeric (exact, the inputs' largest scale),
// of real and double precision (float4pl / float8pl sums with their overflow errors,
// avg in double precision). Partial states cross a Gather in the five slots a Partial
// Aggregate gives each aggregate: count, the value (min / max, the numeric sum as a
// by-reference Datum, or the float sum's bits), the 128-bit integer sum.
#pragma once

#include <string>

#include "scans/row_batch.h"
#include "scans/sort_limit_agg.h"

namespace tp::scans {

// Adds one non-NULL input value.
void typed_accumulate(AggState& st, const AggSpec& spec, Datum v);

// Once the input has ended: a numeric sum's integer part folded into `bytes`, where the
// result and a partial state read it.
void typed_settle(AggState& st, const AggSpec& spec);

// The state's current min / max (valid once count > 0).
Datum typed_extreme(const AggState& st, TypeId type);

// A Partial Aggregate's state into its five slots (`batch` row `row` at `first`; its
// by-reference value copied into the batch's arena), and a Finalize's combination.
void typed_put_state(const AggState& st, const AggSpec& spec, RowBatch& batch, uint32_t first,
                     uint32_t row = 0);
void typed_combine(AggState& st, const AggSpec& spec, const Datum* in);

// The type of the value slot typed_put_state fills (for the Partial Aggregate's RowShape).
TypeId typed_state_type(const AggSpec& spec);

}  // namespace tp::scans
