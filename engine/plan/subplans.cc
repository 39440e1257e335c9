#include "engine/plan/subplans.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "engine/core/error.h"
#include "engine/plan/join_cost.h"
#include "engine/plan/join_exprs.h"
#include "engine/plan/select_list.h"
#include "engine/plan/subplan_correlated.h"
#include "engine/plan/subplan_parts.h"
#include "engine/plan/where_folding.h"
#include "engine/sql/expr_bind.h"
#include "scans/init_plan_result.h"
#include "scans/materialize.h"
#include "scans/subplan_host.h"

namespace tp {

namespace {

// Calls `f(sublink, top)` for each subquery in `e` (not inside the subqueries); `top`:
// a WHERE conjunct, or NOT over one.
template <typename F>
void each_sublink(const sql::Expr* e, bool top, F&& f) {
  if (e == nullptr) return;
  if (e->kind == sql::ExprKind::kSubLink) f(*e, top);
  const bool conjunct =
      e->kind == sql::ExprKind::kAnd ||
      (e->kind == sql::ExprKind::kNot && e->args[0]->kind == sql::ExprKind::kSubLink);
  for (const sql::ExprPtr& a : e->args) each_sublink(a.get(), top && conjunct, f);
}

// PostgreSQL's order of make_subplan calls: the select list, then WHERE, then HAVING.
template <typename F>
void each_query_sublink(const sql::Select& s, F&& f) {
  for (const sql::Target& t : s.targets) each_sublink(t.expr.get(), false, f);
  each_sublink(s.where.get(), true, f);
  each_sublink(s.having.get(), false, f);
  for (const sql::OrderItem& o : s.order_by) each_sublink(o.expr.get(), false, f);
}

void column_refs(const sql::Expr* e, std::vector<const sql::Expr*>& out) {
  if (e == nullptr) return;
  if (e->kind == sql::ExprKind::kColumnRef) out.push_back(e);
  for (const sql::ExprPtr& a : e->args) column_refs(a.get(), out);
}

void table_items(const sql::FromItem& f, std::vector<const sql::FromItem*>& out) {
  if (!f.is_join()) {
    out.push_back(&f);
    return;
  }
  for (const sql::FromItem& side : f.sides) table_items(side, out);
}

// Whether a name the subquery could not resolve is a column of the outer query's tables:
// the subquery is correlated.
bool resolves_outside(PlanContext& ctx, const sql::Select& outer, const sql::Select& sub) {
  if (!outer.from) return false;
  std::vector<const sql::Expr*> refs;
  for (const sql::Target& t : sub.targets) column_refs(t.expr.get(), refs);
  column_refs(sub.where.get(), refs);
  column_refs(sub.having.get(), refs);
  std::vector<const sql::FromItem*> items;
  table_items(*outer.from, items);
  for (const sql::FromItem* item : items) {
    if (item->is_function) continue;
    const RelationEntry* rel = nullptr;
    try {
      rel = &find_table_item(ctx, *item);
    } catch (const Error&) {
      continue;
    }
    const std::string& name = item->alias.empty() ? rel->name : item->alias;
    for (const sql::Expr* r : refs) {
      if (!r->qualifier.empty()) {
        if (r->qualifier == name) return true;
        continue;
      }
      for (const Column& c : rel->columns)
        if (c.name == r->name) return true;
    }
  }
  return false;
}

bool hashable_type(TypeId t) {
  return t == TypeId::kInt2 || t == TypeId::kInt4 || t == TypeId::kInt8 || t == TypeId::kDate;
}

double maxalign(double v) {
  return std::ceil(v / 8.0) * 8.0;
}

// The names EXPLAIN has given relations so far, and the renamings of the subquery being
// planned.
struct DisplayNames {
  std::vector<std::string> used;
  std::map<std::string, std::string> renamed;
};
DisplayNames*& display_names() {
  thread_local DisplayNames* names = nullptr;
  return names;
}

std::string refname_of(const sql::FromItem& f) {
  return f.alias.empty() ? f.name : f.alias;
}

// Gives each table of `from` its display name, renaming those taken; returns the
// renamings.
std::map<std::string, std::string> name_tables(const sql::FromItem& from, DisplayNames& names) {
  std::vector<const sql::FromItem*> items;
  table_items(from, items);
  std::map<std::string, std::string> renamed;
  for (const sql::FromItem* item : items) {
    const std::string base = refname_of(*item);
    std::string name = base;
    for (int n = 1; std::find(names.used.begin(), names.used.end(), name) != names.used.end(); ++n)
      name = base + "_" + std::to_string(n);
    names.used.push_back(name);
    if (name != base) renamed[base] = name;
  }
  return renamed;
}

struct Sub {
  enum class Kind { kInit, kExists, kHashed, kCorrelated, kPlainAny };
  Kind kind = Kind::kInit;
  const sql::Select* select = nullptr;  // the subquery
  int plan_id = 0;                      // EXPLAIN's InitPlan / SubPlan number
  int param = -1;                       // an InitPlan's $n
  size_t index = 0;                     // in the host's init_plans or sub_plans
  PlannedQuery q;
  TypeId type = TypeId::kInt4;
  int32_t typmod = kNoTypmod;
  double startup = 0, per_call = 0;  // cost_subplan
  scans::SubqueryValue value;
  // kCorrelated: the outer columns it reads, and the parameters they set.
  std::vector<std::pair<std::string, std::string>> outer_columns;
  std::unique_ptr<scans::ExecParams> params;
  std::vector<TypedExpr> derived;  // the parameters after the outer values (index keys)
  uint32_t slot_base = 0;
};

class SubPlanner {
 public:
  SubPlanner(PlanContext& ctx, const sql::Select& s)
      : ctx_(ctx), s_(s), where_false_(s.where && where_folds_to_false(*s.where)) {}

