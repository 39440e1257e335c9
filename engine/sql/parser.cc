#include "engine/sql/parser.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <limits>

#include "engine/error.h"
#include "engine/sql/lexer.h"
#include "engine/stack_depth.h"

namespace tp::sql {
namespace {

// Words that end an expression or clause; used to keep aliases from
// swallowing keywords (SELECT 1 FROM ...).
bool is_reserved(const std::string& w) {
  static const char* kWords[] = {
      "select",  "from", "where", "order", "by",     "limit",   "and", "or",   "not",   "as",
      "between", "in",   "asc",   "desc",  "values", "with",    "on",  "into", "table", "create",
      "insert",  "null", "true",  "false", "is",     "primary", "key", "group"};
  for (const char* k : kWords)
    if (w == k) return true;
  return false;
}

class Parser {
 public:
  Parser(std::string_view text, std::vector<std::string>* notices)
      : text_(text), toks_(tokenize(text, notices)), max_depth_(max_expression_depth()) {}

  Statement parse() {
    Statement st = statement();
    accept_punct(";");
    if (peek().kind != TokenKind::End) syntax_error();
    return st;
  }

 private:
  std::string_view text_;
  std::vector<Token> toks_;
  size_t at_ = 0;
  int max_depth_;
  int depth_ = 0;  // expression nesting of the current recursion

  // One level of recursion into a nested expression: bounded in count and in stack.
  class Nest {
   public:
    explicit Nest(Parser& p) : p_(p) {
      if (++p_.depth_ > p_.max_depth_) {
        --p_.depth_;
        throw_stack_depth_exceeded();
      }
      check_stack_depth();
    }
    ~Nest() { --p_.depth_; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;

   private:
    Parser& p_;
  };

  // Sets the height of a node whose arguments are complete; refuses trees
  // deeper than the bound, so none exists for later walks (or ~Expr) to recurse through.
  ExprPtr sealed(ExprPtr e) const {
    int h = 0;
    for (const auto& a : e->args) h = std::max(h, a->height);
    e->height = h + 1;
    if (e->height > max_depth_) throw_stack_depth_exceeded();
    return e;
  }

  const Token& peek(size_t ahead = 0) const {
    size_t i = std::min(at_ + ahead, toks_.size() - 1);
    return toks_[i];
  }
  const Token& next() {
    const Token& t = toks_[at_];
    if (at_ + 1 < toks_.size()) ++at_;
    return t;
  }

  [[noreturn]] void syntax_error() const {
    const Token& t = peek();
    if (t.kind == TokenKind::End)
      throw Error("syntax error at end of input").at_position(t.position);
    std::string shown = t.kind == TokenKind::String ? "'" + t.text + "'" : t.text;
    if (t.kind == TokenKind::Identifier) {
      // Show the word as typed, like PostgreSQL.
      size_t p = size_t(t.position - 1);
      size_t e = p;
      while (e < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[e])) ||
                                  static_cast<unsigned char>(text_[e]) >= 0x80 || text_[e] == '_' ||
                                  text_[e] == '"' || text_[e] == '$'))
        ++e;
      shown = std::string(text_.substr(p, e - p));
    }
    throw Error("syntax error at or near \"" + shown + "\"").at_position(t.position);
  }

  bool is_word(const char* w, size_t ahead = 0) const {
    const Token& t = peek(ahead);
    return t.kind == TokenKind::Identifier && !t.quoted && t.text == w;
  }
  bool accept_word(const char* w) {
    if (!is_word(w)) return false;
    next();
    return true;
  }
  void expect_word(const char* w) {
    if (!accept_word(w)) syntax_error();
  }
  bool is_punct(const char* p) const { return peek().kind == TokenKind::Punct && peek().text == p; }
  bool accept_punct(const char* p) {
    if (!is_punct(p)) return false;
    next();
    return true;
  }
  void expect_punct(const char* p) {
    if (!accept_punct(p)) syntax_error();
  }
  bool is_op(const char* o) const { return peek().kind == TokenKind::Operator && peek().text == o; }
  bool accept_op(const char* o) {
    if (!is_op(o)) return false;
    next();
    return true;
  }

  std::string identifier() {
    const Token& t = peek();
    if (t.kind != TokenKind::Identifier || (!t.quoted && is_reserved(t.text))) syntax_error();
    return next().text;
  }

