// numeric's exact arithmetic on unpacked values (numeric_detail::Var): adding,
// subtracting and multiplying digit by digit, dividing as whole numbers, rounding and
// truncating at a decimal place; and the SQL functions built on rounding (round, trunc,
// floor, ceil, sign). The operators with their special values and result scales are in
// numeric.cc.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/numeric.h"

namespace tp::numeric_detail {
namespace {

constexpr int kPow10[] = {1, 10, 100, 1000, 10000};

// The digit of `v` at power `pos` of 10000; zero outside its digits.
int digit_at(const Var& v, int pos) {
  const int i = v.weight - pos;
  return (i >= 0 && i < int(v.digits.size())) ? v.digits[i] : 0;
}

// The power of 10000 of v's last digit.
int lowest_power(const Var& v) {
  return v.weight - int(v.digits.size()) + 1;
}

int cmp_abs(const Var& a, const Var& b) {
  const int hi = std::max(a.weight, b.weight);
  const int lo = std::min(lowest_power(a), lowest_power(b));
  for (int p = hi; p >= lo; --p) {
    const int da = digit_at(a, p), db = digit_at(b, p);
    if (da != db) return da < db ? -1 : 1;
  }
  return 0;
}

Var add_abs(const Var& a, const Var& b) {
  Var r;
  r.weight = std::max(a.weight, b.weight) + 1;  // room for a carry
  const int lo = std::min(lowest_power(a), lowest_power(b));
  r.digits.resize(std::max(r.weight - lo + 1, 1));
  int carry = 0;
  for (int i = int(r.digits.size()) - 1; i >= 0; --i) {
    const int p = r.weight - i;
    int s = digit_at(a, p) + digit_at(b, p) + carry;
    carry = s >= kBase;
    r.digits[i] = int16_t(s - carry * kBase);
  }
  return r;
}

// |a| - |b| where |a| >= |b|.
Var sub_abs(const Var& a, const Var& b) {
  Var r;
  r.weight = std::max(a.weight, b.weight);
  const int lo = std::min(lowest_power(a), lowest_power(b));
  r.digits.resize(std::max(r.weight - lo + 1, 1));
  int borrow = 0;
  for (int i = int(r.digits.size()) - 1; i >= 0; --i) {
    const int p = r.weight - i;
    int d = digit_at(a, p) - digit_at(b, p) - borrow;
    borrow = d < 0;
    r.digits[i] = int16_t(d + borrow * kBase);
  }
  return r;
}

// a + b, or a - b when `negate_b`.
Var add_signed(const Var& a, const Var& b, bool negate_b) {
  const bool b_negative = b.negative != negate_b;
  Var r;
  if (a.negative == b_negative) {
    r = add_abs(a, b);
    r.negative = a.negative;
  } else {
    const int c = cmp_abs(a, b);
    if (c > 0) {
      r = sub_abs(a, b);
      r.negative = a.negative;
    } else if (c < 0) {
      r = sub_abs(b, a);
      r.negative = b_negative;
    }
  }
  r.dscale = std::max(a.dscale, b.dscale);
  strip(r);
  return r;
}

// Whole numbers in base 10000, most significant digit first, no leading zeros (zero is
// empty): division is done on these.
using Mag = std::vector<int32_t>;

void trim_leading(Mag& m) {
  size_t z = 0;
  while (z < m.size() && m[z] == 0) ++z;
  m.erase(m.begin(), m.begin() + long(z));
}

int mag_cmp(const Mag& a, const Mag& b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

// a -= b, where a >= b.
void mag_sub(Mag& a, const Mag& b) {
  const size_t off = a.size() - b.size();
  int borrow = 0;
  for (size_t i = a.size(); i-- > 0;) {
    int d = a[i] - borrow - (i >= off ? b[i - off] : 0);
    borrow = d < 0;
    a[i] = d + borrow * kBase;
  }
  trim_leading(a);
}

Mag mag_mul_small(const Mag& a, int64_t m) {
  Mag r(a.size() + 2, 0);
  int64_t carry = 0;
  for (size_t i = a.size(); i-- > 0;) {
    const int64_t v = a[i] * m + carry;
    r[i + 2] = int32_t(v % kBase);
    carry = v / kBase;
  }
  r[1] = int32_t(carry % kBase);
  r[0] = int32_t(carry / kBase);
  trim_leading(r);
  return r;
}

void mag_add_one(Mag& a) {
  for (size_t i = a.size(); i-- > 0;) {
    if (++a[i] < kBase) return;
    a[i] = 0;
  }
  a.insert(a.begin(), 1);
}

// The quotient digit for remainder `r` (r < d * 10000), estimated from the leading
// digits and then corrected; `r` becomes the new remainder.
int32_t next_quotient_digit(Mag& r, const Mag& d) {
  if (mag_cmp(r, d) < 0) return 0;
  int64_t estimate;
  if (d.size() == 1) {
    const int64_t top = r.size() == 1 ? r[0] : int64_t(r[0]) * kBase + r[1];
    estimate = top / d[0];
  } else {
    int64_t top = int64_t(r[0]) * kBase + r[1];
    if (r.size() > d.size()) top = top * kBase + r[2];
    estimate = top / (int64_t(d[0]) * kBase + d[1]);
  }
  estimate = std::min<int64_t>(estimate, kBase - 1);
  Mag product = mag_mul_small(d, estimate);
  while (mag_cmp(product, r) > 0) {
    --estimate;
    mag_sub(product, d);
  }
  mag_sub(r, product);
  while (mag_cmp(r, d) >= 0) {
    ++estimate;
    mag_sub(r, d);
  }
  return int32_t(estimate);
}

// Long division n / d (d nonzero): the quotient, and the remainder in `rem`.
Mag mag_divmod(const Mag& n, const Mag& d, Mag& rem) {
  Mag q;
  q.reserve(n.size());
  rem.clear();
  for (int32_t x : n) {
    if (!rem.empty() || x != 0) rem.push_back(x);
    q.push_back(next_quotient_digit(rem, d));
  }
  trim_leading(q);
  return q;
}

Mag mag_of(const Var& v) {
  Mag m(v.digits.begin(), v.digits.end());
  trim_leading(m);
  return m;
}

}  // namespace

bool Var::is_zero() const {
  return std::all_of(digits.begin(), digits.end(), [](int16_t d) { return d == 0; });
}

void strip(Var& v) {
  size_t lead = 0;
  while (lead < v.digits.size() && v.digits[lead] == 0) ++lead;
  v.digits.erase(v.digits.begin(), v.digits.begin() + long(lead));
  v.weight -= int(lead);
  while (!v.digits.empty() && v.digits.back() == 0) v.digits.pop_back();
  if (v.digits.empty()) {
    v.weight = 0;
    v.negative = false;
  }
}

namespace {

// Keeps v's digits down to `scale` decimal places (scale < 0: to tens, hundreds, ...);
// when rounding, a dropped part of at least half a unit adds one unit.
void cut_at_scale(Var& v, int scale, bool round) {
  v.dscale = scale;
  const int wanted = (v.weight + 1) * kDecDigits + scale;  // decimal digits kept
  if (wanted < 0) {
    v.digits.clear();
    strip(v);
    return;
  }
  const int keep = (wanted + kDecDigits - 1) / kDecDigits;  // base-10000 digits kept
  const int within_last = wanted % kDecDigits;              // decimal digits kept of the last one
  const int n = int(v.digits.size());
  if (keep > n || (keep == n && within_last == 0)) {
    strip(v);
    return;
  }
  bool round_up = false;
  if (within_last == 0) {
    round_up = round && v.digits[keep] >= kBase / 2;
  } else {
    const int unit = kPow10[kDecDigits - within_last];
    const int dropped = v.digits[keep - 1] % unit;
    v.digits[keep - 1] = int16_t(v.digits[keep - 1] - dropped);
    if (round && dropped >= unit / 2) v.digits[keep - 1] = int16_t(v.digits[keep - 1] + unit);
  }
  v.digits.resize(size_t(keep));
  int carry = round_up ? 1 : 0;
  int i = keep - 1;
  if (!round_up && i >= 0 && v.digits[i] >= kBase) {  // the last digit's rounding overflowed
    v.digits[i] = int16_t(v.digits[i] - kBase);
    carry = 1;
    --i;
  }
  for (; carry && i >= 0; --i) {
    if (++v.digits[i] < kBase)
      carry = 0;
    else
      v.digits[i] = 0;
  }
  if (carry) {
    v.digits.insert(v.digits.begin(), 1);
    ++v.weight;
  }
  strip(v);
}

}  // namespace

void round_to(Var& v, int scale) {
  cut_at_scale(v, scale, true);
}

void trunc_to(Var& v, int scale) {
  cut_at_scale(v, scale, false);
}

int cmp_values(const Var& a, const Var& b) {
  const int sa = a.is_zero() ? 0 : (a.negative ? -1 : 1);
  const int sb = b.is_zero() ? 0 : (b.negative ? -1 : 1);
  if (sa != sb) return sa < sb ? -1 : 1;
  if (sa == 0) return 0;
  return sa * cmp_abs(a, b);
}

Var add_finite(const Var& a, const Var& b) {
  return add_signed(a, b, false);
}

Var sub_finite(const Var& a, const Var& b) {
  return add_signed(a, b, true);
}

Var mul_finite(const Var& a, const Var& b) {
  Var r;
  r.dscale = a.dscale + b.dscale;
  if (a.digits.empty() || b.digits.empty()) return r;
  const size_t na = a.digits.size(), nb = b.digits.size();
  std::vector<int64_t> acc(na + nb, 0);
  for (size_t i = 0; i < na; ++i)
    for (size_t j = 0; j < nb; ++j) acc[i + j + 1] += int64_t(a.digits[i]) * b.digits[j];
  r.digits.resize(na + nb);
  int64_t carry = 0;
  for (size_t k = na + nb; k-- > 0;) {
    const int64_t v = acc[k] + carry;
    r.digits[k] = int16_t(v % kBase);
    carry = v / kBase;
  }
  r.weight = a.weight + b.weight + 1;
  r.negative = a.negative != b.negative;
  strip(r);
  return r;
}

// a / b = (A * 10000^ea) / (B * 10000^eb) for whole numbers A and B; scaled by
// 10^scale it is one whole-number division, whose remainder decides the rounding.
Var div_finite(const Var& a, const Var& b, int scale, bool round) {
  Var r;
  r.dscale = scale;
  Mag num = mag_of(a), den = mag_of(b);
  if (num.empty()) return r;
  num = mag_mul_small(num, kPow10[scale % kDecDigits]);
  const int shift = lowest_power(a) - lowest_power(b) + scale / kDecDigits;
  if (shift >= 0) {
    num.insert(num.end(), size_t(shift), 0);
  } else {
    den.insert(den.end(), size_t(-shift), 0);
  }
  Mag rem;
  Mag q = mag_divmod(num, den, rem);
  if (round && mag_cmp(mag_mul_small(rem, 2), den) >= 0) mag_add_one(q);
  // q * 10^-scale, realigned so the fraction fills whole base-10000 digits
  const int pad = (kDecDigits - scale % kDecDigits) % kDecDigits;
  q = mag_mul_small(q, kPow10[pad]);
  const int frac_digits = (scale + pad) / kDecDigits;
  r.digits.assign(q.begin(), q.end());
  r.weight = int(q.size()) - 1 - frac_digits;
  r.negative = a.negative != b.negative;
  strip(r);
  return r;
}

int select_div_scale(const Var& a, const Var& b) {
  // The normalized weight and first digit of each (weight 0, digit 0 for zero).
  auto leading = [](const Var& v, int& weight, int& first) {
    weight = 0;
    first = 0;
    for (size_t i = 0; i < v.digits.size(); ++i) {
      if (v.digits[i] != 0) {
        weight = v.weight - int(i);
        first = v.digits[i];
        return;
      }
    }
  };
  int w1, f1, w2, f2;
  leading(a, w1, f1);
  leading(b, w2, f2);
  // The quotient's weight, guessing low when the first digits tie.
  int qweight = w1 - w2;
  if (f1 <= f2) --qweight;
  int scale = kMinSigDigits - qweight * kDecDigits;
  scale = std::max({scale, a.dscale, b.dscale, 0});
  return std::min(scale, kMaxDisplayScale);
}

}  // namespace tp::numeric_detail

namespace tp {

using numeric_detail::Kind;
using numeric_detail::Var;

namespace {

constexpr int kMaxResultScale = 2000;  // round/trunc clamp their scale argument here

Var one_with_sign(bool negative) {
  Var v;
  v.digits = {1};
  v.negative = negative;
  return v;
}

}  // namespace

using numeric_detail::add_finite;
using numeric_detail::cmp_values;
using numeric_detail::pack;
using numeric_detail::round_to;
using numeric_detail::sub_finite;
using numeric_detail::trunc_to;
using numeric_detail::unpack;

std::string numeric_round(const char* a, int32_t scale) {
  Var v = unpack(a);
  if (v.is_special()) return pack(v);
  scale = std::clamp(scale, -kMaxResultScale, kMaxResultScale);
  round_to(v, scale);
  v.dscale = std::max(scale, 0);
  return pack(std::move(v));
}

std::string numeric_trunc(const char* a, int32_t scale) {
  Var v = unpack(a);
  if (v.is_special()) return pack(v);
  scale = std::clamp(scale, -kMaxResultScale, kMaxResultScale);
  trunc_to(v, scale);
  v.dscale = std::max(scale, 0);
  return pack(std::move(v));
}

std::string numeric_floor(const char* a) {
  const Var v = unpack(a);
  if (v.is_special()) return pack(v);
  Var t = v;
  trunc_to(t, 0);
  if (v.negative && cmp_values(v, t) != 0) t = sub_finite(t, one_with_sign(false));
  return pack(std::move(t));
}

std::string numeric_ceil(const char* a) {
  const Var v = unpack(a);
  if (v.is_special()) return pack(v);
  Var t = v;
  trunc_to(t, 0);
  if (!v.negative && cmp_values(v, t) != 0) t = add_finite(t, one_with_sign(false));
  return pack(std::move(t));
}

std::string numeric_sign(const char* a) {
  const Var v = unpack(a);
  if (v.kind == Kind::kNaN) return pack(v);
  if (v.is_special()) return pack(one_with_sign(v.kind == Kind::kNegInf));
  if (v.is_zero()) return pack(Var{});
  return pack(one_with_sign(v.negative));
}

}  // namespace tp
