// Real (float4) and double precision (float8) as PostgreSQL 15 reads, prints, computes and
// compares them: float4in/float8in, float4out/float8out at extra_float_digits = 1 (its
// default: the shortest text that reads back as the same value), the + - * / operators with
// their overflow, underflow and division-by-zero errors, and the btree ordering in which NaN
// equals itself and sorts above every other value, infinity included.
//
//   double d = float8_in(" 1.5e300 ");           // "1e400" throws 22003, "abc" 22P02
//   float8_out(1e15) == "1e+15", float8_out(1e14) == "100000000000000"
//   float4_out(1e6f) == "1e+06", float4_out(100000.f) == "100000"
//   float_mul(1e200, 1e200);                     // throws "value out of range: overflow"
//   float_cmp(NAN, INFINITY) == 1
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace tp {

// Leading and trailing whitespace, then what C's strtod/strtof accept in the C locale
// (decimal or hexadecimal, "NaN", "Infinity", "inf", any case). Out of range (the value
// rounds to infinity, or to zero from a nonzero number) is 22003; subnormals are kept.
float float4_in(std::string_view text);
double float8_in(std::string_view text);

// The fewest significant digits that read back as the value, never a decimal exactly
// halfway to a neighbour (1e23 prints as 9.999999999999999e+22, as PostgreSQL's does).
// Fixed notation when the decimal exponent is in [-4, 15) for double precision, [-4, 6)
// for real, else d.ddde+XX; "NaN", "Infinity", "-Infinity", "-0". The buffer forms write
// no terminator and return the length.
// extra_float_digits at 0 or below (this thread's statement's, set_extra_float_digits):
// printf's %g with 15 + it (real: 6 + it) significant digits, as PostgreSQL prints then.
inline constexpr size_t kFloatOutMax = 32;
void set_extra_float_digits(int digits);
size_t float4_out(float value, char* buf);
size_t float8_out(double value, char* buf);
std::string float4_out(float value);
std::string float8_out(double value);

namespace float_errors {
[[noreturn]] void overflow();   // "value out of range: overflow", 22003
[[noreturn]] void underflow();  // "value out of range: underflow", 22003
[[noreturn]] void division_by_zero();
}  // namespace float_errors

// A finite operand pair giving infinity overflows; a product or quotient of nonzero
// finite operands giving zero underflows. Infinite and NaN operands pass through.
template <typename F>
F float_add(F a, F b) {
  const F r = a + b;
  if (__builtin_isinf(r) && !__builtin_isinf(a) && !__builtin_isinf(b)) float_errors::overflow();
  return r;
}

template <typename F>
F float_sub(F a, F b) {
  const F r = a - b;
  if (__builtin_isinf(r) && !__builtin_isinf(a) && !__builtin_isinf(b)) float_errors::overflow();
  return r;
}

template <typename F>
F float_mul(F a, F b) {
  const F r = a * b;
  if (__builtin_isinf(r) && !__builtin_isinf(a) && !__builtin_isinf(b)) float_errors::overflow();
  if (r == F(0) && a != F(0) && b != F(0)) float_errors::underflow();
  return r;
}

// Zero divisors are an error unless the dividend is NaN (NaN / 0 is NaN).
template <typename F>
F float_div(F a, F b) {
  if (b == F(0) && !__builtin_isnan(a)) float_errors::division_by_zero();
  const F r = a / b;
  if (__builtin_isinf(r) && !__builtin_isinf(a)) float_errors::overflow();
  if (r == F(0) && a != F(0) && !__builtin_isinf(b)) float_errors::underflow();
  return r;
}

// -1, 0 or 1. -0 equals 0; NaN equals NaN and is greater than everything else.
template <typename F>
int float_cmp(F a, F b) {
  if (__builtin_isnan(a)) return __builtin_isnan(b) ? 0 : 1;
  if (__builtin_isnan(b)) return -1;
  return a > b ? 1 : a < b ? -1 : 0;
}

}  // namespace tp
