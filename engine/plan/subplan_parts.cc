#include "engine/plan/subplan_parts.h"

#include "engine/plan/aggregate_expr.h"
#include "engine/plan/join_exprs.h"
#include "scans/distinct.h"
#include "scans/one_time_false.h"

namespace tp {

namespace {

std::unique_ptr<sql::Expr> int_const(int64_t v, int position) {
  auto e = std::make_unique<sql::Expr>(sql::ExprKind::kIntConst, position);
  e->ival = v;
  return e;
}

sql::FromItem copy_from(const sql::FromItem& f) {
  sql::FromItem c;
  c.is_function = f.is_function;
  c.join = f.join;
  c.name = f.name;
  c.schema = f.schema;
  c.position = f.position;
  for (const sql::ExprPtr& a : f.func_args) c.func_args.push_back(copy_expr(*a));
  c.alias = f.alias;
  c.column_aliases = f.column_aliases;
  for (const sql::FromItem& s : f.sides) c.sides.push_back(copy_from(s));
  if (f.on) c.on = copy_expr(*f.on);
  c.using_columns = f.using_columns;
  return c;
}

// simplify_EXISTS_query: what EXISTS's subquery returns does not matter, nor its order.
}  // namespace

sql::Select exists_query(const sql::Select& s, int position) {
  sql::Select c;
  c.targets.push_back({int_const(1, position), ""});
  if (s.from) c.from = copy_from(*s.from);
  if (s.where) c.where = copy_expr(*s.where);
  for (const sql::ExprPtr& g : s.group_by) c.group_by.push_back(copy_expr(*g));
  if (s.having) c.having = copy_expr(*s.having);
  c.group_by_position = s.group_by_position;
  return c;
}

// The node whose EXPLAIN details print `text` (a Filter running a SubPlan).
scans::ExecNode* node_running(scans::ExecNode& n, const std::string& text) {
  std::vector<std::string> lines;
  n.explain_details(lines, false);
  // A sort or group key is computed below, by the scan's target list.
  for (const std::string& l : lines)
    if (l.find(text) != std::string::npos && l.rfind("Sort Key", 0) != 0 &&
        l.rfind("Group Key", 0) != 0 && l.rfind("Presorted Key", 0) != 0)
      return &n;
  for (scans::ExecNode* c : n.mutable_children())
    if (scans::ExecNode* found = node_running(*c, text)) return found;
  return nullptr;
}

scans::ExecNode* projecting_result(scans::ExecNode& n) {
  if (auto* r = dynamic_cast<scans::ResultNode*>(&n); r != nullptr && r->projects()) return r;
  for (scans::ExecNode* c : n.mutable_children())
    if (scans::ExecNode* found = projecting_result(*c)) return found;
  return nullptr;
}

scans::ExecNode* first_scan(scans::ExecNode& n) {
  const std::string name = n.explain_name();
  const bool scan_or_join = name.find("Scan") != std::string::npos ||
                            name.find("Join") != std::string::npos ||
                            name.rfind("Nested Loop", 0) == 0;
  // A dummy relation's Result stands where the scans would.
  const bool dummy = dynamic_cast<const scans::OneTimeFalseNode*>(&n) != nullptr;
  if ((scan_or_join || dummy) && !n.explain_transparent()) return &n;
  for (scans::ExecNode* c : n.mutable_children())
    if (scans::ExecNode* found = first_scan(*c)) return found;
  return nullptr;
}

void zero_widths(scans::ExecNode& n) {
  n.estimate.width = 0;
  for (scans::ExecNode* c : n.mutable_children()) zero_widths(*c);
}

scans::SubqueryValue value_of(const PlannedQuery& q) {
  if (q.aggregate) {
    const scans::AggregateResults* agg = q.aggregate;
    std::vector<OutputAggregate> aggs = q.aggregates;
    if (!q.output_exprs.empty() && q.output_exprs[0].kind != AggregateExpr::Kind::kAggregate) {
      AggregateExpr e = q.output_exprs[0];
      return [agg, aggs, e](const scans::RowBatch&, uint32_t, ValueArena&, bool& isnull) {
        const std::optional<int64_t> v = evaluate_aggregate_expr(e, aggs, agg->results());
        isnull = !v.has_value();
        return v ? Datum(*v) : Datum(0);
      };
    }
    const size_t i = q.output_exprs.empty() ? 0 : q.output_exprs[0].aggregate;
    return [agg, aggs, i](const scans::RowBatch&, uint32_t, ValueArena& arena, bool& isnull) {
      return aggregate_datum(aggs[i], agg->results()[i], arena, isnull);
    };
  }
  const uint32_t slot = q.output_slots.at(0);
  return [slot](const scans::RowBatch& b, uint32_t i, ValueArena&, bool& isnull) {
    isnull = b.is_null(i, slot);
    return b.row(i)[slot];
  };
}

}  // namespace tp
