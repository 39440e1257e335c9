#include "engine/sql/command_parser.h"

#include <algorithm>
#include <cstring>

#include "engine/core/error.h"

namespace tp::sql {

namespace {

Error redundant(int position) {
  return Error("conflicting or redundant options")
      .at_position(position)
      .with_sqlstate(sqlstate::kSyntaxError);
}

Error invalid(const std::string& message) {
  return Error(message).with_sqlstate(sqlstate::kInvalidParameterValue);
}

Error unsupported(const std::string& message, int position = 0) {
  return Error(message).at_position(position).with_sqlstate(sqlstate::kFeatureNotSupported);
}

// A boolean option's value as PostgreSQL's defGetBoolean reads it; "match" for HEADER.
int boolean_value(const std::string& name, const std::optional<std::string>& v, bool match) {
  if (!v) return 1;
  std::string s = *v;
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return std::tolower(ch); });
  if (s == "true" || s == "on" || s == "1") return 1;
  if (s == "false" || s == "off" || s == "0") return 0;
  if (match && s == "match") return 2;
  throw invalid(name + " requires a Boolean value" + (match ? " or \"match\"" : ""));
}

}  // namespace

CopyStmt CommandParser::copy_statement() {
  CopyStmt c;
  if (accept_punct("(")) {
    c.query = subselect();
    expect_punct(")");
  } else {
    c.table_position = peek().position;
    c.table = relation_name();
    if (accept_punct("(")) {
      do c.columns.push_back(identifier());
      while (accept_punct(","));
      expect_punct(")");
    }
  }
  if (accept_word("from")) {
    if (c.query) syntax_error();
  } else {
    expect_word("to");
    c.from = false;
  }
  const Token target = peek();
  if (target.kind == TokenKind::kString || is_word("program"))
    throw Error(std::string("COPY ") + (c.from ? "from" : "to") +
                    " a file or a program is not supported by tidepool",
                "",
                std::string("Use ") + (c.from ? "STDIN" : "STDOUT") +
                    ": psql's \\copy reads and writes the file on the client.")
        .at_position(target.position)
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  if (!accept_word(c.from ? "stdin" : "stdout")) syntax_error();
  accept_word("with");
  if (is_punct("("))
    options(c);
  else
    legacy_options(c);
  if (is_word("where"))
    throw unsupported("COPY FROM ... WHERE is not supported by tidepool", peek().position);
  resolve(c);
  return c;
}

// WITH (name [value], ...)
void CommandParser::options(CopyStmt& c) {
  expect_punct("(");
  std::vector<std::string> seen;
  do {
    const int position = peek().position;
    const std::string name = next().text;
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) throw redundant(position);
    seen.push_back(name);
    option(c, name, position);
  } while (accept_punct(","));
  expect_punct(")");
}

std::string CommandParser::option_string() {
  const Token t = peek();
  if (t.kind != TokenKind::kString) syntax_error();
  next();
  return t.text;
}

void CommandParser::option(CopyStmt& c, const std::string& name, int position) {
  // The option's argument, when one is written: a string, a word or a number.
  std::optional<std::string> value;
  const Token t = peek();
  if (t.kind == TokenKind::kString || t.kind == TokenKind::kIdentifier ||
      t.kind == TokenKind::kInteger || t.kind == TokenKind::kNumeric) {
    value = t.text;
    next();
  } else if (t.kind == TokenKind::kOperator && t.text == "*") {
    next();
    value = "*";
  } else if (is_punct("(")) {
    throw unsupported("COPY option " + name + " is not supported by tidepool", position);
  }
  if (name == "format") {
    if (!value) throw invalid("format requires a parameter");
    if (*value == "text")
      c.format = CopyStmt::Format::kText;
    else if (*value == "csv")
      c.format = CopyStmt::Format::kCsv;
    else if (*value == "binary")
      c.format = CopyStmt::Format::kBinary;
    else
      throw invalid("COPY format \"" + *value + "\" not recognized").at_position(position);
  } else if (name == "freeze") {
    c.freeze = boolean_value(name, value, false) != 0;
  } else if (name == "header") {
    const int h = boolean_value(name, value, true);
    c.header = h != 0;
    c.header_match = h == 2;
  } else if (name == "delimiter" || name == "null" || name == "quote" || name == "escape") {
    if (!value || t.kind != TokenKind::kString) throw invalid(name + " requires a parameter");
    std::string& field = name == "delimiter" ? c.delimiter
                         : name == "null"    ? c.null_string
                         : name == "quote"   ? c.quote
                                             : c.escape;
    field = *value;
    // An explicit empty NULL string differs from none: mark it set.
    if (name == "null" && value->empty()) c.null_string = std::string(1, '\0');
  } else if (name == "encoding") {
    if (!value) throw invalid("encoding requires a parameter");
    std::string e = *value;
    std::transform(e.begin(), e.end(), e.begin(),
                   [](unsigned char ch) { return std::toupper(ch); });
    e.erase(std::remove(e.begin(), e.end(), '-'), e.end());
    if (e != "UTF8")
      throw unsupported("COPY ENCODING '" + *value + "' is not supported by tidepool: it reads " +
                            "and writes UTF8 only",
                        position);
  } else if (name == "force_quote" || name == "force_not_null" || name == "force_null") {
    throw unsupported("COPY option " + name + " is not supported by tidepool", position);
  } else {
    throw Error("option \"" + name + "\" not recognized")
        .at_position(position)
        .with_sqlstate(sqlstate::kSyntaxError);
  }
}