  // An integer constant where PostgreSQL wants a bigint (LIMIT, WITH options).
  int64_t integer_literal() {
    bool neg = accept_op("-");
    const Token& t = peek();
    if (t.kind != TokenKind::Integer) syntax_error();
    __int128 v = 0;
    for (char c : t.text) {
      v = v * 10 + (c - '0');
      if (v > (__int128(1) << 63)) break;
    }
    if (neg) v = -v;
    if (v > std::numeric_limits<int64_t>::max() || v < std::numeric_limits<int64_t>::min())
      throw Error("bigint out of range").at_position(t.position);
    next();
    return int64_t(v);
  }

  // ---- statements ----

  Statement statement() {
    if (is_word("create")) return create();
    if (is_word("drop")) return drop();
    if (accept_word("truncate")) {
      accept_word("table");
      Truncate t;
      do t.names.push_back(identifier());
      while (accept_punct(","));
      return t;
    }
    if (is_word("insert")) return insert();
    if (is_word("select") || is_word("values")) return select();
    if (accept_word("set")) return set();
    if (accept_word("show")) {
      ShowStmt s;
      s.name = accept_word("all") ? "all" : identifier();
      return s;
    }
    if (accept_word("reset")) {
      ResetStmt r;
      r.name = accept_word("all") ? "all" : identifier();
      return r;
    }
    if (accept_word("explain")) return explain();
    if (accept_word("analyze") || accept_word("analyse")) {
      Analyze a;
      table_list(a.tables);
      return a;
    }
    if (accept_word("vacuum")) {
      Analyze a;
      a.vacuum = true;
      if (!accept_word("analyze") && !accept_word("analyse"))
        throw Error("VACUUM without ANALYZE is not supported: tidepool tables have no dead tuples",
                    "", "Use VACUUM ANALYZE or ANALYZE.");
      table_list(a.tables);
      return a;
    }
    syntax_error();
  }

  void table_list(std::vector<std::string>& out) {
    if (peek().kind != TokenKind::Identifier) return;
    do out.push_back(identifier());
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
    ct.name = identifier();
    expect_punct("(");
    do {
      if (is_word("primary")) {
        ct.primary_key_position = peek().position;
        next();
        expect_word("key");
        expect_punct("(");
        if (!ct.primary_key.empty())
          throw Error("multiple primary keys for table \"" + ct.name + "\" are not allowed")
              .at_position(ct.primary_key_position);
        do ct.primary_key.push_back(identifier());
        while (accept_punct(","));
        expect_punct(")");
        continue;
      }
      ColumnDef col;
      col.position = peek().position;
      col.name = identifier();
      col.type = type_name();
      while (peek().kind == TokenKind::Identifier && !is_punct(",")) {
        if (is_word("primary")) {
          int pos = peek().position;
          next();
          expect_word("key");
          if (!ct.primary_key.empty())
            throw Error("multiple primary keys for table \"" + ct.name + "\" are not allowed")
                .at_position(pos);
          col.primary_key = true;
          ct.primary_key = {col.name};
          ct.primary_key_position = pos;
        } else if (accept_word("not")) {
          expect_word("null");  // every tidepool column is NOT NULL already
        } else {
          syntax_error();
        }
      }
      ct.columns.push_back(std::move(col));
    } while (accept_punct(","));
    expect_punct(")");
    if (accept_word("with")) {
      expect_punct("(");
      do {
        const Token& t = peek();
        std::string opt = identifier();
        accept_op("=");
        if (opt != "fillfactor")
          throw Error("unrecognized parameter \"" + opt + "\"").at_position(t.position);
        int pos = peek().position;
        int64_t v = integer_literal();
        if (v < 10 || v > 100)
          throw Error("value " + std::to_string(v) + " out of bounds for option \"fillfactor\"",
                      "Valid values are between \"10\" and \"100\".")
              .at_position(pos);
        ct.fillfactor = int(v);
      } while (accept_punct(","));
      expect_punct(")");
    }
    return ct;
  }