  // Plans each subquery PostgreSQL makes a SubPlan or InitPlan of, in its order.
  void plan_all() {
    // A hashed SubPlan's startup cost is not charged on a target list yet.
    for (const sql::Target& t : s_.targets)
      each_sublink(t.expr.get(), false, [](const sql::Expr& link, bool) {
        if (link.name == "in")
          throw not_supported("IN (SELECT ...) in the select list", link.position);
      });
    each_query_sublink(s_, [&](const sql::Expr& link, bool top) { consider(link, top); });
  }

  bool any() const { return !subs_.empty(); }
  bool planned(const sql::Expr& link) const { return subs_.count(link.subselect.get()) != 0; }

  std::vector<sql::Expr> outer_refs(const sql::Expr& link) const {
    std::vector<sql::Expr> refs;
    const auto it = subs_.find(link.subselect.get());
    if (it == subs_.end()) return refs;
    for (const auto& [table, c] : it->second.outer_columns) {
      sql::Expr ref(sql::ExprKind::kColumnRef, link.position);
      ref.qualifier = table;
      ref.name = c;
      refs.push_back(std::move(ref));
    }
    return refs;
  }

  TypedExpr bind(const sql::Expr& link, const ColumnLookup& columns) const {
    const auto it = subs_.find(link.subselect.get());
    if (it == subs_.end()) throw not_supported("this subquery", link.position);
    const Sub& sub = it->second;
    TypedExpr e;
    if (sub.kind == Sub::Kind::kHashed || sub.kind == Sub::Kind::kPlainAny) {
      e.kind = TypedExpr::Kind::kSubPlan;
      e.type = TypeId::kBool;
      e.slot = uint32_t(sub.index);
      e.name = std::string(sub.kind == Sub::Kind::kHashed ? "hashed " : "") + "SubPlan " +
               std::to_string(sub.plan_id);
      TypedExpr left = bind_expr(*link.args[0], columns);
      if (left.type != sub.type || !hashable_type(left.type))
        throw not_supported("IN (SELECT ...) comparing values of different types or of type " +
                                std::string(type_info(left.type).name),
                            link.position);
      e.args.push_back(std::move(left));
      e.subplan_startup = sub.startup;
      e.subplan_per_call = sub.per_call;
      return e;
    }
    if (sub.kind == Sub::Kind::kCorrelated) {
      e.kind = TypedExpr::Kind::kSubPlan;
      e.type = sub.type;
      e.typmod = sub.typmod;
      e.slot = uint32_t(sub.index);
      e.name = "SubPlan " + std::to_string(sub.plan_id);
      for (const sql::Expr& ref : outer_refs(link)) e.args.push_back(bind_expr(ref, columns));
      e.subplan_startup = sub.startup;
      e.subplan_per_call = sub.per_call;
      return e;
    }
    e.kind = TypedExpr::Kind::kParam;
    e.slot = uint32_t(sub.param);
    e.type = sub.kind == Sub::Kind::kExists ? TypeId::kBool : sub.type;
    e.typmod = sub.kind == Sub::Kind::kExists ? kNoTypmod : sub.typmod;
    e.name = "$" + std::to_string(sub.param);
    return e;
  }

