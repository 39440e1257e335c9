#include "engine/plan/scan_choice.h"

#include <algorithm>
#include <functional>

#include "engine/plan/bitmap_or.h"
#include "engine/plan/btree_qual_summary.h"
#include "engine/plan/cache_state.h"
#include "engine/plan/distinct_paths.h"
#include "engine/plan/incremental_sort.h"
#include "engine/plan/index_conditions.h"
#include "engine/plan/index_open.h"
#include "engine/plan/parallel_cost.h"
#include "engine/plan/rel_size.h"
#include "engine/plan/scan_nodes.h"
#include "engine/plan/serial_paths.h"
#include "engine/plan/statistics.h"
#include "engine/plan/where_clause.h"
#include "engine/sql/identifier.h"
#include "engine/storage/index_build.h"
#include "engine/storage/table_stats.h"
#include "scans/bitmap_scan.h"
#include "scans/incremental_sort.h"
#include "scans/index_scan.h"
#include "scans/one_time_false.h"
#include "scans/seq_scan.h"

namespace tp {
namespace {

using ScanBuilder = std::function<std::unique_ptr<scans::ExecNode>()>;

class ScanChooser {
 public:
  ScanChooser(PlanContext& ctx, const ScanQuery& q)
      : ctx_(ctx),
        settings_(ctx.settings),
        cs_(ctx.settings.costs),
        q_(q),
        rel_(*q.rel),
        layout_(rel_.columns),
        all_quals_(qual_cost(ctx.settings.costs, q.clauses)) {
    if (!rel_.stats.empty()) stats_ = stats_from_catalog(rel_.stats);
    SizeEstimate size = estimate_rel_size(rel_, stats_ ? &*stats_ : nullptr);
    view_.tuples = size.tuples;
    for (size_t c = 0; c < rel_.columns.size(); ++c) {
      ColumnStatsView v;
      if (stats_ && c < stats_->columns.size() && stats_->columns[c].valid)
        v.stats = &stats_->columns[c];
      describe_from_indexes(ctx, rel_, int(c), v);
      view_.columns.push_back(v);
    }
    rs_ = RelSize{.pages = size.pages, .tuples = size.tuples, .rows = 0};
    rs_.allvisfrac = size.allvisfrac;
    const bool cached = cs_.prefetch.enabled;  // only the prefetch-aware model reads it
    if (cached)
      rs_.cache = relation_cache_state(ctx.storage, rel_, size.pages, cs_.prefetch.buffered);
    // A false restriction has selectivity 0, as a constant FALSE has in PostgreSQL.
    const double selectivity = q.one_time_false ? 0.0 : clauselist_selectivity(view_, q.clauses);
    rs_.rows = clamp_row_est(selectivity * size.tuples);
    for (int c : q.scan_columns) {
      output_.push_back(
          {layout_.offset(size_t(c)), rel_.columns[size_t(c)].type == ColumnType::kInt8});
      width_ += int(column_type_size(rel_.columns[size_t(c)].type));
    }
    for (const RelationEntry* idx : ctx.catalog.indexes_of(rel_.oid)) {
      // A damaged index (DataDir::damage) is left out: the table stays readable.
      if (ctx.data_dir.damage(idx->relnumber)) continue;
      indexes_.push_back({idx, BtreeIndexInfo{.pages = double(idx->pages),
                                              .tuples = size.tuples,
                                              .tree_height = index_height(ctx.storage, rel_, *idx),
                                              .key_columns = int(idx->key_columns.size()),
                                              .unique = idx->unique}});
      if (cached)
        indexes_.back().info.cache =
            relation_cache_state(ctx.storage, *idx, double(idx->pages), cs_.prefetch.buffered);
    }
    // PostgreSQL's relation index list runs newest first (get_relation_info builds it
    // with lcons over ascending OIDs), and where two paths cost the same the one built
    // first stays: so ties go to the index created last, here too.
    std::stable_sort(indexes_.begin(), indexes_.end(), [](const IndexInfo& a, const IndexInfo& b) {
      return a.entry->oid > b.entry->oid;
    });
  }

