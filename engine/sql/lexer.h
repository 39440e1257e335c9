// SQL tokens. Keywords are recognised by the parser (case-insensitive
// identifiers), so the lexer only knows shapes: identifiers, numbers,
// strings, operators and punctuation.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tp::sql {

enum class TokenKind {
  Identifier,  // foo, "Quoted Name" (quoted keeps case)
  Integer,     // 42, 10_000_000
  Numeric,     // 1.5, .5, 1e3
  String,      // 'text' ('' escapes a quote)
  Operator,    // + - * / % = <> != < <= > >= ::
  Punct,       // ( ) , ; .
  End,
};

struct Token {
  TokenKind kind;
  std::string text;  // identifiers folded to lower case unless quoted; numbers without '_'
  int position;      // 1-based character offset in the statement, for error carets
  bool quoted = false;
};

// Splits `text` into tokens. Throws tp::Error (with position) on an
// unterminated string or quoted identifier, or a character SQL does not use.
std::vector<Token> tokenize(std::string_view text);

}  // namespace tp::sql
