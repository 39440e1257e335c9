#include "engine/plan/pattern_prefix.h"

#include <cctype>

namespace tp {

LikePrefix pattern_prefix(std::string_view pattern, bool case_insensitive, size_t& rest_start) {
  LikePrefix p = like_fixed_prefix(pattern);
  size_t consumed = 0, kept = 0;
  // Walk the pattern to find where the prefix ends in it (escapes take two bytes).
  while (kept < p.prefix.size() && consumed < pattern.size()) {
    if (case_insensitive && std::isalpha(uint8_t(p.prefix[kept]))) break;
    if (pattern[consumed] == '\\') ++consumed;
    ++consumed;
    ++kept;
  }
  if (kept < p.prefix.size()) {
    p.prefix.resize(kept);
    p.exact = false;
  }
  rest_start = consumed;
  return p;
}

std::optional<std::string> greater_string(std::string s) {
  while (!s.empty()) {
    const auto last = uint8_t(s.back());
    if (last < 0x7F) {
      s.back() = char(last + 1);
      return s;
    }
    // Drop the whole last character (a multibyte one: its continuation bytes too).
    size_t len = s.size() - 1;
    while (len > 0 && (uint8_t(s[len]) & 0xC0) == 0x80) --len;
    s.resize(len);
  }
  return std::nullopt;
}

}  // namespace tp
