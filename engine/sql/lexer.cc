#include "engine/sql/lexer.h"

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstring>

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
  // Eight bytes at a time while they are ASCII and not zero (COPY checks every line).
  constexpr uint64_t kOnes = 0x0101010101010101ULL, kHighs = 0x8080808080808080ULL;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, sizeof w);
    const uint64_t zero_byte = (w - kOnes) & ~w & kHighs;
    if (((w & kHighs) | zero_byte) != 0) break;
  }
  for (; i < n;) {
    size_t len = p[i] == 0 ? 1 : utf8_length(p[i]);
    if (p[i] == 0 || (p[i] >= 0x80 && (i + len > n || !utf8_legal(p + i, len)))) {
      // As report_invalid_encoding: the bytes of the would-be character that are there.
      std::string bytes;
      for (size_t j = 0; j < len && i + j < n; ++j) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "%s0x%02x", j ? " " : "", p[i + j]);
        bytes += hex;
      }
      throw Error("invalid byte sequence for encoding \"UTF8\": " + bytes)
          .with_sqlstate(sqlstate::kCharacterNotInRepertoire);
    }
    i += len;
  }
}

// One pass over the statement text, a token at a time; each read_* consumes one
// token starting at i_ and puts it in out_.
class Tokenizer::Scanner {
 public:
  Scanner(std::string_view s, std::vector<std::string>* notices) : s_(s), notices_(notices) {}

  Token next() {
    while (out_.empty()) {
      if (i_ >= s_.size()) return {TokenKind::kEnd, "", int(s_.size()) + 1};
      if (skip_space_or_comment()) continue;
      char c = s_[i_];
      if (is_ident_start(c)) {
        read_identifier();
      } else if (c == '"') {
        read_quoted_identifier();
      } else if (is_digit(c) || (c == '.' && is_digit(peek(1)))) {
        read_number();
      } else if (c == '\'') {
        read_string();
      } else if (c == '$' && is_digit(peek(1))) {
        read_param();
      } else {
        read_operator_or_punct();
      }
    }
    Token t = std::move(out_.back());
    out_.clear();
    return t;
  }

 private:
  char peek(size_t ahead) const { return i_ + ahead < s_.size() ? s_[i_ + ahead] : '\0'; }
  int pos(size_t at) const { return int(at) + 1; }
  Error junk_after_number(size_t start) const {
    return Error("trailing junk after numeric literal at or near \"" +
                 std::string(s_.substr(start, i_ + 1 - start)) + "\"")
        .at_position(pos(start))
        .with_sqlstate(sqlstate::kSyntaxError);
  }

  bool skip_space_or_comment() {
    char c = s_[i_];
    if (is_space(c)) {
      ++i_;
    } else if (c == '-' && peek(1) == '-') {  // comment to end of line
      while (i_ < s_.size() && s_[i_] != '\n') ++i_;
    } else if (c == '/' && peek(1) == '*') {
      size_t end = block_comment_end(s_, i_);
      if (end == std::string_view::npos)
        throw Error("unterminated /* comment at or near \"" + std::string(s_.substr(i_)) + "\"")
            .at_position(pos(i_))
            .with_sqlstate(sqlstate::kSyntaxError);
      i_ = end;
    } else {
      return false;
    }
    return true;
  }

  void read_identifier() {
    size_t start = i_;
    while (i_ < s_.size() && is_ident_char(s_[i_])) ++i_;
    std::string word(s_.substr(start, i_ - start));
    for (char& ch : word)
      if (ch >= 'A' && ch <= 'Z') ch = char(ch - 'A' + 'a');
    out_.push_back({TokenKind::kIdentifier, truncate_identifier(word, notices_), pos(start)});
  }

  // Text between `quote` characters, a doubled quote standing for one.
  std::string read_quoted(char quote, const char* what) {
    size_t start = i_++;
    std::string text;
    for (;;) {
      if (i_ >= s_.size())
        throw Error(std::string("unterminated ") + what + " at or near \"" +
                    std::string(s_.substr(start)) + "\"")
            .at_position(pos(start))
            .with_sqlstate(sqlstate::kSyntaxError);
      if (s_[i_] == quote) {
        if (peek(1) != quote) break;
        ++i_;
      }
      text += s_[i_++];
    }
    ++i_;
    return text;
  }

