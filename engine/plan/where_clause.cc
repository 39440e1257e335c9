#include "engine/plan/where_clause.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "engine/core/error.h"
#include "engine/core/stack_depth.h"
#include "engine/sql/identifier.h"
#include "engine/sql/value.h"

namespace tp {
namespace {

std::string quoted(const std::string& s) {
  return "\"" + s + "\"";
}

bool has_column_ref(const sql::Expr& e) {
  if (e.kind == sql::ExprKind::ColumnRef) return true;
  for (const auto& a : e.args)
    if (has_column_ref(*a)) return true;
  return false;
}

// Binds names of the one table of the query.
class Binder {
 public:
  explicit Binder(const RelationEntry& rel) : rel_(rel) {}

  int column(const sql::Expr& e) const {
    for (size_t c = 0; c < rel_.columns.size(); ++c)
      if (rel_.columns[c].name == e.name) return int(c);
    throw Error("column " + quoted(e.name) + " does not exist").at_position(e.position);
  }

  // A constant of the WHERE clause: an integer (`value`), NULL, a fraction
  // (`fractional`, `value` its floor), or a number beyond bigint (`beyond` +1
  // or -1), which compares with every row the same way.
  struct Constant {
    bool is_null = false;
    bool fractional = false;
    int beyond = 0;
    int64_t value = 0;
  };
  Constant constant(const sql::Expr& e) const {
    if (has_column_ref(e))
      throw Error(
          "WHERE compares a column with a constant only; this compares two expressions "
          "over columns")
          .at_position(e.position);
    EvalContext ctx;
    Value v = evaluate(e, ctx);
    Constant c;
    switch (v.type) {
      case ValueType::Null:
        c.is_null = true;
        break;
      case ValueType::Int4:
      case ValueType::Int8:
        c.value = v.i;
        break;
      case ValueType::Numeric:
      case ValueType::Float8: {
        IntegerBound b = integer_bound(v);
        c.value = b.floor;
        c.fractional = b.fractional;
        c.beyond = b.beyond;
        break;
      }
      case ValueType::Text:
        c.value = cast_value(v, "bigint").i;
        break;
      case ValueType::Bool:
        throw Error("operator does not exist: integer = boolean").at_position(e.position);
    }
    return c;
  }

  // sql::Expr (a WHERE clause) -> the estimator's expression.
  Expr where(const sql::Expr& e) const {
    using K = sql::ExprKind;
    check_stack_depth();
    switch (e.kind) {
      case K::And:
      case K::Or: {
        std::vector<Expr> args;
        for (const auto& a : e.args) args.push_back(where(*a));
        return e.kind == K::And ? Expr::and_of(std::move(args)) : Expr::or_of(std::move(args));
      }
      case K::Not:
        return Expr::not_of(where(*e.args[0]));
      case K::BoolConst:
        return Expr::boolean(e.ival != 0);
      case K::Compare:
        return compare(e);
      case K::Between: {
        int col = column_arg(e, *e.args[0]);
        Constant lo = constant(*e.args[1]), hi = constant(*e.args[2]);
        if (lo.is_null || hi.is_null) return Expr::boolean(e.negated && false);
        // No row lies above a bound past bigint's top or below one past its bottom.
        if (lo.beyond > 0 || hi.beyond < 0) return Expr::boolean(e.negated);
        int64_t l = lo.beyond < 0   ? std::numeric_limits<int64_t>::min()
                    : lo.fractional ? lo.value + 1  // floor < INT64_MAX when fractional
                                    : lo.value;
        int64_t h = hi.beyond > 0 ? std::numeric_limits<int64_t>::max() : hi.value;
        return Expr::between(col, l, h, e.negated);
      }
      case K::InList: {
        int col = column_arg(e, *e.args[0]);
        std::vector<StatsValue> list;
        for (size_t i = 1; i < e.args.size(); ++i) {
          Constant c = constant(*e.args[i]);
          if (c.fractional || c.beyond) continue;  // never equal to an integer
          list.push_back(c.is_null ? StatsValue{} : StatsValue{c.value});
        }
        if (list.empty()) return Expr::boolean(e.negated);
        // PostgreSQL's parser turns a one-element IN into a plain comparison.
        if (list.size() == 1) return Expr::cmp(col, e.negated ? CmpOp::kNe : CmpOp::kEq, list[0]);
        return Expr::in(col, std::move(list), e.negated);
      }
      case K::NullConst:
        return Expr::boolean(false);
      default:
        throw Error(
            "WHERE takes comparisons of a column with a constant (=, <>, <, <=, >, >=), "
            "BETWEEN, IN, AND, OR and NOT")
            .at_position(e.position);
    }
  }