  ChosenScan choose() {
    consider_seq_scan();
    for (const IndexInfo& ix : indexes_) consider_index_scan(ix);
    consider_bitmap_heap_scan();
    std::vector<PartialScan> partials;
    for (size_t i : partial_kept_) partials.push_back(partials_[i]);
    if (q_.distinct) {
      std::optional<PartialScan> cheapest;
      if (!partials.empty()) cheapest = partials.front();
      return choose_distinct_scan(ctx_, q_, view_, rs_, width_, std::move(distinct_inputs_),
                                  cheapest);
    }
    choose_serial();
    if (!partials.empty()) {
      consider_gather(partials.front());
      consider_gather_merge(partials);
    }
    ChosenScan chosen;
    if (!best_build_) return chosen;  // presorted_only, and no index gives the order
    chosen.node = best_build_();
    chosen.node->estimate = {best_.startup, best_.total, best_.rows, width_};
    if (q_.one_time_false) {
      chosen.node = std::make_unique<scans::OneTimeFalseNode>(std::move(chosen.node));
      chosen.node->estimate = {best_.startup, best_.total, best_.rows, width_};
    }
    chosen.path = best_;
    chosen.ordered = best_ordered_;
    chosen.parallel_safe = best_parallel_safe_;
    chosen.width = width_;
    chosen.partials = std::move(partials);
    return chosen;
  }

 private:
  // The path as the query finishes it: a Sort unless it gives the order, and the Limit.
  PathCost finished(const PathCost& p, bool ordered) const {
    PathCost f = p;
    if (!q_.aggregate) {
      double limit_rows = q_.limit ? double(*q_.limit) : -1;
      if (!q_.order.empty() && !ordered) f = cost_sort(cs_, f, f.rows, width_, 0, limit_rows);
      if (q_.limit) f = cost_limit(f, 0, limit_rows);
    }
    return f;
  }

  // Records a serial path of the table that gives the first `keys` ORDER BY keys; for
  // SELECT DISTINCT, among the input paths too. `physical`: an index-only scan's key
  // columns (empty: the table's columns). With every DISTINCT column fixed by WHERE
  // there are no keys, and any path is in their order.
  void consider(PathCost p, size_t keys, ScanBuilder build, std::vector<int> physical = {}) {
    const bool ordered = !q_.order.empty() && keys == q_.order.size();
    if (q_.presorted_only && !ordered && !q_.order.empty()) return;
    if (q_.distinct) {
      if (physical.empty())
        for (size_t c = 0; c < rel_.columns.size(); ++c) physical.push_back(int(c));
      distinct_inputs_.push_back({{p, ordered || q_.order.empty()}, build, std::move(physical)});
    }
    serial_paths_.push_back({p, finished(p, ordered), ordered});
    table_paths_.push_back({p, keys});
    builders_.push_back(std::move(build));
  }

  // The serial plan PostgreSQL ends with (serial_paths.h): the table's path as it is,
  // under the Sort the planner adds above it, or under an Incremental Sort.
  void choose_serial() {
    SerialQuery sq;
    sq.order_keys = q_.order.size();
    sq.aggregate = q_.aggregate;
    const double limit_rows = q_.limit ? double(*q_.limit) : -1;
    if (q_.limit && !q_.aggregate) sq.limit_rows = limit_rows;
    sq.sort = [&](const PathCost& p) { return cost_sort(cs_, p, p.rows, width_, 0, limit_rows); };
    sq.incremental_sort = [&](const PathCost& p, size_t keys) {
      return incremental_sort_cost(p, keys);
    };
    std::optional<SerialChoice> c = choose_serial_path(table_paths_, sq);
    if (!c) return;
    const TablePath& base = table_paths_[c->path];
    best_total_ = c->finished.total;
    best_parallel_safe_ = true;
    best_ = base.cost;
    best_ordered_ =
        c->kind == SerialChoice::Kind::kAsIs && !q_.order.empty() && base.keys == q_.order.size();
    best_build_ = builders_[c->path];
    if (c->kind == SerialChoice::Kind::kIncrementalSort) {
      best_ = c->top;
      best_ordered_ = true;
      best_build_ = incremental_sort_builder(base.cost, base.keys, builders_[c->path]);
    }
  }

