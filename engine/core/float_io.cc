#include "engine/core/float_io.h"

#include <locale.h>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "engine/core/error.h"

namespace tp {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

char ascii_lower(char c) {
  return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
}

// Whether the terminated string `s` begins with `word`, ignoring ASCII case.
bool starts_with_nocase(const char* s, const char* word) {
  for (; *word != '\0'; ++s, ++word)
    if (*s == '\0' || ascii_lower(*s) != ascii_lower(*word)) return false;
  return true;
}

// strtod's decimal point follows LC_NUMERIC; input must not depend on the process locale.
locale_t c_locale() {
  static const locale_t loc = newlocale(LC_ALL_MASK, "C", locale_t(nullptr));
  return loc;
}

struct FloatType {
  const char* name;
  // real names the whole input in its out-of-range error, double precision only the
  // number strtod read.
  bool range_error_quotes_number;
};

[[noreturn]] void invalid_syntax(const FloatType& type, std::string_view text) {
  throw Error("invalid input syntax for type " + std::string(type.name) + ": \"" +
              std::string(text) + "\"")
      .with_sqlstate(sqlstate::kInvalidTextRepresentation);
}

[[noreturn]] void out_of_range(const FloatType& type, std::string_view quoted) {
  throw Error("\"" + std::string(quoted) + "\" is out of range for type " + type.name)
      .with_sqlstate(sqlstate::kNumericValueOutOfRange);
}

// The spellings of NaN and infinity some C libraries' strtod lack, tried when it fails.
// Returns the length matched, 0 for none.
template <typename F>
size_t parse_special(const char* s, F* out) {
  struct Special {
    const char* word;
    F value;
  };
  const F inf = std::numeric_limits<F>::infinity();
  const Special specials[] = {{"NaN", std::numeric_limits<F>::quiet_NaN()},
                              {"Infinity", inf},
                              {"+Infinity", inf},
                              {"-Infinity", -inf},
                              {"inf", inf},
                              {"+inf", inf},
                              {"-inf", -inf}};
  for (const Special& sp : specials) {
    if (starts_with_nocase(s, sp.word)) {
      *out = sp.value;
      return std::strlen(sp.word);
    }
  }
  return 0;
}

template <typename F>
F strto(const char* s, char** end) {
  if constexpr (sizeof(F) == 4) {
    return strtof_l(s, end, c_locale());
  } else {
    return strtod_l(s, end, c_locale());
  }
}

template <typename F>
F parse_float(std::string_view text, const FloatType& type) {
  // strtod needs a terminated string; a NUL inside the text could never reach
  // PostgreSQL's input function, so it is simply malformed here.
  if (text.find('\0') != std::string_view::npos) invalid_syntax(type, text);
  std::string copy(text);
  char* num = copy.data();
  while (*num != '\0' && is_space(*num)) ++num;
  if (*num == '\0') invalid_syntax(type, text);

  errno = 0;
  char* end = nullptr;
  F value = strto<F>(num, &end);
  if (end == num || errno != 0) {
    const int err = errno;
    if (const size_t n = parse_special(num, &value); n > 0) {
      end = num + n;
    } else if (err == ERANGE) {
      // ERANGE also flags subnormal results, which are kept; only a result of zero or
      // infinity is a real range error.
      if (value == F(0) || std::isinf(value)) {
        out_of_range(
            type, type.range_error_quotes_number ? std::string_view(num, size_t(end - num)) : text);
      }
    } else {
      invalid_syntax(type, text);
    }
  }
  while (*end != '\0' && is_space(*end)) ++end;
  if (*end != '\0') invalid_syntax(type, text);
  return value;
}

// A decimal d × 10^k with d's digits as text.
struct Decimal {
  char digits[20];
  size_t ndigits = 0;
  int exponent = 0;  // of the first digit: d.ddd × 10^exponent
  bool negative = false;
};

// Parses std::to_chars' scientific form, [-]d[.ddd]e(+|-)XX, dropping trailing zeros.
Decimal read_scientific(const char* s, const char* end) {
  Decimal dec;
  if (*s == '-') {
    dec.negative = true;
    ++s;
  }
  for (; *s != 'e'; ++s)
    if (*s != '.') dec.digits[dec.ndigits++] = *s;
  while (dec.ndigits > 1 && dec.digits[dec.ndigits - 1] == '0') --dec.ndigits;
  std::from_chars(s[1] == '+' ? s + 2 : s + 1, end, dec.exponent);
  return dec;
}

// Whether the decimal equals odd × 2^exp2 exactly. Both sides are split into an odd part
// and a power of two; 10^k contributes 5^k to the odd part and k to the power.
bool decimal_equals(const Decimal& dec, uint64_t odd, int exp2) {
  uint64_t d = 0;
  for (size_t i = 0; i < dec.ndigits; ++i) d = d * 10 + uint64_t(dec.digits[i] - '0');
  if (d == 0) return false;
  const int k = dec.exponent - int(dec.ndigits - 1);
  const int twos = __builtin_ctzll(d);
  unsigned __int128 lhs_odd = d >> twos;
  for (int i = 0; i < k; ++i) {
    lhs_odd *= 5;
    if (lhs_odd > odd) return false;
  }
  for (int i = 0; i > k; --i) {
    if (lhs_odd % 5 != 0) return false;
    lhs_odd /= 5;
  }
  return lhs_odd == odd && twos + k == exp2;
}

// Whether the decimal lies exactly halfway between `value` and a neighbour. Such a
// decimal reads back as `value` only under round-half-even, and PostgreSQL's shortest
// output does not count on that, so it prints more digits instead.
template <typename F>
bool is_halfway(F value, const Decimal& dec) {
  constexpr int kFracBits = std::numeric_limits<F>::digits - 1;
  constexpr int kBias = std::numeric_limits<F>::max_exponent - 1 + kFracBits;
  uint64_t bits;
  if constexpr (sizeof(F) == 4) {
    uint32_t b;
    std::memcpy(&b, &value, 4);
    bits = b & 0x7fffffffu;
  } else {
    std::memcpy(&bits, &value, 8);
    bits &= ~(uint64_t(1) << 63);
  }
  const uint64_t frac = bits & ((uint64_t(1) << kFracBits) - 1);
  const int biased = int(bits >> kFracBits);
  const uint64_t m = biased == 0 ? frac : frac | (uint64_t(1) << kFracBits);
  const int e = (biased == 0 ? 1 : biased) - kBias;
  // Below a power of two the gap to the lower neighbour is half as wide.
  const bool narrow_below = frac == 0 && biased > 1;
  const bool at_lower =
      narrow_below ? decimal_equals(dec, 4 * m - 1, e - 2) : decimal_equals(dec, 2 * m - 1, e - 1);
  return at_lower || decimal_equals(dec, 2 * m + 1, e - 1);
}

// The shortest decimal that reads back as `value` without relying on a halfway
// rounding: std::to_chars' shortest, else the correctly rounded decimal of the fewest
// more digits that qualifies.
template <typename F>
Decimal shortest_decimal(F value) {
  char text[kFloatOutMax + 16];
  char* end = std::to_chars(text, text + sizeof text, value, std::chars_format::scientific).ptr;
  Decimal dec = read_scientific(text, end);
  if (!is_halfway(value, dec)) return dec;
  const size_t shortest = dec.ndigits;
  for (int digits = int(shortest) + 1; digits <= std::numeric_limits<F>::max_digits10; ++digits) {
    end = std::to_chars(text, text + sizeof text, value, std::chars_format::scientific, digits - 1)
              .ptr;
    *end = '\0';  // strtod reads it back
    dec = read_scientific(text, end);
    if (strto<F>(text, nullptr) == value && !is_halfway(value, dec)) break;
  }
  return dec;
}

// Laid out as PostgreSQL prints it: fixed notation for decimal exponents in
// [-4, fixed_limit), else d.ddde+XX with at least two exponent digits.
template <typename F>
size_t format_float(F value, int fixed_limit, char* buf) {
  if (std::isnan(value)) {
    std::memcpy(buf, "NaN", 3);
    return 3;
  }
  if (std::isinf(value)) {
    const char* s = value < 0 ? "-Infinity" : "Infinity";
    std::memcpy(buf, s, std::strlen(s));
    return std::strlen(s);
  }
  const Decimal dec = shortest_decimal(value);
  const char* digits = dec.digits;
  const size_t ndigits = dec.ndigits;
  const int exponent = dec.exponent;
  size_t n = 0;
  if (dec.negative) buf[n++] = '-';
  if (exponent >= -4 && exponent < fixed_limit) {
    if (exponent < 0) {
      buf[n++] = '0';
      buf[n++] = '.';
      for (int i = -1; i > exponent; --i) buf[n++] = '0';
      for (size_t i = 0; i < ndigits; ++i) buf[n++] = digits[i];
    } else {
      const size_t int_digits = size_t(exponent) + 1;
      for (size_t i = 0; i < int_digits; ++i) buf[n++] = i < ndigits ? digits[i] : '0';
      if (ndigits > int_digits) {
        buf[n++] = '.';
        for (size_t i = int_digits; i < ndigits; ++i) buf[n++] = digits[i];
      }
    }
    return n;
  }
  buf[n++] = digits[0];
  if (ndigits > 1) {
    buf[n++] = '.';
    for (size_t i = 1; i < ndigits; ++i) buf[n++] = digits[i];
  }
  buf[n++] = 'e';
  buf[n++] = exponent < 0 ? '-' : '+';
  const int magnitude = exponent < 0 ? -exponent : exponent;
  if (magnitude < 10) buf[n++] = '0';
  n += size_t(std::to_chars(buf + n, buf + kFloatOutMax, magnitude).ptr - (buf + n));
  return n;
}

}  // namespace

