#include "engine/sql/lexer.h"

#include <cctype>
#include <cstdio>

#include "engine/core/error.h"

namespace tp::sql {
namespace {

// PostgreSQL's ident_start and ident_cont: ASCII letters, '_', and every byte
// of a multi-byte character (so UTF-8 letters make identifiers unquoted too).
bool is_ident_start(char c) {
  auto u = static_cast<unsigned char>(c);
  return (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || u == '_' || u >= 0x80;
}
bool is_ident_char(char c) {
  return is_ident_start(c) || (c >= '0' && c <= '9') || c == '$';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// Length of the UTF-8 character that starts with byte `c` (pg_utf_mblen).
size_t utf8_length(unsigned char c) {
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) return 2;
  if ((c & 0xF0) == 0xE0) return 3;
  if ((c & 0xF8) == 0xF0) return 4;
  return 1;
}

// pg_utf8_islegal: continuation bytes, no overlong forms, no surrogates, at most U+10FFFF.
bool utf8_legal(const unsigned char* p, size_t len) {
  auto in = [](unsigned char b, unsigned lo, unsigned hi) { return b >= lo && b <= hi; };
  if (len >= 4 && !in(p[3], 0x80, 0xBF)) return false;
  if (len >= 3 && !in(p[2], 0x80, 0xBF)) return false;
  if (len >= 2) {
    unsigned char b = p[1];
    switch (p[0]) {
      case 0xE0:
        if (!in(b, 0xA0, 0xBF)) return false;
        break;
      case 0xED:
        if (!in(b, 0x80, 0x9F)) return false;
        break;
      case 0xF0:
        if (!in(b, 0x90, 0xBF)) return false;
        break;
      case 0xF4:
        if (!in(b, 0x80, 0x8F)) return false;
        break;
      default:
        if (!in(b, 0x80, 0xBF)) return false;
    }
  }
  return !(p[0] >= 0x80 && p[0] < 0xC2) && p[0] <= 0xF4;
}

// PostgreSQL cuts identifiers to NAMEDATALEN-1 bytes without splitting a character.
std::string truncate_identifier(std::string word, std::vector<std::string>* notices) {
  if (word.size() <= kMaxIdentifierBytes) return word;
  std::string kept = clip_utf8(word, kMaxIdentifierBytes);
  if (notices)
    notices->push_back("identifier \"" + word + "\" will be truncated to \"" + kept + "\"");
  return kept;
}

}  // namespace

std::string clip_utf8(std::string_view text, size_t max_bytes) {
  size_t cut = 0;
  while (cut < text.size()) {
    size_t n = utf8_length(static_cast<unsigned char>(text[cut]));
    if (cut + n > max_bytes) break;
    cut += n;
  }
  return std::string(text.substr(0, cut));
}

size_t block_comment_end(std::string_view s, size_t start) {
  int depth = 0;
  for (size_t i = start; i + 1 < s.size(); ++i) {
    if (s[i] == '/' && s[i + 1] == '*') {
      ++depth;
      ++i;
    } else if (s[i] == '*' && s[i + 1] == '/') {
      ++i;
      if (--depth == 0) return i + 1;
    }
  }
  return std::string_view::npos;
}

void verify_utf8(std::string_view text) {
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  size_t n = text.size();
  for (size_t i = 0; i < n;) {
    size_t len = p[i] == 0 ? 1 : utf8_length(p[i]);
    if (p[i] == 0 || (p[i] >= 0x80 && (i + len > n || !utf8_legal(p + i, len)))) {
      // As report_invalid_encoding: the bytes of the would-be character that are there.
      std::string bytes;
      for (size_t j = 0; j < len && i + j < n; ++j) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "%s0x%02x", j ? " " : "", p[i + j]);
        bytes += hex;
      }
      throw Error("invalid byte sequence for encoding \"UTF8\": " + bytes);
    }
    i += len;
  }
}

