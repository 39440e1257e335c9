// Text input and output of boolean, smallint, integer and bigint exactly as PostgreSQL 15's
// boolin/boolout and int2in .. int8out, and the checked integer arithmetic of its int2,
// int4 and int8 operators (+ - * / % unary minus, @). Bad input and overflow throw
// tp::Error with PostgreSQL's message and SQLSTATE.
//
// Real and double precision live in engine/core/float_io.h; text, varchar(n) and char(n)
// in engine/core/string_types.h. This header includes both, so it is the one to include.
//
//   bool b = bool_in("  Yes ");                  // true; "o" throws 22P02 (ambiguous)
//   int32_t i = int4_in(" -42 ");                // -42; "12a" throws 22P02, "3000000000" 22003
//   int_mul<int16_t>(200, 200);                  // throws "smallint out of range" (22003)
//   int_div<int32_t>(INT32_MIN, -1);             // throws "integer out of range"
//   int_mod<int32_t>(INT32_MIN, -1) == 0
//   int8_out(-7) == "-7"
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

#include "engine/core/float_io.h"
#include "engine/core/string_types.h"

namespace tp {

// boolean: t/true/y/yes/on/1 and f/false/n/no/off/0, any case, any unambiguous prefix of
// the words ("of" is off, "o" is neither), surrounding whitespace ignored.
bool bool_in(std::string_view text);
inline std::string_view bool_out(bool b) {
  return b ? "t" : "f";
}

// Optional whitespace, an optional sign, decimal digits, optional whitespace; nothing
// else (PostgreSQL 15 has no underscores, hex or exponents in integers).
int16_t int2_in(std::string_view text);
int32_t int4_in(std::string_view text);
int64_t int8_in(std::string_view text);

// Decimal text of any integer width. The buffer form writes no terminator and returns the
// length, for output loops that must not allocate.
inline constexpr size_t kIntOutMax = 20;  // "-9223372036854775808"
size_t int_out(int64_t value, char* buf);
std::string int8_out(int64_t value);

template <typename T>
concept SqlInteger =
    std::same_as<T, int16_t> || std::same_as<T, int32_t> || std::same_as<T, int64_t>;

namespace int_errors {
// "smallint out of range" / "integer out of range" / "bigint out of range", 22003.
[[noreturn]] void out_of_range(size_t width_bytes);
// "division by zero", 22012.
[[noreturn]] void division_by_zero();
}  // namespace int_errors

template <SqlInteger T>
T int_add(T a, T b) {
  T r;
  if (__builtin_add_overflow(a, b, &r)) int_errors::out_of_range(sizeof(T));
  return r;
}

template <SqlInteger T>
T int_sub(T a, T b) {
  T r;
  if (__builtin_sub_overflow(a, b, &r)) int_errors::out_of_range(sizeof(T));
  return r;
}

template <SqlInteger T>
T int_mul(T a, T b) {
  T r;
  if (__builtin_mul_overflow(a, b, &r)) int_errors::out_of_range(sizeof(T));
  return r;
}

// Truncates toward zero. The width's minimum divided by -1 has no representation.
template <SqlInteger T>
T int_div(T a, T b) {
  if (b == 0) int_errors::division_by_zero();
  if (b == -1) {
    if (a == std::numeric_limits<T>::min()) int_errors::out_of_range(sizeof(T));
    return T(-a);
  }
  return T(a / b);
}

// Sign follows the dividend. x % -1 is 0 for every x, the minimum included (the
// hardware would trap on it, so it never reaches the division).
template <SqlInteger T>
T int_mod(T a, T b) {
  if (b == 0) int_errors::division_by_zero();
  if (b == -1) return 0;
  return T(a % b);
}

template <SqlInteger T>
T int_neg(T a) {
  if (a == std::numeric_limits<T>::min()) int_errors::out_of_range(sizeof(T));
  return T(-a);
}

template <SqlInteger T>
T int_abs(T a) {
  if (a == std::numeric_limits<T>::min()) int_errors::out_of_range(sizeof(T));
  return a < 0 ? T(-a) : a;
}

}  // namespace tp