  // The outer plan wrapped in the host that runs the subqueries, their costs charged.
  // The InitPlans' value types, by $n.
  std::vector<TypeId> init_types() const {
    std::vector<TypeId> types(size_t(params_), TypeId::kBool);
    for (const auto& [key, sub] : subs_)
      if (sub.param >= 0) types[size_t(sub.param)] = sub.type;
    return types;
  }

  PlannedQuery finish(PlannedQuery q, std::unique_ptr<scans::ExecParams> params,
                      const std::vector<bool>& eager) {
    scans::ExecNode* top = q.root.get();
    while (top->explain_transparent()) top = top->mutable_children()[0];
    if (!top->shown_init_plans.empty())
      throw not_supported("a subquery beside min() or max() over an index", s_.from->position);
    std::vector<Sub*> order;
    for (auto& [key, sub] : subs_) order.push_back(&sub);
    std::sort(order.begin(), order.end(),
              [](const Sub* a, const Sub* b) { return a->plan_id < b->plan_id; });
    // By $n; a min() / max() subquery's own InitPlans hold numbers the host leaves empty.
    std::vector<scans::InitPlanRun> inits(static_cast<size_t>(params_));
    std::vector<scans::SubPlanRun> hashed;
    std::vector<std::unique_ptr<scans::ExecParams>> owned;
    double init_cost = 0;
    std::vector<std::pair<std::string, const scans::ExecNode*>> init_labels, sub_labels;
    std::vector<const sql::Select*> sub_selects;  // each SubPlan's query
    // A WHERE folded to false made none of its InitPlans (nothing runs them here).
    std::set<const sql::Select*> dropped;
    if (where_false_)
      each_sublink(s_.where.get(), true,
                   [&](const sql::Expr& link, bool) { dropped.insert(link.subselect.get()); });
    for (Sub* sub : order) {
      if (sub->kind == Sub::Kind::kHashed || sub->kind == Sub::Kind::kCorrelated ||
          sub->kind == Sub::Kind::kPlainAny) {
        sub_labels.emplace_back("SubPlan " + std::to_string(sub->plan_id), sub->q.root.get());
        sub_selects.push_back(sub->select);
        hashed.push_back(sub_plan_run(*sub));
        if (sub->params) owned.push_back(std::move(sub->params));
        continue;
      }
      if (!dropped.count(sub->select)) {
        init_cost += sub->startup + sub->per_call;
        init_labels.emplace_back("InitPlan " + std::to_string(sub->plan_id) + " (returns $" +
                                     std::to_string(sub->param) + ")",
                                 sub->q.root.get());
      }
      scans::InitPlanRun r;
      r.plan = std::move(sub->q.root);
      r.value = sub->value;
      r.type = sub->type;
      r.exists = sub->kind == Sub::Kind::kExists;
      r.eager = eager.at(size_t(sub->param));
      inits[size_t(sub->param)] = std::move(r);
    }
    // SS_charge_for_initplans: the final path's costs, which the nodes made from it
    // (a transparent projection's scan, a gating Result's child) copy.
    for (scans::ExecNode* n = q.root.get();;) {
      n->estimate.startup_cost += init_cost;
      n->estimate.total_cost += init_cost;
      const bool gating = dynamic_cast<scans::GatingResultNode*>(n) != nullptr;
      if (!n->explain_transparent() && !gating) break;
      n = n->mutable_children()[0];
    }
    top->shown_init_plans = init_labels;
    show_sub_plans(*top, sub_labels, sub_selects);
    owned.insert(owned.begin(), std::move(params));
    q.root = std::make_unique<scans::SubPlanHostNode>(std::move(q.root), std::move(inits),
                                                      std::move(hashed), std::move(owned));
    return q;
  }

