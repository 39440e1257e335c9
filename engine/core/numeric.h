// The numeric type's values, computed and stored exactly as PostgreSQL 15 does.
//
// A value is a varlena (engine/core/datum.h) whose payload is PostgreSQL's own form:
//
//   short form (weight in [-64, 63], dscale <= 63): one uint16 header
//       0x8000 | negative << 13 | dscale << 7 | weight as a 7-bit two's complement
//   long form: uint16 sign|dscale (sign 0x0000 or 0x4000, dscale in the low 14 bits),
//       then int16 weight
//   then the digits: int16s in base 10000, most significant first, with no leading or
//   trailing zero digits (zero has none). `weight` is the power of 10000 of the first
//   digit; `dscale` is how many decimal places the value prints with.
//   NaN, Infinity and -Infinity are a lone header 0xC000, 0xD000, 0xF000.
//
// Values are made with a 4-byte varlena header, as in memory; every function reading
// one also takes the 1-byte header a short value has on a page. Errors a user can cause
// throw tp::Error with PostgreSQL's message, detail and SQLSTATE.
//
//   std::string a = numeric_in("12.50", kNoTypmod);   // payload 00 81 0c 00 88 13
//   std::string b = numeric_in("4", kNoTypmod);
//   numeric_out(numeric_div(a.data(), b.data()).data()) == "3.1250000000000000"
//   numeric_in("123.456", numeric_typmod(5, 2))        // throws 22003 numeric field overflow
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tp {

// Text to a value as numeric_in reads it: surrounding whitespace, a sign, digits with at
// most one decimal point, an exponent, or NaN / [+-]Infinity / [+-]inf in any case.
// `typmod` (kNoTypmod or numeric_typmod(p, s)) rounds to the scale and checks the
// precision, as a numeric(p, s) column does.
std::string numeric_in(std::string_view text, int32_t typmod);
// The value as numeric_out prints it: exactly dscale decimal places, no exponent.
std::string numeric_out(const char* varlena);
// A cast to numeric(p, s): rounds and checks as numeric_in's typmod does.
std::string numeric_apply_typmod(const char* varlena, int32_t typmod);

// Arithmetic. add/sub keep the larger dscale; mul the sum of the dscales (rounded to
// 16383 past that); div rounds half away from zero at the scale PostgreSQL picks
// (at least 16 significant digits, at least either operand's dscale, at most 1000);
// mod's result has the sign of the dividend.
std::string numeric_add(const char* a, const char* b);
std::string numeric_sub(const char* a, const char* b);
std::string numeric_mul(const char* a, const char* b);
std::string numeric_div(const char* a, const char* b);
std::string numeric_mod(const char* a, const char* b);
std::string numeric_neg(const char* a);
std::string numeric_abs(const char* a);

// Ordering for sorting and comparing: -Infinity < numbers < Infinity < NaN, and NaN
// equals NaN. Scale does not count: 1.0 = 1.00. Reads the bytes in place.
int numeric_cmp(const char* a, const char* b);
bool numeric_eq(const char* a, const char* b);
bool numeric_is_nan(const char* a);

// Conversions. To an integer rounds half away from zero.
std::string numeric_from_int64(int64_t v);
std::string numeric_from_int32(int32_t v);
std::string numeric_from_int16(int16_t v);
int64_t numeric_to_int64(const char* a);
int32_t numeric_to_int32(const char* a);
int16_t numeric_to_int16(const char* a);
// float8_numeric: the double printed with 15 significant digits, then read as text.
std::string numeric_from_double(double v);
// numeric_float8: the printed value read as a double (out of range throws 22003).
double numeric_to_double(const char* a);

// round/trunc to `scale` decimal places (negative: to tens, hundreds, ...); the result
// prints with max(scale, 0) places. floor, ceil and sign print with none.
std::string numeric_round(const char* a, int32_t scale = 0);
std::string numeric_trunc(const char* a, int32_t scale = 0);
std::string numeric_floor(const char* a);
std::string numeric_ceil(const char* a);
std::string numeric_sign(const char* a);

// A finite value as a count of 10^-dscale units (123.45 -> 12345 at dscale 2) when that
// stays below 10^36; nullopt for NaN, the infinities and anything larger. sum(numeric)
// adds these as integers, as PostgreSQL's NumericSumAccum adds fixed-width digits.
struct ScaledNumeric {
  __int128 units = 0;
  int dscale = 0;
};
std::optional<ScaledNumeric> numeric_to_scaled(const char* varlena);
// `units` x 10^-dscale as a value printing `dscale` places.
std::string numeric_from_scaled(__int128 units, int dscale);
// a + b, a - b or a * b (`op`) when both are finite, fit as scaled units and so does the
// result (below 10^35 units, at most 30 places): written at `out` (kScaledNumericMaxBytes)
// exactly as numeric_add / _sub / _mul would make it; 0 when those must do it.
inline constexpr size_t kScaledNumericMaxBytes = 32;
size_t numeric_scaled_arith(char op, const char* a, const char* b, char* out);
// The same in steps, for an evaluator that keeps intermediate results as units: a value
// as units (false: NaN, an infinity, too large or more than 30 places); x op y as
// numeric_add / _sub / _mul would make it (false when it leaves those bounds: below 10^35
// units, at most 30 places); a result within them written at `out`.
bool numeric_scaled_of(const char* varlena, ScaledNumeric& out);
bool numeric_scaled_combine(char op, const ScaledNumeric& x, const ScaledNumeric& y,
                            ScaledNumeric& out);
size_t numeric_write_scaled(const ScaledNumeric& v, char* out);

// avg's final step from sum() of the values and their count: sum / count with
// numeric_div's scale (avg of integer columns takes the same path). NULL (nullopt) when
// there were no rows.
std::optional<std::string> numeric_avg(const char* sum, int64_t count);

// Shared by numeric.cc and numeric_arith.cc; not for callers.
namespace numeric_detail {

enum class Kind : uint8_t { kFinite, kNaN, kPosInf, kNegInf };

// A value unpacked for computing: the digits as in the stored form, but a computation
// may leave leading or trailing zero digits until strip().
struct Var {
  Kind kind = Kind::kFinite;
  bool negative = false;
  int weight = 0;
  int dscale = 0;
  std::vector<int16_t> digits;

  bool is_special() const { return kind != Kind::kFinite; }
  bool is_zero() const;
};

inline constexpr int kBase = 10000;
inline constexpr int kDecDigits = 4;
inline constexpr int kMaxDscale = 0x3FFF;
inline constexpr int kMinSigDigits = 16;
inline constexpr int kMaxDisplayScale = 1000;

// A stored value read in place: its digits stay in the varlena.
struct StoredView {
  Kind kind = Kind::kFinite;
  bool negative = false;
  int weight = 0;
  int dscale = 0;
  const char* digits = nullptr;
  int ndigits = 0;

  int digit(int i) const {
    int16_t d;
    std::memcpy(&d, digits + 2 * i, 2);
    return d;
  }
  int digit_at_power(int pos) const {
    const int i = weight - pos;
    return (i >= 0 && i < ndigits) ? digit(i) : 0;
  }
};
StoredView view_of(const char* varlena);
// Throws 22003 "value overflows numeric format".
[[noreturn]] void throw_overflow();
// The common case of numeric_to_scaled in 64 bits: a short-header value of at most four
// digits whose count of 10^-dscale units is below 10^17; false for anything else.
bool small_units(const char* varlena, int64_t& units, int& dscale);

Var unpack(const char* varlena);
// A finite value's stored form, 4-byte varlena header first, written at `out` (room for
// kVarlenaHeader + 4 + 2 * n bytes); `digits` without leading or trailing zeros (none,
// weight 0 and not negative for zero). Returns the size.
size_t write_stored(bool negative, int weight, int dscale, const int16_t* digits, int n, char* out);
// The stored form; throws 22003 "value overflows numeric format" when the weight or
// dscale do not fit.
std::string pack(Var v);
Var special(Kind k);
void strip(Var& v);
void round_to(Var& v, int scale);
void trunc_to(Var& v, int scale);
int cmp_values(const Var& a, const Var& b);  // finite values only

Var add_finite(const Var& a, const Var& b);
Var sub_finite(const Var& a, const Var& b);
Var mul_finite(const Var& a, const Var& b);
// a / b at `scale` decimal places, rounded or truncated; b must not be zero.
Var div_finite(const Var& a, const Var& b, int scale, bool round);
int select_div_scale(const Var& a, const Var& b);

}  // namespace numeric_detail

}  // namespace tp
