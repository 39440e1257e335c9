#include "engine/sql/parser.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <optional>

#include "engine/core/error.h"
#include "engine/core/stack_depth.h"
#include "engine/sql/command_parser.h"
#include "engine/sql/expr_parser.h"
#include "engine/sql/lexer.h"
#include "engine/sql/reloptions.h"
#include "engine/sql/select_clauses.h"

namespace tp::sql {
namespace {

std::string upper(std::string s) {
  for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

class Parser : public CommandParser {
 public:
  using CommandParser::CommandParser;

  Statement parse() {
    Statement st = statement();
    accept_punct(";");
    if (peek().kind != TokenKind::kEnd) syntax_error();
    return st;
  }

 private:
  Statement statement() {
    if (is_word("create")) return create();
    if (is_word("drop")) return drop();
    if (accept_word("alter")) return alter_table();
    if (accept_word("truncate")) {
      accept_word("table");
      Truncate t;
      do t.names.push_back(relation_name());
      while (accept_punct(","));
      return t;
    }
    if (is_word("insert")) return insert();
    if (accept_word("copy")) return copy_statement();
    if (accept_word("prepare")) return prepare_statement();
    if (is_word("execute")) return execute_statement();
    if (accept_word("deallocate")) return deallocate_statement();
    if (accept_word("discard")) return discard_statement();
    for (const char* write : {"update", "delete", "merge"})
      if (is_word(write))
        throw Error(upper(write) + " is not supported by tidepool", "",
                    "Rows are written with INSERT and COPY, and removed with TRUNCATE or "
                    "DROP TABLE.")
            .at_position(peek().position)
            .with_sqlstate(sqlstate::kFeatureNotSupported);
    if (is_word("declare") || is_word("fetch") || is_word("move"))
      throw Error("cursors (DECLARE, FETCH, MOVE) are not supported by tidepool", "",
                  "Read the rows as they come (a driver's client-side cursor), or with LIMIT "
                  "and OFFSET.")
          .at_position(peek().position)
          .with_sqlstate(sqlstate::kFeatureNotSupported);
    if (is_word("select") || is_word("values") || is_word("with") || is_punct("(")) return select();
    if (accept_word("set")) return set();
    if (accept_word("show")) {
      ShowStmt s;
      if (is_word("time") && is_word("zone", 1)) {
        next();
        next();
        s.name = "timezone";
        return s;
      }
      s.name = accept_word("all") ? "all" : identifier();
      return s;
    }
    if (accept_word("reset")) {
      ResetStmt r;
      r.name = accept_word("all") ? "all" : identifier();
      return r;
    }
    if (accept_word("explain")) return explain();
    if (auto t = transaction_statement()) return *t;
    if (accept_word("analyze") || accept_word("analyse")) {
      Analyze a;
      table_list(a.tables);
      return a;
    }
    if (accept_word("vacuum")) {  // options as written: the session knows which it has
      Analyze a;
      a.vacuum = true;
      if (accept_punct("(")) {
        do a.options.push_back(peek().kind == TokenKind::kIdentifier ? next().text : identifier());
        while (accept_punct(","));
        expect_punct(")");
      }
      for (const char* w : {"full", "freeze", "verbose", "analyze", "analyse"})
        if (accept_word(w)) a.options.push_back(w);
      table_list(a.tables);
      return a;
    }
    syntax_error();
  }

  void table_list(std::vector<std::string>& out) {
    if (peek().kind != TokenKind::kIdentifier) return;
    do out.push_back(relation_name());
    while (accept_punct(","));
  }

  Statement create() {
    expect_word("create");
    bool unique = accept_word("unique");
    if (accept_word("index")) return create_index(unique);
    if (unique) syntax_error();
    expect_word("table");
    CreateTable ct;
    if (accept_word("if")) {
      expect_word("not");
      expect_word("exists");
      ct.if_not_exists = true;
    }
    ct.name_position = peek().position;
    ct.name = relation_name();
    expect_punct("(");
    do {
      if (is_word("primary")) {
        ct.primary_key_position = peek().position;
        next();
        expect_word("key");
        expect_punct("(");
        if (!ct.primary_key.empty())
          throw Error("multiple primary keys for table \"" + ct.name + "\" are not allowed")
              .at_position(ct.primary_key_position)
              .with_sqlstate(sqlstate::kInvalidTableDefinition);
        do ct.primary_key.push_back(identifier());
        while (accept_punct(","));
        expect_punct(")");
        continue;
      }
      ColumnDef col;
      col.position = peek().position;
      col.name = identifier();
      col.type = type_name();
      while (peek().kind == TokenKind::kIdentifier && !is_punct(",")) {
        if (is_word("primary")) {
          int pos = peek().position;
          next();
          expect_word("key");
          if (!ct.primary_key.empty())
            throw Error("multiple primary keys for table \"" + ct.name + "\" are not allowed")
                .at_position(pos)
                .with_sqlstate(sqlstate::kInvalidTableDefinition);
          col.primary_key = true;
          ct.primary_key = {col.name};
          ct.primary_key_position = pos;
        } else if (accept_word("not")) {
          expect_word("null");
          col.not_null = true;
        } else if (accept_word("null")) {
          col.not_null = false;
        } else {
          syntax_error();
        }
      }
      ct.columns.push_back(std::move(col));
    } while (accept_punct(","));
    expect_punct(")");
    if (accept_word("with")) {
      TableOptions o = table_options(option_list());
      ct.fillfactor = o.fillfactor;
      ct.parallel_workers = o.parallel_workers;
    }
    return ct;
  }

  // ( name [= value], ... ): storage options.
  std::vector<RelOption> option_list() {
    expect_punct("(");
    std::vector<RelOption> out;
    do {
      RelOption o;
      o.position = peek().position;
      o.name = identifier();
      if (accept_op("=")) {
        std::string sign = accept_op("-") ? "-" : "";
        Token v = peek();
        if (v.kind != TokenKind::kInteger && v.kind != TokenKind::kNumeric &&
            v.kind != TokenKind::kString && v.kind != TokenKind::kIdentifier)
          syntax_error();
        o.value = sign + next().text;
      }
      out.push_back(std::move(o));
    } while (accept_punct(","));
    expect_punct(")");
    return out;
  }

  Statement alter_table() {
    expect_word("table");
    AlterTable at;
    if (accept_word("if")) {
      expect_word("exists");
      at.if_exists = true;
    }
    at.name_position = peek().position;
    at.name = relation_name();
    if (is_word("add")) {
      at.add_position = next().position;
      if (accept_word("constraint")) at.constraint_name = identifier();
      if (!accept_word("primary"))
        throw Error("ALTER TABLE ... ADD supports PRIMARY KEY (...) only")
            .at_position(peek().position)
            .with_sqlstate(sqlstate::kFeatureNotSupported);
      expect_word("key");
      expect_punct("(");
      do at.add_primary_key.push_back(identifier());
      while (accept_punct(","));
      expect_punct(")");
      return at;
    }
    if (accept_word("reset")) {
      at.reset = true;
    } else if (!accept_word("set")) {
      throw Error("ALTER TABLE supports SET (...), RESET (...) and ADD PRIMARY KEY (...) only")
          .at_position(peek().position)
          .with_sqlstate(sqlstate::kFeatureNotSupported);
    }
    at.options = option_list();
    return at;
  }

  Statement create_index(bool unique) {
    CreateIndex ci;
    ci.unique = unique;
    if (accept_word("if")) {
      expect_word("not");
      expect_word("exists");
      ci.if_not_exists = true;
    }
    if (!is_word("on")) ci.name = identifier();
    expect_word("on");
    ci.table = relation_name();
    if (accept_word("using")) {
      Token t = peek();
      std::string am = identifier();
      if (am != "btree")
        throw Error("access method \"" + am + "\" is not supported", "",
                    "tidepool indexes are B-trees.")
            .at_position(t.position)
            .with_sqlstate(sqlstate::kFeatureNotSupported);
    }
    expect_punct("(");
    do ci.columns.push_back(identifier());
    while (accept_punct(","));
    expect_punct(")");
    if (accept_word("with")) ci.deduplicate_items = index_options(option_list()).deduplicate_items;
    return ci;
  }

  Statement drop() {
    expect_word("drop");
    bool index = false;
    if (accept_word("index")) {
      index = true;
    } else {
      expect_word("table");
    }
    bool if_exists = false;
    if (accept_word("if")) {
      expect_word("exists");
      if_exists = true;
    }
    std::vector<std::string> names;
    do names.push_back(relation_name());
    while (accept_punct(","));
    if (index) return DropIndex{std::move(names), if_exists};
    return DropTable{std::move(names), if_exists};
  }

  Statement insert() {
    expect_word("insert");
    expect_word("into");
    Insert ins;
    ins.table_position = peek().position;
    ins.table = relation_name();
    if (accept_punct("(")) {
      do ins.columns.push_back(identifier());
      while (accept_punct(","));
      expect_punct(")");
    }
    if (!is_word("select") && !is_word("values")) syntax_error();
    ins.source = select_body();
    if (ins.source.set_operation)
      throw Error("INSERT ... SELECT over a UNION is not supported")
          .at_position(ins.source.set_operation->position)
          .with_sqlstate(sqlstate::kFeatureNotSupported);
    return ins;
  }

  Statement select() { return select_body(); }

  std::shared_ptr<const Select> subselect() override {
    check_stack_depth();
    auto sub = std::make_shared<const Select>(select_body());
    if (sub->set_operation)
      throw Error("UNION in a subquery is not supported")
          .at_position(sub->set_operation->position)
          .with_sqlstate(sqlstate::kFeatureNotSupported);
    return sub;
  }

  Select select_body() {
    Select s;
    if (accept_word("with")) with_clause(s);
    if (accept_word("values")) {
      do {
        expect_punct("(");
        std::vector<ExprPtr> row;
        do row.push_back(expr());
        while (accept_punct(","));
        expect_punct(")");
        if (!s.values.empty() && row.size() != s.values.front().size())
          throw Error("VALUES lists must all be the same length")
              .at_position(peek().position)
              .with_sqlstate(sqlstate::kSyntaxError);
        s.values.push_back(std::move(row));
      } while (accept_punct(","));
      return s;
    }
    select_term(s);
    if (is_word("union")) {
      if (!s.with.empty())
        throw Error("WITH over a UNION is not supported")
            .at_position(peek().position)
            .with_sqlstate(sqlstate::kFeatureNotSupported);
      s = set_operations(std::move(s));
    }
    order_by_clause(s);
    limit_clauses(s);
    refuse_clauses({{"for", "SELECT ... FOR UPDATE / FOR SHARE"},
                    {"intersect", "INTERSECT"},
                    {"except", "EXCEPT"}});
    // Over a table the qualifiers are checked once the table is found (a missing
    // relation is the error PostgreSQL gives first).
    if (!s.set_operation && (!s.from || s.from->is_function)) check_column_qualifiers(s);
    return s;
  }

  // `left UNION [ALL | DISTINCT] right ...`, left to right, after the first term `left`.
  Select set_operations(Select left) {
    if (!left.set_operation && (!left.from || left.from->is_function))
      check_column_qualifiers(left);
    while (is_word("union")) {
      auto op = std::make_shared<SetOperation>();
      op->position = next().position;
      op->all = accept_word("all");
      if (!op->all) accept_word("distinct");
      Select right;
      select_term(right);
      if (!right.set_operation && (!right.from || right.from->is_function))
        check_column_qualifiers(right);
      op->left = std::make_shared<const Select>(std::move(left));
      op->right = std::make_shared<const Select>(std::move(right));
      left = Select{};
      left.set_operation = std::move(op);
    }
    refuse_clauses({{"intersect", "INTERSECT"}, {"except", "EXCEPT"}});
    return left;
  }

  // One operand of a set operation: `SELECT ...` up to its ORDER BY, or a parenthesised
  // query with its own ORDER BY and LIMIT.
  void select_term(Select& s) {
    if (accept_punct("(")) {
      check_stack_depth();
      if (!is_word("select") && !is_word("values") && !is_word("with") && !is_punct("("))
        syntax_error();
      std::vector<CommonTableExpr> with = std::move(s.with);
      s = select_body();
      if (!with.empty() && !s.with.empty())
        throw Error("multiple WITH clauses not allowed")
            .at_position(peek().position)
            .with_sqlstate(sqlstate::kSyntaxError);
      if (!with.empty()) s.with = std::move(with);
      expect_punct(")");
      return;
    }
    expect_word("select");
    if (is_word("distinct")) {
      next();
      if (accept_word("on")) {
        expect_punct("(");
        do s.distinct_on.push_back(expr());
        while (accept_punct(","));
        expect_punct(")");
      }
      s.distinct = true;
    } else {
      accept_word("all");
    }
    do {
      Target t;
      t.expr = expr();
      if (t.expr->kind == ExprKind::kStar) {
        // "*" takes no alias; whatever follows must be FROM or the end.
      } else if (accept_word("as")) {
        t.alias = identifier();
      } else if (peek().kind == TokenKind::kIdentifier && !is_reserved(peek().text)) {
        t.alias = identifier();
      }
      s.targets.push_back(std::move(t));
    } while (accept_punct(","));
    if (accept_word("from")) s.from = from_clause();
    if (accept_word("where")) s.where = expr();
    grouping_clauses(s);
  }

  // WITH's list, after the keyword: each `name [(columns)] AS [[NOT] MATERIALIZED] (query)`.
  void with_clause(Select& s) {
    if (is_word("recursive"))
      throw Error("WITH RECURSIVE is not supported")
          .at_position(peek().position)
          .with_sqlstate(sqlstate::kFeatureNotSupported);
    do {
      CommonTableExpr c;
      c.position = peek().position;
      c.name = identifier();
      if (accept_punct("(")) {
        do c.column_aliases.push_back(identifier());
        while (accept_punct(","));
        expect_punct(")");
      }
      expect_word("as");
      if (accept_word("not")) {
        expect_word("materialized");
        c.materialized = false;
      } else if (accept_word("materialized")) {
        c.materialized = true;
      }
      expect_punct("(");
      if (!is_word("select") && !is_word("values") && !is_word("with")) {
        refuse_clauses({{"insert", "INSERT in WITH"},
                        {"update", "UPDATE in WITH"},
                        {"delete", "DELETE in WITH"}});
        syntax_error();
      }
      c.query = subselect();
      expect_punct(")");
      s.with.push_back(std::move(c));
    } while (accept_punct(","));
    if (!is_word("select") && !is_word("values")) syntax_error();
  }

  Statement set() {
    SetStmt s;
    accept_word("session");
    // SET TIME ZONE value: TimeZone, LOCAL being its default.
    const bool time_zone = is_word("time") && peek(1).kind == TokenKind::kIdentifier &&
                           peek(1).text == "zone" && !peek(1).quoted;
    if (time_zone) {
      next();
      next();
      s.name = "timezone";
    } else {
      s.name = identifier();
      if (!accept_op("=") && !accept_word("to")) syntax_error();
    }
    s.value_position = peek().position;
    if (accept_word("default") || (time_zone && accept_word("local"))) {
      s.to_default = true;
      return s;
    }
    Token t = peek();
    switch (t.kind) {
      case TokenKind::kString:
      case TokenKind::kIdentifier:
      case TokenKind::kInteger:
      case TokenKind::kNumeric:
        s.value = next().text;
        break;
      case TokenKind::kOperator:
        if (t.text == "-" &&
            (peek(1).kind == TokenKind::kInteger || peek(1).kind == TokenKind::kNumeric)) {
          next();
          s.value = "-" + next().text;
          break;
        }
        syntax_error();
      default:
        syntax_error();
    }
    // PostgreSQL also accepts an unquoted unit after a number: SET work_mem = 64 kB is an
    // error there too, so we do not.
    return s;
  }

  Statement explain() {
    auto e = std::make_unique<Explain>();
    // `EXPLAIN (SELECT ...) UNION ...`: the parenthesis opens the query, not options.
    const bool options =
        is_punct("(") && !is_word("select", 1) && !is_word("with", 1) && !is_punct_at("(", 1);
    if (options && accept_punct("(")) {
      do {
        Token t = peek();
        std::string opt = identifier();
        bool on = true;
        if (peek().kind == TokenKind::kIdentifier && !is_punct(",")) {
          Token v = peek();
          std::string val = next().text;
          if (opt == "format") {
            if (val == "json")
              e->options.json = true;
            else if (val != "text")
              throw Error("unrecognized value for EXPLAIN option \"format\": \"" + val + "\"")
                  .at_position(v.position)
                  .with_sqlstate(sqlstate::kInvalidParameterValue);
            continue;
          }
          if (val == "on" || val == "true")
            on = true;
          else if (val == "off" || val == "false")
            on = false;
          else
            throw Error(opt + " requires a Boolean value")
                .at_position(v.position)
                .with_sqlstate(sqlstate::kSyntaxError);
        } else if (peek().kind == TokenKind::kInteger) {
          on = next().text != "0";
        }
        if (opt == "analyze" || opt == "analyse")
          e->options.analyze = on;
        else if (opt == "buffers")
          e->options.buffers = on;
        else if (opt == "timing")
          e->options.timing = on;
        else if (opt == "costs")
          e->options.costs = on;
        else if (opt == "verbose")
          e->options.verbose = on;
        else if (opt == "format")
          syntax_error();
        else
          throw Error("unrecognized EXPLAIN option \"" + opt + "\"")
              .at_position(t.position)
              .with_sqlstate(sqlstate::kSyntaxError);
      } while (accept_punct(","));
      expect_punct(")");
    } else if (!options) {
      if (accept_word("analyze") || accept_word("analyse")) e->options.analyze = true;
      if (accept_word("verbose")) e->options.verbose = true;
    }
    if (is_word("execute")) {
      ExecuteStmt x = execute_statement();
      x.explain = text_.substr(0, size_t(x.position - 1));
      e->statement = std::move(x);
      return e;
    }
    if (!is_word("select") && !is_word("with") && !is_punct("(")) syntax_error();
    e->statement = select_body();
    return e;
  }
};

}  // namespace

Statement parse_statement(std::string_view text, std::vector<std::string>* notices) {
  std::optional<ParsedNodeBudget> budget;
  if (ParsedNodeBudget::current() == nullptr) budget.emplace();
  return Parser(text, notices).parse();
}

}  // namespace tp::sql
