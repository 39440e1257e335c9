#include "engine/plan/where_clause.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "engine/core/datetime.h"
#include "engine/core/error.h"
#include "engine/core/stack_depth.h"
#include "engine/plan/pseudo_constant.h"
#include "engine/sql/expr_bind.h"
#include "engine/sql/identifier.h"
#include "engine/sql/params.h"
#include "engine/sql/value.h"

namespace tp {
namespace {

std::string quoted(const std::string& s) {
  return "\"" + s + "\"";
}

bool has_column_ref(const sql::Expr& e) {
  if (e.kind == sql::ExprKind::kColumnRef) return true;
  for (const auto& a : e.args)
    if (has_column_ref(*a)) return true;
  return false;
}

bool has_function_call(const sql::Expr& e) {
  if (e.kind == sql::ExprKind::kFuncCall) return true;
  for (const auto& a : e.args)
    if (has_function_call(*a)) return true;
  return false;
}

// A $n whose value planning does not know (engine/sql/params.h), anywhere in `e`.
bool mentions_unknown_param(const sql::Expr& e) {
  if (sql::param_value_unknown(e.param)) return true;
  return std::any_of(e.args.begin(), e.args.end(),
                     [](const sql::ExprPtr& a) { return mentions_unknown_param(*a); });
}

// Binds names of the one table of the query.

class Binder {
 public:
  explicit Binder(const RelationEntry& rel) : rel_(rel) {}

  int column(const sql::Expr& e) const {
    for (size_t c = 0; c < rel_.columns.size() && !names_outer_table(e); ++c)
      if (rel_.columns[c].name == e.name) return int(c);
    throw Error("column " + quoted(e.name) + " does not exist")
        .at_position(e.position)
        .with_sqlstate(sqlstate::kUndefinedColumn);
  }

  // A column a WHERE clause compares: an integer column at a fixed place in the row, the
  // kind the executor's compiled quals read (engine/core/clause.h).
  int integer_column(const sql::Expr& e) const {
    const int c = column(e);
    const ColumnType t = rel_.columns[size_t(c)].type;
    if (t != ColumnType::kInt4 && t != ColumnType::kInt8)
      throw Error("not an integer column").with_sqlstate(sqlstate::kFeatureNotSupported);
    return c;
  }

  // Any other boolean expression, bound with its types (engine/sql/expr_bind.h); a
  // constant one is TRUE or FALSE.
  Clause typed(const sql::Expr& e) const {
    const ColumnLookup lookup = [this](const sql::Expr& ref) {
      const int c = column(ref);
      const Column& col = rel_.columns[size_t(c)];
      return BoundColumnRef{uint32_t(c), col.type, col.typmod, sql::quote_identifier(col.name)};
    };
    TypedExpr t = bind_condition(e, lookup, "WHERE");
    std::vector<uint32_t> slots;
    expr_slots(t, slots);
    if (slots.empty() && !reads_subquery(t)) {
      // No column: its value once (PostgreSQL folds it, or tests it once).
      ValueArena arena;
      EvalState st{&arena, timestamp_now()};
      bool isnull = false;
      const Datum v = evaluate(t, nullptr, nullptr, st, isnull);
      return isnull ? Clause::null_constant() : Clause::boolean(v != 0);
    }
    return as_clause(std::move(t));
  }

  // AND and OR stay Clause nodes (a typed BETWEEN's two comparisons are two restriction
  // clauses, as PostgreSQL's); their leaves are typed quals.
  static Clause as_clause(TypedExpr t) {
    if (t.kind != TypedExpr::Kind::kAnd && t.kind != TypedExpr::Kind::kOr)
      return Clause::expression(std::move(t));
    std::vector<Clause> args;
    for (TypedExpr& a : t.args) args.push_back(as_clause(std::move(a)));
    return t.kind == TypedExpr::Kind::kAnd ? Clause::and_of(std::move(args))
                                           : Clause::or_of(std::move(args));
  }

