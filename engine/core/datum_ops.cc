#include "engine/core/datum_ops.h"

#include <cstring>

#include "engine/core/datetime.h"
#include "engine/core/numeric.h"
#include "engine/core/type_io.h"

namespace tp {
namespace {

Interval interval_at(Datum d) {
  Interval v;
  std::memcpy(&v, datum_pointer(d), sizeof v);
  return v;
}

uint64_t mix(uint64_t h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 33);
}

// FNV-1a over bytes, then mixed.
// Eight bytes a step (a hash of each group key of text runs once per input row of a
// HashAggregate or a hash join: byte-at-a-time FNV was a tenth of such a query).
uint64_t hash_bytes(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull ^ (uint64_t(s.size()) * 0x9e3779b97f4a7c15ull);
  const char* p = s.data();
  size_t n = s.size();
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  uint64_t tail = 0;
  std::memcpy(&tail, p, n);
  return mix(h ^ tail);
}

std::string_view text_of(Datum d) {
  return varlena_payload(datum_pointer(d));
}

// interval_cmp's span: months as 30 days, days as 24 hours, in microseconds (128-bit).
__int128 interval_span(const Interval& v) {
  return __int128(v.time) + (__int128(v.month) * 30 + v.day) * kUsecsPerDay;
}

}  // namespace

int compare_datums(TypeId t, Datum a, Datum b) {
  switch (t) {
    case TypeId::kFloat4:
      return float_cmp(datum_float4(a), datum_float4(b));
    case TypeId::kFloat8:
      return float_cmp(datum_float8(a), datum_float8(b));
    case TypeId::kNumeric:
      return numeric_cmp(datum_pointer(a), datum_pointer(b));
    case TypeId::kText:
    case TypeId::kVarchar:
      return text_cmp(text_of(a), text_of(b));
    case TypeId::kBpchar:
      return bpchar_cmp(text_of(a), text_of(b));
    case TypeId::kInterval:
      return interval_cmp(interval_at(a), interval_at(b));
    default:
      return a < b ? -1 : a > b ? 1 : 0;
  }
}

uint64_t hash_datum(TypeId t, Datum d) {
  switch (t) {
    case TypeId::kFloat4:
    case TypeId::kFloat8: {
      const double f = t == TypeId::kFloat4 ? double(datum_float4(d)) : datum_float8(d);
      if (f == 0) return mix(0);  // -0 = 0
      if (__builtin_isnan(f)) return mix(0x7ff8000000000000ull);
      return mix(uint64_t(float8_datum(f)));
    }
    case TypeId::kNumeric: {
      // Equal numerics differ in scale only (1.0, 1.00): hash the stripped digits.
      numeric_detail::Var v = numeric_detail::unpack(datum_pointer(d));
      if (v.is_special()) return mix(uint64_t(v.kind) + 1);
      numeric_detail::strip(v);
      if (v.digits.empty()) return mix(0);
      uint64_t h = mix(uint64_t(v.weight) * 2 + (v.negative ? 1 : 0));
      for (int16_t digit : v.digits) h = mix(h ^ uint64_t(uint16_t(digit)));
      return h;
    }
    case TypeId::kText:
    case TypeId::kVarchar:
      return hash_bytes(text_of(d));
    case TypeId::kBpchar:
      return hash_bytes(bpchar_to_text(text_of(d)));
    case TypeId::kInterval: {
      const __int128 span = interval_span(interval_at(d));
      return mix(uint64_t(span) ^ mix(uint64_t(span >> 64)));
    }
    default:
      return mix(uint64_t(d));
  }
}

void append_datum_out(TypeId t, Datum d, std::string& out) {
  switch (t) {
    case TypeId::kBool:
      out += bool_out(d != 0);
      return;
    case TypeId::kInt2:
    case TypeId::kInt4:
    case TypeId::kInt8: {
      char buf[kIntOutMax];
      out.append(buf, int_out(d, buf));
      return;
    }
    case TypeId::kFloat4: {
      char buf[kFloatOutMax];
      out.append(buf, float4_out(datum_float4(d), buf));
      return;
    }
    case TypeId::kFloat8: {
      char buf[kFloatOutMax];
      out.append(buf, float8_out(datum_float8(d), buf));
      return;
    }
    case TypeId::kNumeric:
      out += numeric_out(datum_pointer(d));
      return;
    case TypeId::kText:
    case TypeId::kVarchar:
    case TypeId::kBpchar:
      out += text_of(d);
      return;
    case TypeId::kDate:
      out += date_out(int32_t(d));
      return;
    case TypeId::kTimestamp:
      out += timestamp_out(d);
      return;
    case TypeId::kTimestamptz:
      out += timestamptz_out(d);
      return;
    case TypeId::kInterval:
      out += interval_out(interval_at(d));
      return;
  }
}

std::string datum_out(TypeId t, Datum d) {
  std::string s;
  append_datum_out(t, d, s);
  return s;
}

OwnedDatum datum_in(TypeId t, int32_t typmod, std::string_view text, int64_t now) {
  OwnedDatum v;
  datum_in_to(v, t, typmod, text, now);
  return v;
}

void datum_in_to(OwnedDatum& out, TypeId t, int32_t typmod, std::string_view text, int64_t now) {
  switch (t) {
    case TypeId::kBool:
      return out.set_value(bool_in(text) ? 1 : 0);
    case TypeId::kInt2:
      return out.set_value(Datum(int2_in(text)));
    case TypeId::kInt4:
      return out.set_value(Datum(int4_in(text)));
    case TypeId::kInt8:
      return out.set_value(Datum(int8_in(text)));
    case TypeId::kFloat4:
      return out.set_value(float4_datum(float4_in(text)));
    case TypeId::kFloat8:
      return out.set_value(float8_datum(float8_in(text)));
    case TypeId::kNumeric:
      out = OwnedDatum::by_ref(numeric_in(text, typmod));
      return;
    case TypeId::kText:
      check_utf8(text);
      return out.set_varlena(text);
    case TypeId::kVarchar:
      return out.set_varlena(varchar_in(text, typmod));
    case TypeId::kBpchar:
      out = OwnedDatum::by_ref(make_varlena(bpchar_in(text, typmod)));
      return;
    case TypeId::kDate:
      return out.set_value(date_in(text, now));
    case TypeId::kTimestamp:
      return out.set_value(timestamp_in(text, typmod, now));
    case TypeId::kTimestamptz:
      return out.set_value(timestamptz_in(text, typmod, now));
    case TypeId::kInterval: {
      const Interval v = interval_in(text, typmod);
      std::string bytes(sizeof v, '\0');
      std::memcpy(bytes.data(), &v, sizeof v);
      out = OwnedDatum::by_ref(std::move(bytes));
      return;
    }
  }
  out.set_value(0);
}

}  // namespace tp
