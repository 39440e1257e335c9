#include "engine/plan/aggregate_text.h"

#include "engine/core/datum_ops.h"
#include "engine/core/error.h"
#include "engine/core/float_io.h"
#include "engine/core/numeric.h"
#include "scans/typed_agg.h"

namespace tp {

OutputAggregate output_aggregate(scans::AggKind kind, ColumnType input) {
  using scans::AggKind;
  OutputAggregate oa{kind, input, OutputType::kInt8, TypeId::kInt8, 8};
  const bool is_float = input == TypeId::kFloat4 || input == TypeId::kFloat8;
  switch (kind) {
    case AggKind::kCountStar:
    case AggKind::kCount:
      return oa;
    case AggKind::kSum:
      // sum(int2 / int4) is bigint; sum(int8) and sum(numeric) numeric; a float its type.
      if (input == TypeId::kInt2 || input == TypeId::kInt4) return oa;
      oa.result = is_float ? input : TypeId::kNumeric;
      break;
    case AggKind::kAvg:
      oa.result = is_float ? TypeId::kFloat8 : TypeId::kNumeric;
      break;
    case AggKind::kMin:
    case AggKind::kMax:
      // max(varchar) is max(text): varchar has no aggregate of its own.
      oa.result = input == TypeId::kVarchar ? TypeId::kText : input;
      break;
  }
  oa.type = oa.result == TypeId::kInt4   ? OutputType::kInt4
            : oa.result == TypeId::kInt8 ? OutputType::kInt8
                                         : OutputType::kNumeric;
  const TypeInfo& info = type_info(oa.result);
  oa.width = info.len > 0 ? info.len : 32;
  return oa;
}

std::string numeric_div_text(__int128 num, int64_t den) {
  TP_ASSERT(den > 0);
  // Weight and leading digit in base 10000, as PostgreSQL's NumericVar holds them.
  auto weight_first = [](unsigned __int128 x, int& weight, int& first) {
    weight = 0;
    first = 0;
    if (x == 0) return;
    weight = -1;
    while (x > 0) {
      first = int(x % 10000);
      x /= 10000;
      ++weight;
    }
  };
  bool negative = num < 0;
  unsigned __int128 mag = negative ? (unsigned __int128)(-num) : (unsigned __int128)num;
  int w1, f1, w2, f2;
  weight_first(mag, w1, f1);
  weight_first((unsigned __int128)den, w2, f2);
  int qweight = w1 - w2;
  if (f1 <= f2) --qweight;
  int rscale = std::clamp(16 - qweight * 4, 0, 1000);
  // q = round(mag * 10^rscale / den), half away from zero; long double if it would overflow.
  unsigned __int128 scaled = mag;
  bool overflow = false;
  for (int i = 0; i < rscale && !overflow; ++i) {
    if (scaled > (~(unsigned __int128)0) / 10) overflow = true;
    scaled *= 10;
  }
  std::string digits;
  if (!overflow) {
    unsigned __int128 q = scaled / (unsigned __int128)den;
    unsigned __int128 r = scaled % (unsigned __int128)den;
    if (r * 2 >= (unsigned __int128)den) ++q;
    if (q == 0) digits = "0";
    while (q > 0) {
      digits.insert(digits.begin(), char('0' + int(q % 10)));
      q /= 10;
    }
  } else {
    char buf[128];
    std::snprintf(buf, sizeof buf, "%.*Lf", std::min(rscale, 30),
                  (long double)mag / (long double)den);
    std::string t = buf;
    if (negative && t.find_first_not_of("0.") != std::string::npos) t = "-" + t;
    return t;
  }
  if (rscale > 0) {
    if (digits.size() <= size_t(rscale)) digits.insert(0, size_t(rscale) + 1 - digits.size(), '0');
    digits.insert(digits.size() - size_t(rscale), ".");
  }
  bool zero = digits.find_first_not_of("0.") == std::string::npos;
  return (negative && !zero ? "-" : "") + digits;
}

bool aggregate_is_null(const OutputAggregate& agg, const scans::AggState& st) {
  return st.count == 0 && agg.kind != scans::AggKind::kCount &&
         agg.kind != scans::AggKind::kCountStar;
}

namespace {

// The result of an aggregate over a typed input (scans/typed_agg.h's states).
std::string format_typed(const OutputAggregate& agg, const scans::AggState& st) {
  using scans::AggKind;
  const TypeId in = agg.input;
  if (agg.kind == AggKind::kMin || agg.kind == AggKind::kMax)
    return datum_out(in, scans::typed_extreme(st, in));
  if (in == TypeId::kNumeric) {
    if (agg.kind == AggKind::kSum) return numeric_out(st.bytes.data());
    return numeric_out(numeric_div(st.bytes.data(), numeric_from_int64(st.count).data()).data());
  }
  if (in == TypeId::kFloat4 || in == TypeId::kFloat8) {
    if (agg.kind == AggKind::kAvg) return float8_out(st.fsum / double(st.count));
    return in == TypeId::kFloat4 ? float4_out(float(st.fsum)) : float8_out(st.fsum);
  }
  // smallint: sum is bigint (its 128-bit sum fits), avg numeric.
  if (agg.kind == AggKind::kSum) return std::to_string(int64_t(st.sum));
  return numeric_div_text(st.sum, st.count);
}

}  // namespace

std::string format_aggregate(const OutputAggregate& agg, const scans::AggState& st) {
  using scans::AggKind;
  switch (agg.kind) {
    case AggKind::kCountStar:
    case AggKind::kCount:
      return std::to_string(st.count);
    default:
      break;
  }
  if (st.count == 0) return "";  // NULL
  if (agg.input != TypeId::kInt4 && agg.input != TypeId::kInt8) return format_typed(agg, st);
  switch (agg.kind) {
    case AggKind::kMin:
      return std::to_string(st.min);
    case AggKind::kMax:
      return std::to_string(st.max);
    case AggKind::kSum: {
      if (agg.input == ColumnType::kInt4) {
        if (st.sum > std::numeric_limits<int64_t>::max() ||
            st.sum < std::numeric_limits<int64_t>::min())
          throw Error("bigint out of range").with_sqlstate(sqlstate::kNumericValueOutOfRange);
        return std::to_string(int64_t(st.sum));
      }
      __int128 v = st.sum;
      bool neg = v < 0;
      unsigned __int128 m = neg ? (unsigned __int128)(-v) : (unsigned __int128)v;
      std::string d;
      do {
        d.insert(d.begin(), char('0' + int(m % 10)));
        m /= 10;
      } while (m > 0);
      return (neg ? "-" : "") + d;
    }
    case AggKind::kAvg:
      return numeric_div_text(st.sum, st.count);
    default:
      return "";
  }
}

Datum aggregate_datum(const OutputAggregate& agg, const scans::AggState& st, ValueArena& arena,
                      bool& isnull) {
  using scans::AggKind;
  isnull = aggregate_is_null(agg, st);
  if (isnull) return 0;
  if (agg.kind == AggKind::kCount || agg.kind == AggKind::kCountStar) return Datum(st.count);
  const bool integer_input = agg.input == TypeId::kInt4 || agg.input == TypeId::kInt8;
  if (agg.kind == AggKind::kMin || agg.kind == AggKind::kMax) {
    if (integer_input) return Datum(agg.kind == AggKind::kMin ? st.min : st.max);
    const Datum d = scans::typed_extreme(st, agg.input);
    const TypeInfo& info = type_info(agg.input);
    return info.byval ? d : arena.copy(datum_pointer(d), datum_ref_size(info.len, d));
  }
  if (agg.result == TypeId::kInt8) {  // sum of smallint or integer: bigint
    if (st.sum > std::numeric_limits<int64_t>::max() ||
        st.sum < std::numeric_limits<int64_t>::min())
      throw Error("bigint out of range").with_sqlstate(sqlstate::kNumericValueOutOfRange);
    return Datum(int64_t(st.sum));
  }
  if (agg.result == TypeId::kFloat8 && agg.kind == AggKind::kAvg)
    return float8_datum(st.fsum / double(st.count));
  if (agg.result == TypeId::kFloat8) return float8_datum(st.fsum);
  if (agg.result == TypeId::kFloat4) return float4_datum(float(st.fsum));
  // numeric: sum(bigint), sum(numeric), avg of the integers and numeric.
  if (agg.input == TypeId::kNumeric && agg.kind == AggKind::kSum)
    return arena.copy(st.bytes.data(), uint32_t(st.bytes.size()));
  const std::string bytes = numeric_in(format_aggregate(agg, st), kNoTypmod);
  return arena.copy(bytes.data(), uint32_t(bytes.size()));
}

}  // namespace tp
