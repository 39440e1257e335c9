#include "engine/scan_choice.h"

#include <functional>

#include "engine/analyze.h"
#include "engine/index_access.h"
#include "engine/index_quals.h"
#include "engine/stats.h"
#include "engine/where_clause.h"
#include "scans/index_scan.h"
#include "scans/seq_scan.h"

namespace tp {
namespace {

// PostgreSQL's estimate_rel_size for a heap: the file's current pages, and
// tuples from the density ANALYZE / VACUUM saw, or from the row width before
// either ran (with the 10-page floor for never-analyzed tables).
struct SizeEstimate {
  double pages = 0;
  double tuples = 0;
};
SizeEstimate estimate_rel_size(const RelationEntry& rel, const TableStats* stats) {
  double curpages = double(rel.pages);
  bool analyzed = stats != nullptr;
  if (curpages < 10 && !analyzed) curpages = 10;
  if (curpages == 0) return {0, 0};
  double density;
  if (analyzed && stats->relpages > 0) {
    density = stats->reltuples / stats->relpages;
  } else {
    int32_t data_width = 0;
    for (const Column& c : rel.columns) data_width += int32_t(column_type_size(c.type));
    int32_t tuple_width =
        data_width + int32_t(maxalign(kHeapTupleHeaderSize)) + int32_t(kItemIdSize);
    density = double((int32_t(kBlockSize) - int32_t(kPageHeaderSize)) / tuple_width);
  }
  return {curpages, std::rint(density * curpages)};
}

using ScanBuilder = std::function<std::unique_ptr<scans::ExecNode>()>;

struct IndexInfo {
  const RelationEntry* entry;
  BtreeIndexInfo info;
};

// A bitmap index scan on one index for the clauses of one AND arm.
struct BitmapChoice {
  BitmapNode node;
  const IndexInfo* index = nullptr;
  std::vector<Expr> index_clauses;
};

class ScanChooser {
 public:
  ScanChooser(Session& session, const CostSettings& cs, const ScanQuery& q)
      : session_(session),
        settings_(session.settings()),
        cs_(cs),
        q_(q),
        rel_(*q.rel),
        layout_(rel_.columns),
        all_quals_(qual_cost(cs, q.clauses)) {
    if (!rel_.stats.empty()) stats_ = stats_from_catalog(rel_.stats);
    SizeEstimate size = estimate_rel_size(rel_, stats_ ? &*stats_ : nullptr);
    view_.tuples = size.tuples;
    for (size_t c = 0; c < rel_.columns.size(); ++c) {
      ColumnStatsView v;
      if (stats_ && c < stats_->columns.size() && stats_->columns[c].valid)
        v.stats = &stats_->columns[c];
      describe_from_indexes(session, rel_, int(c), v);
      view_.columns.push_back(v);
    }
    rs_ = RelSize{.pages = size.pages, .tuples = size.tuples, .rows = 0};
    rs_.rows = clamp_row_est(clauselist_selectivity(view_, q.clauses) * size.tuples);
    for (int c : q.scan_columns) {
      output_.push_back(
          {layout_.offset(size_t(c)), rel_.columns[size_t(c)].type == ColumnType::Int8});
      width_ += int(column_type_size(rel_.columns[size_t(c)].type));
    }
    for (const RelationEntry* idx : session.catalog().indexes_of(rel_.oid))
      indexes_.push_back({idx, BtreeIndexInfo{.pages = double(idx->pages),
                                              .tuples = size.tuples,
                                              .tree_height = session.index_height(*idx),
                                              .key_columns = int(idx->key_columns.size()),
                                              .unique = idx->unique}});
  }

  ChosenScan choose() {
    consider_seq_scan();
    for (const IndexInfo& ix : indexes_) consider_index_scan(ix);
    consider_bitmap_scan();
    consider_bitmap_or();
    ChosenScan chosen;
    chosen.node = best_build_();
    chosen.node->estimate = {best_.startup, best_.total, best_.rows, width_};
    chosen.path = best_;
    chosen.ordered = best_ordered_;
    chosen.width = width_;
    return chosen;
  }

 private:
  // Keeps the path if it is the cheapest so far once the nodes above it are counted: a
  // Sort unless it gives the order, and the Limit.
  void consider(PathCost p, bool ordered, ScanBuilder build) {
    PathCost finished = p;
    if (!q_.aggregate) {
      double limit_rows = q_.limit ? double(*q_.limit) : -1;
      if (!q_.order.empty() && !ordered)
        finished = cost_sort(cs_, finished, finished.rows, width_, 0, limit_rows);
      if (q_.limit) finished = cost_limit(finished, 0, limit_rows);
    }
    if (best_build_ && !(finished.total < best_total_)) return;
    best_total_ = finished.total;
    best_ = p;
    best_ordered_ = ordered;
    best_build_ = std::move(build);
  }