std::vector<Token> tokenize(std::string_view s, std::vector<std::string>* notices) {
  verify_utf8(s);
  std::vector<Token> out;
  size_t i = 0;
  auto pos = [&](size_t at) { return int(at) + 1; };
  while (i < s.size()) {
    char c = s[i];
    if (is_space(c)) {
      ++i;
      continue;
    }
    if (c == '-' && i + 1 < s.size() && s[i + 1] == '-') {  // comment to end of line
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      size_t end = block_comment_end(s, i);
      if (end == std::string_view::npos)
        throw Error("unterminated /* comment at or near \"" + std::string(s.substr(i)) + "\"")
            .at_position(pos(i));
      i = end;
      continue;
    }
    size_t start = i;
    if (is_ident_start(c)) {
      while (i < s.size() && is_ident_char(s[i])) ++i;
      std::string word(s.substr(start, i - start));
      for (char& ch : word)
        if (ch >= 'A' && ch <= 'Z') ch = char(ch - 'A' + 'a');
      out.push_back({TokenKind::Identifier, truncate_identifier(word, notices), pos(start)});
      continue;
    }
    if (c == '"') {
      std::string word;
      ++i;
      for (;;) {
        if (i >= s.size())
          throw Error("unterminated quoted identifier at or near \"" +
                      std::string(s.substr(start)) + "\"")
              .at_position(pos(start));
        if (s[i] == '"') {
          if (i + 1 < s.size() && s[i + 1] == '"') {
            word += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        word += s[i++];
      }
      if (word.empty()) throw Error("zero-length delimited identifier").at_position(pos(start));
      out.push_back({TokenKind::Identifier, truncate_identifier(word, notices), pos(start), true});
      continue;
    }
    if (is_digit(c) || (c == '.' && i + 1 < s.size() && is_digit(s[i + 1]))) {
      std::string digits;
      bool numeric = false;
      auto take_digits = [&] {
        while (i < s.size() && (is_digit(s[i]) || s[i] == '_')) {
          if (s[i] == '_') {
            // PostgreSQL 16+: underscores only between digits.
            if (i + 1 >= s.size() || !is_digit(s[i + 1]) || digits.empty() ||
                !is_digit(digits.back()))
              throw Error("trailing junk after numeric literal at or near \"" +
                          std::string(s.substr(start, i + 1 - start)) + "\"")
                  .at_position(pos(start));
            ++i;
            continue;
          }
          digits += s[i++];
        }
      };
      take_digits();
      if (i < s.size() && s[i] == '.' && !(i + 1 < s.size() && s[i + 1] == '.')) {
        numeric = true;
        digits += s[i++];
        take_digits();
      }
      if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        size_t save = i;
        std::string exp = "e";
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) exp += s[i++];
        if (i < s.size() && is_digit(s[i])) {
          while (i < s.size() && is_digit(s[i])) exp += s[i++];
          digits += exp;
          numeric = true;
        } else {
          i = save;
        }
      }
      if (i < s.size() && is_ident_start(s[i]))
        throw Error("trailing junk after numeric literal at or near \"" +
                    std::string(s.substr(start, i + 1 - start)) + "\"")
            .at_position(pos(start));
      out.push_back({numeric ? TokenKind::Numeric : TokenKind::Integer, digits, pos(start)});
      continue;
    }
    if (c == '\'') {
      std::string str;
      ++i;
      for (;;) {
        if (i >= s.size())
          throw Error("unterminated quoted string at or near \"" + std::string(s.substr(start)) +
                      "\"")
              .at_position(pos(start));
        if (s[i] == '\'') {
          if (i + 1 < s.size() && s[i + 1] == '\'') {
            str += '\'';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        str += s[i++];
      }
      out.push_back({TokenKind::String, str, pos(start)});
      continue;
    }
    auto two = s.substr(i, 2);
    if (two == "<>" || two == "!=" || two == "<=" || two == ">=" || two == "::") {
      out.push_back({TokenKind::Operator, std::string(two), pos(start)});
      i += 2;
      continue;
    }
    if (std::string_view("+-*/%=<>").find(c) != std::string_view::npos) {
      out.push_back({TokenKind::Operator, std::string(1, c), pos(start)});
      ++i;
      continue;
    }
    if (std::string_view("(),;.[]").find(c) != std::string_view::npos) {
      out.push_back({TokenKind::Punct, std::string(1, c), pos(start)});
      ++i;
      continue;
    }
    throw Error("syntax error at or near \"" + std::string(1, c) + "\"").at_position(pos(start));
  }
  out.push_back({TokenKind::End, "", int(s.size()) + 1});
  return out;
}

}  // namespace tp::sql
