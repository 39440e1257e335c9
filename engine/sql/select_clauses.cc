#include "engine/sql/select_clauses.h"

#include "engine/core/error.h"

namespace tp::sql {

FromItem SelectClauseParser::from_clause() {
  FromItem from = table_ref();
  while (is_punct(",")) {
    next();
    FromItem list;
    list.join = JoinKind::kComma;
    list.position = from.position;
    list.sides.push_back(std::move(from));
    list.sides.push_back(table_ref());
    from = std::move(list);
  }
  return from;
}

// A FROM list entry: a primary item and the joins that follow it, left to right.
FromItem SelectClauseParser::table_ref() {
  FromItem left = from_primary();
  for (;;) {
    const int position = peek().position;
    if (is_word("natural"))
      throw Error("NATURAL JOIN is not supported")
          .at_position(position)
          .with_sqlstate(sqlstate::kFeatureNotSupported);
    JoinKind kind;
    if (accept_word("cross")) {
      kind = JoinKind::kCross;
    } else if (accept_word("inner")) {
      kind = JoinKind::kInner;
    } else if (is_word("left") || is_word("right") || is_word("full")) {
      kind = accept_word("left")    ? JoinKind::kLeft
             : accept_word("right") ? JoinKind::kRight
                                    : (next(), JoinKind::kFull);
      accept_word("outer");
    } else if (is_word("join")) {
      kind = JoinKind::kInner;
    } else {
      return left;
    }
    expect_word("join");
    FromItem j;
    j.join = kind;
    j.position = position;
    j.sides.push_back(std::move(left));
    j.sides.push_back(from_primary());
    if (kind != JoinKind::kCross) {
      if (accept_word("on")) {
        j.on = expr();
      } else {
        expect_word("using");
        expect_punct("(");
        do j.using_columns.push_back(identifier());
        while (accept_punct(","));
        expect_punct(")");
      }
    }
    left = std::move(j);
  }
}

// A table or function with its alias, or a parenthesised join.
FromItem SelectClauseParser::from_primary() {
  accept_word("only");  // no table has children: ONLY t is t
  if (is_word("lateral")) {
    const int position = peek().position;
    next();
    if (!is_punct("(")) {
      // Only a subquery or a function may follow (PostgreSQL's grammar): a table name
      // is a syntax error at the token after it.
      identifier();
      while (accept_punct(".")) identifier();
      if (!is_punct("(")) syntax_error();
      throw Error("LATERAL over a function is not supported")
          .at_position(position)
          .with_sqlstate(sqlstate::kFeatureNotSupported);
    }
    if (!is_word("select", 1) && !is_word("with", 1))
      throw Error("LATERAL over a parenthesised join or VALUES is not supported")
          .at_position(position)
          .with_sqlstate(sqlstate::kFeatureNotSupported);
    FromItem f = subquery_item();
    f.lateral = true;
    return f;
  }
  if (!is_punct("(")) return relation_item();
  if (is_word("select", 1) || is_word("with", 1)) return subquery_item();
  if (is_word("values", 1))
    throw Error("VALUES in FROM is not supported")
        .at_position(peek().position)
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  if (is_word("table", 1) || is_punct_at("(", 1))
    throw Error("subqueries in FROM are not supported")
        .at_position(peek().position)
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  next();
  FromItem inner = table_ref();
  expect_punct(")");
  if (is_word("as") || (peek().kind == TokenKind::kIdentifier && !is_reserved(peek().text)))
    throw Error("an alias on a parenthesised join is not supported")
        .at_position(peek().position)
        .with_sqlstate(sqlstate::kFeatureNotSupported);
  return inner;
}

// `(SELECT ...) [AS] alias [(columns)]`: PostgreSQL 15 requires the alias.
FromItem SelectClauseParser::subquery_item() {
  FromItem f;
  f.position = peek().position;
  expect_punct("(");
  f.subquery = subselect();
  expect_punct(")");
  if (accept_word("as") || (peek().kind == TokenKind::kIdentifier && !is_reserved(peek().text))) {
    f.alias = identifier();
    if (accept_punct("(")) {
      do f.column_aliases.push_back(identifier());
      while (accept_punct(","));
      expect_punct(")");
    }
  } else {
    throw Error("subquery in FROM must have an alias", "",
                "For example, FROM (SELECT ...) [AS] foo.")
        .at_position(f.position)
        .with_sqlstate(sqlstate::kSyntaxError);
  }
  return f;
}

FromItem SelectClauseParser::relation_item() {
  FromItem f;
  f.position = peek().position;
  f.name = relation_name(&f.schema);
  if (accept_punct("(")) {
    f.is_function = true;
    if (!is_punct(")")) {
      do f.func_args.push_back(expr());
      while (accept_punct(","));
    }
    expect_punct(")");
  }
  if (accept_word("as") || (peek().kind == TokenKind::kIdentifier && !is_reserved(peek().text))) {
    f.alias = identifier();
    if (accept_punct("(")) {
      do f.column_aliases.push_back(identifier());
      while (accept_punct(","));
      expect_punct(")");
    }
  }
  refuse_clauses({{"tablesample", "TABLESAMPLE"}});
  return f;
}

// GROUP BY items (grouping sets are PostgreSQL's and refused by name), then HAVING.
void SelectClauseParser::grouping_clauses(Select& s) {
  group_by_items(s);
  if (accept_word("having")) s.having = expr();
  refuse_clauses({{"window", "WINDOW"}});
}

void SelectClauseParser::group_by_items(Select& s) {
  if (!is_word("group")) return;
  s.group_by_position = peek().position;
  next();
  expect_word("by");
  if (is_word("distinct") || is_word("all")) {
    if (is_word("distinct"))
      throw Error("GROUP BY DISTINCT is not supported")
          .at_position(peek().position)
          .with_sqlstate(sqlstate::kFeatureNotSupported);
    next();
  }
  do {
    // ROLLUP ( / CUBE ( / GROUPING SETS: a column may still be named rollup or cube.
    const char* sets = is_word("rollup") && is_punct_at("(", 1)    ? "ROLLUP"
                       : is_word("cube") && is_punct_at("(", 1)    ? "CUBE"
                       : is_word("grouping") && is_word("sets", 1) ? "GROUPING SETS"
                                                                   : nullptr;
    if (sets)
      throw Error(std::string("GROUP BY ") + sets + " is not supported")
          .at_position(peek().position)
          .with_sqlstate(sqlstate::kFeatureNotSupported);
    if (is_punct("(") && is_punct_at(")", 1))
      throw Error("GROUP BY () (an empty grouping set) is not supported")
          .at_position(peek().position)
          .with_sqlstate(sqlstate::kFeatureNotSupported);
    s.group_by.push_back(expr());
  } while (accept_punct(","));
}

// A clause PostgreSQL has and tidepool does not: refused by name where it starts.
void SelectClauseParser::refuse_clauses(
    std::initializer_list<std::pair<const char*, const char*>> clauses) {
  for (const auto& [word, name] : clauses)
    if (is_word(word))
      throw Error(std::string(name) + " is not supported")
          .at_position(peek().position)
          .with_sqlstate(sqlstate::kFeatureNotSupported);
}

// ORDER BY's items, each `expr [ASC | DESC] [NULLS FIRST | LAST]` (USING refused).
void SelectClauseParser::order_by_clause(Select& s) {
  if (!is_word("order")) return;
  if (!s.order_by.empty())  // a parenthesised query's own, then one over it
    throw Error("multiple ORDER BY clauses not allowed")
        .at_position(peek().position)
        .with_sqlstate(sqlstate::kSyntaxError);
  next();
  expect_word("by");
  do {
    OrderItem o;
    o.expr = expr();
    if (accept_word("desc")) {
      o.descending = true;
    } else {
      accept_word("asc");
    }
    if (is_word("using"))
      throw Error("ORDER BY ... USING is not supported")
          .at_position(peek().position)
          .with_sqlstate(sqlstate::kFeatureNotSupported);
    if (accept_word("nulls")) {
      if (accept_word("first")) {
        o.nulls_first = true;
      } else {
        expect_word("last");
        o.nulls_first = false;
      }
    }
    s.order_by.push_back(std::move(o));
  } while (accept_punct(","));
}

// LIMIT {n | ALL}, OFFSET n [ROW | ROWS] and FETCH {FIRST | NEXT} [n] {ROW | ROWS} ONLY,
// in PostgreSQL's orders: LIMIT and OFFSET either way round, FETCH after OFFSET.
void SelectClauseParser::limit_clauses(Select& s) {
  bool limit_seen = false;
  const bool had_limit = s.limit.has_value();  // a parenthesised query's own
  for (;;) {
    if (had_limit && (is_word("limit") || is_word("fetch")))
      throw Error("multiple LIMIT clauses not allowed")
          .at_position(peek().position)
          .with_sqlstate(sqlstate::kSyntaxError);
    if (!limit_seen && is_word("limit")) {
      next();
      limit_seen = true;
      if (accept_word("all")) continue;
      s.limit = row_count("LIMIT");
    } else if (!s.offset && is_word("offset")) {
      next();
      s.offset = row_count("OFFSET");
      if (!accept_word("rows")) accept_word("row");
    } else if (!limit_seen && is_word("fetch")) {
      next();
      limit_seen = true;
      if (!accept_word("first")) expect_word("next");
      s.limit = peek().kind == TokenKind::kInteger || is_op("-") ? row_count("FETCH FIRST") : 1;
      if (!accept_word("rows")) expect_word("row");
      if (is_word("with"))
        throw Error("FETCH FIRST ... WITH TIES is not supported")
            .at_position(peek().position)
            .with_sqlstate(sqlstate::kFeatureNotSupported);
      expect_word("only");
    } else {
      return;
    }
  }
}

int64_t SelectClauseParser::row_count(const char* clause) {
  int pos = peek().position;
  int64_t n = integer_literal();
  if (n < 0)
    throw Error(std::string(clause) + " must not be negative")
        .at_position(pos)
        .with_sqlstate(std::string(clause) == "OFFSET"
                           ? sqlstate::kInvalidRowCountInResultOffsetClause
                           : sqlstate::kInvalidRowCountInLimitClause);
  return n;
}

}  // namespace tp::sql