 private:
  int column_arg(const sql::Expr& parent, const sql::Expr& e) const {
    if (e.kind != sql::ExprKind::ColumnRef)
      throw Error("WHERE compares a column with a constant only").at_position(parent.position);
    return column(e);
  }

  Expr compare(const sql::Expr& e) const {
    static const std::pair<const char*, CmpOp> ops[] = {
        {"=", CmpOp::kEq},  {"<>", CmpOp::kNe}, {"!=", CmpOp::kNe}, {"<", CmpOp::kLt},
        {"<=", CmpOp::kLe}, {">", CmpOp::kGt},  {">=", CmpOp::kGe}};
    CmpOp op = CmpOp::kEq;
    bool found = false;
    for (auto& [name, o] : ops)
      if (e.name == name) op = o, found = true;
    if (!found) throw Error("operator " + e.name + " is not supported").at_position(e.position);
    const sql::Expr* col = e.args[0].get();
    const sql::Expr* cst = e.args[1].get();
    if (col->kind != sql::ExprKind::ColumnRef) {
      std::swap(col, cst);
      op = commute(op);
    }
    if (col->kind != sql::ExprKind::ColumnRef)
      throw Error("WHERE compares a column with a constant only").at_position(e.position);
    int c = column(*col);
    Constant k = constant(*cst);
    if (k.is_null) return Expr::cmp(c, op, StatsValue{});
    if (k.beyond) {
      // Every row is below a constant past bigint's top (above one past its bottom).
      bool below = k.beyond > 0;
      bool holds = op == CmpOp::kNe || (below ? (op == CmpOp::kLt || op == CmpOp::kLe)
                                              : (op == CmpOp::kGt || op == CmpOp::kGe));
      return Expr::boolean(holds);
    }
    if (!k.fractional) return Expr::cmp(c, op, k.value);
    // An integer column against a fraction: the same rows as an integer bound.
    switch (op) {
      case CmpOp::kEq:
        return Expr::boolean(false);
      case CmpOp::kNe:
        return Expr::boolean(true);
      case CmpOp::kLt:
      case CmpOp::kLe:
        return Expr::cmp(c, CmpOp::kLe, k.value);
      case CmpOp::kGt:
      case CmpOp::kGe:
        return Expr::cmp(c, CmpOp::kGe, k.value + 1);  // floor < INT64_MAX when fractional
    }
    return Expr::boolean(false);
  }

