// ExprParser::type_name: PostgreSQL 15's Typename rule and its type modifier checks
// (each type's typmodin), over the shared token cursor.
#include "engine/sql/type_name.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>
#include <vector>

#include "engine/sql/expr_parser.h"

namespace tp::sql {
namespace {

constexpr int32_t kMaxCharLength = 10485760;  // MaxAttrSize: the longest char(n) / varchar(n)
constexpr int32_t kMaxDateTimePrecision = 6;
constexpr int32_t kNumericMaxPrecision = 1000;
constexpr int32_t kNumericMinScale = -1000, kNumericMaxScale = 1000;

// Types PostgreSQL 15 has that tidepool does not store: refused by name, not as unknown.
bool postgres_has_type(std::string_view name) {
  static constexpr std::string_view kNames[] = {
      "bytea",       "char",      "name",     "int2vector",   "regproc",      "oid",
      "tid",         "xid",       "cid",      "json",         "xml",          "point",
      "lseg",        "path",      "box",      "polygon",      "line",         "cidr",
      "money",       "macaddr",   "macaddr8", "inet",         "aclitem",      "time",
      "timestamptz", "timetz",    "bit",      "varbit",       "regprocedure", "regoper",
      "regoperator", "regclass",  "regtype",  "regrole",      "regnamespace", "uuid",
      "pg_lsn",      "tsvector",  "tsquery",  "jsonb",        "jsonpath",     "txid_snapshot",
      "pg_snapshot", "int4range", "numrange", "tsrange",      "tstzrange",    "daterange",
      "int8range",   "record",    "cstring",  "void",         "serial",       "bigserial",
      "smallserial", "circle",    "xid8",     "regcollation", "regconfig",    "regdictionary"};
  for (std::string_view n : kNames)
    if (n == name) return true;
  return false;
}

Error modifier_error(const std::string& message, int position) {
  return std::move(
      Error(message).at_position(position).with_sqlstate(sqlstate::kInvalidParameterValue));
}

int32_t char_length_typmod(const char* type, int32_t n, int position) {
  if (n < 1)
    throw modifier_error(std::string("length for type ") + type + " must be at least 1", position);
  if (n > kMaxCharLength)
    throw modifier_error(
        std::string("length for type ") + type + " cannot exceed " + std::to_string(kMaxCharLength),
        position);
  return length_typmod(n);
}

int32_t numeric_modifiers(const std::vector<int64_t>& mods, int position) {
  if (mods.empty() || mods.size() > 2)
    throw modifier_error("invalid NUMERIC type modifier", position);
  const int64_t precision = mods[0];
  const int64_t scale = mods.size() == 2 ? mods[1] : 0;
  if (precision < 1 || precision > kNumericMaxPrecision)
    throw modifier_error("NUMERIC precision " + std::to_string(precision) +
                             " must be between 1 and " + std::to_string(kNumericMaxPrecision),
                         position);
  if (scale < kNumericMinScale || scale > kNumericMaxScale)
    throw modifier_error("NUMERIC scale " + std::to_string(scale) + " must be between " +
                             std::to_string(kNumericMinScale) + " and " +
                             std::to_string(kNumericMaxScale),
                         position);
  return numeric_typmod(int32_t(precision), int32_t(scale));
}

}  // namespace

// A fractional-second precision: PostgreSQL cuts anything above 6 to 6 with a warning.
int32_t ExprParser::datetime_precision(const char* type) {
  const int32_t p = unsigned_modifier();
  if (p <= kMaxDateTimePrecision) return p;
  warn(std::string(type) + "(" + std::to_string(p) + ") precision reduced to maximum allowed, " +
       std::to_string(kMaxDateTimePrecision));
  return kMaxDateTimePrecision;
}

// `( Iconst )`: a plain unsigned integer, as gram.y's Iconst (a sign or anything else is
// a syntax error there).
int32_t ExprParser::unsigned_modifier() {
  const Token& t = peek();
  if (t.kind != TokenKind::kInteger || t.text.size() > 10 || std::stoll(t.text) > INT32_MAX)
    syntax_error();
  return int32_t(std::stoll(next().text));
}

// `( expr_list )` of a generic type: integer constants, signed or not.
std::vector<int64_t> ExprParser::modifier_list(int type_position) {
  std::vector<int64_t> mods;
  expect_punct("(");
  do {
    const bool negative = accept_op("-");
    const Token& t = peek();
    if (t.kind == TokenKind::kNumeric)
      throw Error("invalid input syntax for type integer: \"" + std::string(negative ? "-" : "") +
                  t.text + "\"")
          .at_position(type_position)
          .with_sqlstate(sqlstate::kInvalidTextRepresentation);
    if (t.kind != TokenKind::kInteger || t.text.size() > 10) syntax_error();
    const int64_t v = std::stoll(next().text);
    mods.push_back(negative ? -v : v);
  } while (accept_punct(","));
  expect_punct(")");
  return mods;
}

TypeRef ExprParser::character_type(bool varying, int position) {
  TypeRef t{varying ? TypeId::kVarchar : TypeId::kBpchar, varying ? kNoTypmod : length_typmod(1),
            position};
  if (accept_punct("(")) {
    t.typmod = char_length_typmod(varying ? "varchar" : "char", unsigned_modifier(), position);
    expect_punct(")");
  }
  return t;
}

// TIMESTAMP [(p)] [WITH[OUT] TIME ZONE]: the precision is checked once the type is
// known, as its warning names the type.
TypeRef ExprParser::timestamp_type(int position) {
  int32_t precision = -1;
  if (accept_punct("(")) {
    precision = unsigned_modifier();
    expect_punct(")");
  }
  bool zoned = false;
  if (accept_word("without")) {
    expect_word("time");
    expect_word("zone");
  } else if (accept_word("with")) {
    expect_word("time");
    expect_word("zone");
    zoned = true;
  }
  TypeRef t{zoned ? TypeId::kTimestamptz : TypeId::kTimestamp, kNoTypmod, position};
  if (precision >= 0)
    t.typmod = checked_precision("TIMESTAMP", precision, position, zoned ? " WITH TIME ZONE" : "");
  return t;
}

// INTERVAL [(p)] or INTERVAL fields [SECOND (p)], as gram.y's opt_interval.
TypeRef ExprParser::interval_type(int position) {
  constexpr int32_t kMonth = kIntervalMonth, kYear = kIntervalYear, kDay = kIntervalDay,
                    kHour = kIntervalHour, kMinute = kIntervalMinute, kSecond = kIntervalSecond;
  int32_t precision = kIntervalFullPrecision;
  auto second_precision = [&] {
    if (!accept_punct("(")) return;
    precision = datetime_precision("INTERVAL");
    expect_punct(")");
  };
  int32_t range = kIntervalFullRange;
  if (accept_punct("(")) {
    precision = datetime_precision("INTERVAL");
    expect_punct(")");
  } else if (accept_word("year")) {
    range = accept_word("to") ? (expect_word("month"), kYear | kMonth) : kYear;
  } else if (accept_word("month")) {
    range = kMonth;
  } else if (accept_word("day")) {
    range = kDay;
    if (accept_word("to")) {
      if (accept_word("hour")) {
        range |= kHour;
      } else if (accept_word("minute")) {
        range |= kHour | kMinute;
      } else {
        expect_word("second");
        range |= kHour | kMinute | kSecond;
        second_precision();
      }
    }
  } else if (accept_word("hour")) {
    range = kHour;
    if (accept_word("to")) {
      if (accept_word("minute")) {
        range |= kMinute;
      } else {
        expect_word("second");
        range |= kMinute | kSecond;
        second_precision();
      }
    }
  } else if (accept_word("minute")) {
    range = kMinute;
    if (accept_word("to")) {
      expect_word("second");
      range |= kSecond;
      second_precision();
    }
  } else if (accept_word("second")) {
    range = kSecond;
    second_precision();
  }
  const bool plain = range == kIntervalFullRange && precision == kIntervalFullPrecision;
  return {TypeId::kInterval, plain ? kNoTypmod : interval_typmod(range, precision), position};
}

// A precision given as a generic type's modifier: never negative, cut to 6 with a warning.
int32_t ExprParser::checked_precision(const char* type, int64_t p, int position,
                                      const char* suffix) {
  const std::string name = std::string(type) + "(" + std::to_string(p) + ")" + suffix;
  if (p < 0) throw modifier_error(name + " precision must not be negative", position);
  if (p <= kMaxDateTimePrecision) return int32_t(p);
  warn(name + " precision reduced to maximum allowed, " + std::to_string(kMaxDateTimePrecision));
  return kMaxDateTimePrecision;
}

// "interval"(range [, precision]): the fields' bits first, as intervaltypmodin reads them.
int32_t ExprParser::interval_modifiers(const std::vector<int64_t>& mods, int position) {
  constexpr int32_t kMonth = kIntervalMonth, kYear = kIntervalYear, kDay = kIntervalDay,
                    kHour = kIntervalHour, kMinute = kIntervalMinute, kSecond = kIntervalSecond;
  static constexpr int32_t kRanges[] = {kYear,
                                        kMonth,
                                        kDay,
                                        kHour,
                                        kMinute,
                                        kSecond,
                                        kYear | kMonth,
                                        kDay | kHour,
                                        kDay | kHour | kMinute,
                                        kDay | kHour | kMinute | kSecond,
                                        kHour | kMinute,
                                        kHour | kMinute | kSecond,
                                        kMinute | kSecond,
                                        kIntervalFullRange};
  if (mods.empty() || mods.size() > 2 ||
      std::find(std::begin(kRanges), std::end(kRanges), mods[0]) == std::end(kRanges))
    throw modifier_error("invalid INTERVAL type modifier", position);
  const auto range = int32_t(mods[0]);
  if (mods.size() == 1)
    return range == kIntervalFullRange ? kNoTypmod : interval_typmod(range, kIntervalFullPrecision);
  return interval_typmod(range, checked_precision("INTERVAL", mods[1], position));
}

[[noreturn]] void ExprParser::refuse_type(const std::string& name, int position) const {
  throw Error("type \"" + name + "\" is not supported", "",
              "tidepool stores boolean, smallint, integer, bigint, real, double precision, "
              "numeric, text, varchar, char, date, timestamp, timestamp with time zone and "
              "interval.")
      .at_position(position)
      .with_sqlstate(sqlstate::kFeatureNotSupported);
}

// A name of pg_type (int4, "varchar"), with the modifiers its typmodin accepts.
TypeRef ExprParser::generic_type(const Token& name) {
  const int position = name.position;
  const std::optional<TypeId> id = type_of_pg_name(name.text);
  if (!id) {
    if (postgres_has_type(name.text)) refuse_type(name.text, position);
    throw Error("type \"" + name.text + "\" does not exist")
        .at_position(position)
        .with_sqlstate(sqlstate::kUndefinedObject);
  }
  TypeRef t{*id, kNoTypmod, position};
  if (!is_punct("(")) return t;
  const std::vector<int64_t> mods = modifier_list(position);
  switch (*id) {
    case TypeId::kNumeric:
      t.typmod = numeric_modifiers(mods, position);
      break;
    case TypeId::kVarchar:
    case TypeId::kBpchar:
      if (mods.size() != 1) throw modifier_error("invalid type modifier", position);
      t.typmod = char_length_typmod(*id == TypeId::kVarchar ? "varchar" : "char",
                                    int32_t(std::clamp<int64_t>(mods[0], -1, INT32_MAX)), position);
      break;
    case TypeId::kTimestamp:
    case TypeId::kTimestamptz:
      if (mods.size() != 1) throw modifier_error("invalid type modifier", position);
      t.typmod = checked_precision("TIMESTAMP", mods[0], position,
                                   *id == TypeId::kTimestamptz ? " WITH TIME ZONE" : "");
      break;
    case TypeId::kInterval:
      t.typmod = interval_modifiers(mods, position);
      break;
    default:
      throw Error("type modifier is not allowed for type \"" + name.text + "\"")
          .at_position(position)
          .with_sqlstate(sqlstate::kSyntaxError);
  }
  return t;
}

TypeRef ExprParser::sql_type(const Token& w) {
  const int position = w.position;
  const std::string& word = w.text;
  if (word == "int" || word == "integer") return {TypeId::kInt4, kNoTypmod, position};
  if (word == "smallint") return {TypeId::kInt2, kNoTypmod, position};
  if (word == "bigint") return {TypeId::kInt8, kNoTypmod, position};
  if (word == "real") return {TypeId::kFloat4, kNoTypmod, position};
  if (word == "boolean") return {TypeId::kBool, kNoTypmod, position};
  if (word == "float") {
    if (!accept_punct("(")) return {TypeId::kFloat8, kNoTypmod, position};
    const int at = peek().position;
    const int32_t bits = unsigned_modifier();
    expect_punct(")");
    if (bits < 1) throw modifier_error("precision for type float must be at least 1 bit", at);
    if (bits > 53) throw modifier_error("precision for type float must be less than 54 bits", at);
    return {bits <= 24 ? TypeId::kFloat4 : TypeId::kFloat8, kNoTypmod, position};
  }
  if (word == "double" && accept_word("precision")) return {TypeId::kFloat8, kNoTypmod, position};
  if (word == "decimal" || word == "dec" || word == "numeric") {
    TypeRef t{TypeId::kNumeric, kNoTypmod, position};
    if (is_punct("(")) t.typmod = numeric_modifiers(modifier_list(position), position);
    return t;
  }
  if (word == "national") {
    if (!accept_word("character")) expect_word("char");
    return character_type(accept_word("varying"), position);
  }
  if (word == "character" || word == "char" || word == "nchar")
    return character_type(accept_word("varying"), position);
  if (word == "varchar") return character_type(true, position);
  if (word == "timestamp") return timestamp_type(position);
  if (word == "interval") return interval_type(position);
  if (word == "time") refuse_type("time", position);
  if (word == "bit") refuse_type("bit", position);
  return generic_type(w);
}

TypeRef ExprParser::type_name() {
  if (is_word("pg_catalog") && is_punct_at(".", 1)) {  // pg_catalog.int4, as drivers write
    next();
    next();
  }
  const Token w = peek();
  if (w.kind != TokenKind::kIdentifier) syntax_error();
  next();
  TypeRef t = w.quoted ? generic_type(w) : sql_type(w);
  if (is_punct("[") || is_word("array"))
    throw Error("arrays are not supported as column or cast types")
        .at_position(peek().position)
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  return t;
}

}  // namespace tp::sql
