// The grammar of the commands around queries that the statement parser (parser.cc)
// builds on: COPY (copy_statement.cc) and PREPARE / EXECUTE / DEALLOCATE / DISCARD
// (prepare_statement.cc), as PostgreSQL 15 spells them.
//
// COPY: Only STDIN and STDOUT are read and written (a server-side file or
// PROGRAM is refused by name: psql's \copy reads the client's file); the options in
// either spelling, WITH (FORMAT csv, HEADER, ...) or the old WITH CSV HEADER ...,
// checked with PostgreSQL's errors; FORCE_QUOTE, FORCE_NOT_NULL, FORCE_NULL, an
// ENCODING other than UTF8 and COPY FROM's WHERE refused by name.
#pragma once

#include <optional>

#include "engine/sql/select_clauses.h"

namespace tp::sql {

class CommandParser : public SelectClauseParser {
 public:
  using SelectClauseParser::SelectClauseParser;

 protected:
  // After the word COPY.
  CopyStmt copy_statement();
  // After PREPARE: PREPARE name [(type, ...)] AS statement (a query or an INSERT,
  // kept as text: its $n are parsed when it is prepared).
  PrepareStmt prepare_statement();
  // At EXECUTE: EXECUTE name [(value, ...)].
  ExecuteStmt execute_statement();
  // After DEALLOCATE: [PREPARE] {name | ALL}; after DISCARD: ALL.
  DeallocateStmt deallocate_statement();
  DeallocateStmt discard_statement();
  // BEGIN / START TRANSACTION [modes], COMMIT / END, ROLLBACK / ABORT
  // (transaction_statement.cc); none: not one of them.
  std::optional<TransactionStmt> transaction_statement();

 private:
  void options(CopyStmt& c);
  void option(CopyStmt& c, const std::string& name, int position);
  std::string option_string();
  void legacy_options(CopyStmt& c);
  static void resolve(CopyStmt& c);
  void transaction_modes(TransactionStmt& t);
};

}  // namespace tp::sql
