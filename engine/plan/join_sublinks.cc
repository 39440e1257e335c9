#include "engine/plan/join_sublinks.h"

#include "engine/plan/join_exprs.h"
#include "engine/sql/expr_bind.h"

namespace tp {

namespace {

// What a subquery must be for its tables to join the query: a plain SELECT ... FROM
// ... WHERE (PostgreSQL plans the rest as a SubPlan, which tidepool does not run yet).
void check_simple(const sql::Select& s, bool exists, int position) {
  const char* what = exists ? "EXISTS" : "IN";
  auto refuse = [&](const std::string& part) {
    throw not_supported(std::string("a subquery with ") + part + " in " + what, position);
  };
  if (!s.from) refuse("no FROM");
  if (!s.group_by.empty() || s.having) refuse("GROUP BY or HAVING");
  for (const sql::Target& t : s.targets)
    if (calls_aggregate(*t.expr)) refuse("aggregates");
  if (!exists && (s.distinct || !s.order_by.empty() || s.limit || s.offset))
    refuse("DISTINCT, ORDER BY, LIMIT or OFFSET");
  // EXISTS ignores its DISTINCT and ORDER BY, and a LIMIT that is not 0 (simplify_EXISTS_query).
  if (exists && (s.offset || (s.limit && *s.limit == 0))) refuse("OFFSET or LIMIT 0");
  if (!exists && s.targets.size() != 1) {
    throw Error("subquery has too many columns")
        .at_position(position)
        .with_sqlstate(sqlstate::kSyntaxError);
  }
}

bool reads_column(const sql::Expr& e) {
  if (e.kind == sql::ExprKind::kColumnRef) return true;
  for (const sql::ExprPtr& a : e.args)
    if (reads_column(*a)) return true;
  return false;
}

}  // namespace

JoinTreeNode pull_up_sublink(JoinTreeNode tree, const sql::Expr& conjunct, Relids scope,
                             const SublinkHooks& hooks) {
  const bool negated_exists = conjunct.kind == sql::ExprKind::kNot;
  const sql::Expr& link = negated_exists ? *conjunct.args[0] : conjunct;
  if (link.kind != sql::ExprKind::kSubLink)
    throw not_supported("NOT over a subquery other than EXISTS", conjunct.position);
  const bool exists = link.name == "exists";
  if (!exists && (negated_exists || link.negated))
    throw not_supported("NOT IN (SELECT ...)", link.position);
  const sql::Select& sub = *link.subselect;
  check_simple(sub, exists, link.position);
  JoinTreeNode right = hooks.collect(*sub.from);
  const Relids inner = right.relids;
  std::vector<const sql::Expr*> where;
  split_and(sub.where.get(), where);
  for (const sql::Expr* e : where)
    if (is_sublink_conjunct(*e)) throw not_supported("a subquery within a subquery", e->position);
  JoinTreeNode join;
  join.kind = exists && negated_exists ? JoinKind::kAnti : JoinKind::kSemi;
  join.sublink = true;
  join.relids = tree.relids | inner;
  bool correlated = false;
  std::vector<const sql::Expr*> quals;
  for (const sql::Expr* e : where) quals.push_back(hooks.qualify(*e, inner, scope, correlated));
  if (exists) {
    // PostgreSQL runs an uncorrelated EXISTS once, as an InitPlan.
    if (!correlated) throw not_supported("an uncorrelated EXISTS", link.position);
  } else {
    if (correlated) throw not_supported("a correlated IN (SELECT ...)", link.position);
    // Without the query's columns on its left it is no join: PostgreSQL keeps a SubPlan.
    if (!reads_column(*link.args[0]))
      throw not_supported("IN (SELECT ...) over a constant", link.position);
    bool outer_vars = false, unused = false;
    auto eq = std::make_unique<sql::Expr>(sql::ExprKind::kCompare, link.position);
    eq->name = "=";
    eq->args.push_back(copy_expr(*hooks.qualify(*link.args[0], scope, 0, outer_vars)));
    eq->args.push_back(copy_expr(*hooks.qualify(*sub.targets[0].expr, inner, scope, unused)));
    if (unused) throw not_supported("a correlated IN (SELECT ...)", link.position);
    const sql::Expr* test = hooks.qualify(*eq, join.relids, 0, unused);
    quals.insert(quals.begin(), test);
  }
  join.left = std::make_unique<JoinTreeNode>(std::move(tree));
  join.right = std::make_unique<JoinTreeNode>(std::move(right));
  hooks.add_quals(join, quals);
  return join;
}

}  // namespace tp
