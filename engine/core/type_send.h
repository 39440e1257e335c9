// PostgreSQL's binary send and receive functions (pg_type's typsend / typreceive): a
// value in the frontend/backend protocol's binary format, for Bind's binary
// parameters and binary result columns. Integers and floats big-endian, bool one byte,
// date int32 days and timestamp int64 microseconds since 2000-01-01, interval
// (int64 microseconds, int32 days, int32 months), numeric as int16 ndigits, weight,
// sign, dscale and its base-10000 digits, strings their bytes.
//
//   std::string b = datum_send(TypeId::kInt4, 42);            // 00 00 00 2a
//   OwnedDatum v = datum_recv(TypeId::kInt4, kNoTypmod, b);     // 42
#pragma once

#include <string>
#include <string_view>

#include "engine/core/datum_ops.h"

namespace tp {

std::string datum_send(TypeId t, Datum d);
// Throws PostgreSQL's 22P03 for bytes that are not a value of the type (a wrong
// length: "incorrect binary data format"; numeric's invalid sign, digit or scale), and
// 22021 for text that is not UTF-8.
OwnedDatum datum_recv(TypeId t, int32_t typmod, std::string_view bytes);

}  // namespace tp
