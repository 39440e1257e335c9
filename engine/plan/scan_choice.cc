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
#include "engine/plan/param_paths.h"
#include "engine/plan/rel_size.h"
#include "engine/plan/scan_nodes.h"
#include "engine/plan/serial_paths.h"
#include "engine/plan/statistics.h"
#include "engine/plan/typed_index_qual.h"
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
        all_quals_(qual_cost(ctx.settings.costs, q.clauses)) {
    // The clauses index paths match: the restrictions, then the index conditions a
    // LIKE prefix gives (derived: searched, never rechecked).
    index_pool_ = q.clauses;
    for (const Clause& c : q.clauses)
      for (Clause& d : pattern_index_clauses(c)) index_pool_.push_back(std::move(d));
    if (!rel_.stats.empty()) stats_ = stats_from_catalog(rel_.stats);
    SizeEstimate size = estimate_rel_size(rel_, stats_ ? &*stats_ : nullptr);
    view_.tuples = size.tuples;
    for (size_t c = 0; c < rel_.columns.size(); ++c) {
      ColumnStatsView v;
      v.type = rel_.columns[c].type;
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
    output_ = scans::TupleReader(rel_.columns, q.scan_columns);
    for (size_t i = 0; i < q.scan_columns.size() && i < q.width_columns; ++i)
      width_ += column_width(rel_, size_t(q.scan_columns[i]), stats_ ? &*stats_ : nullptr);
    width_ += q.computed_width;
    for (const RelationEntry* idx : ctx.catalog.indexes_of(rel_.oid)) {
      // A damaged index (DataDir::damage) is left out: the table stays readable.
      if (ctx.data_dir.damage(idx->relnumber)) continue;
      indexes_.push_back({idx, BtreeIndexInfo{.pages = double(idx->pages),
                                              .tuples = size.tuples,
                                              .tree_height = index_height(ctx.storage, *idx),
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
    if (!q_.order_unavailable)
      for (size_t i : partial_kept_) partials.push_back(partials_[i]);
    if (q_.distinct) {
      std::vector<DistinctGatherPath> gathers;
      if (!partials.empty()) {
        const size_t serial = table_paths_.size();
        add_parallel_paths(partials);
        for (size_t i = serial; i < table_paths_.size(); ++i)
          gathers.push_back({table_paths_[i].cost, table_paths_[i].keys, builders_[i]});
      }
      return choose_distinct_scan(ctx_, q_, view_, rs_, width_, std::move(distinct_inputs_),
                                  gathers, partials);
    }
    for (PartialScan& p : partials) p.path.total += q_.projection_cost * p.path.rows;
    if (!partials.empty()) add_parallel_paths(partials);
    if (q_.upper) return q_.upper(table_paths());
    choose_path();
    ChosenScan chosen;
    if (!best_build_) return chosen;  // presorted_only, and no index gives the order
    chosen.node = best_build_();
    chosen.node->estimate = {best_.startup, best_.total, best_.rows, width_};
    if (q_.one_time_false && !gated_below_) {
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
  // A Sort over `p` (cost_sort, with enable_sort = off's disable cost).
  PathCost sorted(const PathCost& p, double limit_rows) const {
    return disabled_if(!settings_.enable_sort, cost_sort(cs_, p, p.rows, width_, 0, limit_rows));
  }

  // Records a serial path giving the first `keys` ORDER BY keys (for SELECT DISTINCT, an
  // input path too; `physical`: an index-only scan's key columns, empty: the table's;
  // with every DISTINCT column fixed by WHERE, any path is in their order).
  void consider(PathCost p, size_t keys, ScanBuilder build, std::vector<int> physical = {},
                std::vector<int> index_columns = {}) {
    const bool ordered = !q_.order_unavailable && !q_.order.empty() && keys == q_.order.size();
    if (q_.presorted_only && !ordered && !q_.order.empty()) return;
    p.total += q_.projection_cost * p.rows;
    if (q_.distinct) {
      if (physical.empty())
        for (size_t c = 0; c < rel_.columns.size(); ++c) physical.push_back(int(c));
      distinct_inputs_.push_back({{p, !q_.order_unavailable && (ordered || q_.order.empty())},
                                  build,
                                  std::move(physical)});
    }
    table_paths_.push_back({p, keys, true, std::move(index_columns)});
    builders_.push_back(std::move(build));
  }

  // The plan PostgreSQL ends with (serial_paths.h): a path as it is, under a Sort or an
  // Incremental Sort, or a Gather Merge the ordered relation adds.
  void choose_path() {
    SerialQuery sq;
    sq.order_keys = q_.order.size();
    sq.aggregate = q_.aggregate;
    const double limit_rows = q_.limit ? double(*q_.limit) : -1;
    if (q_.limit && !q_.aggregate) sq.limit_rows = limit_rows;
    sq.sort = [&](const PathCost& p) { return sorted(p, limit_rows); };
    if (settings_.enable_incremental_sort)
      sq.incremental_sort = [&](const PathCost& p, size_t keys) {
        return incremental_sort_cost(p, keys, limit_rows);
      };
    for (const auto& [cost, build] : ordered_extra_) sq.ordered_extra.push_back(cost);
    std::optional<SerialChoice> c = choose_serial_path(table_paths_, sq);
    if (!c) return;
    using Kind = SerialChoice::Kind;
    if (c->kind == Kind::kOrderedExtra) {
      best_ = ordered_extra_[c->path].first;
      best_build_ = ordered_extra_[c->path].second;
      best_ordered_ = true;
      best_parallel_safe_ = false;
      return;
    }
    const TablePath& base = table_paths_[c->path];
    best_parallel_safe_ = base.parallel_safe;
    best_ = base.cost;
    best_ordered_ = c->kind == Kind::kAsIs && !q_.order.empty() && base.keys == q_.order.size();
    best_build_ = builders_[c->path];
    if (c->kind == Kind::kIncrementalSort) {
      best_ = c->top;
      best_ordered_ = true;
      ScanBuilder scan = builders_[c->path];
      // PostgreSQL's gating Result sits right above the scan, below the sort.
      if (q_.one_time_false) {
        gated_below_ = true;
        scan = [scan, cost = base.cost, width = width_] {
          std::unique_ptr<scans::ExecNode> n = scan();
          n->estimate = {cost.startup, cost.total, cost.rows, width};
          n = std::make_unique<scans::OneTimeFalseNode>(std::move(n));
          n->estimate = {cost.startup, cost.total, cost.rows, width};
          return n;
        };
      }
      best_build_ = incremental_sort_builder(base.cost, base.keys, scan);
    }
  }

  // generate_useful_gather_paths: a Gather over the cheapest partial path; for ORDER BY,
  // a Gather Merge over each partial path in some of its order, over the cheapest one's
  // Sort and each partly ordered one's Incremental Sort (rows: the table's). Then
  // create_ordered_paths' two, bounded by the LIMIT (rows: participants' x workers).
  void add_parallel_paths(const std::vector<PartialScan>& partials) {
    const PartialScan& cheapest = partials.front();
    const GatherPath g = gather_rows(cs_, cheapest, rs_.rows);
    table_paths_.push_back({g.path, 0, false, {}});
    builders_.push_back([this, cheapest, g] { return build_gather(ctx_, cheapest, g, nullptr); });
    if (q_.aggregate || q_.order.empty() || q_.sort.keys.empty()) return;
    const size_t all = q_.order.size();
    const double limit = q_.limit ? double(*q_.limit) : -1;
    auto add_table_gm = [&](const PartialScan& p, const GatherMergePath& gm, size_t keys) {
      table_paths_.push_back({gm.path, keys, false, {}});
      builders_.push_back(gather_merge_builder(p, gm, keys));
    };
    for (const PartialScan& p : partials)
      if (p.keys > 0) add_table_gm(p, gather_merge_presorted(settings_, p, rs_.rows), p.keys);
    for (const PartialScan& p : partials) {
      if (p.keys == all) continue;
      if (&p == &cheapest) add_table_gm(p, gather_merge_sorted(settings_, p, -1, rs_.rows), all);
      if (p.keys > 0 && settings_.enable_incremental_sort)
        add_table_gm(p, gather_merge_incremental(p, -1, rs_.rows), all);
    }
    if (cheapest.keys != all) {
      const GatherMergePath gm =
          gather_merge_sorted(settings_, cheapest, limit, cheapest.path.rows * cheapest.workers);
      ordered_extra_.push_back({gm.path, gather_merge_builder(cheapest, gm, all)});
    }
    if (all > 1 && settings_.enable_incremental_sort)
      for (const PartialScan& p : partials)
        if (p.keys > 0 && p.keys < all) {
          const GatherMergePath gm = gather_merge_incremental(p, limit, p.path.rows * p.workers);
          ordered_extra_.push_back({gm.path, gather_merge_builder(p, gm, all)});
        }
  }

  // Gather Merge over each participant's Incremental Sort of partial path `p`.
  GatherMergePath gather_merge_incremental(const PartialScan& p, double limit, double rows) const {
    GatherMergePath g;
    g.sort = incremental_sort_cost(p.path, p.keys, limit);
    g.path = cost_gather_merge(cs_, g.sort, rows, p.workers, !settings_.enable_gathermerge);
    g.width = p.width;
    g.presorted_keys = p.keys;
    g.presorted_text = presorted_text(p.keys);
    return g;
  }

  // The Gather Merge node, merging on the first `keys` keys of the order.
  ScanBuilder gather_merge_builder(const PartialScan& p, const GatherMergePath& gm,
                                   size_t keys) const {
    SortSpec sort = q_.sort;
    sort.keys.resize(std::min(sort.keys.size(), keys));
    return [this, p, gm, sort] { return build_gather_merge(ctx_, p, gm, sort, q_.sort); };
  }

  // The relation as EXPLAIN names it: "t1", or "t1 t1_1" under an alias.
  std::string relation_text() const {
    return sql::quote_identifier(rel_.name) + (q_.alias.empty() ? "" : " " + q_.alias);
  }

  // The sequential scan, and its partial path (create_plain_partial_paths) first in
  // the partial list, as PostgreSQL makes them before any index path.
  void consider_seq_scan() {
    PathCost p = disabled_if(!settings_.enable_seqscan, cost_seq_scan(cs_, rs_, all_quals_));
    consider(p, 0, [this] {
      return std::make_unique<scans::SeqScanNode>(ctx_.storage.pool(), ctx_.storage.file(rel_),
                                                  seq_scan_params(table(), q_.clauses));
    });
    if (!parallel_ok()) return;
    // Owned: a Gather over the partial path may be built after the chooser is gone.
    // Shared: partial paths are copied as the planner weighs them.
    auto inputs = std::make_shared<const SeqScanInputs>(SeqScanInputs{table(), q_.clauses});
    auto params = [inputs] { return seq_scan_params(inputs->table, inputs->clauses); };
    if (std::optional<PartialScan> partial =
            partial_seq_scan(ctx_, rel_, rs_, all_quals_, std::move(params), width_))
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

  // Built once, when first wanted: every scan builder and candidate reads it.
  const TableScan& table() const {
    if (!table_) table_.emplace(TableScan{ctx_, rel_, cs_, rs_, relation_text(), output_, width_});
    return *table_;
  }

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
    for (const Clause& c : index_pool_) {
      const bool usable = usable_index_clause(c, keys);
      if (c.derived_from) {  // a LIKE's prefix range: an index condition or nothing
        if (usable) ic.push_back(c), ic_all.push_back(c);
        continue;
      }
      const bool lower = usable && is_index_in_list(c) && !is_btree_indexable(c, keys[0]);
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
    const auto& merge = q_.merge_columns;
    bool join_backward = false;
    const size_t join_keys =
        may_order && q_.order.empty() && !q_.join_order.empty()
            ? index_order_prefix(keys, q_.join_order, q_.constant_columns, join_backward)
            : 0;
    // build_index_paths' backward scan, for the descending order a join's ORDER BY wants
    // (or a merge on a class it wants descending).
    const auto& merge_down = q_.merge_descending;
    const bool backward_path =
        (join_keys > 0 && join_backward) ||
        std::find(merge_down.begin(), merge_down.end(), keys[0]) != merge_down.end();
    const bool forward_path = !ic.empty() || presorted > 0 || index_only ||
                              (join_keys > 0 && !join_backward) ||
                              std::find(merge.begin(), merge.end(), keys[0]) != merge.end();
    if (!forward_path && !backward_path) return;
    BtreeQuals bq = summarize_btree_quals(view_, keys, ix.entry->unique, ic);
    IndexScanCost isc = cost_index_scan(cs_, rs_, ix.info, bq, qual_cost(cs_, qp), 1, index_only);
    PathCost p = disabled_if(!settings_.enable_indexscan, isc.path);
    IndexPathSpec spec{ix.entry, ic, qp, backward, index_only};
    const std::vector<int> physical = index_only ? keys : std::vector<int>{};
    if (forward_path)
      consider(
          p, presorted, [this, spec] { return make_index_scan(table(), spec); }, physical,
          backward ? std::vector<int>{} : keys);
    if (backward_path) {
      IndexPathSpec back{ix.entry, ic, qp, true, index_only};
      consider(
          p, 0, [this, back] { return make_index_scan(table(), back); }, physical, keys);
      table_paths_.back().backward = true;
    }
    if (!forward_path) return;
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
  PathCost incremental_sort_cost(const PathCost& input, size_t presorted, double limit_rows) const {
    std::vector<int> columns;
    for (size_t i = 0; i < presorted; ++i) columns.push_back(q_.order[i].first);
    const double groups = estimate_num_groups(view_, columns, input.rows, rs_.rows);
    return cost_incremental_sort(cs_, input, groups, width_, limit_rows);
  }

  TablePaths table_paths() {
    TablePaths t;
    t.param_paths = [this](const std::vector<ParamClause>& clauses,
                           const std::vector<Clause>& join_filters, double loops) {
      auto covers = [this](const std::vector<int>& keys) { return covers_query(keys); };
      return parameterized_index_paths(
          {cs_, settings_, view_, rs_, q_.clauses, index_pool_, indexes_, covers, table(),
           [this] { return bitmap_candidates(); },
           [this](const BitmapPath& b) { return heap_cost(b); }},
          clauses, join_filters, loops);
    };
    std::tie(t.paths, t.builders, t.view, t.size, t.width) =
        std::tuple(table_paths_, builders_, &view_, rs_, width_);
    for (size_t i : partial_kept_) t.partials.push_back(partials_[i]);
    t.incremental_sort = [this](const PathCost& p, size_t keys, double limit) {
      return incremental_sort_cost(p, keys, limit);
    };
    return t;
  }

  // EXPLAIN's Presorted Key: the first `presorted` ORDER BY columns.
  std::string presorted_text(size_t presorted) const {
    std::string text;
    for (size_t i = 0; i < presorted; ++i)
      text += (i ? ", " : "") + sql::quote_identifier(rel_.columns[size_t(q_.order[i].first)].name);
    return text;
  }

  ScanBuilder incremental_sort_builder(const PathCost& input, size_t presorted,
                                       ScanBuilder build) const {
    return [this, input, presorted, presorted_text = presorted_text(presorted),
            build = std::move(build)] {
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
    std::vector<BitmapCandidate> candidates = bitmap_candidates();
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

  // The restrictions' bitmap candidates: a bitmap index scan per index that applies some
  // clauses, and a BitmapOr per OR clause whose every arm an index covers; candidates
  // applying the same clauses keep only the cheapest.
  std::vector<BitmapCandidate> bitmap_candidates() const {
    std::vector<BitmapCandidate> candidates;
    for (const IndexInfo& ix : indexes_) {
      const std::vector<int>& keys = ix.entry->key_columns;
      std::vector<size_t> all, upper;  // upper: without IN lists on later key columns
      for (size_t i = 0; i < index_pool_.size(); ++i) {
        const Clause& c = index_pool_[i];
        if (!usable_index_clause(c, keys)) continue;
        all.push_back(i);
        if (!is_index_in_list(c) || is_btree_indexable(c, keys[0])) upper.push_back(i);
      }
      // PostgreSQL's index paths, both bitmap candidates: the one that keeps the
      // index's order (no IN list on a later column), then the one with every clause.
      if (!upper.empty() && upper.size() < all.size())
        add_candidate(candidates, index_candidate(ix, upper));
      if (!all.empty()) add_candidate(candidates, index_candidate(ix, all));
      // create_index_paths also offers a full index scan without pathkeys (one that an
      // index-only scan would make): a bitmap of every entry.
      bool backward = false;
      if (all.empty() && settings_.enable_indexonlyscan && covers_query(keys) &&
          index_order(keys, backward) == 0)
        add_candidate(candidates, index_candidate(ix, {}));
    }
    const BitmapContext bctx{indexes_, cs_,
                             [this](const IndexInfo& ix, std::vector<Clause> ic) {
                               return bitmap_on(ix, std::move(ic));
                             },
                             [this](const BitmapPath& b) { return heap_cost(b); }};
    for (BitmapCandidate& c : bitmap_or_candidates(q_.clauses, {}, bctx))
      add_candidate(candidates, std::move(c));
    return candidates;
  }

  // The bitmap index scan of one index applying the restriction clauses `ids`.
  BitmapCandidate index_candidate(const IndexInfo& ix, const std::vector<size_t>& ids) const {
    std::vector<Clause> ic;
    for (size_t i : ids) ic.push_back(index_pool_[i]);
    BitmapCandidate c;
    c.scan = bitmap_on(ix, std::move(ic));
    c.node = c.scan.node;
    c.quals = c.scan.index_clauses;
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
  const QualCost all_quals_;
  mutable std::optional<TableScan> table_;  // table()'s
  std::optional<TableStats> stats_;         // view_ points into it
  RelationStatsView view_;
  RelSize rs_;
  scans::TupleReader output_;
  int width_ = 0;
  std::vector<IndexInfo> indexes_;
  std::vector<Clause> index_pool_;  // q_.clauses and the index conditions derived from them

  // The table's paths as choose_serial_path weighs them (serial ones, then the Gather
  // and Gather Merges), and their builders.
  std::vector<TablePath> table_paths_;
  std::vector<ScanBuilder> builders_;
  // The Gather Merges the ordered relation adds (choose_serial_path's ordered_extra).
  std::vector<std::pair<PathCost, ScanBuilder>> ordered_extra_;
  // SELECT DISTINCT: every serial path considered, with its builder.
  std::vector<DistinctScanPath> distinct_inputs_;
  // The table's partial paths in the order made, and add_partial_path's list over them
  // (cheapest total first).
  std::vector<PartialScan> partials_;
  std::vector<size_t> partial_kept_;
  // The chosen path: its cost, and its builder.
  PathCost best_;
  bool best_ordered_ = false;
  bool best_parallel_safe_ = true;
  bool gated_below_ = false;  // the gating Result went below the chosen Incremental Sort
  ScanBuilder best_build_;
};

}  // namespace

ChosenScan choose_scan(PlanContext& ctx, const ScanQuery& query) {
  if (query.proven_empty) return empty_scan(ctx, query);
  return ScanChooser(ctx, query).choose();
}

}  // namespace tp
