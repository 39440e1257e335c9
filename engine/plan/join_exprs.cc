#include "engine/plan/join_exprs.h"

#include "engine/sql/expr_bind.h"

#include "engine/core/stack_depth.h"
#include "engine/plan/from_subquery_names.h"
#include "engine/plan/join_query.h"

namespace tp {

std::string quoted(const std::string& s) {
  return "\"" + s + "\"";
}

Error not_supported(const std::string& what, int position) {
  return Error(what + " is not supported yet")
      .at_position(position)
      .with_sqlstate(sqlstate::kFeatureNotSupported);
}

bool is_constant(const sql::Expr& e) {
  switch (e.kind) {
    case sql::ExprKind::kIntConst:
    case sql::ExprKind::kNumConst:
    case sql::ExprKind::kStrConst:
    case sql::ExprKind::kBoolConst:
      return true;
    case sql::ExprKind::kCast:
    case sql::ExprKind::kUnary:
      return is_constant(*e.args[0]);
    // An expression of no column that gives one value per statement (`now() - interval
    // '3 days'`): PostgreSQL's pseudo-constant class member.
    case sql::ExprKind::kBinary:
      return is_constant(*e.args[0]) && is_constant(*e.args[1]);
    case sql::ExprKind::kFuncCall:
      return !e.star_arg && !from_subqueries::calls_volatile(e) &&
             std::all_of(e.args.begin(), e.args.end(),
                         [](const sql::ExprPtr& a) { return is_constant(*a); });
    default:
      return false;
  }
}

void split_and(const sql::Expr* e, std::vector<const sql::Expr*>& out) {
  if (e == nullptr) return;
  if (e->kind == sql::ExprKind::kAnd) {
    for (const sql::ExprPtr& a : e->args) split_and(a.get(), out);
    return;
  }
  out.push_back(e);
}

std::unique_ptr<sql::Expr> copy_expr(
    const sql::Expr& e, const std::function<std::string(const sql::Expr& ref)>* qualify) {
  check_stack_depth();
  auto c = std::make_unique<sql::Expr>(e.kind, e.position);
  c->name = e.name;
  c->qualifier = e.qualifier;
  c->ival = e.ival;
  c->dval = e.dval;
  c->sval = e.sval;
  if (qualify && e.kind == sql::ExprKind::kColumnRef) {
    c->qualifier = (*qualify)(e);
    c->sval.clear();  // the schema: the table's name alone is unique in the query
  }
  for (const sql::ExprPtr& a : e.args) c->args.push_back(copy_expr(*a, qualify));
  c->subselect = e.subselect;
  c->int_items = e.int_items;
  c->negated = e.negated;
  c->array = e.array;
  c->star_arg = e.star_arg;
  c->symmetric = e.symmetric;
  c->distinct = e.distinct;
  c->sql_syntax = e.sql_syntax;
  c->case_operand = e.case_operand;
  c->case_else = e.case_else;
  c->height = e.height;
  c->cast_type = e.cast_type;
  c->param = e.param;
  return c;
}

bool is_join_select(const sql::Select& s) {
  if (!s.from) return false;
  if (s.from->is_join() || s.pulled_up) return true;
  std::vector<const sql::Expr*> where;
  split_and(s.where.get(), where);
  for (const sql::Expr* e : where)
    if (is_sublink_conjunct(*e)) return true;
  return false;
}

bool is_sublink_conjunct(const sql::Expr& e) {
  if (e.kind == sql::ExprKind::kNot) return is_sublink_conjunct(*e.args[0]);
  // An InitPlan or SubPlan (engine/plan/subplans.h) is an expression, not a join.
  return e.kind == sql::ExprKind::kSubLink && !sublink_planned(e);
}

}  // namespace tp