 private:
  // The run of a SubPlan (correlated, hashed or plain `x IN`); its parameters stay
  // with `sub` for the host to own.
  static scans::SubPlanRun sub_plan_run(Sub& sub) {
    scans::SubPlanRun r;
    r.kind = sub.kind == Sub::Kind::kCorrelated ? scans::SubPlanRun::Kind::kExpr
                                                : scans::SubPlanRun::Kind::kAny;
    r.hashed = sub.kind == Sub::Kind::kHashed;
    r.plan = std::move(sub.q.root);
    r.value = sub.value;
    r.type = sub.type;
    r.params = sub.params.get();
    r.param_base = sub.slot_base;
    r.outer_values = sub.outer_columns.size();
    r.derived = std::move(sub.derived);
    return r;
  }

  // Each SubPlan shown under the node whose expressions run it (`labels[i]` of the
  // query `selects[i]`).
  void show_sub_plans(scans::ExecNode& top,
                      const std::vector<std::pair<std::string, const scans::ExecNode*>>& labels,
                      const std::vector<const sql::Select*>& selects) const {
    std::set<const sql::Select*> in_select_list;
    const auto note = [&](const sql::Expr& link, bool) {
      in_select_list.insert(link.subselect.get());
    };
    for (const sql::Target& t : s_.targets) each_sublink(t.expr.get(), false, note);
    for (const sql::OrderItem& o : s_.order_by) each_sublink(o.expr.get(), false, note);
    for (size_t i = 0; i < labels.size(); ++i) {
      scans::ExecNode* at = node_running(top, "(hashed " + labels[i].first + ")");
      if (at == nullptr) at = node_running(top, "(" + labels[i].first + ")");
      // A condition the planner proved constant (a WHERE that is always false) runs none.
      if (at == nullptr && in_select_list.count(selects[i]) == 0) continue;
      // In the select list: the Result above a sort computes it, else the scan.
      if (at == nullptr) at = projecting_result(top);
      if (at == nullptr) at = first_scan(top);
      if (at == nullptr) at = &top;
      at->shown_sub_plans.push_back(labels[i]);
    }
  }

  void consider(const sql::Expr& link, bool top) {
    const sql::Select& sub = *link.subselect;
    if (has_subqueries(sub)) throw not_supported("a subquery within a subquery", link.position);
    if (!sub.from) throw not_supported("a subquery without FROM", link.position);
    const bool exists = link.name == "exists";
    const bool in = link.name == "in";
    if (in && link.negated && sub.targets.size() != 1)
      throw Error("subquery has too many columns")
          .at_position(link.position)
          .with_sqlstate(sqlstate::kSyntaxError);
    PlannedQuery q;
    std::optional<CorrelatedPlan> correlated;
    const sql::Select simplified = exists ? exists_query(sub, link.position) : sql::Select{};
    DisplayNames* names = display_names();
    const std::vector<std::string> used_before = names->used;
    if (sub.from) names->renamed = name_tables(*sub.from, *names);
    minmax_params_taken() = 0;
    try {
      q = plan_select(ctx_, exists ? simplified : sub);
      names->renamed.clear();
      params_ += minmax_params_taken();
    } catch (const Error& e) {
      names->renamed.clear();
      names->used = used_before;
      const bool unresolved = std::string(e.sqlstate()) == sqlstate::kUndefinedColumn ||
                              std::string(e.sqlstate()) == sqlstate::kUndefinedTable;
      if (!unresolved || !resolves_outside(ctx_, s_, sub)) throw;
      // Correlated: a WHERE conjunct's EXISTS (NOT EXISTS) is the join planner's.
      if (top && exists) return;
      if (exists || in)
        throw not_supported(
            exists ? "a correlated EXISTS inside an expression" : "a correlated IN (SELECT ...)",
            link.position);
      // A scalar subquery correlated on the outer tables: a SubPlan per row.
      std::vector<OuterTable> outer = outer_tables(link);
      if (where_false_)
        for (OuterTable& t : outer) t.shown_bare = true;
      names->renamed = name_tables(*sub.from, *names);
      correlated = plan_correlated(ctx_, sub, outer, kCorrelationSlots + correlation_slots_);
      names->renamed.clear();
      q = std::move(correlated->q);
    }
    // An uncorrelated IN as a WHERE conjunct is a semi join.
    if (in && !link.negated && top) return;
    if (in && !link.negated)
      throw not_supported("IN (SELECT ...) inside an expression", link.position);
    if (!exists && q.column_names.size() != 1)
      throw Error(in ? "subquery has too many columns" : "subquery must return only one column")
          .at_position(link.position)
          .with_sqlstate(sqlstate::kSyntaxError);
    // min() / max() as planagg's InitPlans inside this one: numbered first.
    if (auto* minmax = dynamic_cast<scans::InitPlanResultNode*>(q.root.get())) {
      if (correlated) throw not_supported("a correlated min() or max() subquery", link.position);
      minmax->number_from(size_t(next_plan_id_), size_t(params_));
      next_plan_id_ += int(minmax->init_plan_count());
      params_ += int(minmax->init_plan_count());
    }
    Sub s;
    s.plan_id = next_plan_id_++;
    cost(s, q, exists, in, correlated.has_value());
    if (correlated) {
      s.outer_columns = correlated->outer_columns;
      s.params = std::move(correlated->params);
      s.derived = std::move(correlated->derived);
      s.slot_base = kCorrelationSlots + correlation_slots_;
      correlation_slots_ += uint32_t(s.outer_columns.size());
    }
    if (s.kind == Sub::Kind::kHashed || s.kind == Sub::Kind::kCorrelated ||
        s.kind == Sub::Kind::kPlainAny) {
      s.index = hashed_++;
    } else {
      s.index = size_t(params_);
      s.param = params_++;
    }
    s.q = std::move(q);
    s.select = link.subselect.get();
    subs_.emplace(link.subselect.get(), std::move(s));
  }

