// numeric's stored form, text input and output, typmods, the SQL-level operators with
// their NaN and Infinity rules, conversions and rounding functions. The digit-level
// arithmetic is in numeric_arith.cc.
#include "engine/core/numeric.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "engine/core/datum.h"
#include "engine/core/error.h"
#include "engine/core/types.h"

namespace tp {

using numeric_detail::add_finite;
using numeric_detail::div_finite;
using numeric_detail::kBase;
using numeric_detail::kDecDigits;
using numeric_detail::Kind;
using numeric_detail::kMaxDscale;
using numeric_detail::mul_finite;
using numeric_detail::pack;
using numeric_detail::round_to;
using numeric_detail::select_div_scale;
using numeric_detail::special;
using numeric_detail::StoredView;
using numeric_detail::strip;
using numeric_detail::sub_finite;
using numeric_detail::unpack;
using numeric_detail::Var;
using numeric_detail::view_of;

namespace {

Error division_by_zero() {
  return Error("division by zero").with_sqlstate(sqlstate::kDivisionByZero);
}

Error invalid_syntax(std::string_view text) {
  return Error("invalid input syntax for type numeric: \"" + std::string(text) + "\"")
      .with_sqlstate(sqlstate::kInvalidTextRepresentation);
}

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool starts_with_nocase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    const auto a = char(std::tolower(static_cast<unsigned char>(s[i])));
    const auto b = char(std::tolower(static_cast<unsigned char>(prefix[i])));
    if (a != b) return false;
  }
  return true;
}

// An exponent as strtol reads one: leading whitespace, a sign, digits. Saturates far
// beyond the range numeric accepts.
bool read_exponent(std::string_view s, size_t& i, int64_t& exponent) {
  size_t j = i;
  while (j < s.size() && is_space(s[j])) ++j;
  bool negative = false;
  if (j < s.size() && (s[j] == '+' || s[j] == '-')) negative = s[j++] == '-';
  if (j >= s.size() || !is_digit(s[j])) return false;
  int64_t v = 0;
  for (; j < s.size() && is_digit(s[j]); ++j)
    v = std::min<int64_t>(v * 10 + (s[j] - '0'), 1LL << 40);
  exponent = negative ? -v : v;
  i = j;
  return true;
}

// Decimal digits at decimal weight `dweight` (the power of ten of the first one) into
// base-10000 digits.
void set_digits_from_decimal(Var& v, const std::string& dec, int dweight) {
  const int weight =
      dweight >= 0 ? (dweight + kDecDigits) / kDecDigits - 1 : -((-dweight - 1) / kDecDigits + 1);
  // Zeros in front so the first decimal digit lands in its place in a base-10000 digit.
  const int lead = (weight + 1) * kDecDigits - (dweight + 1);
  std::string padded(size_t(lead), '\0');
  for (char c : dec) padded.push_back(char(c - '0'));
  padded.resize((padded.size() + kDecDigits - 1) / kDecDigits * kDecDigits, '\0');
  v.weight = weight;
  v.digits.resize(padded.size() / kDecDigits);
  for (size_t d = 0; d < v.digits.size(); ++d) {
    const char* p = padded.data() + d * kDecDigits;
    v.digits[d] = int16_t(((p[0] * 10 + p[1]) * 10 + p[2]) * 10 + p[3]);
  }
  strip(v);
}

// A finite number at text[i...]: sign, digits with an optional point, exponent. `i` ends
// after it; whole `text` is quoted in the syntax error.
Var parse_number(std::string_view text, size_t& i) {
  Var v;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) v.negative = text[i++] == '-';
  bool have_point = false;
  if (i < text.size() && text[i] == '.') {
    have_point = true;
    ++i;
  }
  if (i >= text.size() || !is_digit(text[i])) throw invalid_syntax(text);
  std::string dec;
  int dweight = -1, dscale = 0;
  for (; i < text.size(); ++i) {
    if (is_digit(text[i])) {
      dec.push_back(text[i]);
      if (have_point)
        ++dscale;
      else
        ++dweight;
    } else if (text[i] == '.') {
      if (have_point) throw invalid_syntax(text);
      have_point = true;
    } else {
      break;
    }
  }
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    int64_t exponent = 0;
    if (!read_exponent(text, i, exponent)) throw invalid_syntax(text);
    constexpr int64_t kExponentLimit = INT32_MAX / 2;
    if (exponent >= kExponentLimit || exponent <= -kExponentLimit) numeric_detail::throw_overflow();
    dweight += int(exponent);
    dscale = std::max(dscale - int(exponent), 0);
  }
  v.dscale = dscale;
  set_digits_from_decimal(v, dec, dweight);
  return v;
}

std::string special_text(Kind k) {
  return k == Kind::kNaN ? "NaN" : k == Kind::kPosInf ? "Infinity" : "-Infinity";
}

