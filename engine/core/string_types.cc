#include "engine/core/string_types.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

#include "engine/core/error.h"

namespace tp {

namespace {

// Bytes in the character a UTF-8 lead byte starts; 1 for bytes that cannot lead one,
// which validation then rejects on their own.
size_t utf8_char_bytes(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead & 0xe0) == 0xc0) return 2;
  if ((lead & 0xf0) == 0xe0) return 3;
  if ((lead & 0xf8) == 0xf0) return 4;
  return 1;
}

bool is_continuation(unsigned char b, unsigned char lo = 0x80, unsigned char hi = 0xbf) {
  return b >= lo && b <= hi;
}

// Whether the `n` bytes at `p` are one well-formed character. The second byte's range
// depends on the lead, which is how overlong forms, surrogates and code points past
// U+10FFFF are refused.
bool is_legal_char(const unsigned char* p, size_t n) {
  const unsigned char lead = p[0];
  if (n == 1) return lead != 0 && lead < 0x80;
  if (lead < 0xc2 || lead > 0xf4) return false;
  unsigned char lo = 0x80, hi = 0xbf;
  if (lead == 0xe0) lo = 0xa0;
  if (lead == 0xed) hi = 0x9f;
  if (lead == 0xf0) lo = 0x90;
  if (lead == 0xf4) hi = 0x8f;
  if (!is_continuation(p[1], lo, hi)) return false;
  for (size_t i = 2; i < n; ++i)
    if (!is_continuation(p[i])) return false;
  return true;
}

[[noreturn]] void invalid_byte_sequence(const unsigned char* p, size_t n) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string bytes;
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) bytes += ' ';
    bytes += "0x";
    bytes += kHex[p[i] >> 4];
    bytes += kHex[p[i] & 15];
  }
  throw Error("invalid byte sequence for encoding \"UTF8\": " + bytes)
      .with_sqlstate(sqlstate::kCharacterNotInRepertoire);
}

// Bytes taken by the first `chars` characters of `s` (all of it if it has fewer).
size_t char_prefix_bytes(std::string_view s, int64_t chars) {
  size_t i = 0;
  for (; chars > 0 && i < s.size(); --chars) i += utf8_char_bytes(uint8_t(s[i]));
  return std::min(i, s.size());
}

[[noreturn]] void value_too_long(const char* type_name, int32_t n) {
  throw Error("value too long for type " + std::string(type_name) + "(" + std::to_string(n) + ")")
      .with_sqlstate(sqlstate::kStringDataRightTruncation);
}

// The bytes of `value` kept when it is cut to `max_chars` characters; throws when an
// assignment would cut anything but spaces.
size_t clip_to_chars(std::string_view value, int32_t max_chars, bool is_explicit,
                     const char* type_name) {
  const size_t keep = char_prefix_bytes(value, max_chars);
  if (!is_explicit && value.find_first_not_of(' ', keep) != std::string_view::npos)
    value_too_long(type_name, max_chars);
  return keep;
}

char ascii_lower(char c) {
  return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
}
char ascii_upper(char c) {
  return c >= 'a' && c <= 'z' ? char(c - 'a' + 'A') : c;
}

// The character of `s` starting at byte `i`.
std::string_view char_at(std::string_view s, size_t i) {
  return s.substr(i, utf8_char_bytes(uint8_t(s[i])));
}

// Whether `c` (one character) is among the characters of `set`.
bool set_contains(std::string_view set, std::string_view c) {
  for (size_t i = 0; i < set.size();) {
    const std::string_view member = char_at(set, i);
    if (member == c) return true;
    i += member.size();
  }
  return false;
}

size_t leading_set_bytes(std::string_view s, std::string_view set) {
  size_t i = 0;
  while (i < s.size()) {
    const std::string_view c = char_at(s, i);
    if (!set_contains(set, c)) break;
    i += c.size();
  }
  return i;
}

// Start of the trailing run of `s` made of characters in `set`.
size_t trailing_set_start(std::string_view s, std::string_view set) {
  size_t end = s.size();
  while (end > 0) {
    size_t start = end - 1;
    while (start > 0 && (uint8_t(s[start]) & 0xc0) == 0x80) --start;
    if (!set_contains(set, s.substr(start, end - start))) break;
    end = start;
  }
  return end;
}

// LIKE matching. kAbort means no later start position in the text can match either, which
// lets a '%' stop scanning early.
enum class Match { kTrue, kFalse, kAbort };

[[noreturn]] void pattern_ends_in_escape() {
  throw Error("LIKE pattern must not end with escape character")
      .with_sqlstate(sqlstate::kInvalidEscapeSequence);
}

