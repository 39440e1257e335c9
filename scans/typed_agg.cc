#include "scans/typed_agg.h"

#include <cstring>

#include "engine/core/float_io.h"
#include "engine/core/numeric.h"

namespace tp::scans {
namespace {

bool is_float(TypeId t) {
  return t == TypeId::kFloat4 || t == TypeId::kFloat8;
}

// `v` (of `type`) as the state's extreme, its bytes owned by the state.
void set_extreme(AggState& st, TypeId type, Datum v) {
  const TypeInfo& info = type_info(type);
  if (info.byval) {
    st.extreme = v;
    return;
  }
  st.bytes.assign(datum_pointer(v), datum_ref_size(info.len, v));
}

void add_float(AggState& st, const AggSpec& spec, double v) {
  const TypeId type = spec.type;
  // sum's first value is its state (PostgreSQL's strict transition with no initial
  // value: -0 stays -0); sum(real) adds in single precision (float4pl), avg(real) in
  // double (float4_accum), as does everything over double precision.
  if (st.count == 0 && spec.kind == AggKind::kSum)
    st.fsum = v;
  else if (type == TypeId::kFloat4 && spec.kind == AggKind::kSum)
    st.fsum = double(float_add(float(st.fsum), float(v)));
  else
    st.fsum = float_add(st.fsum, v);
}

// 10^36: the integer sum stays below it (an int128 holds 1.7 x 10^38), or folds.
constexpr __int128 kUnitsLimit = __int128(1000000000000000000) * 1000000000000000000;

__int128 magnitude(__int128 v) {
  return v < 0 ? -v : v;
}

// The integer sum into `bytes` (exact numeric addition), at its scale.
void fold_units(AggState& st) {
  const std::string part = numeric_from_scaled(st.sum, st.scale);
  st.bytes = st.bytes.empty() ? part : numeric_add(st.bytes.data(), part.data());
  st.sum = 0;
}

// `units` at `from` decimal places brought to `to` (>= from) places, if it stays small.
bool rescale(__int128& units, int from, int to) {
  for (; from < to; ++from) {
    if (magnitude(units) >= kUnitsLimit / 10) return false;
    units *= 10;
  }
  return true;
}

// sum / avg(numeric): a value that fits adds as an integer at the largest scale seen,
// as PostgreSQL's NumericSumAccum adds fixed-width digits; any other (NaN, the
// infinities, huge values) adds to `bytes` exactly.
void add_numeric(AggState& st, const char* v) {
  if (const std::optional<ScaledNumeric> x = numeric_to_scaled(v)) {
    if (x->dscale > st.scale) {
      __int128 scaled = st.sum;
      if (rescale(scaled, st.scale, x->dscale))
        st.sum = scaled;
      else
        fold_units(st);  // at the old scale, then 0 at the new one
      st.scale = x->dscale;
    }
    __int128 units = x->units;
    if (rescale(units, x->dscale, st.scale)) {
      st.sum += units;
      if (magnitude(st.sum) >= kUnitsLimit) fold_units(st);
      return;
    }
  }
  st.bytes = st.bytes.empty() ? std::string(v, varlena_size(v)) : numeric_add(st.bytes.data(), v);
}

// One input value, or a partial state's value (`partial`: `count` rows' worth, a float
// sum as double bits), into a started or empty state.
void merge(AggState& st, const AggSpec& spec, Datum v, int64_t count, bool partial) {
  switch (spec.kind) {
    case AggKind::kMin:
    case AggKind::kMax: {
      // Text byte-wise (the C collation) inline: the commonest by-reference extreme.
      const bool text = spec.type == TypeId::kText || spec.type == TypeId::kVarchar;
      int c = 0;
      if (st.count > 0)
        c = text ? varlena_payload(datum_pointer(v)).compare(varlena_payload(st.bytes.data()))
                 : compare_datums(spec.type, v, typed_extreme(st, spec.type));
      if (st.count == 0 || (spec.kind == AggKind::kMin ? c < 0 : c > 0))
        set_extreme(st, spec.type, v);
      break;
    }
    case AggKind::kSum:
    case AggKind::kAvg:
      if (spec.type == TypeId::kNumeric) {
        add_numeric(st, datum_pointer(v));
      } else if (is_float(spec.type)) {
        double x;
        if (partial)
          std::memcpy(&x, &v, sizeof x);
        else
          x = spec.type == TypeId::kFloat4 ? double(datum_float4(v)) : datum_float8(v);
        add_float(st, spec, x);
      } else {
        st.sum += v;
      }
      break;
    default:
      break;
  }
  st.count += count;
}

}  // namespace

void typed_settle(AggState& st, const AggSpec& spec) {
  const bool numeric_sum =
      (spec.kind == AggKind::kSum || spec.kind == AggKind::kAvg) && spec.type == TypeId::kNumeric;
  if (numeric_sum && st.count > 0) fold_units(st);
}

Datum typed_extreme(const AggState& st, TypeId type) {
  return type_info(type).byval ? st.extreme : pointer_datum(st.bytes.data());
}

void typed_accumulate(AggState& st, const AggSpec& spec, Datum v) {
  merge(st, spec, v, 1, false);
}

TypeId typed_state_type(const AggSpec& spec) {
  switch (spec.kind) {
    case AggKind::kMin:
    case AggKind::kMax:
      return spec.type;
    case AggKind::kSum:
    case AggKind::kAvg:
      return spec.type == TypeId::kNumeric ? TypeId::kNumeric : TypeId::kInt8;
    default:
      return TypeId::kInt8;
  }
}

void typed_put_state(const AggState& st, const AggSpec& spec, RowBatch& batch, uint32_t first,
                     uint32_t row) {
  Datum* out = batch.row(row) + first;
  const auto bits = static_cast<unsigned __int128>(st.sum);
  out[0] = st.count;
  out[1] = 0;
  out[2] = static_cast<int64_t>(static_cast<uint64_t>(bits));
  out[3] = static_cast<int64_t>(static_cast<uint64_t>(bits >> 64));
  out[4] = 0;
  if (st.count == 0) {
    batch.set_null(row, first + 1);  // no value: nothing for a copy to follow
    return;
  }
  const TypeId t = typed_state_type(spec);
  if (spec.kind == AggKind::kMin || spec.kind == AggKind::kMax || t == TypeId::kNumeric) {
    const Datum v = t == TypeId::kNumeric ? pointer_datum(st.bytes.data()) : typed_extreme(st, t);
    const TypeInfo& info = type_info(t);
    out[1] = info.byval ? v : batch.arena.copy(datum_pointer(v), datum_ref_size(info.len, v));
  } else if (is_float(spec.type)) {
    std::memcpy(&out[1], &st.fsum, sizeof st.fsum);
  }
}

void typed_combine(AggState& st, const AggSpec& spec, const Datum* in) {
  if (in[0] == 0) return;  // that participant saw no rows
  if ((spec.kind == AggKind::kSum || spec.kind == AggKind::kAvg) && !is_float(spec.type) &&
      spec.type != TypeId::kNumeric) {
    const auto hi = static_cast<unsigned __int128>(static_cast<uint64_t>(in[3])) << 64;
    st.sum += static_cast<__int128>(hi | static_cast<uint64_t>(in[2]));
    st.count += in[0];
    return;
  }
  merge(st, spec, in[1], in[0], true);
}

}  // namespace tp::scans