  const RelationEntry& rel_;
};

scans::QualOp qual_op(CmpOp op) {
  switch (op) {
    case CmpOp::kEq:
      return scans::QualOp::kEq;
    case CmpOp::kNe:
      return scans::QualOp::kNe;
    case CmpOp::kLt:
      return scans::QualOp::kLt;
    case CmpOp::kLe:
      return scans::QualOp::kLe;
    case CmpOp::kGt:
      return scans::QualOp::kGt;
    case CmpOp::kGe:
      return scans::QualOp::kGe;
  }
  return scans::QualOp::kEq;
}

scans::QualTerm const_term(bool v) {
  scans::QualTerm t;
  t.kind = scans::QualTerm::Kind::kConst;
  t.value = v ? 1 : 0;
  return t;
}

// A normalized clause -> the per-row form (columns resolved to tuple offsets).
scans::QualTerm compile(const Expr& e, const HeapTupleLayout& layout) {
  using K = Expr::Kind;
  check_stack_depth();
  scans::QualTerm t;
  auto set_column = [&](int c) {
    t.column = c;
    t.offset = layout.offset(size_t(c));
    t.is_int8 = layout.type(size_t(c)) == ColumnType::Int8;
  };
  switch (e.kind) {
    case K::kCompare:
      if (!e.value) return const_term(false);  // comparison with NULL is never true
      t.kind = scans::QualTerm::Kind::kCompare;
      set_column(e.column);
      t.op = qual_op(e.op);
      t.value = *e.value;
      return t;
    case K::kBetween: {  // normalize() removes these; kept for completeness
      t.kind = scans::QualTerm::Kind::kAnd;
      t.args.push_back(compile(Expr::cmp(e.column, CmpOp::kGe, e.lo), layout));
      t.args.push_back(compile(Expr::cmp(e.column, CmpOp::kLe, e.hi), layout));
      if (!e.negated) return t;
      scans::QualTerm n;
      n.kind = scans::QualTerm::Kind::kNot;
      n.args.push_back(std::move(t));
      return n;
    }
    case K::kIn: {
      t.kind = scans::QualTerm::Kind::kIn;
      set_column(e.column);
      t.negated = e.negated;
      for (const StatsValue& v : e.list) {
        if (!v) {
          if (e.negated) return const_term(false);  // x NOT IN (.., NULL) is never true
          continue;
        }
        t.list.push_back(*v);
      }
      std::sort(t.list.begin(), t.list.end());
      t.list.erase(std::unique(t.list.begin(), t.list.end()), t.list.end());
      return t;
    }
    case K::kIsNull:
      return const_term(e.negated);  // columns hold no NULLs
    case K::kAnd:
    case K::kOr:
      t.kind = e.kind == K::kAnd ? scans::QualTerm::Kind::kAnd : scans::QualTerm::Kind::kOr;
      for (const Expr& a : e.args) t.args.push_back(compile(a, layout));
      return t;
    case K::kNot:
      t.kind = scans::QualTerm::Kind::kNot;
      t.args.push_back(compile(e.args[0], layout));
      return t;
    case K::kBool:
      return const_term(e.value && *e.value != 0);
  }
  return const_term(false);
}

// A constant as PostgreSQL's deparser prints it next to an integer column.
std::string const_text(const StatsValue& v) {
  if (!v) return "NULL::integer";
  int64_t x = *v;
  bool int4 = x >= std::numeric_limits<int32_t>::min() && x <= std::numeric_limits<int32_t>::max();
  if (x >= 0 && int4) return std::to_string(x);
  return "'" + std::to_string(x) + "'::" + (int4 ? "integer" : "bigint");
}

}  // namespace

std::string deparse(const Expr& e, const RelationEntry& rel) {
  using K = Expr::Kind;
  auto col = [&](int c) { return sql::quote_identifier(rel.columns[size_t(c)].name); };
  check_stack_depth();
  switch (e.kind) {
    case K::kCompare:
      return "(" + col(e.column) + " " + cmp_op_name(e.op) + " " + const_text(e.value) + ")";
    case K::kBetween:
      return deparse(normalize(e), rel);
    case K::kIn: {
      std::string items;
      bool int4 = true;
      for (const StatsValue& v : e.list) {
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
      return e.value && *e.value ? "true" : "false";
  }
  return "";
}

std::string clauses_text(const std::vector<Expr>& clauses, const RelationEntry& rel) {
  if (clauses.empty()) return "";
  if (clauses.size() == 1) return deparse(clauses[0], rel);
  return deparse(Expr::and_of(clauses), rel);
}

int bind_column(const RelationEntry& rel, const sql::Expr& column_ref) {
  return Binder(rel).column(column_ref);
}

Expr bind_where(const RelationEntry& rel, const sql::Expr& where) {
  return Binder(rel).where(where);
}

scans::Qual compile_clauses(const std::vector<Expr>& clauses, const HeapTupleLayout& layout) {
  scans::Qual qual;
  for (const Expr& c : clauses) qual.terms.push_back(compile(c, layout));
  return qual;
}

}  // namespace tp