Match like_match(std::string_view t, std::string_view p) {
  auto next_char = [](std::string_view& s) { s.remove_prefix(char_at(s, 0).size()); };
  while (!t.empty() && !p.empty()) {
    if (p[0] == '%') {
      // Collapse the run of wildcards after '%': n '_'s and any '%'s match n or more
      // characters, so consume n text characters and search for the rest.
      p.remove_prefix(1);
      while (!p.empty() && (p[0] == '%' || p[0] == '_')) {
        if (p[0] == '_') {
          if (t.empty()) return Match::kAbort;
          next_char(t);
        }
        p.remove_prefix(1);
      }
      if (p.empty()) return Match::kTrue;
      // The pattern now starts with a literal byte; only text positions holding it can
      // begin a match.
      if (p[0] == '\\' && p.size() < 2) pattern_ends_in_escape();
      const char first = p[0] == '\\' ? p[1] : p[0];
      for (; !t.empty(); next_char(t)) {
        if (t[0] != first) continue;
        const Match m = like_match(t, p);
        if (m != Match::kFalse) return m;
      }
      return Match::kAbort;
    }
    if (p[0] == '_') {
      next_char(t);
      p.remove_prefix(1);
      continue;
    }
    if (p[0] == '\\') {
      p.remove_prefix(1);
      if (p.empty()) pattern_ends_in_escape();
    }
    // Literal bytes: comparing byte by byte stays on character boundaries, because
    // matching lead bytes start characters of the same length.
    if (p[0] != t[0]) return Match::kFalse;
    p.remove_prefix(1);
    t.remove_prefix(1);
  }
  if (!t.empty()) return Match::kFalse;
  while (!p.empty() && p[0] == '%') p.remove_prefix(1);
  return p.empty() ? Match::kTrue : Match::kAbort;
}

// MD5 (RFC 1321), for md5(): 64-byte blocks, four rounds of 16 steps each.
class Md5 {
 public:
  std::string hex_digest(std::string_view data) {
    const uint64_t bit_length = uint64_t(data.size()) * 8;
    size_t i = 0;
    for (; i + 64 <= data.size(); i += 64) add_block(reinterpret_cast<const uint8_t*>(&data[i]));
    // The tail, a 1 bit, zeros to 56 mod 64, then the message length in bits.
    uint8_t tail[128] = {};
    const size_t rest = data.size() - i;
    std::memcpy(tail, data.data() + i, rest);
    tail[rest] = 0x80;
    const size_t tail_size = rest < 56 ? 64 : 128;
    for (int b = 0; b < 8; ++b) tail[tail_size - 8 + b] = uint8_t(bit_length >> (8 * b));
    for (size_t off = 0; off < tail_size; off += 64) add_block(tail + off);
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (uint32_t word : state_) {
      for (int b = 0; b < 4; ++b) {
        const uint8_t byte = uint8_t(word >> (8 * b));
        out += kHex[byte >> 4];
        out += kHex[byte & 15];
      }
    }
    return out;
  }

 private:
  static uint32_t rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

  void add_block(const uint8_t* block) {
    static constexpr int kShift[4][4] = {
        {7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21}};
    uint32_t m[16];
    for (int w = 0; w < 16; ++w) {
      m[w] = uint32_t(block[4 * w]) | uint32_t(block[4 * w + 1]) << 8 |
             uint32_t(block[4 * w + 2]) << 16 | uint32_t(block[4 * w + 3]) << 24;
    }
    uint32_t a = state_[0], b = state_[1], c = state_[2], d = state_[3];
    for (int step = 0; step < 64; ++step) {
      const int round = step / 16;
      uint32_t f;
      int word;
      switch (round) {
        case 0:
          f = (b & c) | (~b & d);
          word = step;
          break;
        case 1:
          f = (d & b) | (~d & c);
          word = (5 * step + 1) % 16;
          break;
        case 2:
          f = b ^ c ^ d;
          word = (3 * step + 5) % 16;
          break;
        default:
          f = c ^ (b | ~d);
          word = (7 * step) % 16;
          break;
      }
      const uint32_t sum = a + f + sine_constant(step) + m[word];
      a = d;
      d = c;
      c = b;
      b = b + rotl(sum, kShift[round][step % 4]);
    }
    state_[0] += a;
    state_[1] += b;
    state_[2] += c;
    state_[3] += d;
  }

  // floor(|sin(i + 1)| * 2^32), the per-step constants the algorithm defines.
  static uint32_t sine_constant(int step) {
    static const auto table = [] {
      std::array<uint32_t, 64> t{};
      for (int i = 0; i < 64; ++i)
        t[i] = uint32_t(std::fabs(std::sin(double(i + 1))) * 4294967296.0);
      return t;
    }();
    return table[step];
  }

  uint32_t state_[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
};

}  // namespace

