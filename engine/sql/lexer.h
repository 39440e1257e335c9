// SQL tokens. Keywords are recognised by the parser (case-insensitive
// identifiers), so the lexer only knows shapes: identifiers, numbers,
// strings, operators and punctuation.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tp::sql {

enum class TokenKind {
  kIdentifier,  // foo, "Quoted Name" (quoted keeps case and every character)
  kInteger,     // 42, 10_000_000
  kNumeric,     // 1.5, .5, 1e3
  kString,      // 'text' ('' escapes a quote)
  kParam,       // $1: a parameter (text holds its digits)
  kOperator,    // + - * / % = <> != < <= > >= ::
  kPunct,       // ( ) , ; .
  kEnd,
};

struct Token {
  TokenKind kind;
  std::string text;  // identifiers folded to lower case unless quoted; numbers without '_'
  int position;      // 1-based byte offset in the statement, for error carets
  bool quoted = false;
};

// Longest identifier, in bytes (PostgreSQL's NAMEDATALEN - 1).
inline constexpr size_t kMaxIdentifierBytes = 63;

// The longest prefix of `text` of at most `max_bytes` bytes that does not
// split a UTF-8 character (PostgreSQL's pg_mbcliplen).
std::string clip_utf8(std::string_view text, size_t max_bytes);

// The tokens of `text` one at a time, for a parser that looks a few tokens ahead:
// a long statement (a million-item IN list) never has all its tokens in memory.
// The text is checked for valid UTF-8 first; other errors come when the scan
// reaches them, as in PostgreSQL's scanner. `text` must outlive the Tokenizer.
class Tokenizer {
 public:
  Tokenizer(std::string_view text, std::vector<std::string>* notices);
  ~Tokenizer();
  Tokenizer(const Tokenizer&) = delete;
  Tokenizer& operator=(const Tokenizer&) = delete;
  // The next token; kEnd at the end (and again on every call after it).
  Token next();

 private:
  class Scanner;
  std::unique_ptr<Scanner> scanner_;
};

// Splits `text` into tokens. Throws tp::Error (with position) on input that is
// not valid UTF-8 (or holds a NUL), an unterminated string, comment or quoted
// identifier, or a character SQL does not use. Identifiers as PostgreSQL's
// scanner makes them: unquoted ones have A-Z folded to a-z (other bytes, UTF-8
// letters included, are kept); quoted ones keep every character ("" is a
// quote); both are cut to 63 bytes at a character boundary, with the notice
// `identifier "..." will be truncated to "..."` appended to `notices`.
std::vector<Token> tokenize(std::string_view text, std::vector<std::string>* notices = nullptr);

// The mark that begins a parse message PostgreSQL sends as a WARNING, not a NOTICE.
inline constexpr std::string_view kParseWarning = "\x01WARNING ";

// The offset just past the "*/" that closes the block comment opening at
// `start` ("/*"); comments nest, as in PostgreSQL. npos if it is not closed.
size_t block_comment_end(std::string_view text, size_t start);

// Throws `invalid byte sequence for encoding "UTF8": 0x..` (PostgreSQL's
// pg_verify_mbstr) at the first byte sequence that is not UTF-8, or a NUL.
void verify_utf8(std::string_view text);

}  // namespace tp::sql
