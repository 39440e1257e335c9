#include "engine/core/clause.h"

#include "engine/core/error.h"

namespace tp {

CmpOp commute(CmpOp op) {
  switch (op) {
    case CmpOp::kLt:
      return CmpOp::kGt;
    case CmpOp::kLe:
      return CmpOp::kGe;
    case CmpOp::kGt:
      return CmpOp::kLt;
    case CmpOp::kGe:
      return CmpOp::kLe;
    default:
      return op;
  }
}

CmpOp negate(CmpOp op) {
  switch (op) {
    case CmpOp::kEq:
      return CmpOp::kNe;
    case CmpOp::kNe:
      return CmpOp::kEq;
    case CmpOp::kLt:
      return CmpOp::kGe;
    case CmpOp::kLe:
      return CmpOp::kGt;
    case CmpOp::kGt:
      return CmpOp::kLe;
    case CmpOp::kGe:
      return CmpOp::kLt;
  }
  return op;
}

std::optional<CmpOp> cmp_op_of_name(const std::string& name) {
  for (CmpOp op : {CmpOp::kEq, CmpOp::kNe, CmpOp::kLt, CmpOp::kLe, CmpOp::kGt, CmpOp::kGe})
    if (name == cmp_op_name(op)) return op;
  return std::nullopt;
}

const char* cmp_op_name(CmpOp op) {
  static const char* const kNames[] = {"=", "<>", "<", "<=", ">", ">="};
  return kNames[static_cast<int>(op)];
}

std::vector<Clause> index_form(std::vector<Clause> clauses) {
  for (Clause& c : clauses) c.constant_left = false;
  return clauses;
}

Clause Clause::cmp(int column, CmpOp op, std::optional<int64_t> value) {
  Clause e;
  e.kind = Kind::kCompare;
  e.column = column;
  e.op = op;
  e.value = value;
  return e;
}
Clause Clause::param_eq(int column, uint32_t param, std::string name) {
  return param_cmp(column, CmpOp::kEq, param, std::move(name));
}
Clause Clause::param_cmp(int column, CmpOp op, uint32_t param, std::string name) {
  Clause e = cmp(column, op, 0);
  e.param = param;
  e.param_name = std::move(name);
  return e;
}
Clause Clause::between(int column, int64_t lo, int64_t hi, bool negated) {
  Clause e;
  e.kind = Kind::kBetween;
  e.column = column;
  e.lo = lo;
  e.hi = hi;
  e.negated = negated;
  return e;
}
Clause Clause::in(int column, std::vector<std::optional<int64_t>> list, bool negated) {
  Clause e;
  e.kind = Kind::kIn;
  e.column = column;
  e.list = std::move(list);
  e.negated = negated;
  return e;
}
Clause Clause::is_null(int column, bool negated) {
  Clause e;
  e.kind = Kind::kIsNull;
  e.column = column;
  e.negated = negated;
  return e;
}
Clause Clause::and_of(std::vector<Clause> args) {
  Clause e;
  e.kind = Kind::kAnd;
  e.args = std::move(args);
  return e;
}
Clause Clause::or_of(std::vector<Clause> args) {
  Clause e;
  e.kind = Kind::kOr;
  e.args = std::move(args);
  return e;
}
Clause Clause::not_of(Clause arg) {
  Clause e;
  e.kind = Kind::kNot;
  e.args.push_back(std::move(arg));
  return e;
}
Clause Clause::boolean(bool v) {
  Clause e;
  e.kind = Kind::kBool;
  e.value = v ? 1 : 0;
  return e;
}
Clause Clause::null_constant() {
  Clause e;
  e.kind = Kind::kBool;
  return e;
}

Clause Clause::expression(TypedExpr e) {
  Clause c;
  c.kind = Kind::kExpr;
  c.expr = std::make_shared<const TypedExpr>(std::move(e));
  return c;
}

namespace {

Clause normalize_impl(const Clause& e, bool negated);

// Flattens nested nodes of the same kind, as PostgreSQL's AND/OR flattening.
Clause flatten(Clause::Kind kind, std::vector<Clause> parts) {
  std::vector<Clause> flat;
  for (Clause& p : parts) {
    if (p.kind == kind) {
      for (Clause& q : p.args) flat.push_back(std::move(q));
    } else {
      flat.push_back(std::move(p));
    }
  }
  if (flat.size() == 1) return std::move(flat[0]);
  return kind == Clause::Kind::kAnd ? Clause::and_of(std::move(flat))
                                    : Clause::or_of(std::move(flat));
}

Clause normalize_impl(const Clause& e, bool negated) {
  switch (e.kind) {
    case Clause::Kind::kCompare: {
      Clause c = Clause::cmp(e.column, negated ? negate(e.op) : e.op, e.value);
      c.constant_left = e.constant_left;
      c.numeric = e.numeric;
      c.param = e.param;  // a parameterized clause stays one
      c.param_name = e.param_name;
      c.param_key_bare = e.param_key_bare;
      c.expr = e.expr;
      if (c.numeric && negated) c.numeric->op = negate(c.numeric->op);
      return c;
    }
    case Clause::Kind::kBetween: {
      // a BETWEEN x AND y  ==  a >= x AND a <= y;  NOT BETWEEN  ==  a < x OR a > y.
      const bool neg = e.negated != negated;
      if (!neg) {
        return Clause::and_of(
            {Clause::cmp(e.column, CmpOp::kGe, e.lo), Clause::cmp(e.column, CmpOp::kLe, e.hi)});
      }
      return Clause::or_of(
          {Clause::cmp(e.column, CmpOp::kLt, e.lo), Clause::cmp(e.column, CmpOp::kGt, e.hi)});
    }
    case Clause::Kind::kIn: {
      Clause c = Clause::in(e.column, e.list, e.negated != negated);
      c.numeric = e.numeric;
      if (c.numeric && negated) c.numeric->op = negate(c.numeric->op);
      return c;
    }
    case Clause::Kind::kIsNull:
      return Clause::is_null(e.column, e.negated != negated);
    case Clause::Kind::kBool:
      if (!e.value) return e;  // NOT NULL is NULL
      return Clause::boolean((*e.value != 0) != negated);
    case Clause::Kind::kExpr:
      return negated ? Clause::expression(negate_expr(*e.expr)) : e;
    case Clause::Kind::kNot:
      TP_ASSERT(e.args.size() == 1);
      return normalize_impl(e.args[0], !negated);
    case Clause::Kind::kAnd:
    case Clause::Kind::kOr: {
      std::vector<Clause> parts;
      for (const Clause& a : e.args) parts.push_back(normalize_impl(a, negated));
      const bool is_and = (e.kind == Clause::Kind::kAnd) != negated;
      return flatten(is_and ? Clause::Kind::kAnd : Clause::Kind::kOr, std::move(parts));
    }
  }
  TP_ASSERT(false);
  return e;
}

}  // namespace

Clause normalize(const Clause& e) {
  return normalize_impl(e, false);
}

std::vector<Clause> restriction_clauses(const Clause& where) {
  Clause n = normalize(where);
  std::vector<Clause> out;
  auto add = [&](Clause c) {
    if (c.kind == Clause::Kind::kBool && c.value.value_or(0) != 0) return;  // TRUE: no restriction
    out.push_back(std::move(c));
  };
  if (n.kind == Clause::Kind::kAnd) {
    for (Clause& a : n.args) add(std::move(a));
  } else {
    add(std::move(n));
  }
  return out;
}

}  // namespace tp