  // The outer query's tables a correlated subquery may read (each a table, not a
  // subquery or a function in FROM).
  std::vector<OuterTable> outer_tables(const sql::Expr& link) const {
    std::vector<const sql::FromItem*> items;
    table_items(*s_.from, items);
    std::vector<OuterTable> out;
    for (const sql::FromItem* item : items) {
      if (item->is_function || item->subquery)
        throw not_supported("a correlated subquery beside a function or subquery in FROM",
                            link.position);
      const RelationEntry& rel = find_table_item(ctx_, *item);
      out.push_back({item->alias.empty() ? rel.name : item->alias, &rel});
    }
    return out;
  }

  // cost_subplan: what the SubPlan or InitPlan of `q` costs at startup and per call, and
  // its kind (an IN beyond hash_mem gets its Materialize here).
  void cost(Sub& s, PlannedQuery& q, bool exists, bool in, bool correlated) const {
    const CostSettings& cs = ctx_.settings.costs;
    const scans::PlanEstimate& est = q.root->estimate;
    if (exists) {
      zero_widths(*q.root);
      s.kind = Sub::Kind::kExists;
      s.type = TypeId::kBool;
      // cost_subplan: one row of the plan (its rows never below one).
      s.per_call = (est.total_cost - est.startup_cost) / std::max(1.0, est.rows);
      s.startup = 0;
      s.per_call += est.startup_cost;
    } else {
      s.type = q.output_columns.at(0).type;
      s.typmod = q.output_columns.at(0).typmod;
      s.value = value_of(q);
      if (in) {
        // subplan_is_hashable: the rows with a tuple header each within hash_mem.
        const double bytes = est.rows * (maxalign(est.width) + maxalign(23));
        const double hash_mem = double(cs.work_mem_kb) * 1024.0 * cs.hash_mem_multiplier;
        if (bytes <= hash_mem) {
          s.kind = Sub::Kind::kHashed;
          s.startup = est.total_cost + cs.cpu_operator_cost * est.rows;
          s.per_call = cs.cpu_operator_cost;  // the test expression's equality
        } else {
          // A plain SubPlan, read again per row: over a Materialize unless its top node
          // keeps its rows already (materialize_finished_plan), half of it read a call.
          s.kind = Sub::Kind::kPlainAny;
          const bool sorts = q.root->explain_name() == "Sort";
          scans::PlanEstimate top = est;
          if (ctx_.settings.enable_material && !sorts) {
            const PathCost m =
                cost_material(cs, {est.startup_cost, est.total_cost, est.rows}, est.width);
            auto mat = std::make_unique<scans::MaterializeNode>(
                std::move(q.root), uint64_t(cs.work_mem_kb) * 1024, nullptr,
                &ctx_.storage.temp_space());
            mat->estimate = {m.startup, m.total, est.rows, est.width};
            top = mat->estimate;
            q.root = std::move(mat);
          }
          s.per_call = cs.cpu_operator_cost + 0.5 * (top.total_cost - top.startup_cost) +
                       0.5 * top.rows * cs.cpu_operator_cost;
          const bool materializes = q.root->explain_name() == "Materialize" || sorts;
          (materializes ? s.startup : s.per_call) += top.startup_cost;
        }
      } else {
        s.kind = correlated ? Sub::Kind::kCorrelated : Sub::Kind::kInit;
        s.per_call = est.total_cost - est.startup_cost;
        s.startup = 0;
        s.per_call += est.startup_cost;
      }
    }
  }