  // The integer form of a comparison, BETWEEN, IN or IS NULL (a column of integers
  // against constants), which the estimator reads with the column's statistics and the
  // executor tests at byte offsets; else the typed form.
  template <typename F>
  Clause integer_or_typed(const sql::Expr& e, F integer_form) const {
    try {
      return integer_form();
    } catch (const Error& err) {
      // An outer query's column in a correlated subquery is the typed form's parameter.
      const bool outer =
          current_outer_refs() != nullptr && (err.sqlstate() == sqlstate::kUndefinedColumn ||
                                              err.sqlstate() == sqlstate::kUndefinedTable);
      if (err.sqlstate() != sqlstate::kFeatureNotSupported &&
          err.sqlstate() != sqlstate::kUndefinedFunction && !outer)
        throw;
    }
    return typed(e);
  }

  // A constant of the WHERE clause: an integer (`value`), NULL, a fraction
  // (`fractional`, `value` its floor), or a number beyond bigint (`beyond` +1
  // or -1), which compares with every row the same way.
  struct Constant {
    bool is_null = false;
    bool fractional = false;
    int beyond = 0;
    int64_t value = 0;
    bool numeric = false;  // a numeric literal: PostgreSQL compares in numeric
    std::string text;      // a numeric's digits as written ("2.5", "-4.5")
  };
  Constant constant(const sql::Expr& e) const {
    // A function (random(), lower('x')) is the typed form's to resolve and evaluate; so
    // is a parameter of a statement being described, whose type binding finds.
    if (has_function_call(e) || mentions_unknown_param(e))
      throw Error("a function").with_sqlstate(sqlstate::kFeatureNotSupported);
    if (has_column_ref(e))
      throw Error(
          "WHERE compares a column with a constant only; this compares two expressions "
          "over columns")
          .at_position(e.position)
          .with_sqlstate(sqlstate::kFeatureNotSupported);
    EvalContext ctx;
    Value v = evaluate(e, ctx);
    Constant c;
    switch (v.type) {
      case ValueType::kNull:
        c.is_null = true;
        break;
      case ValueType::kInt4:
      case ValueType::kInt8:
        c.value = v.i;
        break;
      case ValueType::kNumeric:
      case ValueType::kFloat8: {
        IntegerBound b = integer_bound(v);
        c.value = b.floor;
        c.fractional = b.fractional;
        if (v.type == ValueType::kNumeric) {
          c.numeric = true;
          c.text = !v.s.empty() ? v.s : v.to_string();
        }
        c.beyond = b.beyond;
        break;
      }
      case ValueType::kText:
        // A string that is no integer: the typed form reports it as the column's type.
        try {
          c.value = cast_value(v, "bigint").i;
        } catch (const Error&) {
          throw Error("not an integer").with_sqlstate(sqlstate::kFeatureNotSupported);
        }
        break;
      case ValueType::kBool:
        throw Error("operator does not exist: integer = boolean")
            .at_position(e.position)
            .with_sqlstate(sqlstate::kUndefinedFunction);
    }
    return c;
  }

  // sql::Expr (a WHERE clause) -> the estimator's expression.
  Clause where(const sql::Expr& e) const {
    using K = sql::ExprKind;
    check_stack_depth();
    switch (e.kind) {
      case K::kAnd:
      case K::kOr: {
        std::vector<Clause> args;
        for (const auto& a : e.args) args.push_back(where(*a));
        return e.kind == K::kAnd ? Clause::and_of(std::move(args)) : Clause::or_of(std::move(args));
      }
      case K::kNot:
        return Clause::not_of(where(*e.args[0]));
      case K::kBoolConst:
        return Clause::boolean(e.ival != 0);
      case K::kCompare:
        return integer_or_typed(e, [&] { return compare(e); });
      case K::kBetween:
        return integer_or_typed(e, [&] { return between(e); });
      case K::kInList:
        return integer_or_typed(e, [&] { return in_list(e); });
      case K::kNullConst:
        if (sql::param_value_unknown(e.param)) return typed(e);
        return Clause::null_constant();
      case K::kIsNull:
        if (e.args[0]->kind == K::kColumnRef)
          return integer_or_typed(e,
                                  [&] { return Clause::is_null(column(*e.args[0]), e.negated); });
        return typed(e);
      default:
        return typed(e);
    }
  }