std::string out_text(const Var& v) {
  if (v.is_special()) return special_text(v.kind);
  std::string s;
  if (v.negative) s.push_back('-');
  auto digit = [&](int i) { return (i >= 0 && i < int(v.digits.size())) ? int(v.digits[i]) : 0; };
  char four[8];
  if (v.weight < 0) {
    s.push_back('0');
  } else {
    s += std::to_string(digit(0));  // no leading zeros in the first digit
    for (int d = 1; d <= v.weight; ++d) {
      std::snprintf(four, sizeof four, "%04d", digit(d));
      s += four;
    }
  }
  if (v.dscale > 0) {
    s.push_back('.');
    const size_t end = s.size() + size_t(v.dscale);
    for (int d = v.weight + 1; s.size() < end; ++d) {
      std::snprintf(four, sizeof four, "%04d", digit(d));
      s += four;
    }
    s.resize(end);
  }
  return s;
}

bool is_valid_typmod(int32_t typmod) {
  return typmod >= kVarHeaderSize;
}

void check_special_fits(Kind k, int32_t typmod) {
  if (k == Kind::kNaN || !is_valid_typmod(typmod)) return;
  throw Error("numeric field overflow",
              "A field with precision " + std::to_string(numeric_typmod_precision(typmod)) +
                  ", scale " + std::to_string(numeric_typmod_scale(typmod)) +
                  " cannot hold an infinite value.")
      .with_sqlstate(sqlstate::kNumericValueOutOfRange);
}

// Rounds to the typmod's scale, then refuses a value with more integer digits than the
// precision leaves room for.
void apply_typmod(Var& v, int32_t typmod) {
  if (!is_valid_typmod(typmod)) return;
  const int precision = numeric_typmod_precision(typmod);
  const int scale = numeric_typmod_scale(typmod);
  const int max_int_digits = precision - scale;
  round_to(v, scale);
  v.dscale = std::max(v.dscale, 0);
  if (v.digits.empty()) return;
  int int_digits = (v.weight + 1) * kDecDigits;
  for (int d = v.digits[0]; d < 1000; d *= 10) --int_digits;  // the first digit's leading zeros
  if (int_digits <= max_int_digits) return;
  const std::string limit =
      max_int_digits != 0 ? "10^" + std::to_string(max_int_digits) : std::string("1");
  throw Error("numeric field overflow", "A field with precision " + std::to_string(precision) +
                                            ", scale " + std::to_string(scale) +
                                            " must round to an absolute value less than " + limit +
                                            ".")
      .with_sqlstate(sqlstate::kNumericValueOutOfRange);
}

int sign_of(const Var& v) {
  if (v.kind == Kind::kPosInf) return 1;
  if (v.kind == Kind::kNegInf) return -1;
  if (v.is_zero()) return 0;
  return v.negative ? -1 : 1;
}

Var from_int(int64_t value) {
  Var v;
  v.negative = value < 0;
  uint64_t mag = v.negative ? 0 - uint64_t(value) : uint64_t(value);
  while (mag != 0) {
    v.digits.insert(v.digits.begin(), int16_t(mag % kBase));
    mag /= kBase;
  }
  v.weight = int(v.digits.size()) - 1;
  strip(v);
  return v;
}

int64_t to_integer(const char* a, const char* type_name, int64_t lo, int64_t hi) {
  Var v = unpack(a);
  if (v.kind == Kind::kNaN)
    throw Error(std::string("cannot convert NaN to ") + type_name)
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  if (v.is_special())
    throw Error(std::string("cannot convert infinity to ") + type_name)
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  round_to(v, 0);
  auto out_of_range = [&] {
    return Error(std::string(type_name) + " out of range")
        .with_sqlstate(sqlstate::kNumericValueOutOfRange);
  };
  if (v.weight > 4) throw out_of_range();  // 10000^5 is past any int64
  __int128 acc = 0;
  for (int i = 0; i <= v.weight; ++i)
    acc = acc * kBase + (i < int(v.digits.size()) ? v.digits[i] : 0);
  if (v.negative) acc = -acc;
  if (acc < lo || acc > hi) throw out_of_range();
  return int64_t(acc);
}

}  // namespace