  // Gather over the partial scan: PostgreSQL adds it beside the serial paths (and
  // the Sort / Limit above it beside theirs) only when no serial path is fuzzily as
  // cheap (add_path keeps the parallel-safe path on a tie); then the cheapest wins.
  void consider_gather(const PartialScan& partial) {
    GatherPath g = gather_rows(cs_, partial, rs_.rows);
    PathCost f = finished(g.path, false);
    const bool consider_startup = q_.limit.has_value() && !q_.aggregate;
    for (const SerialPath& s : serial_paths_)
      if (!parallel_path_survives(g.path, s.raw, consider_startup)) return;
    gather_kept_ = g.path;  // in the table's paths: a Sort may go over it
    for (const SerialPath& s : serial_paths_)
      if (!parallel_path_survives(f, s.finished, consider_startup)) return;
    if (best_build_ && !(f.total < best_total_)) return;
    best_total_ = f.total;
    best_ = g.path;
    best_ordered_ = false;
    best_parallel_safe_ = false;
    best_build_ = [this, partial, g] { return build_gather(ctx_, partial, g, nullptr); };
  }

  // The table's cheapest path by total cost (ties: startup), as set_cheapest picks
  // the one create_ordered_paths sorts: a serial path or the Gather.
  RelPath cheapest_total(bool& ordered) const {
    RelPath best{serial_paths_.front().raw, true, kOther};
    ordered = serial_paths_.front().ordered;
    auto cheaper = [](const PathCost& a, const PathCost& b) {
      return a.total < b.total || (a.total == b.total && a.startup < b.startup);
    };
    for (const SerialPath& s : serial_paths_)
      if (cheaper(s.raw, best.cost)) best = {s.raw, true, kOther}, ordered = s.ordered;
    if (gather_kept_ && cheaper(*gather_kept_, best.cost))
      best = {*gather_kept_, false, kOther}, ordered = false;
    return best;
  }