  void consider_seq_scan() {
    PathCost p =
        disabled_if(!settings_.get_bool("enable_seqscan"), cost_seq_scan(cs_, rs_, all_quals_));
    consider(p, false, [this] {
      scans::SeqScanParams params;
      params.relation = rel_.name;
      params.nblocks = BlockNumber(rel_.pages);
      params.stream = session_.storage().stream_config();
      params.output = output_;
      params.qual = compile_clauses(q_.clauses, layout_);
      params.filter_text = clauses_text(q_.clauses, rel_);
      return std::make_unique<scans::SeqScanNode>(session_.storage().pool(),
                                                  session_.storage().file(rel_), std::move(params));
    });
  }

  void consider_index_scan(const IndexInfo& ix) {
    const std::vector<int>& keys = ix.entry->key_columns;
    std::vector<Expr> ic, qp;
    for (const Expr& c : q_.clauses) (usable_index_clause(c, keys) ? ic : qp).push_back(c);
    // The order the index gives: ORDER BY a prefix of its keys, one direction.
    const auto& order = q_.order;
    bool gives_order = !order.empty() && order.size() <= keys.size();
    for (size_t i = 0; gives_order && i < order.size(); ++i)
      gives_order = order[i].first == keys[i] && order[i].second == order[0].second;
    // IN lists run one B-tree scan per element, which keeps key order only in
    // some shapes; tidepool does not rely on it (a Sort is added instead).
    for (const Expr& c : ic) gives_order = gives_order && c.kind != Expr::Kind::kIn;
    if (ic.empty() && !gives_order) return;
    bool backward = gives_order && order[0].second;
    BtreeQuals bq = summarize_btree_quals(view_, keys, ix.entry->unique, ic);
    IndexScanCost isc = cost_index_scan(cs_, rs_, ix.info, bq, qual_cost(cs_, qp));
    PathCost p = disabled_if(!settings_.get_bool("enable_indexscan"), isc.path);
    consider(p, gives_order, [this, entry = ix.entry, ic, qp, backward] {
      const std::string& prefetch_mode = settings_.get_enum("index_prefetch");
      scans::IndexScanParams ip;
      ip.relation = rel_.name;
      ip.index = open_index(session_, rel_, *entry);
      ip.condition_sets = condition_sets(ic, entry->key_columns, backward);
      ip.direction = backward ? btree::ScanDirection::Backward : btree::ScanDirection::Forward;
      ip.stream = session_.storage().stream_config();
      ip.prefetch = prefetch_mode != "off";
      ip.prefetch_start_switches = prefetch_mode == "immediate" ? 0 : scans::kPrefetchStartSwitches;
      ip.output = output_;
      ip.filter = compile_clauses(qp, layout_);
      ip.index_cond_text = clauses_text(ic, rel_);
      ip.filter_text = clauses_text(qp, rel_);
      return std::make_unique<scans::IndexScanNode>(session_.storage().pool(),
                                                    session_.storage().file(rel_), std::move(ip));
    });
  }

  // A bitmap heap scan over the best single index.
  void consider_bitmap_scan() {
    std::optional<BitmapChoice> ch = bitmap_for(q_.clauses);
    if (!ch) return;
    PathCost p = bitmap_heap_path(ch->node);
    consider(p, false, [this, ch = *ch, p] {
      std::vector<Expr> filter;
      for (const Expr& c : q_.clauses) {
        bool is_index = false;
        for (const Expr& i : ch.index_clauses) is_index |= deparse(i, rel_) == deparse(c, rel_);
        if (!is_index) filter.push_back(c);
      }
      return make_bitmap_heap(make_bitmap_index(ch), ch.index_clauses, filter, p);
    });
  }

