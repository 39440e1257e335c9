#include "engine/core/error.h"
#include "engine/sql/command_parser.h"

namespace tp::sql {

std::optional<TransactionStmt> CommandParser::transaction_statement() {
  using Kind = TransactionStmt::Kind;
  TransactionStmt t;
  if (accept_word("begin")) {
    if (!accept_word("work")) accept_word("transaction");
    transaction_modes(t);
  } else if (accept_word("start")) {
    expect_word("transaction");
    transaction_modes(t);
  } else if (accept_word("commit") || accept_word("end")) {
    t.kind = Kind::kCommit;
    if (!accept_word("work")) accept_word("transaction");
  } else if (accept_word("rollback") || accept_word("abort")) {
    t.kind = Kind::kRollback;
    if (!accept_word("work")) accept_word("transaction");
    if (is_word("to"))
      throw Error("savepoints are not supported by tidepool", "",
                  "A transaction block commits or rolls back as a whole.")
          .with_sqlstate(sqlstate::kFeatureNotSupported);
  } else {
    return std::nullopt;
  }
  return t;
}

// ISOLATION LEVEL ..., READ ONLY | READ WRITE, [NOT] DEFERRABLE, comma-separated.
// Every statement reads the committed state as it starts, which is READ
// COMMITTED (READ UNCOMMITTED means the same in PostgreSQL); the others
// promise a snapshot tidepool does not keep, so they are refused.
void CommandParser::transaction_modes(TransactionStmt& t) {
  if (peek().kind != TokenKind::kIdentifier) return;
  do {
    if (accept_word("isolation")) {
      expect_word("level");
      const int pos = peek().position;
      if (accept_word("read")) {
        if (!accept_word("committed")) expect_word("uncommitted");
      } else if (accept_word("repeatable") || accept_word("serializable")) {
        throw Error("tidepool supports only the READ COMMITTED isolation level", "",
                    "Each statement reads what was committed when it started; there are no "
                    "transaction snapshots.")
            .with_sqlstate(sqlstate::kFeatureNotSupported)
            .at_position(pos);
      } else {
        syntax_error();
      }
    } else if (accept_word("read")) {
      if (accept_word("only"))
        t.read_only = true;
      else
        expect_word("write");
    } else if (accept_word("not")) {
      expect_word("deferrable");
    } else {
      expect_word("deferrable");
    }
  } while (accept_punct(","));
}

}  // namespace tp::sql