std::string numeric_in(std::string_view text, int32_t typmod) {
  size_t i = 0;
  while (i < text.size() && is_space(text[i])) ++i;
  const std::string_view rest = text.substr(i);
  // The spellings float8in accepts too, longest first where one is a prefix of another.
  struct Spelling {
    std::string_view word;
    Kind kind;
  };
  static constexpr Spelling kSpellings[] = {
      {"NaN", Kind::kNaN},          {"Infinity", Kind::kPosInf}, {"+Infinity", Kind::kPosInf},
      {"-Infinity", Kind::kNegInf}, {"inf", Kind::kPosInf},      {"+inf", Kind::kPosInf},
      {"-inf", Kind::kNegInf}};
  for (const Spelling& s : kSpellings) {
    if (!starts_with_nocase(rest, s.word)) continue;
    for (size_t j = i + s.word.size(); j < text.size(); ++j)
      if (!is_space(text[j])) throw invalid_syntax(text);
    check_special_fits(s.kind, typmod);
    return pack(special(s.kind));
  }
  Var v = parse_number(text, i);
  // Trailing junk is a syntax error even when the typmod would refuse the value too.
  for (; i < text.size(); ++i)
    if (!is_space(text[i])) throw invalid_syntax(text);
  apply_typmod(v, typmod);
  return pack(std::move(v));
}

std::string numeric_out(const char* varlena) {
  return out_text(unpack(varlena));
}

std::string numeric_apply_typmod(const char* varlena, int32_t typmod) {
  Var v = unpack(varlena);
  if (v.is_special()) {
    check_special_fits(v.kind, typmod);
    return pack(v);
  }
  apply_typmod(v, typmod);
  return pack(std::move(v));
}

std::string numeric_add(const char* a, const char* b) {
  const Var x = unpack(a), y = unpack(b);
  if (x.kind == Kind::kNaN || y.kind == Kind::kNaN) return pack(special(Kind::kNaN));
  if (x.is_special() || y.is_special()) {
    // Infinity plus -Infinity has no value; any other sum keeps the infinite side.
    if (x.is_special() && y.is_special() && x.kind != y.kind) return pack(special(Kind::kNaN));
    return pack(x.is_special() ? x : y);
  }
  return pack(add_finite(x, y));
}

std::string numeric_sub(const char* a, const char* b) {
  const Var x = unpack(a), y = unpack(b);
  if (x.kind == Kind::kNaN || y.kind == Kind::kNaN) return pack(special(Kind::kNaN));
  if (x.is_special() || y.is_special()) {
    if (x.is_special() && y.is_special() && x.kind == y.kind) return pack(special(Kind::kNaN));
    if (x.is_special()) return pack(x);
    return pack(special(y.kind == Kind::kPosInf ? Kind::kNegInf : Kind::kPosInf));
  }
  return pack(sub_finite(x, y));
}

std::string numeric_mul(const char* a, const char* b) {
  const Var x = unpack(a), y = unpack(b);
  if (x.kind == Kind::kNaN || y.kind == Kind::kNaN) return pack(special(Kind::kNaN));
  if (x.is_special() || y.is_special()) {
    const int s = sign_of(x) * sign_of(y);  // infinity times zero has no value
    return pack(special(s == 0 ? Kind::kNaN : s > 0 ? Kind::kPosInf : Kind::kNegInf));
  }
  Var r = mul_finite(x, y);
  // The exact product may have more decimals than a value can hold.
  if (r.dscale > kMaxDscale) round_to(r, kMaxDscale);
  return pack(std::move(r));
}

std::string numeric_div(const char* a, const char* b) {
  const Var x = unpack(a), y = unpack(b);
  if (x.kind == Kind::kNaN || y.kind == Kind::kNaN) return pack(special(Kind::kNaN));
  if (x.is_special()) {
    if (y.is_special()) return pack(special(Kind::kNaN));
    const int s = sign_of(y);
    if (s == 0) throw division_by_zero();
    return pack(special((s > 0) == (x.kind == Kind::kPosInf) ? Kind::kPosInf : Kind::kNegInf));
  }
  if (y.is_special()) return pack(Var{});  // finite / infinite: zero
  if (y.is_zero()) throw division_by_zero();
  const int scale = select_div_scale(x, y);
  return pack(div_finite(x, y, scale, true));
}

std::string numeric_mod(const char* a, const char* b) {
  const Var x = unpack(a), y = unpack(b);
  if (x.kind == Kind::kNaN || y.kind == Kind::kNaN) return pack(special(Kind::kNaN));
  if (x.is_special()) {
    if (sign_of(y) == 0) throw division_by_zero();
    return pack(special(Kind::kNaN));
  }
  if (y.is_special()) return pack(x);
  if (y.is_zero()) throw division_by_zero();
  // x - y * trunc(x / y): the remainder has x's sign.
  const Var q = div_finite(x, y, 0, false);
  return pack(sub_finite(x, mul_finite(y, q)));
}

std::string numeric_neg(const char* a) {
  Var v = unpack(a);
  if (v.kind == Kind::kPosInf)
    v.kind = Kind::kNegInf;
  else if (v.kind == Kind::kNegInf)
    v.kind = Kind::kPosInf;
  else if (!v.is_special() && !v.digits.empty())
    v.negative = !v.negative;
  return pack(std::move(v));
}

