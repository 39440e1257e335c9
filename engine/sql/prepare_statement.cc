#include "engine/core/error.h"
#include "engine/sql/command_parser.h"

namespace tp::sql {

PrepareStmt CommandParser::prepare_statement() {
  PrepareStmt p;
  p.name = identifier();
  if (accept_punct("(")) {
    do p.types.push_back(type_name());
    while (accept_punct(","));
    expect_punct(")");
  }
  expect_word("as");
  if (!is_word("select") && !is_word("values") && !is_word("with") && !is_word("insert") &&
      !is_punct("("))
    syntax_error();
  p.text = text_from(peek().position);
  while (peek().kind != TokenKind::kEnd) next();
  return p;
}

ExecuteStmt CommandParser::execute_statement() {
  ExecuteStmt e;
  e.position = next().position;
  e.name = identifier();
  if (accept_punct("(")) {
    do e.args.push_back(expr());
    while (accept_punct(","));
    expect_punct(")");
  }
  return e;
}

DeallocateStmt CommandParser::deallocate_statement() {
  accept_word("prepare");
  DeallocateStmt d;
  if (!accept_word("all")) d.name = identifier();
  return d;
}

DeallocateStmt CommandParser::discard_statement() {
  if (!accept_word("all"))
    throw Error("DISCARD supports ALL only")
        .at_position(peek().position)
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  DeallocateStmt d;
  d.discard = true;
  return d;
}

}  // namespace tp::sql