 private:
  // `x BETWEEN lo AND hi` (NOT BETWEEN), BETWEEN SYMMETRIC, or with a constant as x.
  Clause between(const sql::Expr& e) const {
    if (e.symmetric) return between_symmetric(e);
    // `5 BETWEEN c AND d` is PostgreSQL's `5 >= c AND 5 <= d`.
    if (e.args[0]->kind != sql::ExprKind::kColumnRef) {
      if (e.negated)
        return Clause::or_of({compare_exprs(*e.args[0], CmpOp::kLt, *e.args[1], e.position),
                              compare_exprs(*e.args[0], CmpOp::kGt, *e.args[2], e.position)});
      return Clause::and_of({compare_exprs(*e.args[0], CmpOp::kGe, *e.args[1], e.position),
                             compare_exprs(*e.args[0], CmpOp::kLe, *e.args[2], e.position)});
    }
    int col = column_arg(e, *e.args[0]);
    Constant lo = constant(*e.args[1]), hi = constant(*e.args[2]);
    if (lo.is_null || hi.is_null) {
      // A NULL bound's comparison is NULL; the other still counts under NOT BETWEEN's OR.
      const auto side = [&](CmpOp op, const Constant& k) {
        return k.is_null ? Clause::null_constant() : compare_with(col, op, k);
      };
      if (e.negated) return Clause::or_of({side(CmpOp::kLt, lo), side(CmpOp::kGt, hi)});
      return Clause::and_of({side(CmpOp::kGe, lo), side(CmpOp::kLe, hi)});
    }
    // PostgreSQL's a >= x AND a <= y, each side in numeric where its bound is.
    if (lo.numeric || hi.numeric) {
      if (e.negated)
        return Clause::or_of(
            {compare_with(col, CmpOp::kLt, lo), compare_with(col, CmpOp::kGt, hi)});
      return Clause::and_of({compare_with(col, CmpOp::kGe, lo), compare_with(col, CmpOp::kLe, hi)});
    }
    // No row lies above a bound past bigint's top or below one past its bottom.
    if (lo.beyond > 0 || hi.beyond < 0) return Clause::boolean(e.negated);
    int64_t l = lo.beyond < 0   ? std::numeric_limits<int64_t>::min()
                : lo.fractional ? lo.value + 1  // floor < INT64_MAX when fractional
                                : lo.value;
    int64_t h = hi.beyond > 0 ? std::numeric_limits<int64_t>::max() : hi.value;
    return Clause::between(col, l, h, e.negated);
  }

  // `column IN (...)`, `= ANY (array)`, `<> ALL (array)`.
  Clause in_list(const sql::Expr& e) const {
    int col = column_arg(e, *e.args[0]);
    if (!e.int_items.empty()) return integer_in(col, e);
    std::vector<Constant> consts;
    bool numeric = false;
    for (size_t i = 1; i < e.args.size(); ++i) {
      consts.push_back(constant(*e.args[i]));
      numeric = numeric || consts.back().numeric;
    }
    // PostgreSQL's parser turns a one-element IN into a plain comparison; an array
    // stays an array operator.
    if (consts.size() == 1 && !e.array)
      return compare_with(col, e.negated ? CmpOp::kNe : CmpOp::kEq, consts[0]);
    std::vector<std::optional<int64_t>> list;
    for (const Constant& c : consts) {
      if (c.fractional || c.beyond) continue;  // never equal to an integer
      list.push_back(c.is_null ? std::optional<int64_t>{} : std::optional<int64_t>{c.value});
    }
    if (numeric) return numeric_in(col, consts, std::move(list), e.negated);
    if (e.array) return Clause::in(col, std::move(list), e.negated);
    if (list.empty()) return Clause::boolean(e.negated);
    if (list.size() == 1) return Clause::cmp(col, e.negated ? CmpOp::kNe : CmpOp::kEq, list[0]);
    return Clause::in(col, std::move(list), e.negated);
  }

  int column_arg(const sql::Expr& parent, const sql::Expr& e) const {
    if (e.kind != sql::ExprKind::kColumnRef)
      throw Error("WHERE compares a column with a constant only")
          .at_position(parent.position)
          .with_sqlstate(sqlstate::kFeatureNotSupported);
    return integer_column(e);
  }

  // IN over plain integer literals (sql::Expr::int_items): the list as it is, no
  // Constant per item.
  static Clause integer_in(int col, const sql::Expr& e) {
    const auto& items = e.int_items;
    if (items.size() == 1) return Clause::cmp(col, e.negated ? CmpOp::kNe : CmpOp::kEq, items[0]);
    std::vector<std::optional<int64_t>> list(items.begin(), items.end());
    return Clause::in(col, std::move(list), e.negated);
  }