  std::string type_name() {
    const Token& t = peek();
    std::string w = identifier();
    if (w == "int" || w == "integer" || w == "int4") return "int";
    if (w == "bigint" || w == "int8") return "bigint";
    throw Error("type \"" + w + "\" is not supported", "",
                "tidepool columns are int (int4) or bigint (int8).")
        .at_position(t.position);
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
    ci.table = identifier();
    if (accept_word("using")) {
      const Token& t = peek();
      std::string am = identifier();
      if (am != "btree")
        throw Error("access method \"" + am + "\" is not supported", "",
                    "tidepool indexes are B-trees.")
            .at_position(t.position);
    }
    expect_punct("(");
    do ci.columns.push_back(identifier());
    while (accept_punct(","));
    expect_punct(")");
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
    do names.push_back(identifier());
    while (accept_punct(","));
    if (index) return DropIndex{std::move(names), if_exists};
    return DropTable{std::move(names), if_exists};
  }

  Statement insert() {
    expect_word("insert");
    expect_word("into");
    Insert ins;
    ins.table_position = peek().position;
    ins.table = identifier();
    if (accept_punct("(")) {
      do ins.columns.push_back(identifier());
      while (accept_punct(","));
      expect_punct(")");
    }
    if (!is_word("select") && !is_word("values")) syntax_error();
    ins.source = select_body();
    return ins;
  }

  Statement select() { return select_body(); }

  Select select_body() {
    Select s;
    if (accept_word("values")) {
      do {
        expect_punct("(");
        std::vector<ExprPtr> row;
        do row.push_back(expr());
        while (accept_punct(","));
        expect_punct(")");
        if (!s.values.empty() && row.size() != s.values.front().size())
          throw Error("VALUES lists must all be the same length").at_position(peek().position);
        s.values.push_back(std::move(row));
      } while (accept_punct(","));
      return s;
    }
    expect_word("select");
    do {
      Target t;
      t.expr = expr();
      if (t.expr->kind == ExprKind::Star) {
        // "*" takes no alias; whatever follows must be FROM or the end.
      } else if (accept_word("as")) {
        t.alias = identifier();
      } else if (peek().kind == TokenKind::Identifier && !is_reserved(peek().text)) {
        t.alias = identifier();
      }
      s.targets.push_back(std::move(t));
    } while (accept_punct(","));
    if (accept_word("from")) s.from = from_item();
    if (accept_word("where")) s.where = expr();
    if (accept_word("order")) {
      expect_word("by");
      do {
        OrderItem o;
        o.expr = expr();
        if (accept_word("desc")) {
          o.descending = true;
        } else {
          accept_word("asc");
        }
        s.order_by.push_back(std::move(o));
      } while (accept_punct(","));
    }
    if (accept_word("limit")) {
      if (accept_word("all")) return s;
      int pos = peek().position;
      int64_t n = integer_literal();
      if (n < 0) throw Error("LIMIT must not be negative").at_position(pos);
      s.limit = n;
    }
    return s;
  }

  FromItem from_item() {
    FromItem f;
    f.position = peek().position;
    f.name = identifier();
    if (accept_punct("(")) {
      f.is_function = true;
      if (!is_punct(")")) {
        do f.func_args.push_back(expr());
        while (accept_punct(","));
      }
      expect_punct(")");
    }
    if (accept_word("as") || (peek().kind == TokenKind::Identifier && !is_reserved(peek().text))) {
      f.alias = identifier();
      if (accept_punct("(")) {
        do f.column_aliases.push_back(identifier());
        while (accept_punct(","));
        expect_punct(")");
      }
    }
    if (is_punct(",") || is_word("join"))
      throw Error("joins are not supported: a query reads one table").at_position(peek().position);
    return f;
  }

