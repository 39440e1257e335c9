// COPY's grammar (PostgreSQL 15's): the statement parser (parser.cc) builds on this
// for `COPY ...`. Only STDIN and STDOUT are read and written (a server-side file or
// PROGRAM is refused by name: psql's \copy reads the client's file); the options in
// either spelling, WITH (FORMAT csv, HEADER, ...) or the old WITH CSV HEADER ...,
// checked with PostgreSQL's errors; FORCE_QUOTE, FORCE_NOT_NULL, FORCE_NULL, an
// ENCODING other than UTF8 and COPY FROM's WHERE refused by name.
#pragma once

#include "engine/sql/select_clauses.h"

namespace tp::sql {

class CopyParser : public SelectClauseParser {
 public:
  using SelectClauseParser::SelectClauseParser;

 protected:
  // After the word COPY.
  CopyStmt copy_statement();

 private:
  void options(CopyStmt& c);
  void option(CopyStmt& c, const std::string& name, int position);
  std::string option_string(const char* what);
  void legacy_options(CopyStmt& c);
  static void resolve(CopyStmt& c);
};

}  // namespace tp::sql