  static bool truth_of(const Value& v) { return v.type == ValueType::kBool && v.i != 0; }

  // `a BETWEEN SYMMETRIC x AND y` is PostgreSQL's `(a >= x AND a <= y) OR (a >= y AND
  // a <= x)` (its parser writes it so); NOT BETWEEN SYMMETRIC the negation,
  // `(a < x OR a > y) AND (a < y OR a > x)`.
  Clause between_symmetric(const sql::Expr& e) const {
    int col = column_arg(e, *e.args[0]);
    Constant x = constant(*e.args[1]), y = constant(*e.args[2]);
    auto arm = [&](const Constant& lo, const Constant& hi) {
      if (e.negated)
        return Clause::or_of(
            {compare_with(col, CmpOp::kLt, lo), compare_with(col, CmpOp::kGt, hi)});
      return Clause::and_of({compare_with(col, CmpOp::kGe, lo), compare_with(col, CmpOp::kLe, hi)});
    };
    if (e.negated) return Clause::and_of({arm(x, y), arm(y, x)});
    return Clause::or_of({arm(x, y), arm(y, x)});
  }

  Clause compare(const sql::Expr& e) const {
    static const std::pair<const char*, CmpOp> ops[] = {
        {"=", CmpOp::kEq},  {"<>", CmpOp::kNe}, {"!=", CmpOp::kNe}, {"<", CmpOp::kLt},
        {"<=", CmpOp::kLe}, {">", CmpOp::kGt},  {">=", CmpOp::kGe}};
    CmpOp op = CmpOp::kEq;
    bool found = false;
    for (auto& [name, o] : ops)
      if (e.name == name) op = o, found = true;
    if (!found)
      throw Error("operator " + e.name + " is not supported")
          .at_position(e.position)
          .with_sqlstate(sqlstate::kFeatureNotSupported);
    return compare_exprs(*e.args[0], op, *e.args[1], e.position);
  }

  // `left op right`, one side a column and the other a constant.
  Clause compare_exprs(const sql::Expr& left, CmpOp op, const sql::Expr& right,
                       int position) const {
    const sql::Expr* col = &left;
    const sql::Expr* cst = &right;
    const bool constant_left = col->kind != sql::ExprKind::kColumnRef;
    if (constant_left) {
      std::swap(col, cst);
      op = commute(op);
    }
    if (col->kind != sql::ExprKind::kColumnRef)
      throw Error("WHERE compares a column with a constant only")
          .at_position(position)
          .with_sqlstate(sqlstate::kFeatureNotSupported);
    const int column = integer_column(*col);  // before the constant: its type comes first
    Clause c = compare_with(column, op, constant(*cst));
    c.constant_left = constant_left && c.kind == Clause::Kind::kCompare && !c.numeric && c.value;
    return c;
  }

  // `column op constant`, the constant already evaluated.
  static Clause compare_with(int c, CmpOp op, const Constant& k) {
    if (!k.numeric || k.is_null) return integer_compare(c, op, k);
    // The integer clause it equals, marked as PostgreSQL's numeric comparison; a
    // constant result (a = 2.5) is an IN list, empty or negated, so that it stays a
    // comparison of the column for the planner.
    Clause e = integer_compare(c, op, k);
    if (e.kind == Clause::Kind::kBool) e = Clause::in(c, {}, e.value.value_or(0) != 0);
    NumericCompare n;
    n.op = op;
    // PostgreSQL's get_const_expr: a numeric prints bare only where it reads back as
    // one (a leading digit and a point or exponent), else quoted and cast.
    const bool bare = !k.text.empty() && std::isdigit(static_cast<unsigned char>(k.text[0])) &&
                      k.text.find_first_of(".eE") != std::string::npos;
    n.text = bare ? k.text : "'" + k.text + "'::numeric";
    e.numeric = n;
    return e;
  }

  // `column IN (...)` with a numeric element: PostgreSQL's `(a)::numeric = ANY (...)`.
  static Clause numeric_in(int c, const std::vector<Constant>& consts,
                           std::vector<std::optional<int64_t>> integers, bool negated) {
    Clause e = Clause::in(c, std::move(integers), negated);
    NumericCompare n;
    n.op = negated ? CmpOp::kNe : CmpOp::kEq;
    n.array = true;
    n.elements = consts.size();
    std::string items;
    for (const Constant& k : consts)
      items += (items.empty() ? "" : ",") + (k.is_null   ? std::string("NULL")
                                             : k.numeric ? k.text
                                                         : std::to_string(k.value));
    n.text = "'{" + items + "}'::numeric[]";
    e.numeric = n;
    return e;
  }

