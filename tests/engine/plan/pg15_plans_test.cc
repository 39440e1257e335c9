// End to end against PostgreSQL 15.18: the statistics ANALYZE stored for t1
// (pg15_fixtures.h) go through tidepool's selectivity and cost functions, and
// every estimate must print exactly as EXPLAIN printed it (quoted above each
// test). Default settings unless a test says otherwise.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "engine/plan/btree_qual_summary.h"
#include "engine/plan/cost_model.h"
#include "engine/plan/selectivity.h"
#include "tests/engine/plan/pg15_fixtures.h"

namespace tp {
namespace {

std::string explain(const PathCost& c) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "cost=%.2f..%.2f rows=%.0f", c.startup, c.total, c.rows);
  return buf;
}

enum Col { kA = 0, kB = 1, kC = 2, kD = 3 };

class T1 : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const pg15::PgColumnStats& p : pg15::kT1) {
      ColumnStats s;
      s.valid = true;
      s.null_frac = p.null_frac;
      s.n_distinct = p.n_distinct;
      s.has_correlation = true;
      s.correlation = p.correlation;
      s.mcv_values = p.mcv_values;
      s.mcv_freqs = p.mcv_freqs;
      s.histogram = p.histogram;
      stats_.push_back(s);
    }
    view_.tuples = 1e6;
    const int64_t lo[] = {1, 1, 0, 435};
    const int64_t hi[] = {1000000, 1000000, 99, 1299058};
    for (int c = 0; c < 4; ++c) {
      ColumnStatsView v;
      v.stats = &stats_[c];
      v.read_actual_with([low = lo[c], high = hi[c]] {
        return ActualRange{.min = Datum(low), .max = Datum(high), .bytes = nullptr};
      });
      view_.columns.push_back(std::move(v));
    }
  }

  BtreeIndexInfo index_on(int col) const {
    const double pages[] = {2745, 2745, 852, 2445};
    return {.pages = pages[col], .tuples = 1e6, .tree_height = 2};
  }

  RelSize size_for(const std::vector<Clause>& clauses) const {
    RelSize r{.pages = 5406, .tuples = 1e6, .rows = 1e6};
    r.rows = clamp_row_est(clauselist_selectivity(view_, clauses) * r.tuples);
    return r;
  }

  std::vector<Clause> index_clauses(const std::vector<Clause>& clauses, int col) const {
    std::vector<Clause> out;
    for (const Clause& c : clauses) {
      if (is_btree_indexable(c, col)) out.push_back(c);
    }
    return out;
  }
  std::vector<Clause> filter_clauses(const std::vector<Clause>& clauses, int col) const {
    std::vector<Clause> out;
    for (const Clause& c : clauses) {
      if (!is_btree_indexable(c, col)) out.push_back(c);
    }
    return out;
  }

  IndexScanCost index_scan(const Clause& where, int col) const {
    std::vector<Clause> clauses = restriction_clauses(where);
    RelSize rel = size_for(clauses);
    BtreeQuals q = summarize_btree_quals(view_, {col}, false, index_clauses(clauses, col));
    return cost_index_scan(cs_, rel, index_on(col), q,
                           qual_cost(cs_, filter_clauses(clauses, col)));
  }

  BitmapPath bitmap_index(const std::vector<Clause>& index_quals, int col, double rel_rows) const {
    RelSize rel{.pages = 5406, .tuples = 1e6, .rows = rel_rows};
    BtreeQuals q = summarize_btree_quals(view_, {col}, false, index_quals);
    return BitmapPath::index_scan(cost_btree_index(cs_, rel, index_on(col), q), rel_rows,
                                  index_on(col).pages);
  }

  // A bitmap heap scan on one index for `where`.
  std::pair<PathCost, PathCost> bitmap_scan(const Clause& where, int col) const {
    std::vector<Clause> clauses = restriction_clauses(where);
    RelSize rel = size_for(clauses);
    BitmapPath node = bitmap_index(index_clauses(clauses, col), col, rel.rows);
    PathCost heap = cost_bitmap_heap_scan(cs_, rel, node, qual_cost(cs_, clauses)).path;
    return {explain_bitmap_node(cs_, node, rel.tuples), heap};
  }

  CostSettings cs_;
  std::vector<ColumnStats> stats_;
  RelationStatsView view_;
};

// Bitmap Heap Scan on t1  (cost=190.20..5813.69 rows=10036 width=16)
//   Recheck Cond: (a < 10000)
//   ->  Bitmap Index Scan on t1_a  (cost=0.00..187.69 rows=10036 width=0)
TEST_F(T1, BitmapScanRange) {
  auto [index, heap] = bitmap_scan(Clause::cmp(kA, CmpOp::kLt, 10000), kA);
  EXPECT_EQ(explain(index), "cost=0.00..187.69 rows=10036");
  EXPECT_EQ(explain(heap), "cost=190.20..5813.69 rows=10036");
}