std::string numeric_abs(const char* a) {
  Var v = unpack(a);
  if (v.kind == Kind::kNegInf) v.kind = Kind::kPosInf;
  v.negative = false;
  return pack(std::move(v));
}

int numeric_cmp(const char* a, const char* b) {
  const StoredView x = view_of(a), y = view_of(b);
  // Rank: -Infinity, numbers, Infinity, NaN.
  auto rank = [](Kind k) {
    return k == Kind::kNegInf ? 0 : k == Kind::kFinite ? 1 : k == Kind::kPosInf ? 2 : 3;
  };
  if (rank(x.kind) != rank(y.kind)) return rank(x.kind) < rank(y.kind) ? -1 : 1;
  if (x.kind != Kind::kFinite) return 0;
  // Stored values carry no zero digits at either end: no digits means zero.
  const int sx = x.ndigits == 0 ? 0 : x.negative ? -1 : 1;
  const int sy = y.ndigits == 0 ? 0 : y.negative ? -1 : 1;
  if (sx != sy) return sx < sy ? -1 : 1;
  if (sx == 0) return 0;
  if (x.weight != y.weight) return x.weight < y.weight ? -sx : sx;
  const int n = std::max(x.ndigits, y.ndigits);
  for (int i = 0; i < n; ++i) {
    const int dx = i < x.ndigits ? x.digit(i) : 0, dy = i < y.ndigits ? y.digit(i) : 0;
    if (dx != dy) return dx < dy ? -sx : sx;
  }
  return 0;
}

bool numeric_eq(const char* a, const char* b) {
  return numeric_cmp(a, b) == 0;
}

bool numeric_is_nan(const char* a) {
  return view_of(a).kind == Kind::kNaN;
}

std::string numeric_from_int64(int64_t v) {
  return pack(from_int(v));
}
std::string numeric_from_int32(int32_t v) {
  return numeric_from_int64(v);
}
std::string numeric_from_int16(int16_t v) {
  return numeric_from_int64(v);
}

int64_t numeric_to_int64(const char* a) {
  return to_integer(a, "bigint", INT64_MIN, INT64_MAX);
}
int32_t numeric_to_int32(const char* a) {
  return int32_t(to_integer(a, "integer", INT32_MIN, INT32_MAX));
}
int16_t numeric_to_int16(const char* a) {
  return int16_t(to_integer(a, "smallint", INT16_MIN, INT16_MAX));
}

std::string numeric_from_double(double v) {
  if (std::isnan(v)) return pack(special(Kind::kNaN));
  if (std::isinf(v)) return pack(special(v > 0 ? Kind::kPosInf : Kind::kNegInf));
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.15g", v);  // DBL_DIG digits, as PostgreSQL prints it
  size_t i = 0;
  return pack(parse_number(buf, i));
}

namespace {

// Clinger's fast path: digits that make an integer of at most 2^53, scaled by a power of
// ten up to 10^22, convert with one exact multiplication or division, which rounds as
// strtod rounds the decimal text. Nullopt: the text path is needed.
std::optional<double> exact_double(const numeric_detail::StoredView& s) {
  static constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  if (s.kind != Kind::kFinite || s.ndigits > 4) return std::nullopt;
  uint64_t m = 0;
  for (int i = 0; i < s.ndigits; ++i) m = m * uint64_t(kBase) + uint64_t(s.digit(i));
  if (m > (uint64_t(1) << 53)) return std::nullopt;
  const int e10 = kDecDigits * (s.weight - s.ndigits + 1);
  if (e10 < -22 || e10 > 22) return std::nullopt;
  const double d = e10 >= 0 ? double(m) * kPow10[e10] : double(m) / kPow10[-e10];
  return s.negative ? -d : d;
}

}  // namespace

double numeric_to_double(const char* a) {
  if (const std::optional<double> d = exact_double(numeric_detail::view_of(a))) return *d;
  const Var v = unpack(a);
  if (v.kind == Kind::kNaN) return std::nan("");
  if (v.kind == Kind::kPosInf) return HUGE_VAL;
  if (v.kind == Kind::kNegInf) return -HUGE_VAL;
  const std::string text = out_text(v);
  errno = 0;
  const double d = std::strtod(text.c_str(), nullptr);
  // Denormals come back with ERANGE too, and are kept; zero and infinity are not.
  if (errno == ERANGE && (d == 0.0 || std::isinf(d)))
    throw Error("\"" + text + "\" is out of range for type double precision")
        .with_sqlstate(sqlstate::kNumericValueOutOfRange);
  return d;
}

std::optional<std::string> numeric_avg(const char* sum, int64_t count) {
  if (count == 0) return std::nullopt;
  const std::string n = numeric_from_int64(count);
  return numeric_div(sum, n.data());
}

}  // namespace tp
