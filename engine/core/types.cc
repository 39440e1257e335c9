#include "engine/core/types.h"

#include <array>

namespace tp {
namespace {

// pg_type's rows for the types tidepool stores (PostgreSQL 15, 64-bit).
constexpr std::array<TypeInfo, 14> kTypes = {{
    {TypeId::kBool, "boolean", "bool", 1, 1, true, false},
    {TypeId::kInt8, "bigint", "int8", 8, 8, true, false},
    {TypeId::kInt2, "smallint", "int2", 2, 2, true, false},
    {TypeId::kInt4, "integer", "int4", 4, 4, true, false},
    {TypeId::kText, "text", "text", -1, 4, false, true},
    {TypeId::kFloat4, "real", "float4", 4, 4, true, false},
    {TypeId::kFloat8, "double precision", "float8", 8, 8, true, false},
    {TypeId::kBpchar, "character", "bpchar", -1, 4, false, true},
    {TypeId::kVarchar, "character varying", "varchar", -1, 4, false, true},
    {TypeId::kDate, "date", "date", 4, 4, true, false},
    {TypeId::kTimestamp, "timestamp without time zone", "timestamp", 8, 8, true, false},
    {TypeId::kTimestamptz, "timestamp with time zone", "timestamptz", 8, 8, true, false},
    {TypeId::kInterval, "interval", "interval", 16, 8, false, false},
    {TypeId::kNumeric, "numeric", "numeric", -1, 4, false, true},
}};

// interval's field list as its typmod names it (PostgreSQL's INTERVAL_MASK bits).
std::string interval_fields(int32_t range) {
  constexpr int32_t kMonth = kIntervalMonth, kYear = kIntervalYear, kDay = kIntervalDay,
                    kHour = kIntervalHour, kMinute = kIntervalMinute, kSecond = kIntervalSecond;
  struct Fields {
    int32_t range;
    const char* text;
  };
  static constexpr Fields kFields[] = {
      {kYear, " year"},
      {kMonth, " month"},
      {kDay, " day"},
      {kHour, " hour"},
      {kMinute, " minute"},
      {kSecond, " second"},
      {kYear | kMonth, " year to month"},
      {kDay | kHour, " day to hour"},
      {kDay | kHour | kMinute, " day to minute"},
      {kDay | kHour | kMinute | kSecond, " day to second"},
      {kHour | kMinute, " hour to minute"},
      {kHour | kMinute | kSecond, " hour to second"},
      {kMinute | kSecond, " minute to second"},
  };
  for (const Fields& f : kFields)
    if (f.range == range) return f.text;
  return "";
}

}  // namespace

std::optional<TypeId> type_of_oid(uint32_t oid) {
  for (const TypeInfo& t : kTypes)
    if (uint32_t(t.id) == oid) return t.id;
  return std::nullopt;
}

std::optional<TypeId> type_of_pg_name(std::string_view name) {
  for (const TypeInfo& t : kTypes)
    if (t.pg_name == name) return t.id;
  return std::nullopt;
}

std::optional<TypeId> type_of_name(std::string_view name) {
  for (const TypeInfo& t : kTypes)
    if (t.pg_name == name || t.name == name) return t.id;
  return std::nullopt;
}

const TypeInfo& type_info(TypeId id) {
  for (const TypeInfo& t : kTypes)
    if (t.id == id) return t;
  return kTypes[3];  // unreachable: every TypeId is in the table (types_test checks it)
}

std::string format_type(TypeId id, int32_t typmod) {
  std::string name(type_info(id).name);
  // bpchar without a length is no CHARACTER (which means character(1)): PostgreSQL
  // names it so the name reads back as the same type.
  if (id == TypeId::kBpchar && typmod < 0) return "bpchar";
  if ((id == TypeId::kTimestamp || id == TypeId::kTimestamptz) && typmod >= 0)
    return "timestamp(" + std::to_string(typmod) +
           (id == TypeId::kTimestamp ? ") without time zone" : ") with time zone");
  if (id == TypeId::kInterval && typmod >= 0) {
    const int32_t precision = typmod & 0xFFFF;
    return name + interval_fields((typmod >> 16) & 0x7FFF) +
           (precision == 0xFFFF ? "" : "(" + std::to_string(precision) + ")");
  }
  if (typmod < kVarHeaderSize) return name;
  switch (id) {
    case TypeId::kVarchar:
    case TypeId::kBpchar:
      return name + "(" + std::to_string(typmod - kVarHeaderSize) + ")";
    case TypeId::kNumeric:
      return name + "(" + std::to_string(numeric_typmod_precision(typmod)) + "," +
             std::to_string(numeric_typmod_scale(typmod)) + ")";
    default:
      return name;
  }
}

int32_t type_avg_width(TypeId id, int32_t typmod) {
  const TypeInfo& info = type_info(id);
  if (info.len > 0) return info.len;
  int32_t max_width = -1;  // type_maximum_size
  if ((id == TypeId::kVarchar || id == TypeId::kBpchar) && typmod > kVarHeaderSize) {
    constexpr int32_t kUtf8MaxBytes = 4;
    max_width = (typmod - kVarHeaderSize) * kUtf8MaxBytes + kVarHeaderSize;
  } else if (id == TypeId::kNumeric && typmod >= kVarHeaderSize) {
    // numeric_maximum_size: the base-10000 digits `precision` decimal digits may need,
    // after the 8-byte header (varlena word, sign/scale, weight).
    const int32_t digits = (numeric_typmod_precision(typmod) + 2 * (4 - 1)) / 4;
    max_width = 8 + digits * 2;
  }
  if (max_width <= 0) return 32;
  if (id == TypeId::kBpchar) return max_width;
  if (max_width <= 32) return max_width;
  if (max_width < 1000) return 32 + (max_width - 32) / 2;
  return 32 + (1000 - 32) / 2;
}

}  // namespace tp