  Statement set() {
    SetStmt s;
    accept_word("session");
    s.name = identifier();
    if (!accept_op("=") && !accept_word("to")) syntax_error();
    s.value_position = peek().position;
    if (accept_word("default")) {
      s.to_default = true;
      return s;
    }
    const Token& t = peek();
    switch (t.kind) {
      case TokenKind::String:
      case TokenKind::Identifier:
      case TokenKind::Integer:
      case TokenKind::Numeric:
        s.value = next().text;
        break;
      case TokenKind::Operator:
        if (t.text == "-" &&
            (peek(1).kind == TokenKind::Integer || peek(1).kind == TokenKind::Numeric)) {
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
    if (accept_punct("(")) {
      do {
        const Token& t = peek();
        std::string opt = identifier();
        bool on = true;
        if (peek().kind == TokenKind::Identifier && !is_punct(",")) {
          const Token& v = peek();
          std::string val = next().text;
          if (opt == "format") {
            if (val == "json")
              e->options.json = true;
            else if (val != "text")
              throw Error("unrecognized value for EXPLAIN option \"format\": \"" + val + "\"")
                  .at_position(v.position);
            continue;
          }
          if (val == "on" || val == "true")
            on = true;
          else if (val == "off" || val == "false")
            on = false;
          else
            throw Error(opt + " requires a Boolean value").at_position(v.position);
        } else if (peek().kind == TokenKind::Integer) {
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
          throw Error("unrecognized EXPLAIN option \"" + opt + "\"").at_position(t.position);
      } while (accept_punct(","));
      expect_punct(")");
    } else {
      if (accept_word("analyze") || accept_word("analyse")) e->options.analyze = true;
      if (accept_word("verbose")) e->options.verbose = true;
    }
    if (!is_word("select")) syntax_error();
    e->statement = select_body();
    return e;
  }

  // ---- expressions, lowest precedence first ----

  // A numeric literal (a fraction, an exponent, or an integer beyond bigint). The
  // text is kept for exact conversion and display; PostgreSQL's numeric input
  // refuses exponents beyond +-1000 and more than 131072 digits before the point.
  static ExprPtr numeric_constant(const Token& t) {
    size_t e = t.text.find_first_of("eE");
    size_t int_digits = std::min(t.text.find('.'), std::min(e, t.text.size()));
    if (e != std::string::npos) {
      std::string_view x(t.text);
      x.remove_prefix(e + 1);
      if (!x.empty() && (x[0] == '+' || x[0] == '-')) x.remove_prefix(1);
      size_t first = x.find_first_not_of('0');
      if (first != std::string_view::npos &&
          (x.size() - first > 4 || std::stoi(std::string(x.substr(first))) > 1000))
        throw Error("invalid input syntax for type numeric: \"" + t.text + "\"")
            .at_position(t.position);
    }
    if (int_digits > 131072) throw Error("value overflows numeric format").at_position(t.position);
    auto c = std::make_unique<Expr>(ExprKind::NumConst, t.position);
    c->dval = std::strtod(t.text.c_str(), nullptr);
    c->sval = t.text;
    return c;
  }

  ExprPtr expr() {
    Nest nest(*this);
    return or_expr();
  }

  ExprPtr or_expr() {
    ExprPtr left = and_expr();
    if (!is_word("or")) return left;
    auto e = std::make_unique<Expr>(ExprKind::Or, left->position);
    e->args.push_back(std::move(left));
    while (accept_word("or")) e->args.push_back(and_expr());
    return sealed(std::move(e));
  }

  ExprPtr and_expr() {
    ExprPtr left = not_expr();
    if (!is_word("and")) return left;
    auto e = std::make_unique<Expr>(ExprKind::And, left->position);
    e->args.push_back(std::move(left));
    while (accept_word("and")) e->args.push_back(not_expr());
    return sealed(std::move(e));
  }

  ExprPtr not_expr() {
    if (is_word("not")) {
      int pos = next().position;
      Nest nest(*this);
      auto e = std::make_unique<Expr>(ExprKind::Not, pos);
      e->args.push_back(not_expr());
      return sealed(std::move(e));
    }
    return comparison();
  }

  ExprPtr comparison() {
    ExprPtr left = additive();
    bool negated = false;
    if (is_word("not") && (is_word("between", 1) || is_word("in", 1))) {
      next();
      negated = true;
    }
    if (accept_word("between")) {
      auto e = std::make_unique<Expr>(ExprKind::Between, left->position);
      e->negated = negated;
      e->args.push_back(std::move(left));
      if (is_word("symmetric"))
        throw Error("BETWEEN SYMMETRIC is not supported").at_position(peek().position);
      e->args.push_back(additive());
      expect_word("and");
      e->args.push_back(additive());
      return sealed(std::move(e));
    }
    if (accept_word("in")) {
      auto e = std::make_unique<Expr>(ExprKind::InList, left->position);
      e->negated = negated;
      e->args.push_back(std::move(left));
      expect_punct("(");
      do e->args.push_back(expr());
      while (accept_punct(","));
      expect_punct(")");
      return sealed(std::move(e));
    }
    if (negated) syntax_error();
    for (const char* op : {"=", "<>", "!=", "<=", ">=", "<", ">"}) {
      if (is_op(op)) {
        int pos = next().position;
        auto e = std::make_unique<Expr>(ExprKind::Compare, pos);
        e->name = std::string(op) == "!=" ? "<>" : op;
        e->args.push_back(std::move(left));
        e->args.push_back(additive());
        return sealed(std::move(e));
      }
    }
    return left;
  }

  ExprPtr additive() {
    ExprPtr left = multiplicative();
    while (is_op("+") || is_op("-")) {
      const Token& t = next();
      auto e = std::make_unique<Expr>(ExprKind::Binary, t.position);
      e->name = t.text;
      e->args.push_back(std::move(left));
      e->args.push_back(multiplicative());
      left = sealed(std::move(e));
    }
    return left;
  }

  ExprPtr multiplicative() {
    ExprPtr left = unary();
    while (is_op("*") || is_op("/") || is_op("%")) {
      const Token& t = next();
      auto e = std::make_unique<Expr>(ExprKind::Binary, t.position);
      e->name = t.text;
      e->args.push_back(std::move(left));
      e->args.push_back(unary());
      left = sealed(std::move(e));
    }
    return left;
  }

  ExprPtr unary() {
    if (is_op("-") || is_op("+")) {
      const Token& t = next();
      Nest nest(*this);
      ExprPtr operand = unary();
      // Fold -literal so that -2147483648 is a valid int4 constant and
      // -9223372036854775808 a valid bigint (it is numeric until negated).
      if (t.text == "-" && operand->kind == ExprKind::IntConst &&
          operand->ival != std::numeric_limits<int64_t>::min()) {
        operand->ival = -operand->ival;
        operand->position = t.position;
        return operand;
      }
      if (t.text == "-" && operand->kind == ExprKind::NumConst) {
        operand->dval = -operand->dval;
        operand->sval =
            operand->sval.starts_with('-') ? operand->sval.substr(1) : "-" + operand->sval;
        if (operand->sval == "-9223372036854775808") {
          operand->kind = ExprKind::IntConst;
          operand->ival = std::numeric_limits<int64_t>::min();
        }
        operand->position = t.position;
        return operand;
      }
      auto e = std::make_unique<Expr>(ExprKind::Unary, t.position);
      e->name = t.text;
      e->args.push_back(std::move(operand));
      return sealed(std::move(e));
    }
    return cast();
  }

  ExprPtr cast() {
    ExprPtr e = primary();
    while (is_op("::")) {
      int pos = next().position;
      auto c = std::make_unique<Expr>(ExprKind::Cast, pos);
      const Token& t = peek();
      std::string type = identifier();
      if (type == "integer" || type == "int4") type = "int";
      if (type == "int8") type = "bigint";
      if (type == "double") {
        expect_word("precision");
        type = "float8";
      }
      if (type == "float" || type == "real" || type == "float4") type = "float8";
      if (type != "int" && type != "bigint" && type != "float8" && type != "numeric" &&
          type != "text" && type != "regclass")
        throw Error("type \"" + type + "\" does not exist").at_position(t.position);
      c->name = type;
      c->args.push_back(std::move(e));
      e = sealed(std::move(c));
    }
    return e;
  }

  ExprPtr primary() {
    const Token& t = peek();
    switch (t.kind) {
      case TokenKind::Integer: {
        next();
        errno = 0;
        long long v = std::strtoll(t.text.c_str(), nullptr, 10);
        if (errno == ERANGE) return numeric_constant(t);  // PostgreSQL's numeric too
        auto e = std::make_unique<Expr>(ExprKind::IntConst, t.position);
        e->ival = v;
        return e;
      }
      case TokenKind::Numeric:
        next();
        return numeric_constant(t);
      case TokenKind::String: {
        next();
        auto e = std::make_unique<Expr>(ExprKind::StrConst, t.position);
        e->sval = t.text;
        return e;
      }
      case TokenKind::Punct:
        if (t.text == "(") {
          next();
          ExprPtr e = expr();
          expect_punct(")");
          return e;
        }
        syntax_error();
      case TokenKind::Operator:
        if (t.text == "*") {
          next();
          return std::make_unique<Expr>(ExprKind::Star, t.position);
        }
        syntax_error();
      case TokenKind::Identifier: {
        if (!t.quoted) {
          if (t.text == "true" || t.text == "false") {
            next();
            auto e = std::make_unique<Expr>(ExprKind::BoolConst, t.position);
            e->ival = t.text == "true";
            return e;
          }
          if (t.text == "null") {
            next();
            return std::make_unique<Expr>(ExprKind::NullConst, t.position);
          }
        }
        if (peek(1).kind == TokenKind::Punct && peek(1).text == "(" &&
            !(t.quoted == false && is_reserved(t.text))) {
          next();
          next();
          auto e = std::make_unique<Expr>(ExprKind::FuncCall, t.position);
          e->name = t.text;
          if (is_op("*")) {
            next();
            e->star_arg = true;
          } else if (!is_punct(")")) {
            if (accept_word("distinct"))
              throw Error("DISTINCT in aggregates is not supported").at_position(t.position);
            do e->args.push_back(expr());
            while (accept_punct(","));
          }
          expect_punct(")");
          return sealed(std::move(e));
        }
        std::string name = identifier();
        if (accept_punct(".")) name = identifier();  // t.a -> a (one table per query)
        auto e = std::make_unique<Expr>(ExprKind::ColumnRef, t.position);
        e->name = name;
        return e;
      }
      default:
        syntax_error();
    }
  }
};

bool has_code(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    if (std::isspace(static_cast<unsigned char>(s[i]))) {
      ++i;
    } else if (s.substr(i, 2) == "--") {
      size_t e = s.find('\n', i);
      i = e == std::string_view::npos ? s.size() : e;
    } else if (s.substr(i, 2) == "/*") {
      size_t e = block_comment_end(s, i);
      i = e == std::string_view::npos ? s.size() : e;
    } else {
      return true;
    }
  }
  return false;
}

}  // namespace

Statement parse_statement(std::string_view text, std::vector<std::string>* notices) {
  return Parser(text, notices).parse();
}

std::vector<std::string> split_statements(std::string_view s, bool* complete) {
  std::vector<std::string> out;
  std::string cur;
  size_t i = 0;
  auto flush = [&] {
    bool blank = true;
    for (char c : cur)
      if (!std::isspace(static_cast<unsigned char>(c))) blank = false;
    if (!blank) out.push_back(cur);
    cur.clear();
  };
  while (i < s.size()) {
    char c = s[i];
    if (c == '\'' || c == '"') {
      size_t j = i + 1;
      while (j < s.size()) {
        if (s[j] == c) {
          if (j + 1 < s.size() && s[j + 1] == c) {
            j += 2;
            continue;
          }
          break;
        }
        ++j;
      }
      size_t end = std::min(j + 1, s.size());
      cur.append(s.substr(i, end - i));
      i = end;
      continue;
    }
    if (c == '-' && i + 1 < s.size() && s[i + 1] == '-') {
      size_t end = s.find('\n', i);
      if (end == std::string_view::npos) end = s.size();
      cur.append(s.substr(i, end - i));
      i = end;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      size_t end = block_comment_end(s, i);
      if (end == std::string_view::npos) end = s.size();
      cur.append(s.substr(i, end - i));
      i = end;
      continue;
    }
    if (c == ';') {
      flush();
      ++i;
      continue;
    }
    cur += c;
    ++i;
  }
  // What follows the last ';' counts only if it holds more than blanks and comments.
  bool pending = has_code(cur);
  if (complete) *complete = !pending;
  if (pending) out.push_back(cur);
  return out;
}

std::string default_column_name(const Expr& e) {
  switch (e.kind) {
    case ExprKind::ColumnRef:
      return e.name;
    case ExprKind::FuncCall:
      return e.name;
    case ExprKind::Cast:
      if (e.args[0]->kind == ExprKind::ColumnRef || e.args[0]->kind == ExprKind::FuncCall)
        return default_column_name(*e.args[0]);
      return e.name == "int" ? "int4" : e.name == "bigint" ? "int8" : e.name;
    default:
      return "?column?";
  }
}

}  // namespace tp::sql
