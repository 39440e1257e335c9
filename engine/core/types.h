// The SQL types tidepool stores, as PostgreSQL 15's catalog describes them: each
// type's OID, its storage (typlen, typalign, typbyval, typstorage) and its name as
// format_type prints it. The storage properties decide where a value sits in a heap
// tuple (engine/core/tuple_format.h), so rows per page equal PostgreSQL's.
//
//   const TypeInfo& t = type_info(TypeId::kVarchar);   // len -1, align 'i', packable
//   format_type(TypeId::kNumeric, numeric_typmod(15, 2)) == "numeric(15,2)"
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tp {

// pg_type's OIDs.
enum class TypeId : uint32_t {
  kBool = 16,
  kInt8 = 20,
  kInt2 = 21,
  kInt4 = 23,
  kText = 25,
  kFloat4 = 700,
  kFloat8 = 701,
  kBpchar = 1042,  // char(n)
  kVarchar = 1043,
  kDate = 1082,
  kTimestamp = 1114,  // without time zone
  kTimestamptz = 1184,
  kInterval = 1186,
  kNumeric = 1700,
};

// pg_type's storage columns. `len`: bytes for a fixed-width type, -1 for a varlena
// (a length word, then the bytes). `align`: 1, 2, 4 or 8 (typalign c, s, i, d).
// `packable`: a varlena whose typstorage is not 'p', so a short value is stored with a
// 1-byte header and no alignment (every varlena type here).
struct TypeInfo {
  TypeId id;
  std::string_view name;     // format_type's name without a modifier: "character varying"
  std::string_view pg_name;  // pg_type.typname: "varchar" (a cast's column name)
  int16_t len;
  uint8_t align;
  bool byval;
  bool packable;
};

const TypeInfo& type_info(TypeId id);
// The type of a pg_type OID, or of a pg_type name ("int4", "varchar"), that tidepool
// stores; none for any other.
std::optional<TypeId> type_of_oid(uint32_t oid);
std::optional<TypeId> type_of_pg_name(std::string_view name);
// Either name: pg_type's ("int4") or format_type's ("integer"), as ::regtype reads.
std::optional<TypeId> type_of_name(std::string_view name);

// Type modifiers as PostgreSQL encodes them (atttypmod; -1: none). varchar(n) and
// char(n): n + 4; numeric(p, s): ((p << 16) | s) + 4 (s may be negative: it is kept in
// the low 16 bits, as PostgreSQL 15 does).
inline constexpr int32_t kNoTypmod = -1;
inline constexpr int32_t kVarHeaderSize = 4;
inline int32_t length_typmod(int32_t n) {
  return n + kVarHeaderSize;
}
inline int32_t numeric_typmod(int32_t precision, int32_t scale) {
  return ((precision << 16) | (scale & 0x7ff)) + kVarHeaderSize;
}
inline int32_t numeric_typmod_precision(int32_t typmod) {
  return ((typmod - kVarHeaderSize) >> 16) & 0xffff;
}
inline int32_t numeric_typmod_scale(int32_t typmod) {
  // The scale is an 11-bit signed field: -1000 .. 1000.
  return (((typmod - kVarHeaderSize) & 0x7ff) ^ 1024) - 1024;
}

// interval's modifier (PostgreSQL's INTERVAL_TYPMOD): the fields' range bits in the
// high 16 bits, the fractional-second precision (0-6; kIntervalFullPrecision: none) in
// the low 16.
inline constexpr int32_t kIntervalMonth = 1 << 1;
inline constexpr int32_t kIntervalYear = 1 << 2;
inline constexpr int32_t kIntervalDay = 1 << 3;
inline constexpr int32_t kIntervalHour = 1 << 10;
inline constexpr int32_t kIntervalMinute = 1 << 11;
inline constexpr int32_t kIntervalSecond = 1 << 12;
inline constexpr int32_t kIntervalFullRange = 0x7FFF;
inline constexpr int32_t kIntervalFullPrecision = 0xFFFF;
inline constexpr int32_t interval_typmod(int32_t fields, int32_t precision) {
  return (fields << 16) | (precision & 0xFFFF);
}

// psql right-aligns numbers: smallint .. numeric.
inline bool type_is_numeric(TypeId id) {
  return id == TypeId::kInt2 || id == TypeId::kInt4 || id == TypeId::kInt8 ||
         id == TypeId::kFloat4 || id == TypeId::kFloat8 || id == TypeId::kNumeric;
}

// Whether the type has a modifier: varchar(n), char(n), numeric(p, s), timestamp(p),
// interval's fields and precision.
inline bool type_takes_typmod(TypeId id) {
  return id == TypeId::kVarchar || id == TypeId::kBpchar || id == TypeId::kNumeric ||
         id == TypeId::kTimestamp || id == TypeId::kTimestamptz || id == TypeId::kInterval;
}

// PostgreSQL's get_typavgwidth: the width the planner assumes for a column without
// statistics. A fixed-width type's length; char(n) its largest size in UTF-8 (4n + 4);
// varchar(n) and numeric(p, s) their largest size, or 32 plus half the excess beyond
// 32 (capped at 1000); other varlenas 32.
int32_t type_avg_width(TypeId id, int32_t typmod);

// The type as PostgreSQL's format_type_with_typemod prints it: "integer",
// "character varying(10)", "character(1)", "numeric(15,2)", "timestamp(3) without time
// zone", "interval day to second(2)". timestamp's typmod is its fractional-second
// precision; interval's holds its fields' range in the high half and its precision in
// the low (0xFFFF: none), as PostgreSQL's INTERVAL_TYPMOD.
std::string format_type(TypeId id, int32_t typmod);

}  // namespace tp
