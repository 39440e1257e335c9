#include "engine/plan/prepqual.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "engine/core/stack_depth.h"

namespace tp {

namespace {

bool same_numeric(const std::optional<NumericCompare>& a, const std::optional<NumericCompare>& b) {
  if (a.has_value() != b.has_value()) return false;
  return !a || (a->op == b->op && a->array == b->array && a->elements == b->elements &&
                a->text == b->text);
}

bool contains(const std::vector<Clause>& list, const Clause& c) {
  return std::any_of(list.begin(), list.end(), [&](const Clause& x) { return same_clause(x, c); });
}

// An arm as the list of clauses it ANDs (one, when it is no AND).
std::vector<Clause> conjuncts(const Clause& arm) {
  return arm.kind == Clause::Kind::kAnd ? arm.args : std::vector<Clause>{arm};
}

Clause and_or_single(std::vector<Clause> parts, Clause::Kind kind) {
  if (parts.size() == 1) return std::move(parts[0]);
  std::vector<Clause> flat;  // AND / OR flatness, as pull_ands and pull_ors keep it
  for (Clause& p : parts) {
    if (p.kind == kind) {
      for (Clause& q : p.args) flat.push_back(std::move(q));
    } else {
      flat.push_back(std::move(p));
    }
  }
  return kind == Clause::Kind::kAnd ? Clause::and_of(std::move(flat))
                                    : Clause::or_of(std::move(flat));
}

// process_duplicate_ors: the clauses in every arm (found in the shortest one) go in
// front; the OR of what is left follows, unless some arm is left empty (then the
// winners alone hold).
Clause process_duplicate_ors(const std::vector<Clause>& arms) {
  std::vector<Clause> reference;
  size_t shortest = 0;
  for (const Clause& arm : arms) {
    if (arm.kind != Clause::Kind::kAnd) {
      reference = {arm};
      break;
    }
    if (reference.empty() || arm.args.size() < shortest) {
      reference = arm.args;
      shortest = arm.args.size();
    }
  }
  std::vector<Clause> winners;
  for (const Clause& ref : reference) {
    if (contains(winners, ref)) continue;  // list_union drops repeats in the reference
    bool everywhere = std::all_of(arms.begin(), arms.end(),
                                  [&](const Clause& arm) { return contains(conjuncts(arm), ref); });
    if (everywhere) winners.push_back(ref);
  }
  if (winners.empty()) return Clause::or_of(arms);
  std::vector<Clause> rest;
  for (const Clause& arm : arms) {
    std::vector<Clause> left;
    for (const Clause& c : conjuncts(arm))
      if (!contains(winners, c)) left.push_back(c);
    if (left.empty()) {
      rest.clear();  // (A AND B) OR A is A
      break;
    }
    rest.push_back(and_or_single(std::move(left), Clause::Kind::kAnd));
  }
  if (!rest.empty()) winners.push_back(and_or_single(std::move(rest), Clause::Kind::kOr));
  return and_or_single(std::move(winners), Clause::Kind::kAnd);
}

}  // namespace

bool same_clause(const Clause& a, const Clause& b) {
  const auto same_typed = [](const TypedExpr& x, const TypedExpr& y) {
    return x.type == y.type && deparse(x) == deparse(y);
  };
  // A qual made an index key over a Param (`a = $1`: init_param_clause) is still the
  // typed qual it came from.
  if (a.param && a.expr && b.kind == Clause::Kind::kExpr) return same_typed(*a.expr, *b.expr);
  if (b.param && b.expr && a.kind == Clause::Kind::kExpr) return same_typed(*a.expr, *b.expr);
  if (a.param != b.param) return false;
  if (a.kind != b.kind || a.column != b.column || a.op != b.op || a.negated != b.negated ||
      a.value != b.value || a.lo != b.lo || a.hi != b.hi || a.list != b.list ||
      a.args.size() != b.args.size() || !same_numeric(a.numeric, b.numeric))
    return false;
  // Typed quals: the same expression prints the same (its casts and constants' types
  // included), as PostgreSQL's equal() on the trees.
  if (a.kind == Clause::Kind::kExpr) return same_typed(*a.expr, *b.expr);
  for (size_t i = 0; i < a.args.size(); ++i)
    if (!same_clause(a.args[i], b.args[i])) return false;
  return true;
}

Clause find_duplicate_ors(const Clause& where) {
  check_stack_depth();  // the parser bounds the tree's height; this bounds the frames
  // A WHERE clause's constants: NULL is as good as FALSE here (the row is not returned).
  const auto is_const = [](const Clause& c) { return c.kind == Clause::Kind::kBool; };
  const auto is_true = [](const Clause& c) { return c.value.value_or(0) != 0; };
  if (where.kind == Clause::Kind::kAnd) {
    std::vector<Clause> parts;
    for (const Clause& a : where.args) {
      Clause part = find_duplicate_ors(a);
      if (is_const(part)) {
        if (is_true(part)) continue;    // TRUE decides nothing
        return Clause::boolean(false);  // FALSE or NULL decides all
      }
      parts.push_back(std::move(part));
    }
    if (parts.empty()) return Clause::boolean(true);
    return and_or_single(std::move(parts), Clause::Kind::kAnd);
  }
  if (where.kind == Clause::Kind::kOr) {
    std::vector<Clause> arms;
    for (const Clause& a : where.args) {
      Clause arm = find_duplicate_ors(a);
      if (is_const(arm)) {
        if (is_true(arm)) return arm;
        continue;  // FALSE or NULL adds nothing
      }
      arms.push_back(std::move(arm));
    }
    if (arms.empty()) return Clause::boolean(false);
    Clause flat = and_or_single(std::move(arms), Clause::Kind::kOr);
    if (flat.kind != Clause::Kind::kOr) return flat;
    return process_duplicate_ors(flat.args);
  }
  return where;
}

}  // namespace tp