  static Clause integer_compare(int c, CmpOp op, const Constant& k) {
    if (k.is_null) return Clause::null_constant();  // a strict operator over NULL
    if (k.beyond) {
      // Every row is below a constant past bigint's top (above one past its bottom).
      bool below = k.beyond > 0;
      bool holds = op == CmpOp::kNe || (below ? (op == CmpOp::kLt || op == CmpOp::kLe)
                                              : (op == CmpOp::kGt || op == CmpOp::kGe));
      return Clause::boolean(holds);
    }
    if (!k.fractional) return Clause::cmp(c, op, k.value);
    // An integer column against a fraction: the same rows as an integer bound.
    switch (op) {
      case CmpOp::kEq:
        return Clause::boolean(false);
      case CmpOp::kNe:
        return Clause::boolean(true);
      case CmpOp::kLt:
      case CmpOp::kLe:
        return Clause::cmp(c, CmpOp::kLe, k.value);
      case CmpOp::kGt:
      case CmpOp::kGe:
        return Clause::cmp(c, CmpOp::kGe, k.value + 1);  // floor < INT64_MAX when fractional
    }
    return Clause::boolean(false);
  }

  const RelationEntry& rel_;
};

// A constant as PostgreSQL's deparser prints it next to an integer column.
std::string const_text(const std::optional<int64_t>& v) {
  if (!v) return "NULL::integer";
  int64_t x = *v;
  bool int4 = x >= std::numeric_limits<int32_t>::min() && x <= std::numeric_limits<int32_t>::max();
  if (x >= 0 && int4) return std::to_string(x);
  return "'" + std::to_string(x) + "'::" + (int4 ? "integer" : "bigint");
}

}  // namespace

void clause_columns(const Clause& e, std::vector<int>& out) {
  switch (e.kind) {
    case Clause::Kind::kCompare:
    case Clause::Kind::kBetween:
    case Clause::Kind::kIn:
    case Clause::Kind::kIsNull:
      out.push_back(e.column);
      break;
    case Clause::Kind::kExpr: {
      std::vector<uint32_t> slots;
      expr_slots(*e.expr, slots);
      for (uint32_t s : slots) out.push_back(int(s));
      break;
    }
    default:
      break;
  }
  for (const Clause& a : e.args) clause_columns(a, out);
}

std::string deparse(const Clause& e, const RelationEntry& rel) {
  using K = Clause::Kind;
  auto col = [&](int c) { return sql::quote_identifier(rel.columns[size_t(c)].name); };
  check_stack_depth();
  if (e.numeric) {
    const NumericCompare& n = *e.numeric;
    if (n.array)
      return "((" + col(e.column) + ")::numeric" + (n.op == CmpOp::kEq ? " = ANY (" : " <> ALL (") +
             n.text + "))";
    return "((" + col(e.column) + ")::numeric " + cmp_op_name(n.op) + " " + n.text + ")";
  }
  switch (e.kind) {
    case K::kCompare:
      if (e.param) {
        // varchar compares as text (texteq): the key is printed relabeled.
        const bool varchar =
            rel.columns[size_t(e.column)].type == TypeId::kVarchar && !e.param_key_bare;
        const std::string key = varchar ? "(" + col(e.column) + ")::text" : col(e.column);
        if (!e.param_array.empty()) return "(" + key + " = ANY (" + e.param_name + "))";
        if (e.constant_left)
          return "(" + e.param_name + " " + cmp_op_name(commute(e.op)) + " " + key + ")";
        return "(" + key + " " + cmp_op_name(e.op) + " " + e.param_name + ")";
      }
      if (e.constant_left)
        return "(" + const_text(e.value) + " " + cmp_op_name(commute(e.op)) + " " + col(e.column) +
               ")";
      return "(" + col(e.column) + " " + cmp_op_name(e.op) + " " + const_text(e.value) + ")";
    case K::kBetween:
      return deparse(normalize(e), rel);
    case K::kIn: {
      std::string items;
      // The array takes the column's type when that is bigint, as PostgreSQL's
      // common type of the column and the elements.
      bool int4 = rel.columns[size_t(e.column)].type != ColumnType::kInt8;
      for (const std::optional<int64_t>& v : e.list) {
        items += (items.empty() ? "" : ",") + (v ? std::to_string(*v) : std::string("NULL"));
        if (v &&
            (*v < std::numeric_limits<int32_t>::min() || *v > std::numeric_limits<int32_t>::max()))
          int4 = false;
      }
      return "(" + col(e.column) + (e.negated ? " <> ALL ('{" : " = ANY ('{") + items +
             "}'::" + (int4 ? "integer" : "bigint") + "[]))";
    }
    case K::kIsNull:
      return "(" + col(e.column) + (e.negated ? " IS NOT NULL)" : " IS NULL)");
    case K::kAnd:
    case K::kOr: {
      std::string s = "(";
      for (size_t i = 0; i < e.args.size(); ++i)
        s += (i ? (e.kind == K::kAnd ? " AND " : " OR ") : "") + deparse(e.args[i], rel);
      return s + ")";
    }
    case K::kNot:
      return "(NOT " + deparse(e.args[0], rel) + ")";
    case K::kBool:
      return !e.value ? "NULL::boolean" : *e.value ? "true" : "false";
    case K::kExpr:
      return tp::deparse(*e.expr);
  }
  return "";
}

std::string clauses_text(const std::vector<Clause>& clauses, const RelationEntry& rel) {
  if (clauses.empty()) return "";
  if (clauses.size() == 1) return deparse(clauses[0], rel);
  return deparse(Clause::and_of(clauses), rel);
}

int bind_column(const RelationEntry& rel, const sql::Expr& column_ref) {
  return Binder(rel).column(column_ref);
}

Clause bind_where(const RelationEntry& rel, const sql::Expr& where) {
  return Binder(rel).where(where);
}

namespace {

// The expression a typed `expression = constant` fixes (as PostgreSQL's equivalence
// class with a constant member), under relabeling casts; null for any other clause.
const TypedExpr* typed_constant_side(const Clause& c) {
  if (c.kind != Clause::Kind::kExpr) return nullptr;
  const TypedExpr& e = *c.expr;
  if (e.kind != TypedExpr::Kind::kCall || e.form != TypedExpr::Form::kInfix || e.name != "=" ||
      e.args.size() != 2 || is_pseudo_constant(e.args[0]) == is_pseudo_constant(e.args[1]))
    return nullptr;
  // A pseudo-constant (`d = CURRENT_DATE - 7`) fixes the column as a constant does: its
  // class has a constant member (ec_has_const), and the ORDER BY key is redundant.
  const bool left = is_pseudo_constant(e.args[0]);
  const TypedExpr& constant = left ? e.args[0] : e.args[1];
  const TypedExpr* var = left ? &e.args[1] : &e.args[0];
  while (var->kind == TypedExpr::Kind::kCall && var->form == TypedExpr::Form::kRelabel)
    var = &var->args[0];
  return constant.isnull ? nullptr : var;
}

// The column a typed `column = constant` fixes (`(v)::text = 'x'` fixes v); -1 for any
// other clause.
int typed_constant_column(const Clause& c) {
  const TypedExpr* var = typed_constant_side(c);
  return var && var->kind == TypedExpr::Kind::kColumn ? int(var->slot) : -1;
}

}  // namespace

std::vector<std::string> constant_expressions(const std::vector<Clause>& clauses) {
  std::vector<std::string> out;
  for (const Clause& c : clauses) {
    const TypedExpr* var = typed_constant_side(c);
    if (var && var->kind != TypedExpr::Kind::kColumn) out.push_back(deparse(*var));
  }
  return out;
}

std::vector<int> constant_columns(const std::vector<Clause>& clauses) {
  std::vector<int> cols;
  for (const Clause& c : clauses) {
    int column = -1;
    if (c.kind == Clause::Kind::kCompare && c.op == CmpOp::kEq && c.value && !c.numeric &&
        c.param_array.empty())  // `= ANY ($1, $2)` fixes no value
      column = c.column;
    else
      column = typed_constant_column(c);
    if (column >= 0 && std::find(cols.begin(), cols.end(), column) == cols.end())
      cols.push_back(column);
  }
  return cols;
}

}  // namespace tp