  PlanContext& ctx_;
  const sql::Select& s_;
  // The WHERE folds to false before its subqueries are planned: they make no InitPlan,
  // and a select-list SubPlan reads the dummy relation's bare columns.
  const bool where_false_;
  std::map<const sql::Select*, Sub> subs_;
  int params_ = 0;
  int next_plan_id_ = 1;
  size_t hashed_ = 0;  // SubPlans: hashed and correlated
  uint32_t correlation_slots_ = 0;
};

bool& qualify_flag() {
  thread_local bool qualify = false;
  return qualify;
}

}  // namespace

bool qualify_sort_keys() {
  return qualify_flag();
}

int& minmax_params_taken() {
  thread_local int taken = 0;
  return taken;
}

SubqueryParams*& current_subquery_params() {
  thread_local SubqueryParams* p = nullptr;
  return p;
}

size_t ExternKeys::index_of(SubqueryParams& sp, int n, TypeId type) {
  for (const scans::ExternKey& k : keys_)
    if (k.params == sp.params.get() && k.n == n && sp.params->type(k.index) == type) return k.index;
  const size_t index = sp.params->add(type);
  sp.eager.push_back(false);
  keys_.push_back({sp.params.get(), index, n});
  return index;
}

ExternKeys*& current_extern_keys() {
  thread_local ExternKeys* keys = nullptr;
  return keys;
}

std::string subplan_display_name(const std::string& refname) {
  const DisplayNames* names = display_names();
  if (names == nullptr) return "";
  const auto it = names->renamed.find(refname);
  return it == names->renamed.end() ? "" : it->second;
}

bool has_subqueries(const sql::Select& s) {
  bool found = false;
  each_query_sublink(s, [&](const sql::Expr&, bool) { found = true; });
  return found;
}

PlannedQuery plan_with_subplans(
    PlanContext& ctx, const sql::Select& s,
    const std::function<PlannedQuery(PlanContext&, const sql::Select&)>& plan) {
  struct Qualify {
    bool saved = qualify_flag();
    Qualify() { qualify_flag() = true; }
    ~Qualify() { qualify_flag() = saved; }
  } qualify;
  // The outer query's relations keep their names; the subqueries' come after them.
  DisplayNames names;
  if (s.from) name_tables(*s.from, names);
  struct Names {
    DisplayNames* saved = display_names();
    explicit Names(DisplayNames* n) { display_names() = n; }
    ~Names() { display_names() = saved; }
  } scoped_names(&names);
  SubPlanner planner(ctx, s);
  planner.plan_all();
  if (!planner.any()) return plan(ctx, s);
  SubqueryParams params;
  params.params = std::make_unique<scans::ExecParams>(planner.init_types());
  params.eager.assign(params.params->size(), false);
  struct ScopedParams {
    SubqueryParams* saved = current_subquery_params();
    explicit ScopedParams(SubqueryParams* p) { current_subquery_params() = p; }
    ~ScopedParams() { current_subquery_params() = saved; }
  } scoped_params(&params);
  SubLinkBinding binding;
  binding.planned = [&](const sql::Expr& link) { return planner.planned(link); };
  binding.bind = [&](const sql::Expr& link, const ColumnLookup& columns) {
    return planner.bind(link, columns);
  };
  binding.outer_refs = [&](const sql::Expr& link) { return planner.outer_refs(link); };
  ScopedSubLinks scope(&binding);
  // A plan with InitPlans runs in one process (PostgreSQL marks its paths parallel-unsafe).
  PlanContext outer = ctx;
  outer.settings.max_parallel_workers_per_gather = 0;
  PlannedQuery q = plan(outer, s);
  return planner.finish(std::move(q), std::move(params.params), params.eager);
}

}  // namespace tp