  // PostgreSQL's Gather Merge paths for an ORDER BY: generate_gather_paths puts one
  // straight over each partial path in the order (rows: the table's), and
  // generate_useful_gather_paths (a) one over the cheapest partial path sorted without
  // the LIMIT's bound, into the table's paths, where a serial path giving the order may
  // dominate them; (b) create_ordered_paths sorts the cheapest partial path with the
  // bound (rows: partial rows * workers). All then compete in the ordered relation with
  // the serial ordered paths and the Sort over the cheapest path, then under the LIMIT
  // in the final one; the cheapest kept wins.
  void consider_gather_merge(const std::vector<PartialScan>& partials) {
    if (q_.aggregate || q_.order.empty() || q_.sort.keys.empty()) return;
    const bool consider_startup = q_.limit.has_value();
    const double limit_tuples = q_.limit ? double(*q_.limit) : -1;
    const size_t all_keys = q_.order.size();
    struct Candidate {
      GatherMergePath gm;
      const PartialScan* partial;
    };
    std::vector<Candidate> table_gm;  // into the table's paths
    for (const PartialScan& p : partials)
      if (p.keys == all_keys)
        table_gm.push_back({gather_merge_presorted(settings_, p, rs_.rows), &p});
    const PartialScan& cheapest_partial = partials.front();
    const bool cheapest_sorted = cheapest_partial.keys == all_keys;
    if (!cheapest_sorted)
      table_gm.push_back(
          {gather_merge_sorted(settings_, cheapest_partial, -1, rs_.rows), &cheapest_partial});
    // The ordered relation's paths, each with its input's total cost (create_ordered_paths
    // walks the table's paths cheapest first).
    std::vector<std::pair<double, RelPath>> inputs;
    for (const SerialPath& s : serial_paths_)
      if (s.ordered) inputs.push_back({s.raw.total, {s.raw, true, kOther}});
    bool cheapest_ordered = false;
    RelPath cheapest = cheapest_total(cheapest_ordered);
    if (!cheapest_ordered) {
      const double input_total = cheapest.cost.total;
      cheapest.cost =
          disabled_if(!settings_.enable_sort,
                      cost_sort(cs_, cheapest.cost, cheapest.cost.rows, width_, 0, limit_tuples));
      inputs.push_back({input_total, cheapest});
    }
    for (size_t i = 0; i < table_gm.size(); ++i) {
      bool kept = true;
      for (const SerialPath& s : serial_paths_)
        if (s.ordered && !parallel_path_survives(table_gm[i].gm.path, s.raw, consider_startup))
          kept = false;
      if (kept)
        inputs.push_back({table_gm[i].gm.path.total, {table_gm[i].gm.path, false, int(i) + 1}});
    }
    std::stable_sort(inputs.begin(), inputs.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<RelPath> ordered_rel;
    for (const auto& [input_total, p] : inputs)
      add_same_order_path(ordered_rel, p, consider_startup);
    if (!cheapest_sorted) {
      table_gm.push_back(
          {gather_merge_sorted(settings_, cheapest_partial, limit_tuples,
                               cheapest_partial.path.rows * cheapest_partial.workers),
           &cheapest_partial});
      add_same_order_path(ordered_rel, {table_gm.back().gm.path, false, int(table_gm.size())},
                          consider_startup);
    }
    std::vector<RelPath> final_rel;
    for (RelPath p : ordered_rel) {
      if (q_.limit) p.cost = cost_limit(p.cost, 0, limit_tuples);
      add_same_order_path(final_rel, p, consider_startup);
    }
    const RelPath* winner = &final_rel.front();
    for (const RelPath& p : final_rel)
      if (p.cost.total < winner->cost.total ||
          (p.cost.total == winner->cost.total && p.cost.startup < winner->cost.startup))
        winner = &p;
    if (winner->id == kOther) return;
    const GatherMergePath g = table_gm[size_t(winner->id - 1)].gm;
    const PartialScan partial = *table_gm[size_t(winner->id - 1)].partial;
    best_total_ = winner->cost.total;
    best_ = g.path;
    best_ordered_ = true;
    best_parallel_safe_ = false;
    best_build_ = [this, partial, g] { return build_gather_merge(ctx_, partial, g, q_.sort); };
  }

  // The relation as EXPLAIN names it: "t1", or "t1 t1_1" under an alias.
  std::string relation_text() const {
    return sql::quote_identifier(rel_.name) + (q_.alias.empty() ? "" : " " + q_.alias);
  }

  scans::SeqScanParams seq_scan_params() const {
    scans::SeqScanParams params;
    params.relation = relation_text();
    params.nblocks = BlockNumber(rel_.pages);
    params.stream = settings_.stream;
    params.output = output_;
    const std::vector<Clause> filter = order_qual_clauses(cs_, q_.clauses);
    params.qual = scans::compile_qual(filter, layout_);
    params.filter_text = clauses_text(filter, rel_);
    return params;
  }

  // The sequential scan, and its partial path (create_plain_partial_paths) first in
  // the partial list, as PostgreSQL makes them before any index path.
  void consider_seq_scan() {
    PathCost p = disabled_if(!settings_.enable_seqscan, cost_seq_scan(cs_, rs_, all_quals_));
    consider(p, 0, [this] {
      return std::make_unique<scans::SeqScanNode>(ctx_.storage.pool(), ctx_.storage.file(rel_),
                                                  seq_scan_params());
    });
    if (!parallel_ok()) return;
    if (std::optional<PartialScan> partial =
            partial_seq_scan(ctx_, rel_, rs_, all_quals_, seq_scan_params(), width_))
      add_partial(std::move(*partial));
  }

  // Whether the table gets partial paths: parallel plans allowed, and neither a
  // min/max InitPlan's subquery (presorted only) nor a false restriction.
  bool parallel_ok() const {
    return settings_.max_parallel_workers_per_gather > 0 && !q_.presorted_only &&
           !q_.one_time_false;
  }

  void add_partial(PartialScan p) {
    partials_.push_back(std::move(p));
    add_partial_path(partial_kept_, partials_, partials_.size() - 1);
  }

  // compute_parallel_worker for a partial index or bitmap heap scan (-1: not counted).
  int partial_workers(double heap_pages, double index_pages) const {
    return compute_parallel_worker(
        heap_pages, index_pages, rel_.parallel_workers,
        {settings_.min_parallel_table_scan_size, settings_.min_parallel_index_scan_size},
        settings_.max_parallel_workers_per_gather);
  }

  double divisor(int workers) const {
    return parallel_divisor(workers, settings_.parallel_leader_participation);
  }

  TableScan table() const { return {ctx_, rel_, cs_, rs_, relation_text(), output_, width_}; }

  // Whether a scan of index `keys` returns rows in the wanted order (`backward` says
  // which way), or how many leading sort keys it gives (engine/plan/incremental_sort.h).
  size_t index_order(const std::vector<int>& keys, bool& backward) const {
    if (q_.order.empty()) return 0;
    const size_t n = std::min(index_order_prefix(keys, q_.order, q_.constant_columns, backward),
                              q_.index_orderable_keys);
    // No key usable from the index: it is scanned forward, as any unordered index scan.
    if (n == 0) backward = false;
    return n;
  }

  // The index paths PostgreSQL's build_index_paths makes for one index: the scan with
  // every usable clause; but an IN list on a column after the first loses the index's
  // order (one B-tree scan per element), so then first a scan without those IN lists
  // (they become filters) that keeps it, and then the one with them, unordered.
  void consider_index_scan(const IndexInfo& ix) {
    const std::vector<int>& keys = ix.entry->key_columns;
    std::vector<Clause> ic, qp, ic_all, qp_all;
    bool lower_in = false;
    for (const Clause& c : q_.clauses) {
      const bool usable = usable_index_clause(c, keys);
      const bool lower = usable && c.kind == Clause::Kind::kIn && !is_btree_indexable(c, keys[0]);
      lower_in = lower_in || lower;
      (usable && !lower ? ic : qp).push_back(c);
      (usable ? ic_all : qp_all).push_back(c);
    }
    consider_index_path(ix, ic, order_qual_clauses(cs_, qp), true);
    if (lower_in) consider_index_path(ix, ic_all, order_qual_clauses(cs_, qp_all), false);
  }

  void consider_index_path(const IndexInfo& ix, const std::vector<Clause>& ic,
                           const std::vector<Clause>& qp, bool may_order) {
    const std::vector<int>& keys = ix.entry->key_columns;
    bool backward = false;
    const size_t presorted = may_order ? index_order(keys, backward) : 0;
    // As PostgreSQL, an index holding every column the query reads gives an index-only
    // path, even with no clause or order to offer (a full index scan).
    const bool index_only = settings_.enable_indexonlyscan && covers_query(keys);
    if (ic.empty() && presorted == 0 && !index_only) return;
    BtreeQuals bq = summarize_btree_quals(view_, keys, ix.entry->unique, ic);
    IndexScanCost isc = cost_index_scan(cs_, rs_, ix.info, bq, qual_cost(cs_, qp), 1, index_only);
    PathCost p = disabled_if(!settings_.enable_indexscan, isc.path);
    IndexPathSpec spec{ix.entry, ic, qp, backward, index_only};
    consider(
        p, presorted, [this, spec] { return make_index_scan(table(), spec); },
        index_only ? keys : std::vector<int>{});
    // build_index_paths' partial twin (cost_index with partial_path): workers by the
    // heap pages Mackert-Lohman fetches (not counted for an index-only scan) and the
    // index pages.
    if (!parallel_ok()) return;
    const int workers =
        partial_workers(index_only ? -1 : isc.rand_heap_pages, isc.index.index_pages);
    if (workers <= 0) return;
    PathCost pp = divide_cpu_cost(isc.path.startup, isc.noncpu_run_cost, isc.cpu_run_cost, rs_.rows,
                                  divisor(workers));
    add_partial(partial_index_scan(table(), spec, disabled_if(!settings_.enable_indexscan, pp),
                                   workers, presorted));
  }

  // PostgreSQL's Incremental Sort over a path ordered by the first `presorted` keys:
  // its cost, with the LIMIT's bound, and the node over the path's scan.
  PathCost incremental_sort_cost(const PathCost& input, size_t presorted) const {
    std::vector<int> columns;
    for (size_t i = 0; i < presorted; ++i) columns.push_back(q_.order[i].first);
    const double groups = estimate_num_groups(view_, columns, input.rows, rs_.rows);
    const double limit_rows = q_.limit ? double(*q_.limit) : -1;
    return cost_incremental_sort(cs_, input, groups, width_, limit_rows);
  }

  ScanBuilder incremental_sort_builder(const PathCost& input, size_t presorted,
                                       ScanBuilder build) const {
    std::string presorted_text;
    for (size_t i = 0; i < presorted; ++i)
      presorted_text +=
          (i ? ", " : "") + sql::quote_identifier(rel_.columns[size_t(q_.order[i].first)].name);
    return [this, input, presorted, presorted_text, build = std::move(build)] {
      std::unique_ptr<scans::ExecNode> scan = build();
      scan->estimate = {input.startup, input.total, input.rows, width_};
      return std::make_unique<scans::IncrementalSortNode>(std::move(scan), q_.sort.keys, presorted,
                                                          q_.sort.key_text, presorted_text,
                                                          q_.sort.max_bytes);
    };
  }

  // Whether `keys` hold every column the query reads: the output's and the clauses'.
  bool covers_query(const std::vector<int>& keys) const {
    auto has = [&](int c) { return std::find(keys.begin(), keys.end(), c) != keys.end(); };
    for (int c : q_.scan_columns)
      if (!has(c)) return false;
    std::vector<int> used;
    for (const Clause& c : q_.clauses) clause_columns(c, used);
    return std::all_of(used.begin(), used.end(), has);
  }

  // One bitmap heap scan, over the bitmap PostgreSQL's choose_bitmap_and picks from the
  // candidates: a bitmap index scan per index that applies some clauses, and a BitmapOr
  // per OR clause whose every arm an index covers. Candidates applying the same clauses
  // keep only the cheapest; sorted by bitmap cost, each in turn leads an AND group that
  // takes each later candidate (sharing no clause) when the heap scan's cost drops; the
  // cheapest group wins.
  void consider_bitmap_heap_scan() {
    std::vector<BitmapCandidate> candidates;
    for (const IndexInfo& ix : indexes_) {
      const std::vector<int>& keys = ix.entry->key_columns;
      std::vector<size_t> all, upper;  // upper: without IN lists on later key columns
      for (size_t i = 0; i < q_.clauses.size(); ++i) {
        const Clause& c = q_.clauses[i];
        if (!usable_index_clause(c, keys)) continue;
        all.push_back(i);
        if (c.kind != Clause::Kind::kIn || is_btree_indexable(c, keys[0])) upper.push_back(i);
      }
      // PostgreSQL's index paths, both bitmap candidates: the one that keeps the
      // index's order (no IN list on a later column), then the one with every clause.
      if (!upper.empty() && upper.size() < all.size())
        add_candidate(candidates, index_candidate(ix, upper));
      if (!all.empty()) add_candidate(candidates, index_candidate(ix, all));
    }
    for (size_t oi = 0; oi < q_.clauses.size(); ++oi) {
      std::optional<BitmapCandidate> c = bitmap_or_candidate(
          q_.clauses, oi, indexes_, cs_,
          [this](const IndexInfo& ix, std::vector<Clause> ic) {
            return bitmap_on(ix, std::move(ic));
          },
          [this](const BitmapPath& b) { return heap_cost(b); });
      if (c) add_candidate(candidates, std::move(*c));
    }
    if (candidates.empty()) return;
    BitmapPath bitmap;
    std::vector<BitmapCandidate> chosen = choose_bitmap_and(
        std::move(candidates), cs_, [this](const BitmapPath& b) { return heap_cost(b); }, bitmap);
    const BitmapHeapScanCost bc = cost_bitmap_heap_scan(cs_, rs_, bitmap, all_quals_);
    PathCost p = disabled_if(!settings_.enable_bitmapscan, bc.path);
    consider(p, 0, [this, chosen, bitmap, p] {
      return make_bitmap_heap(table(), bitmap_heap_plan(table(), q_.clauses, chosen, bitmap), p);
    });
    // create_partial_bitmap_paths: workers by the heap pages the bitmap fetches.
    if (!parallel_ok()) return;
    const int workers = partial_workers(bc.pages.pages_fetched, -1);
    if (workers <= 0) return;
    PathCost pp = divide_cpu_cost(bc.path.startup, bc.noncpu_run_cost, bc.cpu_run_cost, rs_.rows,
                                  divisor(workers));
    add_partial(partial_bitmap_heap_scan(table(),
                                         bitmap_heap_plan(table(), q_.clauses, chosen, bitmap),
                                         disabled_if(!settings_.enable_bitmapscan, pp), workers));
  }

  // The bitmap index scan of one index applying the restriction clauses `ids`.
  BitmapCandidate index_candidate(const IndexInfo& ix, const std::vector<size_t>& ids) const {
    BitmapCandidate c;
    c.clause_ids = ids;
    std::vector<Clause> ic;
    for (size_t i : ids) ic.push_back(q_.clauses[i]);
    c.arms.push_back(bitmap_on(ix, std::move(ic)));
    c.node = c.arms[0].node;
    return c;
  }

  void add_candidate(std::vector<BitmapCandidate>& candidates, BitmapCandidate c) const {
    add_bitmap_candidate(candidates, std::move(c), cs_);
  }

  double heap_cost(const BitmapPath& bitmap) const {
    return cost_bitmap_heap_scan(cs_, rs_, bitmap, all_quals_).path.total;
  }

  BitmapChoice bitmap_on(const IndexInfo& ix, std::vector<Clause> index_clauses) const {
    BtreeQuals bq =
        summarize_btree_quals(view_, ix.entry->key_columns, ix.entry->unique, index_clauses);
    BitmapPath bn =
        BitmapPath::index_scan(cost_btree_index(cs_, rs_, ix.info, bq), rs_.rows, ix.info.pages);
    return BitmapChoice{bn, &ix, std::move(index_clauses)};
  }

  PlanContext& ctx_;
  const PlannerSettings& settings_;
  const CostSettings& cs_;
  const ScanQuery& q_;
  const RelationEntry& rel_;
  const HeapTupleLayout layout_;
  const QualCost all_quals_;
  std::optional<TableStats> stats_;  // view_ points into it
  RelationStatsView view_;
  RelSize rs_;
  std::vector<scans::OutputColumn> output_;
  int width_ = 0;
  std::vector<IndexInfo> indexes_;

  // Every serial path considered: its cost, with the nodes above it, and whether it
  // gives the wanted order.
  struct SerialPath {
    PathCost raw;
    PathCost finished;
    bool ordered = false;
  };
  std::vector<SerialPath> serial_paths_;
  // The same paths as choose_serial_path weighs them, and their builders.
  std::vector<TablePath> table_paths_;
  std::vector<ScanBuilder> builders_;
  // SELECT DISTINCT: every serial path considered, with its builder.
  std::vector<DistinctScanPath> distinct_inputs_;
  // The table's partial paths in the order made, and add_partial_path's list over them
  // (cheapest total first).
  std::vector<PartialScan> partials_;
  std::vector<size_t> partial_kept_;
  // The Gather, when add_path keeps it among the table's paths.
  std::optional<PathCost> gather_kept_;
  // The serial paths' RelPath id in consider_gather_merge (a Gather Merge's is its
  // candidate's number, from 1).
  static constexpr int kOther = 0;
  // The cheapest path so far: its cost, its total with the nodes above, and its builder.
  PathCost best_;
  double best_total_ = 0;
  bool best_ordered_ = false;
  bool best_parallel_safe_ = true;
  ScanBuilder best_build_;
};

}  // namespace

ChosenScan choose_scan(PlanContext& ctx, const ScanQuery& query) {
  return ScanChooser(ctx, query).choose();
}

}  // namespace tp
