#include "engine/plan/scan_nodes.h"

#include <algorithm>

#include "engine/plan/index_conditions.h"
#include "engine/plan/index_open.h"
#include "engine/plan/predtest.h"
#include "engine/plan/prepqual.h"
#include "engine/plan/pseudo_constant.h"
#include "engine/plan/subplans.h"
#include "engine/plan/typed_index_qual.h"
#include "engine/plan/where_clause.h"

namespace tp {

namespace {

// A key the compiled recheck compares as a four- or eight-byte integer at its offset.
bool param_compares_as_integer(TypeId t) {
  return t == TypeId::kInt4 || t == TypeId::kInt8 || t == TypeId::kDate ||
         t == TypeId::kTimestamp || t == TypeId::kTimestamptz;
}

std::unique_ptr<scans::BitmapIndexScanNode> make_bitmap_index(const TableScan& t,
                                                              const BitmapChoice& ch) {
  const RelationEntry& index = *ch.index->entry;
  auto node = std::make_unique<scans::BitmapIndexScanNode>(
      open_index(t.ctx, t.rel, index), condition_sets(ch.index_clauses, index.key_columns, false),
      clauses_text(index_cond_form(in_key_order(ch.index_clauses, index.key_columns)), t.rel),
      t.ctx.settings.index_leaf_readahead);
  PathCost e = explain_bitmap_node(t.cs, ch.node, t.rs.tuples);
  node->estimate = {e.startup, e.total, e.rows, 0};
  return node;
}

std::unique_ptr<scans::BitmapNode> make_bitmap_tree(const TableScan& t, const BitmapCandidate& c) {
  if (c.kind == BitmapCandidate::Kind::kIndex) {
    std::unique_ptr<scans::BitmapNode> node = make_bitmap_index(t, c.scan);
    // `key = $n` over an InitPlan's value (a join's parameters are set by the caller):
    // the runtime key reads the statement's values, as an index scan's does.
    if (c.join_params.empty()) {
      auto keys = runtime_keys(c.scan.index_clauses, c.scan.index->entry->key_columns);
      if (!keys.empty())
        if (auto* scan = dynamic_cast<scans::BitmapIndexScanNode*>(node.get())) {
          const scans::ExecParams* params = init_params_for_keys(keys);
          scan->set_runtime_keys(std::move(keys), params);
        }
    }
    return node;
  }
  std::vector<std::unique_ptr<scans::BitmapNode>> children;
  for (const BitmapCandidate& m : c.members) children.push_back(make_bitmap_tree(t, m));
  auto node = std::make_unique<scans::BitmapCombineNode>(c.kind == BitmapCandidate::Kind::kAnd,
                                                         std::move(children));
  PathCost e = explain_bitmap_node(t.cs, c.node, t.rs.tuples);
  node->estimate = {e.startup, e.total, e.rows, 0};
  return node;
}

}  // namespace

scans::SeqScanParams seq_scan_params(const TableScan& t, const std::vector<Clause>& clauses) {
  scans::SeqScanParams params;
  params.relation = t.relation_text;
  params.nblocks = BlockNumber(t.rel.pages);
  params.stream = t.ctx.settings.stream;
  params.output = t.output;
  const std::vector<Clause> filter = order_qual_clauses(t.cs, clauses);
  params.qual = scans::compile_qual(filter, t.layout);
  params.filter_text = clauses_text(filter, t.rel);
  return params;
}

scans::IndexScanParams index_scan_params(const TableScan& t, const IndexPathSpec& spec) {
  const PlannerSettings& s = t.ctx.settings;
  const RelationEntry& index = *spec.index;
  scans::IndexScanParams ip;
  ip.relation = t.relation_text;
  ip.index_only = spec.index_only;
  if (spec.index_only) answer_from_index(ip, t.ctx.storage, t.rel, index);
  ip.index = open_index(t.ctx, t.rel, index);
  ip.condition_sets = condition_sets(spec.index_clauses, index.key_columns, spec.backward);
  ip.runtime_keys = runtime_keys(spec.index_clauses, index.key_columns);
  ip.params = spec.params;
  // `key = $n` over an InitPlan's value: its runtime key reads the statement's values,
  // which the subquery host sets before the scan starts.
  if (ip.params == nullptr && !ip.runtime_keys.empty())
    ip.params = init_params_for_keys(ip.runtime_keys);
  ip.direction = spec.backward ? btree::ScanDirection::kBackward : btree::ScanDirection::kForward;
  ip.stream = s.stream;
  ip.prefetch = s.index_prefetch != IndexPrefetch::kOff;
  ip.prefetch_start_switches =
      s.index_prefetch == IndexPrefetch::kImmediate ? 0 : scans::kPrefetchStartSwitches;
  ip.leaf_readahead = s.index_leaf_readahead;
  ip.output = t.output;
  // The filters the index conditions imply are costed, but not checked (predtest.h).
  // A parameterized clause's value is not known here: it implies nothing.
  std::vector<Clause> known;
  for (const Clause& c : spec.index_clauses)
    if (!c.param) known.push_back(c);
  const std::vector<Clause> filter = drop_implied(spec.filter, known);
  ip.filter = scans::compile_qual(filter, t.layout);
  ip.index_cond_text = clauses_text(
      index_cond_form(in_key_order(spec.index_clauses, index.key_columns), spec.index_only), t.rel);
  ip.filter_text = clauses_text(filter, t.rel);
  return ip;
}

namespace {

bool runs_subplan(const TypedExpr& e) {
  return e.kind == TypedExpr::Kind::kSubPlan ||
         std::any_of(e.args.begin(), e.args.end(), runs_subplan);
}

}  // namespace

std::unique_ptr<scans::ExecNode> make_index_scan(const TableScan& t, const IndexPathSpec& spec) {
  auto node = std::make_unique<scans::IndexScanNode>(
      t.ctx.storage.pool(), t.ctx.storage.file(t.rel), index_scan_params(t, spec));
  // A Filter running a subquery per row returns each row that passes at once: a join
  // above that stops early (its other side done) runs no subquery beyond it, as
  // PostgreSQL's row-at-a-time executor does not.
  node->row_at_a_time = std::any_of(spec.filter.begin(), spec.filter.end(), [](const Clause& c) {
    return c.expr != nullptr && runs_subplan(*c.expr);
  });
  return node;
}

PartialScan partial_index_scan(const TableScan& t, const IndexPathSpec& spec, const PathCost& cost,
                               int workers, size_t keys) {
  PartialScan p;
  p.kind = PartialScan::Kind::kIndex;
  p.workers = workers;
  p.path = cost;
  p.width = t.width;
  p.keys = keys;
  p.nblocks = BlockNumber(t.rel.pages);
  p.prepare = [t, spec] {
    scans::IndexScanParams params = index_scan_params(t, spec);
    auto shared = std::make_shared<scans::SharedIndexScan>(params.condition_sets.size());
    params.parallel = shared;
    ParallelScanFactory f;
    f.shared = shared;
    f.participant = [pool = &t.ctx.storage.pool(), file = &t.ctx.storage.file(t.rel),
                     params](scans::ParallelBlocks&) {
      scans::IndexScanParams mine = params;
      mine.index = params.index.reopen();  // a page store per participant's thread
      return std::unique_ptr<scans::ExecNode>(
          std::make_unique<scans::IndexScanNode>(*pool, *file, std::move(mine)));
    };
    return f;
  };
  return p;
}

namespace {

// A candidate's bitmap tree; an index scan applying parameters takes them as runtime keys.
std::unique_ptr<scans::BitmapNode> make_bitmap_member(const TableScan& t, const BitmapCandidate& c,
                                                      const scans::ExecParams* params) {
  std::unique_ptr<scans::BitmapNode> tree = make_bitmap_tree(t, c);
  if (params && c.kind == BitmapCandidate::Kind::kIndex && !c.join_params.empty())
    if (auto* scan = dynamic_cast<scans::BitmapIndexScanNode*>(tree.get()))
      scan->set_runtime_keys(runtime_keys(c.scan.index_clauses, c.scan.index->entry->key_columns),
                             params);
  return tree;
}

}  // namespace

BitmapHeapPlan bitmap_heap_plan(const TableScan& t, const std::vector<Clause>& clauses,
                                const std::vector<BitmapCandidate>& chosen,
                                const BitmapPath& bitmap, const scans::ExecParams* params) {
  // The heap scan rechecks the bitmap's conditions (create_bitmap_subplan's quals: an
  // index scan's each, a BitmapOr's as one OR); a restriction the indexes apply, or one
  // their conditions imply, leaves the Filter. A LIKE whose prefix range an index
  // searched is not applied by it: it stays a Filter, and is then not rechecked too
  // (create_bitmap_scan_plan drops the Filter's own clauses from the recheck; an OR the
  // bitmap's arms make is a clause of its own, rechecked even when it reads the same).
  std::vector<std::unique_ptr<scans::BitmapNode>> members;
  std::vector<Clause> recheck, index_quals;
  auto among = [](const std::vector<Clause>& list, const Clause& c) {
    return std::any_of(list.begin(), list.end(),
                       [&](const Clause& r) { return same_clause(r, c); });
  };
  auto add_parts = [&](std::vector<Clause>& list, Clause r, BitmapCandidate::Kind kind) {
    for (Clause& part : r.kind == Clause::Kind::kAnd && kind != BitmapCandidate::Kind::kOr
                            ? r.args
                            : std::vector<Clause>{r})
      if (!among(list, part)) list.push_back(std::move(part));
  };
  for (const BitmapCandidate& c : chosen) {
    members.push_back(make_bitmap_member(t, c, params));
    add_parts(recheck, candidate_recheck(c), c.kind);
    add_parts(index_quals, candidate_recheck(c, /*index_quals=*/true), c.kind);
  }
  // A clause an index applies only commuted whose value side is no constant
  // (`CURRENT_DATE - 7 <= d`, searched as `d >= ...`) stays a Filter: PostgreSQL finds it
  // neither equal to the index's form nor, holding a stable function, provably implied.
  auto commuted_stable = [](const Clause& c) {
    if (c.kind != Clause::Kind::kExpr || c.expr->kind != TypedExpr::Kind::kCall ||
        c.expr->args.size() != 2)
      return false;
    const TypedExpr& left = c.expr->args[0];
    return !left.is_const() && is_pseudo_constant(left) && !is_pseudo_constant(c.expr->args[1]);
  };
  std::vector<Clause> filter;
  for (const Clause& c : clauses)
    if (!among(index_quals, c) || commuted_stable(c)) filter.push_back(c);
  filter = order_qual_clauses(t.cs, std::move(filter));
  const std::vector<Clause> not_implied = drop_implied(filter, index_quals);
  std::erase_if(filter,
                [&](const Clause& c) { return !commuted_stable(c) && !among(not_implied, c); });
  std::erase_if(recheck,
                [&](const Clause& r) { return r.kind != Clause::Kind::kOr && among(filter, r); });
  BitmapHeapPlan plan;
  if (members.size() == 1) {
    plan.tree = std::move(members[0]);
  } else {
    plan.tree = std::make_unique<scans::BitmapCombineNode>(true, std::move(members));
    PathCost e = explain_bitmap_node(t.cs, bitmap, t.rs.tuples);
    plan.tree->estimate = {e.startup, e.total, e.rows, 0};
  }
  scans::BitmapHeapScanParams& bp = plan.params;
  bp.relation = t.relation_text;
  bp.work_mem_bytes = t.cs.work_mem_kb * 1024;
  bp.stream = t.ctx.settings.stream;
  bp.output = t.output;
  // A parameterized clause (`key op $n`) is rechecked as `key op 0` whose value the scan
  // sets from the parameter at each open: compared as an integer over an integer,
  // date or timestamp key, by the key type's order over any other.
  std::vector<Clause> compiled = recheck;
  for (size_t i = 0; i < compiled.size(); ++i)
    if (compiled[i].param && !compiled[i].expr) {  // an InitPlan's `$n` reads its value itself
      bp.param_rechecks.push_back({i, *compiled[i].param});
      compiled[i] = Clause::cmp(compiled[i].column, compiled[i].op, 0);
    }
  bp.recheck = scans::compile_qual(compiled, t.layout);
  for (const scans::BitmapHeapScanParams::ParamRecheck& r : bp.param_rechecks) {
    const TypeId type = t.rel.columns[size_t(recheck[r.clause].column)].type;
    if (param_compares_as_integer(type)) continue;
    scans::CompiledClause& c = bp.recheck.clauses[r.clause];
    c.kind = scans::CompiledClause::Kind::kParamCompare;
    c.type = type;
    bp.recheck.needs_values = true;
  }
  bp.filter = scans::compile_qual(filter, t.layout);
  bp.recheck_text = clauses_text(recheck, t.rel);
  bp.filter_text = clauses_text(filter, t.rel);
  return plan;
}

std::unique_ptr<scans::ExecNode> make_bitmap_heap(const TableScan& t, BitmapHeapPlan plan,
                                                  const PathCost& p) {
  auto node =
      std::make_unique<scans::BitmapHeapScanNode>(t.ctx.storage.pool(), t.ctx.storage.file(t.rel),
                                                  std::move(plan.tree), std::move(plan.params));
  node->estimate = {p.startup, p.total, p.rows, t.width};
  return node;
}

PartialScan partial_bitmap_heap_scan(const TableScan& t, BitmapHeapPlan plan, const PathCost& cost,
                                     int workers) {
  PartialScan p;
  p.kind = PartialScan::Kind::kBitmap;
  p.workers = workers;
  p.path = cost;
  p.width = t.width;
  p.nblocks = BlockNumber(t.rel.pages);
  std::shared_ptr<const BitmapHeapPlan> made = std::make_shared<BitmapHeapPlan>(std::move(plan));
  p.prepare = [pool = &t.ctx.storage.pool(), file = &t.ctx.storage.file(t.rel), made] {
    auto shared = std::make_shared<scans::SharedBitmap>();
    ParallelScanFactory f;
    f.shared = shared;
    f.participant = [pool, file, made, shared](scans::ParallelBlocks&) {
      scans::BitmapHeapScanParams params = made->params;
      params.parallel = shared;
      return std::unique_ptr<scans::ExecNode>(std::make_unique<scans::BitmapHeapScanNode>(
          *pool, *file, made->tree->clone(), std::move(params)));
    };
    return f;
  };
  return p;
}

}  // namespace tp