// Index Scan using t1_a on t1  (cost=0.42..21106.65 rows=10036 width=16)
// Index Scan using t1_b on t1  (cost=0.42..366.44 rows=10572 width=16)
// Index Scan using t1_d on t1  (cost=0.42..2286.00 rows=19034 width=16)
TEST_F(T1, IndexScansAcrossCorrelations) {
  EXPECT_EQ(explain(index_scan(Clause::cmp(kA, CmpOp::kLt, 10000), kA).path),
            "cost=0.42..21106.65 rows=10036");
  EXPECT_EQ(explain(index_scan(Clause::cmp(kB, CmpOp::kLt, 10000), kB).path),
            "cost=0.42..366.44 rows=10572");
  EXPECT_EQ(explain(index_scan(Clause::cmp(kD, CmpOp::kLt, 100000), kD).path),
            "cost=0.42..2286.00 rows=19034");
}

// Index Scan using t1_a on t1  (cost=0.42..11843.97 rows=4017 width=16)
//   Index Cond: ((a >= 1000) AND (a <= 5000))
// Index Scan using t1_b on t1  (cost=0.42..169.92 rows=43 width=16)
//   Index Cond: ((b >= 1000) AND (b <= 5000))
//   Filter: (c = 7)
TEST_F(T1, BetweenIsTwoOperatorsAndARangePair) {
  EXPECT_EQ(explain(index_scan(Clause::between(kA, 1000, 5000), kA).path),
            "cost=0.42..11843.97 rows=4017");
  Clause where = Clause::and_of({Clause::between(kB, 1000, 5000), Clause::cmp(kC, CmpOp::kEq, 7)});
  EXPECT_EQ(explain(index_scan(where, kB).path), "cost=0.42..169.92 rows=43");
}

// Bitmap Heap Scan on t1  (cost=3697.57..11569.93 rows=197309 width=16)
//   ->  Bitmap Index Scan on t1_a  (cost=0.00..3648.24 rows=197309 width=0)
// with work_mem = 64kB (1,024 entries, the bitmap goes lossy):
// Bitmap Heap Scan on t1  (cost=3697.57..20653.28 rows=197309 width=16)
TEST_F(T1, BitmapScanExactAndLossy) {
  auto [index, heap] = bitmap_scan(Clause::cmp(kA, CmpOp::kLt, 200000), kA);
  EXPECT_EQ(explain(index), "cost=0.00..3648.24 rows=197309");
  EXPECT_EQ(explain(heap), "cost=3697.57..11569.93 rows=197309");
  cs_.work_mem_kb = 64;
  auto [index2, lossy] = bitmap_scan(Clause::cmp(kA, CmpOp::kLt, 200000), kA);
  EXPECT_EQ(explain(lossy), "cost=3697.57..20653.28 rows=197309");
}

// Bitmap Heap Scan on t1  (cost=101.90..5722.57 rows=5125 width=16)
//   Recheck Cond: ((a < 3000) OR (b < 2000))
//   ->  BitmapOr  (cost=101.90..101.90 rows=5131 width=0)
//         ->  Bitmap Index Scan on t1_a  (cost=0.00..59.01 rows=3011 width=0)
//         ->  Bitmap Index Scan on t1_b  (cost=0.00..40.33 rows=2121 width=0)
TEST_F(T1, BitmapOr) {
  Clause where =
      Clause::or_of({Clause::cmp(kA, CmpOp::kLt, 3000), Clause::cmp(kB, CmpOp::kLt, 2000)});
  std::vector<Clause> clauses = restriction_clauses(where);
  RelSize rel = size_for(clauses);
  EXPECT_EQ(rel.rows, 5125);
  BitmapPath a = bitmap_index({where.args[0]}, kA, rel.rows);
  BitmapPath b = bitmap_index({where.args[1]}, kB, rel.rows);
  EXPECT_EQ(explain(explain_bitmap_node(cs_, a, 1e6)), "cost=0.00..59.01 rows=3011");
  EXPECT_EQ(explain(explain_bitmap_node(cs_, b, 1e6)), "cost=0.00..40.33 rows=2121");
  BitmapPath bor = BitmapPath::or_of({a, b});
  EXPECT_EQ(explain(explain_bitmap_node(cs_, bor, 1e6)), "cost=101.90..101.90 rows=5131");
  EXPECT_EQ(explain(cost_bitmap_heap_scan(cs_, rel, bor, qual_cost(cs_, clauses)).path),
            "cost=101.90..5722.57 rows=5125");
}

// Bitmap Heap Scan on t1  (cost=5508.30..15365.51 rows=89103 width=16)
//   Recheck Cond: (a < 300000)
//   Filter: (b < 300000)
//   ->  Bitmap Index Scan on t1_a  (cost=0.00..5486.03 rows=296747 width=0)
TEST_F(T1, BitmapScanWithFilter) {
  Clause where =
      Clause::and_of({Clause::cmp(kA, CmpOp::kLt, 300000), Clause::cmp(kB, CmpOp::kLt, 300000)});
  auto [index, heap] = bitmap_scan(where, kA);
  EXPECT_EQ(explain(index), "cost=0.00..5486.03 rows=296747");
  EXPECT_EQ(explain(heap), "cost=5508.30..15365.51 rows=89103");
}

