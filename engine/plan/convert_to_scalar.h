// PostgreSQL 15's convert_to_scalar (selfuncs.c): a value and the two histogram bounds
// around it mapped onto one numeric scale, so the estimator can interpolate where the
// value falls in its bucket. Numbers map to themselves, dates and timestamps to
// microseconds, an interval to microseconds with a month of 365.25 / 12 days, and
// strings (the "C" collation) to base-N fractions of their first 12 bytes after the
// prefix all three share, N spanning the characters the bounds use.
//
//   double v, lo, hi;
//   convert_to_scalar(TypeId::kText, value, bound_lo, bound_hi, v, lo, hi);
#pragma once

#include "engine/core/datum.h"
#include "engine/core/types.h"

namespace tp {

// False for a type without a scalar scale (the caller takes the bucket's middle).
// The three values are Datums of type `t`.
bool convert_to_scalar(TypeId t, Datum value, Datum lo, Datum hi, double& scaled_value,
                       double& scaled_lo, double& scaled_hi);

}  // namespace tp