void check_utf8(std::string_view bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  size_t left = bytes.size();
  // Eight bytes at a time while they are ASCII and not zero (every text value a COPY
  // or an INSERT reads is checked); the first other byte goes to the per-character test.
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHighs = 0x8080808080808080ULL;
  for (; left >= 8; p += 8, left -= 8) {
    uint64_t w;
    std::memcpy(&w, p, sizeof w);
    const uint64_t zero_byte = (w - kOnes) & ~w & kHighs;
    if (((w & kHighs) | zero_byte) != 0) break;
  }
  while (left > 0) {
    const size_t n = utf8_char_bytes(*p);
    if (n > left) invalid_byte_sequence(p, left);
    if (!is_legal_char(p, n)) invalid_byte_sequence(p, n);
    p += n;
    left -= n;
  }
}

int32_t utf8_char_count(std::string_view s) {
  int32_t n = 0;
  for (char c : s) n += (uint8_t(c) & 0xc0) != 0x80;
  return n;
}

std::string_view varchar_in(std::string_view text, int32_t typmod) {
  check_utf8(text);
  return varchar_coerce(text, typmod, false);
}

std::string bpchar_in(std::string_view text, int32_t typmod) {
  check_utf8(text);
  return bpchar_coerce(text, typmod, false);
}

std::string_view varchar_coerce(std::string_view value, int32_t typmod, bool is_explicit) {
  const int32_t max_chars = typmod - 4;
  if (max_chars < 0 || value.size() <= size_t(max_chars)) return value;
  return value.substr(0, clip_to_chars(value, max_chars, is_explicit, "character varying"));
}

std::string bpchar_coerce(std::string_view value, int32_t typmod, bool is_explicit) {
  const int32_t max_chars = typmod - 4;
  if (max_chars < 0) return std::string(value);
  const int32_t chars = utf8_char_count(value);
  if (chars > max_chars)
    return std::string(value.substr(0, clip_to_chars(value, max_chars, is_explicit, "character")));
  std::string padded(value);
  padded.append(size_t(max_chars - chars), ' ');
  return padded;
}

std::string_view bpchar_to_text(std::string_view value) {
  const size_t end = value.find_last_not_of(' ');
  return value.substr(0, end == std::string_view::npos ? 0 : end + 1);
}

int text_cmp(std::string_view a, std::string_view b) {
  const int c = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
  if (c != 0) return c < 0 ? -1 : 1;
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

int bpchar_cmp(std::string_view a, std::string_view b) {
  return text_cmp(bpchar_to_text(a), bpchar_to_text(b));
}

std::string text_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

std::string text_upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_upper(c);
  return out;
}

std::string_view text_substring(std::string_view s, int32_t start, std::optional<int32_t> count) {
  if (count && *count < 0) {
    throw Error("negative substring length not allowed").with_sqlstate(sqlstate::kSubstringError);
  }
  // 64-bit, so start + count cannot wrap: a sum past the string runs to its end.
  const int64_t first = std::max<int64_t>(start, 1);
  const int64_t end = count ? int64_t(start) + *count : INT64_MAX;
  if (end <= first) return s.substr(0, 0);
  const size_t from = char_prefix_bytes(s, first - 1);
  const size_t to = from + char_prefix_bytes(s.substr(from), end - first);
  return s.substr(from, to - from);
}

int32_t text_position(std::string_view haystack, std::string_view needle) {
  const size_t at = haystack.find(needle);
  if (at == std::string_view::npos) return 0;
  return utf8_char_count(haystack.substr(0, at)) + 1;
}

std::string_view text_btrim(std::string_view s, std::string_view characters) {
  return text_rtrim(text_ltrim(s, characters), characters);
}

std::string_view text_ltrim(std::string_view s, std::string_view characters) {
  return s.substr(leading_set_bytes(s, characters));
}

std::string_view text_rtrim(std::string_view s, std::string_view characters) {
  return s.substr(0, trailing_set_start(s, characters));
}

std::string text_concat(std::string_view a, std::string_view b) {
  std::string out;
  out.reserve(a.size() + b.size());
  out.append(a);
  out.append(b);
  return out;
}

bool text_like(std::string_view s, std::string_view pattern) {
  return like_match(s, pattern) == Match::kTrue;
}

bool text_ilike(std::string_view s, std::string_view pattern) {
  return text_like(text_lower(s), text_lower(pattern));
}

LikePrefix like_fixed_prefix(std::string_view pattern) {
  LikePrefix out;
  size_t i = 0;
  for (; i < pattern.size(); ++i) {
    if (pattern[i] == '%' || pattern[i] == '_') break;
    // An escape makes the next character literal; a lone escape at the end adds nothing
    // yet leaves the pattern counted as fixed, as PostgreSQL's planner counts it.
    if (pattern[i] == '\\' && ++i == pattern.size()) break;
    out.prefix += pattern[i];
  }
  out.exact = i == pattern.size();
  return out;
}

std::string md5_hex(std::string_view s) {
  return Md5().hex_digest(s);
}

}  // namespace tp
