#include "engine/core/type_io.h"

#include <charconv>

#include "engine/core/error.h"

namespace tp {

namespace {

// isspace in the C locale, which is what PostgreSQL's input functions skip.
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

std::string_view trim_spaces(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

[[noreturn]] void invalid_syntax(std::string_view type_name, std::string_view text) {
  throw Error("invalid input syntax for type " + std::string(type_name) + ": \"" +
              std::string(text) + "\"")
      .with_sqlstate(sqlstate::kInvalidTextRepresentation);
}

char ascii_lower(char c) {
  return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
}

// Whether `s` (non-empty) is a prefix of `word`, ignoring ASCII case.
bool is_prefix_of(std::string_view s, std::string_view word) {
  if (s.size() > word.size()) return false;
  for (size_t i = 0; i < s.size(); ++i)
    if (ascii_lower(s[i]) != word[i]) return false;
  return true;
}

// "o" alone could be on or off, so those two need at least two letters.
bool parse_bool_word(std::string_view s, bool* out) {
  if (s.empty()) return false;
  struct Word {
    std::string_view word;
    size_t min_len;
    bool value;
  };
  static constexpr Word kWords[] = {{"true", 1, true}, {"false", 1, false}, {"yes", 1, true},
                                    {"no", 1, false},  {"on", 2, true},     {"off", 2, false},
                                    {"1", 1, true},    {"0", 1, false}};
  for (const Word& w : kWords) {
    if (s.size() >= w.min_len && is_prefix_of(s, w.word)) {
      *out = w.value;
      return true;
    }
  }
  return false;
}

struct IntType {
  std::string_view name;
  int64_t min;
  int64_t max;
};

// Accumulates toward the negative side so the width's minimum is reachable, and reports
// overflow as soon as it happens, before any trailing rubbish is looked at (PostgreSQL
// calls "99999x" out of range, not malformed).
int64_t parse_integer(std::string_view text, const IntType& type) {
  // The usual input, up to 18 plain digits with an optional minus: no overflow is
  // possible while accumulating, so only the result is range-checked.
  if (!text.empty() && text.size() <= 18) {
    const bool minus = text[0] == '-';
    size_t k = minus ? 1 : 0;
    uint64_t v = 0;
    for (; k < text.size() && text[k] >= '0' && text[k] <= '9'; ++k) v = v * 10 + (text[k] - '0');
    if (k == text.size() && k > size_t(minus)) {
      const int64_t r = minus ? -int64_t(v) : int64_t(v);
      if (r >= type.min && r <= type.max) return r;
    }
  }
  size_t i = 0;
  while (i < text.size() && is_space(text[i])) ++i;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
  if (i >= text.size() || text[i] < '0' || text[i] > '9') invalid_syntax(type.name, text);
  int64_t acc = 0;  // minus the magnitude so far
  auto out_of_range = [&]() {
    throw Error("value \"" + std::string(text) + "\" is out of range for type " +
                std::string(type.name))
        .with_sqlstate(sqlstate::kNumericValueOutOfRange);
  };
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    const int digit = text[i] - '0';
    if (acc < (type.min + digit) / 10) out_of_range();
    acc = acc * 10 - digit;
    if (acc < type.min) out_of_range();
  }
  while (i < text.size() && is_space(text[i])) ++i;
  if (i != text.size()) invalid_syntax(type.name, text);
  if (negative) return acc;
  if (acc < -type.max) out_of_range();
  return -acc;
}

}  // namespace

bool bool_in(std::string_view text) {
  bool value;
  if (!parse_bool_word(trim_spaces(text), &value)) invalid_syntax("boolean", text);
  return value;
}

int16_t int2_in(std::string_view text) {
  return int16_t(parse_integer(text, {"smallint", INT16_MIN, INT16_MAX}));
}

int32_t int4_in(std::string_view text) {
  return int32_t(parse_integer(text, {"integer", INT32_MIN, INT32_MAX}));
}

int64_t int8_in(std::string_view text) {
  return parse_integer(text, {"bigint", INT64_MIN, INT64_MAX});
}

size_t int_out(int64_t value, char* buf) {
  return size_t(std::to_chars(buf, buf + kIntOutMax, value).ptr - buf);
}

std::string int8_out(int64_t value) {
  char buf[kIntOutMax];
  return std::string(buf, int_out(value, buf));
}

namespace int_errors {

void out_of_range(size_t width_bytes) {
  const char* name = width_bytes == 2 ? "smallint" : width_bytes == 4 ? "integer" : "bigint";
  throw Error(std::string(name) + " out of range").with_sqlstate(sqlstate::kNumericValueOutOfRange);
}

void division_by_zero() {
  throw Error("division by zero").with_sqlstate(sqlstate::kDivisionByZero);
}

}  // namespace int_errors

}  // namespace tp
