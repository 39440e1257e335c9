#include "engine/plan/join_sort_target.h"

#include <algorithm>

#include "engine/plan/incremental_sort.h"
#include "engine/plan/outer_joins.h"

namespace tp {

// estimate_num_groups over the first `keys` ORDER BY keys (cost_incremental_sort's
// input groups): each a var (a class's first member), else 200 groups at most.
double presorted_order_groups(const JoinQuery& q, const std::vector<JoinGroupingRel>& stats,
                              size_t keys, double rows) {
  std::vector<GroupRel> over;
  for (size_t i = 0; i < keys; ++i) {
    const TypedExpr& e = *q.order[i].expr;
    if (e.kind != TypedExpr::Kind::kColumn) return std::min(rows, 200.0);
    const uint32_t key = q.key_of(e.slot);
    const uint32_t var =
        key < q.classes.size() ? q.first_member_var(key) : q.expression_class_var(e.slot);
    const QueryVar& v = q.vars[var];
    const RelationStatsView* view = stats[size_t(v.rel)].view;
    if (!view) return std::min(rows, 200.0);
    auto g =
        std::find_if(over.begin(), over.end(), [&](const GroupRel& x) { return x.view == view; });
    if (g == over.end()) {
      over.push_back({view, stats[size_t(v.rel)].rows, {}});
      g = over.end() - 1;
    }
    if (std::find(g->columns.begin(), g->columns.end(), v.column) == g->columns.end())
      g->columns.push_back(v.column);
  }
  return estimate_num_groups(over, rows);
}

// The sort's input width under postponed columns: the list without them, with the
// vars they read that no column of it is (make_sort_input_target's postponable vars).
int sort_input_width(const JoinQuery& q, const SortInputTarget& t, int final_width) {
  int w = final_width;
  std::vector<uint32_t> vars;
  for (const auto& e : t.late) {
    w -= int(type_avg_width(e->type, e->typmod));
    expr_slots(*e, vars);
  }
  std::sort(vars.begin(), vars.end());
  vars.erase(std::unique(vars.begin(), vars.end()), vars.end());
  for (uint32_t v : vars) {
    const auto is_v = [&](const std::shared_ptr<TypedExpr>& x) {
      return x->kind == TypedExpr::Kind::kColumn && x->slot == v;
    };
    const bool listed = std::any_of(q.targets.begin(), q.targets.end(), is_v) ||
                        std::any_of(q.order.begin(), q.order.end(),
                                    [&](const JoinOrderItem& o) { return is_v(o.expr); });
    if (!listed) w += q.vars[v].width;
  }
  return w;
}

}  // namespace tp
