// The clauses of a SELECT that need more than an expression: FROM's list of tables,
// functions and joins; GROUP BY's items (grouping sets refused by name) and HAVING, LIMIT / OFFSET
// / FETCH FIRST in PostgreSQL's orders, and the refusal of a clause tidepool does not have where it
// starts. engine/sql/parser.cc's statement parser builds on these.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <utility>

#include "engine/sql/ast.h"
#include "engine/sql/expr_parser.h"

namespace tp::sql {

class SelectClauseParser : public ExprParser {
 public:
  using ExprParser::ExprParser;

 protected:
  // FROM's items: one table or function, or a tree of joins (a comma list as kComma
  // joins, left to right), subqueries with their aliases. VALUES, NATURAL joins and an alias on a
  // parenthesised join are refused by name.
  FromItem from_clause();
  // GROUP BY's items into s.group_by and HAVING's condition into s.having (each when
  // written); WINDOW is refused by name.
  void grouping_clauses(Select& s);
  void group_by_items(Select& s);
  // A clause PostgreSQL has and tidepool does not: refused by name where it starts.
  void refuse_clauses(std::initializer_list<std::pair<const char*, const char*>> clauses);
  // ORDER BY's items, when written (a second one over a parenthesised query's: 42601).
  void order_by_clause(Select& s);
  // LIMIT {n | ALL}, OFFSET n [ROW | ROWS] and FETCH {FIRST | NEXT} [n] {ROW | ROWS} ONLY,
  // in PostgreSQL's orders: LIMIT and OFFSET either way round, FETCH after OFFSET.
  void limit_clauses(Select& s);
  // A LIMIT / OFFSET count: a non-negative integer (PostgreSQL's 2201W / 2201X).
  int64_t row_count(const char* clause);

 private:
  FromItem table_ref();
  FromItem from_primary();
  FromItem relation_item();
  FromItem subquery_item();
};

}  // namespace tp::sql