  void read_quoted_identifier() {
    size_t start = i_;
    std::string word = read_quoted('"', "quoted identifier");
    if (word.empty())
      throw Error("zero-length delimited identifier")
          .at_position(pos(start))
          .with_sqlstate(sqlstate::kSyntaxError);
    out_.push_back({TokenKind::kIdentifier, truncate_identifier(word, notices_), pos(start), true});
  }

  void read_string() {
    size_t start = i_;
    std::string str = read_quoted('\'', "quoted string");
    out_.push_back({TokenKind::kString, str, pos(start)});
  }

  // Digits with PostgreSQL 16's underscores, allowed only between digits.
  void take_digits(size_t start, std::string& digits) {
    while (i_ < s_.size() && (is_digit(s_[i_]) || s_[i_] == '_')) {
      if (s_[i_] == '_') {
        if (!is_digit(peek(1)) || digits.empty() || !is_digit(digits.back()))
          throw junk_after_number(start);
        ++i_;
        continue;
      }
      digits += s_[i_++];
    }
  }

  // $n; what follows it may not continue a word (PostgreSQL's param_junk).
  void read_param() {
    const size_t start = i_++;
    while (i_ < s_.size() && is_digit(s_[i_])) ++i_;
    if (i_ < s_.size() && is_ident_char(s_[i_]))
      throw Error("trailing junk after parameter at or near \"" +
                  std::string(s_.substr(start, i_ + 1 - start)) + "\"")
          .at_position(pos(start))
          .with_sqlstate(sqlstate::kSyntaxError);
    out_.push_back(
        {TokenKind::kParam, std::string(s_.substr(start + 1, i_ - start - 1)), pos(start)});
  }

  void read_number() {
    size_t start = i_;
    std::string digits;
    bool numeric = false;
    take_digits(start, digits);
    if (i_ < s_.size() && s_[i_] == '.' && peek(1) != '.') {
      numeric = true;
      digits += s_[i_++];
      take_digits(start, digits);
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      size_t save = i_;
      std::string exp = "e";
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) exp += s_[i_++];
      if (i_ < s_.size() && is_digit(s_[i_])) {
        while (i_ < s_.size() && is_digit(s_[i_])) exp += s_[i_++];
        digits += exp;
        numeric = true;
      } else {
        i_ = save;
      }
    }
    if (i_ < s_.size() && is_ident_start(s_[i_])) throw junk_after_number(start);
    out_.push_back({numeric ? TokenKind::kNumeric : TokenKind::kInteger, digits, pos(start)});
  }

  void read_operator_or_punct() {
    char c = s_[i_];
    auto two = s_.substr(i_, 2);
    if (two == "<>" || two == "!=" || two == "<=" || two == ">=" || two == "::" || two == "||") {
      out_.push_back({TokenKind::kOperator, std::string(two), pos(i_)});
      i_ += 2;
    } else if (std::string_view("+-*/%=<>").find(c) != std::string_view::npos) {
      out_.push_back({TokenKind::kOperator, std::string(1, c), pos(i_++)});
    } else if (std::string_view("(),;.[]").find(c) != std::string_view::npos) {
      out_.push_back({TokenKind::kPunct, std::string(1, c), pos(i_++)});
    } else {
      throw Error("syntax error at or near \"" + std::string(1, c) + "\"")
          .at_position(pos(i_))
          .with_sqlstate(sqlstate::kSyntaxError);
    }
  }

  std::string_view s_;
  std::vector<std::string>* notices_;
  size_t i_ = 0;
  std::vector<Token> out_;  // the token just read (at most one)
};

Tokenizer::Tokenizer(std::string_view text, std::vector<std::string>* notices) {
  verify_utf8(text);
  scanner_ = std::make_unique<Scanner>(text, notices);
}

Tokenizer::~Tokenizer() = default;

Token Tokenizer::next() {
  return scanner_->next();
}

std::vector<Token> tokenize(std::string_view s, std::vector<std::string>* notices) {
  Tokenizer tokens(s, notices);
  std::vector<Token> out;
  do out.push_back(tokens.next());
  while (out.back().kind != TokenKind::kEnd);
  return out;
}

}  // namespace tp::sql