float float4_in(std::string_view text) {
  return parse_float<float>(text, {"real", false});
}

double float8_in(std::string_view text) {
  return parse_float<double>(text, {"double precision", true});
}

namespace {
thread_local int extra_float_digits = 1;

// PostgreSQL's output at extra_float_digits <= 0: "%.*g"; NaN and the infinities spelt
// as always.
size_t format_with_digits(double value, int digits, char* buf) {
  if (std::isnan(value) || std::isinf(value)) return 0;
  const int n = std::snprintf(buf, kFloatOutMax, "%.*g", digits, value);
  return n > 0 ? size_t(n) : 0;
}
}  // namespace

void set_extra_float_digits(int digits) {
  extra_float_digits = digits;
}

size_t float4_out(float value, char* buf) {
  if (extra_float_digits <= 0)
    if (size_t n = format_with_digits(value, 6 + extra_float_digits, buf)) return n;
  return format_float(value, 6, buf);
}

size_t float8_out(double value, char* buf) {
  if (extra_float_digits <= 0)
    if (size_t n = format_with_digits(value, 15 + extra_float_digits, buf)) return n;
  return format_float(value, 15, buf);
}

std::string float4_out(float value) {
  char buf[kFloatOutMax];
  return std::string(buf, float4_out(value, buf));
}

std::string float8_out(double value) {
  char buf[kFloatOutMax];
  return std::string(buf, float8_out(value, buf));
}

namespace float_errors {

void overflow() {
  throw Error("value out of range: overflow").with_sqlstate(sqlstate::kNumericValueOutOfRange);
}

void underflow() {
  throw Error("value out of range: underflow").with_sqlstate(sqlstate::kNumericValueOutOfRange);
}

void division_by_zero() {
  throw Error("division by zero").with_sqlstate(sqlstate::kDivisionByZero);
}

}  // namespace float_errors

}  // namespace tp
