// text, varchar(n) and char(n) as PostgreSQL 15 handles them in a UTF8 database with the
// "C" collation: input validation, length coercion by typmod, byte-wise comparison (char(n)
// ignoring trailing spaces), and the string functions and operators the executor calls:
// length, octet_length, lower, upper, substring, position, trim, ||, LIKE, ILIKE, md5.
//
// Values are payloads (the bytes after the varlena header: make_varlena/varlena_payload in
// engine/core/datum.h). Functions whose result is a piece of their argument return a view
// into it and never allocate; comparisons never allocate. Lengths and positions count
// characters, not bytes. A char(n) payload holds its padding, as PostgreSQL stores it.
//
//   check_utf8("\xff");                          // throws: invalid byte sequence ... 0xff
//   varchar_in("abc  ", length_typmod(3)) == "abc"      // excess spaces are dropped
//   varchar_in("abcd", length_typmod(3));                // throws 22001
//   varchar_coerce("abcd", length_typmod(3), true) == "abc"   // 'abcd'::varchar(3)
//   bpchar_in("é", length_typmod(3)) == "é  "
//   bpchar_cmp("ab ", "ab") == 0, text_cmp("ab ", "ab") == 1
//   text_substring("héllo", 2, 3) == "éll"
//   text_like("abc", "a%") == true, like_fixed_prefix("ab%") == {"ab", false}
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace tp {

// Throws `invalid byte sequence for encoding "UTF8": 0x..` (22021) at the first byte that
// does not begin a well-formed character (NUL, overlong forms, surrogates and code points
// past U+10FFFF included), naming the bytes that character would have taken.
void check_utf8(std::string_view bytes);

// Characters in valid UTF-8.
int32_t utf8_char_count(std::string_view s);

// The input functions with a column's typmod (varcharin, bpcharin): `text` is validated
// as UTF-8, then coerced as an assignment would (explicit = false). typmod -1: no limit.
std::string_view varchar_in(std::string_view text, int32_t typmod);
std::string bpchar_in(std::string_view text, int32_t typmod);

// Length coercion to varchar(n) / char(n) (typmod n + 4). Longer values are cut to n
// characters: an explicit cast always, an assignment only when every character cut is a
// space, else "value too long for type character varying(n)" / "character(n)" (22001).
// char(n) pads shorter values with spaces to n characters.
std::string_view varchar_coerce(std::string_view value, int32_t typmod, bool is_explicit);
std::string bpchar_coerce(std::string_view value, int32_t typmod, bool is_explicit);

// char(n) to text or varchar: the trailing spaces go.
std::string_view bpchar_to_text(std::string_view value);

// -1, 0 or 1. text and varchar compare bytes, a shorter prefix first; char(n) the same
// after dropping trailing spaces from both.
int text_cmp(std::string_view a, std::string_view b);
int bpchar_cmp(std::string_view a, std::string_view b);

// length(): characters; of a char(n), without its trailing spaces. octet_length(): bytes,
// padding included.
inline int32_t text_length(std::string_view s) {
  return utf8_char_count(s);
}
inline int32_t bpchar_length(std::string_view s) {
  return utf8_char_count(bpchar_to_text(s));
}
inline int32_t octet_length(std::string_view s) {
  return int32_t(s.size());
}

// Under the C collation only ASCII letters change case.
std::string text_lower(std::string_view s);
std::string text_upper(std::string_view s);

// substring(s from start [for count]): characters start .. start + count - 1 that exist
// (1-based; a start below 1 still counts toward the end). No count: to the end. A negative
// count is "negative substring length not allowed" (22011).
std::string_view text_substring(std::string_view s, int32_t start,
                                std::optional<int32_t> count = std::nullopt);

// position(needle in haystack): 1-based character position of the first occurrence, 0 if
// none, 1 for an empty needle.
int32_t text_position(std::string_view haystack, std::string_view needle);

// btrim/ltrim/rtrim(s, characters): drop leading and/or trailing characters that appear in
// `characters`. trim(s) is text_btrim(s, " ").
std::string_view text_btrim(std::string_view s, std::string_view characters);
std::string_view text_ltrim(std::string_view s, std::string_view characters);
std::string_view text_rtrim(std::string_view s, std::string_view characters);

std::string text_concat(std::string_view a, std::string_view b);

// s LIKE pattern / s ILIKE pattern: '%' any run of characters, '_' one character, '\' makes
// the next pattern character literal. A pattern whose final escape is reached while
// matching is "LIKE pattern must not end with escape character" (22025). ILIKE folds ASCII
// letters only, as the C collation does.
bool text_like(std::string_view s, std::string_view pattern);
bool text_ilike(std::string_view s, std::string_view pattern);

// The literal text every match of a LIKE pattern starts with, and whether the pattern is
// nothing but that text (so LIKE is equality), as the planner uses it for index ranges.
struct LikePrefix {
  std::string prefix;
  bool exact = false;
  bool operator==(const LikePrefix&) const = default;
};
LikePrefix like_fixed_prefix(std::string_view pattern);

// md5(s): 32 lowercase hex digits.
std::string md5_hex(std::string_view s);

}  // namespace tp