// Bitmap Heap Scan on t1  (cost=114.70..5731.86 rows=10100 width=16)  (c = 7)
//   ->  Bitmap Index Scan on t1_c  (cost=0.00..112.17 rows=10100 width=0)
// Bitmap Heap Scan on t1  (cost=536.17..6541.76 rows=47967 width=16)  (c < 5)
//   ->  Bitmap Index Scan on t1_c  (cost=0.00..524.18 rows=47967 width=0)
// Seq Scan on t1  (cost=0.00..17906.00 rows=990000 width=16)  Filter: (c <> 5)
TEST_F(T1, McvColumn) {
  auto [i7, h7] = bitmap_scan(Clause::cmp(kC, CmpOp::kEq, 7), kC);
  EXPECT_EQ(explain(i7), "cost=0.00..112.17 rows=10100");
  EXPECT_EQ(explain(h7), "cost=114.70..5731.86 rows=10100");
  auto [i5, h5] = bitmap_scan(Clause::cmp(kC, CmpOp::kLt, 5), kC);
  EXPECT_EQ(explain(i5), "cost=0.00..524.18 rows=47967");
  EXPECT_EQ(explain(h5), "cost=536.17..6541.76 rows=47967");
  std::vector<Clause> ne = restriction_clauses(Clause::not_of(Clause::cmp(kC, CmpOp::kEq, 5)));
  EXPECT_EQ(explain(cost_seq_scan(cs_, size_for(ne), qual_cost(cs_, ne))),
            "cost=0.00..17906.00 rows=990000");
}

// Bitmap Heap Scan on t1  (cost=22.16..41.79 rows=5 width=16)
//   Recheck Cond: (a = ANY ('{1,2,3,4,5}'::integer[]))
//   ->  Bitmap Index Scan on t1_a  (cost=0.00..22.16 rows=5 width=0)
// Bitmap Heap Scan on t1  (cost=315.31..6108.14 rows=28133 width=16)
//   Recheck Cond: (c = ANY ('{1,2,3}'::integer[]))
//   ->  Bitmap Index Scan on t1_c  (cost=0.00..308.28 rows=28133 width=0)
TEST_F(T1, InLists) {
  auto [ia, ha] = bitmap_scan(Clause::in(kA, {1, 2, 3, 4, 5}), kA);
  EXPECT_EQ(explain(ia), "cost=0.00..22.16 rows=5");
  EXPECT_EQ(explain(ha), "cost=22.16..41.79 rows=5");
  auto [ic, hc] = bitmap_scan(Clause::in(kC, {1, 2, 3}), kC);
  EXPECT_EQ(explain(ic), "cost=0.00..308.28 rows=28133");
  EXPECT_EQ(explain(hc), "cost=315.31..6108.14 rows=28133");
}

// Bitmap Heap Scan on t1  (cost=20.22..2576.36 rows=1006 width=16)
//   ->  Bitmap Index Scan on t1_a  (cost=0.00..19.97 rows=1006 width=0)
// (a > 999000 probes the last histogram bound, replaced by the index's max)
// Index Scan using t1_a on t1  (cost=0.42..8.44 rows=1 width=16)  (a = 77)
TEST_F(T1, HistogramEndAndEquality) {
  auto [index, heap] = bitmap_scan(Clause::cmp(kA, CmpOp::kGt, 999000), kA);
  EXPECT_EQ(explain(index), "cost=0.00..19.97 rows=1006");
  EXPECT_EQ(explain(heap), "cost=20.22..2576.36 rows=1006");
  EXPECT_EQ(explain(index_scan(Clause::cmp(kA, CmpOp::kEq, 77), kA).path),
            "cost=0.42..8.44 rows=1");
}

// Sort  (cost=6406.04..6428.21 rows=8867 width=8)
//   Sort Key: d
//   ->  Bitmap Heap Scan on t1  (cost=101.14..5824.63 rows=8867 width=8)
//         Recheck Cond: (c = 3)
//         ->  Bitmap Index Scan on t1_c  (cost=0.00..98.93 rows=8867 width=0)
// Limit  (cost=0.42..0.90 rows=10 width=16)
//   ->  Index Scan using t1_a on t1  (cost=0.42..47603.32 rows=1000000 width=16)
TEST_F(T1, SortAndLimit) {
  auto [index, heap] = bitmap_scan(Clause::cmp(kC, CmpOp::kEq, 3), kC);
  EXPECT_EQ(explain(index), "cost=0.00..98.93 rows=8867");
  EXPECT_EQ(explain(heap), "cost=101.14..5824.63 rows=8867");
  EXPECT_EQ(explain(cost_sort(cs_, heap, heap.rows, 8)), "cost=6406.04..6428.21 rows=8867");
  IndexScanCost full = index_scan(Clause::boolean(true), kA);
  EXPECT_EQ(explain(full.path), "cost=0.42..47603.32 rows=1000000");
  EXPECT_EQ(explain(cost_limit(full.path, 0, 10)), "cost=0.42..0.90 rows=10");
}

}  // namespace
}  // namespace tp
