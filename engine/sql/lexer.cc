#include "engine/sql/lexer.h"

#include <cctype>

#include "engine/error.h"

namespace tp::sql {
namespace {

bool is_ident_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool is_ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

}  // namespace

std::vector<Token> tokenize(std::string_view s) {
  std::vector<Token> out;
  size_t i = 0;
  auto pos = [&](size_t at) { return int(at) + 1; };
  while (i < s.size()) {
    char c = s[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '-' && i + 1 < s.size() && s[i + 1] == '-') {  // comment to end of line
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      size_t end = s.find("*/", i + 2);
      if (end == std::string_view::npos) throw Error("unterminated /* comment").at_position(pos(i));
      i = end + 2;
      continue;
    }
    size_t start = i;
    if (is_ident_start(c)) {
      while (i < s.size() && is_ident_char(s[i])) ++i;
      std::string word(s.substr(start, i - start));
      for (char& ch : word) ch = char(std::tolower(static_cast<unsigned char>(ch)));
      out.push_back({TokenKind::Identifier, word, pos(start)});
      continue;
    }
    if (c == '"') {
      std::string word;
      ++i;
      for (;;) {
        if (i >= s.size()) throw Error("unterminated quoted identifier").at_position(pos(start));
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
      out.push_back({TokenKind::Identifier, word, pos(start), true});
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