// The spelling before PostgreSQL 9.0: [BINARY] [DELIMITER [AS] 'c'] [NULL [AS] 's']
// [CSV [HEADER] [QUOTE [AS] 'q'] [ESCAPE [AS] 'e']], in any order.
void CommandParser::legacy_options(CopyStmt& c) {
  std::vector<std::string> seen;
  for (;;) {
    const int position = peek().position;
    std::string name;
    if (accept_word("binary")) {
      name = "format";
      c.format = CopyStmt::Format::kBinary;
    } else if (accept_word("csv")) {
      name = "format";
      c.format = CopyStmt::Format::kCsv;
    } else if (accept_word("header")) {
      name = "header";
      c.header = true;
    } else if (accept_word("freeze")) {
      name = "freeze";
      c.freeze = true;
    } else if (is_word("delimiter") || is_word("null") || is_word("quote") || is_word("escape")) {
      name = next().text;
      accept_word("as");
      std::string v = option_string();
      if (name == "null" && v.empty()) v = std::string(1, '\0');
      (name == "delimiter" ? c.delimiter
       : name == "null"    ? c.null_string
       : name == "quote"   ? c.quote
                           : c.escape) = v;
    } else if (is_word("force")) {
      throw unsupported("COPY option FORCE is not supported by tidepool", position);
    } else {
      return;
    }
    if (std::find(seen.begin(), seen.end(), name) != seen.end()) throw redundant(position);
    seen.push_back(name);
  }
}

// PostgreSQL's ProcessCopyOptions: defaults by format, then the checks, in its order.
void CommandParser::resolve(CopyStmt& c) {
  using F = CopyStmt::Format;
  const bool csv = c.format == F::kCsv, binary = c.format == F::kBinary;
  const bool null_given = !c.null_string.empty();
  if (c.null_string == std::string(1, '\0')) c.null_string.clear();
  if (binary && !c.delimiter.empty())
    throw Error("cannot specify DELIMITER in BINARY mode").with_sqlstate(sqlstate::kSyntaxError);
  if (binary && null_given)
    throw Error("cannot specify NULL in BINARY mode").with_sqlstate(sqlstate::kSyntaxError);
  if (binary && c.header)
    throw Error("cannot specify HEADER in BINARY mode").with_sqlstate(sqlstate::kSyntaxError);
  if (c.delimiter.empty()) c.delimiter = csv ? "," : "\t";
  if (!null_given) c.null_string = csv ? "" : "\\N";
  if (csv) {
    if (c.quote.empty()) c.quote = "\"";
    if (c.escape.empty()) c.escape = c.quote;
  }
  if (binary) return;
  if (c.delimiter.size() != 1)
    throw unsupported("COPY delimiter must be a single one-byte character");
  if (c.delimiter[0] == '\n' || c.delimiter[0] == '\r')
    throw invalid("COPY delimiter cannot be newline or carriage return");
  if (c.null_string.find_first_of("\r\n") != std::string::npos)
    throw invalid("COPY null representation cannot use newline or carriage return");
  if (!csv && std::strchr("\\.abcdefghijklmnopqrstuvwxyz0123456789", c.delimiter[0]) != nullptr)
    throw invalid("COPY delimiter cannot be \"" + c.delimiter + "\"");
  if (!csv && !c.quote.empty()) throw unsupported("COPY quote available only in CSV mode");
  if (csv && c.quote.size() != 1)
    throw unsupported("COPY quote must be a single one-byte character");
  if (csv && c.delimiter == c.quote) throw invalid("COPY delimiter and quote must be different");
  if (!csv && !c.escape.empty()) throw unsupported("COPY escape available only in CSV mode");
  if (csv && c.escape.size() != 1)
    throw unsupported("COPY escape must be a single one-byte character");
  if (c.null_string.find(c.delimiter) != std::string::npos)
    throw invalid("COPY delimiter must not appear in the NULL specification");
  if (csv && c.null_string.find(c.quote) != std::string::npos)
    throw invalid("CSV quote character must not appear in the NULL specification");
  if (c.header_match && !c.from) throw invalid("cannot use \"match\" with HEADER in COPY TO");
}

}  // namespace tp::sql
