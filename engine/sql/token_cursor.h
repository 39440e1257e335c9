// The token stream of one statement, shared by the statement parser and the
// expression parser (engine/sql/parser.cc, expr_parser.cc): look-ahead, the
// keyword and punctuation tests, identifiers, and PostgreSQL's syntax errors.
#pragma once

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/error.h"
#include "engine/sql/lexer.h"

namespace tp::sql {

// Words that end an expression or clause; used to keep aliases from
// swallowing keywords (SELECT 1 FROM ...).
inline bool is_reserved(std::string_view w) {
  static constexpr std::string_view kWords[] = {
      "select", "from",      "where",   "order",   "by",       "limit",  "and",         "or",
      "not",    "as",        "between", "in",      "asc",      "desc",   "values",      "with",
      "on",     "into",      "table",   "create",  "insert",   "null",   "true",        "false",
      "is",     "primary",   "key",     "group",   "distinct", "offset", "fetch",       "all",
      "only",   "symmetric", "isnull",  "notnull", "having",   "window", "tablesample", "like",
      "ilike",  "similar",   "for",     "using",   "natural",  "cross",  "left",        "right",
      "inner",  "full",      "join",    "any",     "some",     "union",  "intersect",   "except"};
  for (std::string_view k : kWords)
    if (w == k) return true;
  return false;
}

// Tokens are read as the parser reaches them into a ring of kRing slots, so a
// statement's tokens take memory for a few dozen, whatever its length. A reference
// from peek() or next() stays valid while the cursor moves fewer than kKept tokens
// on (the parser looks at most a few tokens ahead, so a slot is reused only after
// that): a parser that must keep a token longer (across a sub-expression) copies it.
class TokenCursor {
 public:
  TokenCursor(std::string_view text, std::vector<std::string>* notices)
      : tokens_(text, notices), text_(text) {}

 private:
  static constexpr size_t kKept = 16;
  static constexpr size_t kRing = 64;  // a power of two, well above kKept + the look-ahead
  static_assert(kRing >= 2 * kKept && (kRing & (kRing - 1)) == 0);
  mutable Tokenizer tokens_;
  mutable std::array<Token, kRing> ring_;  // token i in ring_[i % kRing], for i < read_
  mutable size_t read_ = 0;                // how many tokens have been read
  mutable bool ended_ = false;             // the end token has been read
  size_t at_ = 0;                          // the current token's number in the statement

  // Reads tokens up to token i, or to the end token.
  const Token& read_to(size_t i) const {
    while (read_ <= i && !ended_) {
      Token& slot = ring_[read_ % kRing];
      slot = tokens_.next();
      ended_ = slot.kind == TokenKind::kEnd;
      ++read_;
    }
    return ring_[std::min(i, read_ - 1) % kRing];
  }

  // Token i of the statement (the end token for any i past it). Called for every
  // keyword and operator test, so the token already read is returned at once.
  const Token& token_at(size_t i) const {
    if (i < read_) [[likely]]
      return ring_[i % kRing];
    return read_to(i);
  }

 protected:
  std::string_view text_;
  // The statement's text from 1-based `position` to its end, without a last ';'.
  std::string text_from(int position) const {
    std::string_view t = text_.substr(size_t(position - 1));
    while (!t.empty() && (t.back() == ';' || t.back() == ' ' || t.back() == '\n' ||
                          t.back() == '\t' || t.back() == '\r'))
      t.remove_suffix(1);
    return std::string(t);
  }

  const Token& peek(size_t ahead = 0) const { return token_at(at_ + ahead); }
  const Token& next() {
    const Token& t = token_at(at_);
    if (t.kind != TokenKind::kEnd) ++at_;
    return t;
  }

  [[noreturn]] void syntax_error() const {
    Token t = peek();
    if (t.kind == TokenKind::kEnd)
      throw Error("syntax error at end of input")
          .at_position(t.position)
          .with_sqlstate(sqlstate::kSyntaxError);
    std::string shown = t.kind == TokenKind::kString  ? "'" + t.text + "'"
                        : t.kind == TokenKind::kParam ? "$" + t.text
                                                      : t.text;
    if (t.kind == TokenKind::kIdentifier) {
      // Show the word as typed, like PostgreSQL.
      size_t p = size_t(t.position - 1);
      size_t e = p;
      while (e < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[e])) ||
                                  static_cast<unsigned char>(text_[e]) >= 0x80 || text_[e] == '_' ||
                                  text_[e] == '"' || text_[e] == '$'))
        ++e;
      shown = std::string(text_.substr(p, e - p));
    }
    throw Error("syntax error at or near \"" + shown + "\"")
        .at_position(t.position)
        .with_sqlstate(sqlstate::kSyntaxError);
  }

  bool is_word(std::string_view w, size_t ahead = 0) const {
    const Token& t = peek(ahead);
    return t.kind == TokenKind::kIdentifier && !t.quoted && t.text == w;
  }
  bool accept_word(std::string_view w) {
    if (!is_word(w)) return false;
    next();
    return true;
  }
  void expect_word(std::string_view w) {
    if (!accept_word(w)) syntax_error();
  }
  bool is_punct_at(std::string_view p, size_t ahead) const {
    return peek(ahead).kind == TokenKind::kPunct && peek(ahead).text == p;
  }
  bool is_punct(std::string_view p) const {
    return peek().kind == TokenKind::kPunct && peek().text == p;
  }
  bool accept_punct(std::string_view p) {
    if (!is_punct(p)) return false;
    next();
    return true;
  }
  void expect_punct(std::string_view p) {
    if (!accept_punct(p)) syntax_error();
  }
  bool is_op(std::string_view o) const {
    return peek().kind == TokenKind::kOperator && peek().text == o;
  }
  bool accept_op(std::string_view o) {
    if (!is_op(o)) return false;
    next();
    return true;
  }

  std::string identifier() {
    const Token& t = peek();
    if (t.kind != TokenKind::kIdentifier || (!t.quoted && is_reserved(t.text))) syntax_error();
    return next().text;
  }

  // A relation's name, perhaps schema-qualified. tidepool's tables live in schema
  // "public" and its system views in "pg_catalog" (`schema` says which was written, ""
  // for neither); any other qualification names nothing that exists, as in PostgreSQL.
  std::string relation_name(std::string* schema = nullptr) {
    Token t = peek();
    std::string name = identifier();
    if (!accept_punct(".")) return name;
    std::string rel = identifier();
    if (name == "public" || (schema && name == "pg_catalog")) {
      if (schema) *schema = name;
      return rel;
    }
    throw Error("relation \"" + name + "." + rel + "\" does not exist")
        .at_position(t.position)
        .with_sqlstate(sqlstate::kUndefinedTable);
  }

  // An integer constant where PostgreSQL wants a bigint (LIMIT, WITH options).
  int64_t integer_literal() {
    bool neg = accept_op("-");
    Token t = peek();
    if (t.kind != TokenKind::kInteger) syntax_error();
    __int128 v = 0;
    for (char c : t.text) {
      v = v * 10 + (c - '0');
      if (v > (__int128(1) << 63)) break;
    }
    if (neg) v = -v;
    if (v > std::numeric_limits<int64_t>::max() || v < std::numeric_limits<int64_t>::min())
      throw Error("bigint out of range")
          .at_position(t.position)
          .with_sqlstate(sqlstate::kNumericValueOutOfRange);
    next();
    return int64_t(v);
  }
};

}  // namespace tp::sql