  // A BitmapOr for an OR clause whose every arm an index covers completely.
  void consider_bitmap_or() {
    for (size_t oi = 0; oi < q_.clauses.size(); ++oi) {
      const Expr& orc = q_.clauses[oi];
      if (orc.kind != Expr::Kind::kOr) continue;
      std::vector<BitmapChoice> arms;
      bool covered = true;
      for (const Expr& arm : orc.args) {
        std::vector<Expr> parts = arm.kind == Expr::Kind::kAnd ? arm.args : std::vector<Expr>{arm};
        std::optional<BitmapChoice> ch = bitmap_for(parts);
        if (!ch || ch->index_clauses.size() != parts.size()) {
          covered = false;
          break;
        }
        arms.push_back(*ch);
      }
      if (!covered || arms.size() < 2) continue;
      std::vector<BitmapNode> kids;
      for (const BitmapChoice& a : arms) kids.push_back(a.node);
      BitmapNode or_node = BitmapNode::or_of(kids);
      PathCost p = bitmap_heap_path(or_node);
      consider(p, false, [this, arms, or_node, oi, p] {
        std::vector<std::unique_ptr<scans::BitmapNode>> children;
        for (const BitmapChoice& a : arms) children.push_back(make_bitmap_index(a));
        auto bor = std::make_unique<scans::BitmapCombineNode>(false, std::move(children));
        PathCost e = explain_bitmap_node(cs_, or_node, rs_.tuples);
        bor->estimate = {e.startup, e.total, e.rows, 0};
        std::vector<Expr> filter;
        for (size_t i = 0; i < q_.clauses.size(); ++i)
          if (i != oi) filter.push_back(q_.clauses[i]);
        return make_bitmap_heap(std::move(bor), {q_.clauses[oi]}, filter, p);
      });
    }
  }

  PathCost bitmap_heap_path(const BitmapNode& bitmap) const {
    return disabled_if(!settings_.get_bool("enable_bitmapscan"),
                       cost_bitmap_heap_scan(cs_, rs_, bitmap, all_quals_).path);
  }

  // The cheapest index's bitmap scan for `arm` (the clauses of one AND arm); none if no
  // index can apply any of them.
  std::optional<BitmapChoice> bitmap_for(const std::vector<Expr>& arm) const {
    std::optional<BitmapChoice> best;
    double best_cost = 0;
    for (const IndexInfo& ix : indexes_) {
      std::vector<Expr> ic;
      for (const Expr& c : arm)
        if (usable_index_clause(c, ix.entry->key_columns)) ic.push_back(c);
      if (ic.empty()) continue;
      BtreeQuals bq = summarize_btree_quals(view_, ix.entry->key_columns, ix.entry->unique, ic);
      BitmapNode bn =
          BitmapNode::index_scan(cost_btree_index(cs_, rs_, ix.info, bq), rs_.rows, ix.info.pages);
      double cost = cost_bitmap_tree_node(cs_, bn).cost;
      if (!best || cost < best_cost) {
        best = BitmapChoice{bn, &ix, ic};
        best_cost = cost;
      }
    }
    return best;
  }

  std::unique_ptr<scans::BitmapIndexScanNode> make_bitmap_index(const BitmapChoice& ch) const {
    auto node = std::make_unique<scans::BitmapIndexScanNode>(
        open_index(session_, rel_, *ch.index->entry),
        condition_sets(ch.index_clauses, ch.index->entry->key_columns, false),
        clauses_text(ch.index_clauses, rel_));
    PathCost e = explain_bitmap_node(cs_, ch.node, rs_.tuples);
    node->estimate = {e.startup, e.total, e.rows, 0};
    return node;
  }

  std::unique_ptr<scans::ExecNode> make_bitmap_heap(std::unique_ptr<scans::BitmapNode> child,
                                                    const std::vector<Expr>& recheck,
                                                    const std::vector<Expr>& filter,
                                                    const PathCost& p) const {
    scans::BitmapHeapScanParams bp;
    bp.relation = rel_.name;
    bp.work_mem_bytes = cs_.work_mem_kb * 1024;
    bp.stream = session_.storage().stream_config();
    bp.output = output_;
    bp.recheck = compile_clauses(recheck, layout_);
    bp.filter = compile_clauses(filter, layout_);
    bp.recheck_text = clauses_text(recheck, rel_);
    bp.filter_text = clauses_text(filter, rel_);
    auto node = std::make_unique<scans::BitmapHeapScanNode>(
        session_.storage().pool(), session_.storage().file(rel_), std::move(child), std::move(bp));
    node->estimate = {p.startup, p.total, p.rows, width_};
    return node;
  }

  Session& session_;
  const Settings& settings_;
  const CostSettings& cs_;
  const ScanQuery& q_;
  const RelationEntry& rel_;
  const TupleLayout layout_;
  const QualCost all_quals_;
  std::optional<TableStats> stats_;  // view_ points into it
  RelationStatsView view_;
  RelSize rs_;
  std::vector<scans::OutputColumn> output_;
  int width_ = 0;
  std::vector<IndexInfo> indexes_;

  // The cheapest path so far: its cost, its total with the nodes above, and its builder.
  PathCost best_;
  double best_total_ = 0;
  bool best_ordered_ = false;
  ScanBuilder best_build_;
};

}  // namespace

ChosenScan choose_scan(Session& session, const CostSettings& cs, const ScanQuery& query) {
  return ScanChooser(session, cs, query).choose();
}

}  // namespace tp
