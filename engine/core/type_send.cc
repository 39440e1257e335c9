#include "engine/core/type_send.h"

#include <cstring>

#include "engine/core/datetime.h"
#include "engine/core/error.h"
#include "engine/core/numeric.h"
#include "engine/core/string_types.h"

namespace tp {

namespace {

void put_be(std::string& out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(char((v >> (8 * i)) & 0xFF));
}

uint64_t get_be(std::string_view b, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | uint8_t(b[at + size_t(i)]);
  return v;
}

[[noreturn]] void bad_format(const char* message = "incorrect binary data format") {
  throw Error(message).with_sqlstate(sqlstate::kInvalidBinaryRepresentation);
}

void need_length(std::string_view b, size_t n) {
  if (b.size() != n) bad_format();
}

constexpr uint16_t kNumericNeg = 0x4000;
constexpr uint16_t kNumericNaN = 0xC000;
constexpr uint16_t kNumericPosInf = 0xD000;
constexpr uint16_t kNumericNegInf = 0xF000;

std::string numeric_send(const char* varlena) {
  using namespace numeric_detail;
  const Var v = unpack(varlena);
  std::string out;
  put_be(out, v.is_special() ? 0 : v.digits.size(), 2);
  put_be(out, uint16_t(int16_t(v.weight)), 2);
  const uint16_t sign = v.kind == Kind::kNaN      ? kNumericNaN
                        : v.kind == Kind::kPosInf ? kNumericPosInf
                        : v.kind == Kind::kNegInf ? kNumericNegInf
                        : v.negative              ? kNumericNeg
                                                  : 0;
  put_be(out, sign, 2);
  put_be(out, uint16_t(v.dscale), 2);
  if (!v.is_special())
    for (int16_t d : v.digits) put_be(out, uint16_t(d), 2);
  return out;
}

OwnedDatum numeric_recv(std::string_view b, int32_t typmod) {
  using namespace numeric_detail;
  if (b.size() < 8) bad_format();
  const size_t n = get_be(b, 0, 2);
  need_length(b, 8 + 2 * n);
  Var v;
  v.weight = int16_t(get_be(b, 2, 2));
  const auto sign = uint16_t(get_be(b, 4, 2));
  v.dscale = int(get_be(b, 6, 2));
  if (sign == kNumericNaN || sign == kNumericPosInf || sign == kNumericNegInf) {
    v = special(sign == kNumericNaN      ? Kind::kNaN
                : sign == kNumericPosInf ? Kind::kPosInf
                                         : Kind::kNegInf);
  } else {
    if (sign != 0 && sign != kNumericNeg) bad_format("invalid sign in external \"numeric\" value");
    v.negative = sign == kNumericNeg;
    if (v.dscale > kMaxDscale) bad_format("invalid scale in external \"numeric\" value");
    for (size_t i = 0; i < n; ++i) {
      const auto d = int16_t(get_be(b, 8 + 2 * i, 2));
      if (d < 0 || d >= kBase) bad_format("invalid digit in external \"numeric\" value");
      v.digits.push_back(d);
    }
    // As numeric_recv: the value is cut to its display scale.
    trunc_to(v, v.dscale);
    strip(v);
  }
  std::string stored = pack(std::move(v));
  if (typmod >= 0) stored = numeric_apply_typmod(stored.data(), typmod);
  return OwnedDatum::by_ref(std::move(stored));
}

}  // namespace

std::string datum_send(TypeId t, Datum d) {
  std::string out;
  switch (t) {
    case TypeId::kBool:
      out.push_back(d != 0 ? 1 : 0);
      break;
    case TypeId::kInt2:
      put_be(out, uint64_t(d), 2);
      break;
    case TypeId::kInt4:
    case TypeId::kDate:
    case TypeId::kFloat4:
      put_be(out, uint64_t(d), 4);
      break;
    case TypeId::kInt8:
    case TypeId::kTimestamp:
    case TypeId::kTimestamptz:
    case TypeId::kFloat8:
      put_be(out, uint64_t(d), 8);
      break;
    case TypeId::kInterval: {
      Interval iv;
      std::memcpy(&iv, datum_pointer(d), sizeof iv);
      put_be(out, uint64_t(iv.time), 8);
      put_be(out, uint32_t(iv.day), 4);
      put_be(out, uint32_t(iv.month), 4);
      break;
    }
    case TypeId::kNumeric:
      return numeric_send(datum_pointer(d));
    case TypeId::kText:
    case TypeId::kVarchar:
    case TypeId::kBpchar:
      out = varlena_payload(datum_pointer(d));
      break;
  }
  return out;
}

OwnedDatum datum_recv(TypeId t, int32_t typmod, std::string_view b) {
  switch (t) {
    case TypeId::kBool:
      need_length(b, 1);
      return OwnedDatum::by_value(b[0] != 0 ? 1 : 0);
    case TypeId::kInt2:
      need_length(b, 2);
      return OwnedDatum::by_value(int16_t(get_be(b, 0, 2)));
    case TypeId::kInt4:
    case TypeId::kDate:
      need_length(b, 4);
      return OwnedDatum::by_value(int32_t(get_be(b, 0, 4)));
    case TypeId::kFloat4:
      need_length(b, 4);
      return OwnedDatum::by_value(int32_t(get_be(b, 0, 4)));
    case TypeId::kInt8:
    case TypeId::kTimestamp:
    case TypeId::kTimestamptz:
    case TypeId::kFloat8:
      need_length(b, 8);
      return OwnedDatum::by_value(Datum(get_be(b, 0, 8)));
    case TypeId::kInterval: {
      need_length(b, 16);
      Interval iv;
      iv.time = int64_t(get_be(b, 0, 8));
      iv.day = int32_t(get_be(b, 8, 4));
      iv.month = int32_t(get_be(b, 12, 4));
      std::string bytes(sizeof iv, '\0');
      std::memcpy(bytes.data(), &iv, sizeof iv);
      return OwnedDatum::by_ref(std::move(bytes));
    }
    case TypeId::kNumeric:
      return numeric_recv(b, typmod);
    case TypeId::kText:
    case TypeId::kVarchar:
    case TypeId::kBpchar:
      // The type's input function over the bytes: the encoding check and the typmod.
      return datum_in(t, typmod, b, 0);
  }
  bad_format();
}

}  // namespace tp
