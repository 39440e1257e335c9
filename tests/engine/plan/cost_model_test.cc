// Golden values: each is worked out by hand from PostgreSQL 15's formulas in
// the comment above it; those marked "PG15" were also printed by PostgreSQL
// 15.18's EXPLAIN for the same statistics (table t1 of plan_fixture.h: 1 M rows,
// 5,406 pages, btree indexes of 2,745 pages and height 2).
#include "engine/plan/cost_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "engine/core/error.h"

namespace tp {
namespace {

// EXPLAIN prints costs with two decimals.
std::string cents(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

const CostSettings kDefaults;
const RelSize kT1{.pages = 5406, .tuples = 1e6, .rows = 1e6};
const BtreeIndexInfo kT1A{.pages = 2745, .tuples = 1e6, .tree_height = 2};

TEST(CostModel, ClampRowEst) {
  EXPECT_EQ(clamp_row_est(0.2), 1.0);
  EXPECT_EQ(clamp_row_est(-5), 1.0);
  EXPECT_EQ(clamp_row_est(10035.5), 10036.0);  // rint: ties to even
  EXPECT_EQ(clamp_row_est(10036.5), 10036.0);
  EXPECT_EQ(clamp_row_est(7.49), 7.0);
  EXPECT_EQ(clamp_row_est(1e200), 1e100);
}

TEST(CostModel, SettingsValidate) {
  CostSettings cs;
  EXPECT_NO_THROW(cs.validate());
  cs.random_page_cost = -1;
  try {
    cs.validate();
    FAIL() << "negative random_page_cost accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(),
                 "-1 is outside the valid range for parameter \"random_page_cost\" (0 .. "
                 "1.79769e+308)");
  }
  cs = CostSettings{};
  cs.work_mem_kb = 10;
  EXPECT_THROW(cs.validate(), Error);
}

// 454,546 pages * seq_page_cost 1 + 10,000,012 tuples * cpu_tuple_cost 0.01
//   = 454,546 + 100,000.12 = 554,546.12 (Vondra's fillfactor-10 table).
TEST(CostModel, SeqScanOfTheFillfactor10Table) {
  RelSize rel{.pages = 454546, .tuples = 10000012, .rows = 10000012};
  PathCost c = cost_seq_scan(kDefaults, rel, {});
  EXPECT_EQ(cents(c.startup), "0.00");
  EXPECT_EQ(cents(c.total), "554546.12");
  EXPECT_EQ(c.rows, 10000012);
}

// PG15: Seq Scan on t1 (cost=0.00..17906.00 rows=990000) Filter: (c <> 5)
// 5,406 + 1,000,000 * (0.01 + 0.0025) = 5,406 + 12,500 = 17,906.
TEST(CostModel, SeqScanWithOneOperatorQual) {
  RelSize rel = kT1;
  rel.rows = 990000;
  PathCost c = cost_seq_scan(kDefaults, rel, {0, 0.0025});
  EXPECT_EQ(cents(c.total), "17906.00");
  EXPECT_EQ(c.rows, 990000);
}

// Mackert-Lohman with cache pro-rating.
//  T=5406, index 2745 pages: b = ceil(524288*5406/8151) = 347,725 >= T, so
//  PF = min(T, ceil(2T*Ns/(2T+Ns))): Ns=10,000 -> ceil(108,120,000/20,812)
//  = ceil(5,195.08) = 5,196; Ns=1e6 -> 10,696 > T -> 5,406.
//  With effective_cache_size = 1,000 pages: b = ceil(1000*5406/8151) = 664 < T,
//  lim = 2*5406*664/(10812-664) = 707.48; Ns=100 <= lim -> ceil(1,081,200/10,912)
//  = ceil(99.08) = 100; Ns=10,000 -> ceil(664 + (10000-707.48)*(4742/5406))
//  = ceil(664 + 8,151.18) = 8,816.
TEST(CostModel, IndexPagesFetched) {
  EXPECT_EQ(index_pages_fetched(kDefaults, 10000, 5406, 2745, 5406), 5196);
  EXPECT_EQ(index_pages_fetched(kDefaults, 1e6, 5406, 2745, 5406), 5406);
  CostSettings small = kDefaults;
  small.effective_cache_size_pages = 1000;
  EXPECT_EQ(index_pages_fetched(small, 100, 5406, 2745, 5406), 100);
  EXPECT_EQ(index_pages_fetched(small, 10000, 5406, 2745, 5406), 8816);
}

BtreeQuals quals_with(double sel, int ops, double corr) {
  BtreeQuals q;
  q.index_selectivity = sel;
  q.boundary_selectivity = sel;
  q.operator_count = ops;
  q.leading_correlation = corr;
  return q;
}

// Full index scan (ORDER BY a, no quals) on t1_a, correlation 0.008237577.
//  index: 1e6 tuples, ceil(1e6*2745/1e6) = 2,745 pages * 4 = 10,980;
//         CPU 1e6 * 0.005 = 5,000; descent ceil(log2 1e6) = 20 * 0.0025 = 0.05
//         plus (2+1)*50*0.0025 = 0.375: startup 0.425, index total 15,980.425.
//  heap:  PF(1e6) = T = 5,406 -> max_IO 21,624; min_IO = 4 + 5,405 = 5,409;
//         IO = 21,624 + 0.008237577^2 * (5,409 - 21,624) = 21,622.90
//  CPU:   1e6 * 0.01 = 10,000.  Total 47,603.32.
// PG15: Index Scan using t1_a on t1 (cost=0.42..47603.32 rows=1000000)
TEST(CostModel, IndexScanUncorrelatedFullScan) {
  IndexScanCost c = cost_index_scan(kDefaults, kT1, kT1A, quals_with(1.0, 0, 0.008237577f), {});
  EXPECT_EQ(cents(c.path.startup), "0.42");
  EXPECT_EQ(cents(c.path.total), "47603.32");
  EXPECT_EQ(c.index.index_pages, 2745);
  EXPECT_EQ(c.max_io_cost, 21624);
  EXPECT_EQ(c.min_io_cost, 5409);
}

// Same with correlation 1 (t1_b): IO = min_IO = 5,409;
//  0.425 + 15,980 + 5,409 + 10,000 = 31,389.425.
// PG15: Index Scan using t1_b on t1 (cost=0.42..31389.42 rows=1000000)
// And t1_d (2,445 index pages, correlation 0.9606904):
//  index 9,780 + 5,000 + 0.425; IO = 21,624 - 0.92292604 * 16,215 = 6,658.75;
//  total 31,439.18. PG15: Index Scan using t1_d (cost=0.42..31439.18)
TEST(CostModel, IndexScanCorrelatedFullScans) {
  IndexScanCost b = cost_index_scan(kDefaults, kT1, kT1A, quals_with(1.0, 0, 1.0f), {});
  EXPECT_EQ(cents(b.path.total), "31389.42");
  BtreeIndexInfo t1_d{.pages = 2445, .tuples = 1e6, .tree_height = 2};
  IndexScanCost d = cost_index_scan(kDefaults, kT1, t1_d, quals_with(1.0, 0, 0.9606904f), {});
  EXPECT_EQ(cents(d.path.startup), "0.42");
  EXPECT_EQ(cents(d.path.total), "31439.18");
}

// One qual of selectivity 0.01 on t1_a, correlation 0, 0.5 and 1.
//  index: rint(0.01*1e6) = 10,000 tuples; ceil(10,000*2745/1e6) = ceil(27.45)
//         = 28 pages * 4 = 112; CPU 10,000*(0.005+0.0025) = 75; + 0.425
//         -> index total 187.425.
//  heap:  PF(10,000) = 5,196 -> max_IO = 20,784;
//         ceil(0.01*5406) = 55 pages -> min_IO = 4 + 54 = 58;  CPU 100.
//  corr 0:   0.425 + 187 + 20,784 + 100            = 21,071.425
//  corr 0.5: IO = 20,784 + 0.25*(58 - 20,784) = 15,602.5 -> 15,889.925
//  corr 1:   IO = 58                               ->    345.425
TEST(CostModel, IndexScanCorrelationInterpolation) {
  auto total = [](double corr) {
    return cost_index_scan(kDefaults, kT1, kT1A, quals_with(0.01, 1, corr), {}).path.total;
  };
  EXPECT_NEAR(total(0.0), 21071.425, 1e-9);
  EXPECT_NEAR(total(0.5), 15889.925, 1e-9);
  EXPECT_NEAR(total(1.0), 345.425, 1e-9);
  EXPECT_NEAR(total(-1.0), 345.425, 1e-9);  // a DESC order is as good
  // A descending index flips the sign, which the square hides; two key
  // columns dilute it to 0.75 * correlation: c^2 = 0.5625.
  BtreeIndexInfo two_col = kT1A;
  two_col.key_columns = 2;
  IndexScanCost c = cost_index_scan(kDefaults, kT1, two_col, quals_with(0.01, 1, 1.0), {});
  EXPECT_DOUBLE_EQ(c.index.correlation, 0.75);
  EXPECT_NEAR(c.path.total, 0.425 + 187 + 20784 + 0.5625 * (58 - 20784) + 100, 1e-9);
}

// Only boundary quals count for index tuples; a unique '=' match reads one.
//  boundary 0.02 -> 20,000 index tuples -> ceil(54.9) = 55 pages * 4 = 220,
//  CPU 20,000 * (0.005 + 2*0.0025) = 200: index total 420.425 while the
//  heap side uses the all-quals selectivity 0.001 -> 1,000 tuples.
TEST(CostModel, BtreeBoundaryQualsAndUniqueMatch) {
  BtreeQuals q = quals_with(0.001, 2, 0);
  q.boundary_selectivity = 0.02;
  IndexCost ic = cost_btree_index(kDefaults, kT1, kT1A, q);
  EXPECT_EQ(ic.index_tuples, 20000);
  EXPECT_EQ(ic.index_pages, 55);
  EXPECT_NEAR(ic.total, 420.425, 1e-9);
  EXPECT_DOUBLE_EQ(ic.selectivity, 0.001);

  // PG15: Index Scan using t1_a on t1 (cost=0.42..8.44 rows=1) Index Cond: (a = 77)
  //  (a is not declared unique, but n_distinct = -1 gives 1 row the same way)
  //  index: 1 tuple, ceil(1*2745/1e6) = 1 page * 4 + 1*(0.005+0.0025) + 0.425
  //  = 4.4325; heap: PF(1) = 1 -> 4; min_IO = 4; CPU 0.01 -> 8.4425.
  BtreeQuals eq = quals_with(1e-6, 1, 0.008237577f);
  IndexScanCost one = cost_index_scan(kDefaults, kT1, kT1A, eq, {});
  EXPECT_EQ(cents(one.path.total), "8.44");
  BtreeIndexInfo unique = kT1A;
  unique.unique = true;
  BtreeQuals um = quals_with(1e-6, 1, 0);
  um.boundary_selectivity = 0.5;  // ignored: unique match reads one tuple
  um.unique_match = true;
  EXPECT_EQ(cost_btree_index(kDefaults, kT1, unique, um).index_tuples, 1);
}

// Repeated scans (the inner side of a nested loop, loop_count 10), selectivity
// 0.001 on t1_a:
//  index: 1,000 tuples, ceil(2.745) = 3 pages per scan; 30 pages over all
//         scans through Mackert-Lohman on the index (T = 2,745, b >= T):
//         ceil(2*2745*30/(5490+30)) = ceil(29.84) = 30 -> 30*4/10 = 12 per scan;
//         + 1,000 * 0.0075 + 0.425 -> 19.925
//  heap:  max_IO = PF(10,000) = 5,196 * 4 / 10 = 2,078.4;
//         min_IO = PF(ceil(5.406) * 10 = 60) = ceil(59.67) = 60 * 4 / 10 = 24
//  total (corr 0) = 0.425 + 19.5 + 2,078.4 + 1,000 * 0.01 = 2,108.325
// The bitmap scan: 2*5406*1000/11812 = 915.34 pages per scan, but over 10
//  scans PF(10,000) = 5,196 / 10 = 519.6 -> 520 pages per scan.
TEST(CostModel, RepeatedScans) {
  IndexScanCost c = cost_index_scan(kDefaults, kT1, kT1A, quals_with(0.001, 1, 0), {}, 10);
  EXPECT_NEAR(c.index.total, 19.925, 1e-9);
  EXPECT_NEAR(c.max_io_cost, 2078.4, 1e-9);
  EXPECT_NEAR(c.min_io_cost, 24, 1e-9);
  EXPECT_NEAR(c.path.total, 2108.325, 1e-9);
  IndexCost once = cost_btree_index(kDefaults, kT1, kT1A, quals_with(0.001, 1, 0));
  BitmapPath node = BitmapPath::index_scan(once, 1000, kT1A.pages);
  BitmapPages pages = compute_bitmap_pages(kDefaults, kT1, node, 10);
  EXPECT_EQ(pages.pages_fetched, 520);
  EXPECT_NEAR(pages.heap_pages, 915.3403, 1e-3);
}

// Bitmap heap scan, exact: selectivity 0.01, one qual, same index.
//  bitmap child = 187.425 + 0.1*0.0025*10,000 rows = 189.925 (startup)
//  pages = 2*5406*10,000/(10,812+10,000) = 5,195.08 -> 5,196, below 65,536
//  cost_per_page = 4 - 3*sqrt(5196/5406) = 1.058846
//  run = 5,196 * 1.058846 + 10,000 * (0.01 + 0.0025) = 5,501.76 + 125
//  total = 5,816.69
TEST(CostModel, BitmapHeapScanExact) {
  IndexCost ic = cost_btree_index(kDefaults, kT1, kT1A, quals_with(0.01, 1, 0));
  RelSize rel = kT1;
  rel.rows = 10000;
  BitmapPath node = BitmapPath::index_scan(ic, rel.rows, kT1A.pages);
  PathCost shown = explain_bitmap_node(kDefaults, node, rel.tuples);
  EXPECT_EQ(cents(shown.startup), "0.00");
  EXPECT_EQ(cents(shown.total), "187.43");
  EXPECT_EQ(shown.rows, 10000);
  BitmapHeapScanCost c = cost_bitmap_heap_scan(kDefaults, rel, node, {0, 0.0025});
  EXPECT_EQ(cents(c.path.startup), "189.93");
  EXPECT_EQ(cents(c.path.total), "5816.69");
  EXPECT_EQ(c.pages.pages_fetched, 5196);
  EXPECT_EQ(c.pages.tuples_fetched, 10000);
  EXPECT_EQ(c.pages.lossy_pages, 0);
  EXPECT_NEAR(c.cost_per_page, 1.0588457, 1e-6);
}

// Bitmap heap scan, lossy: the fillfactor-10 table (454,546 pages, 10,000,012
// tuples, index 27,422 pages, height 2), selectivity 0.01.
//  index: rint(100,000.12) = 100,000 tuples, ceil(100,000*27,422/10,000,012)
//         = ceil(274.22) = 275 pages * 4 = 1,100; CPU 750; descent
//         ceil(log2 10,000,012) = 24 * 0.0025 = 0.06 + 0.375 -> 1,850.435
//  child = 1,850.435 + 0.1*0.0025*100,000 = 1,875.435
//  pages = 2*454,546*100,000/(909,092+100,000) = 90,090.1 exceeds 65,536 entries:
//  lossy = 90,090.1 - 32,768 = 57,322.1, exact = 32,768
//  tuples = rint(0.01*(32,768/90,090.1)*10,000,012 + (57,322.1/90,090.1)*10,000,012)
//         = 6,399,133
//  pages_fetched = ceil(90,090.1) = 90,091; cost/page = 4 - 3*sqrt(90,091/454,546)
//         = 2.664410; run = 90,091*2.664410 + 6,399,133*0.0125 = 240,039.2 + 79,989.2
//  total = 1,875.435 + 320,028.56 = 321,903.99
TEST(CostModel, BitmapHeapScanLossy) {
  RelSize rel{.pages = 454546, .tuples = 10000012, .rows = 100000};
  BtreeIndexInfo big{.pages = 27422, .tuples = 10000012, .tree_height = 2};
  IndexCost ic = cost_btree_index(kDefaults, rel, big, quals_with(0.01, 1, 0));
  EXPECT_NEAR(ic.total, 1850.435, 1e-9);
  BitmapPath node = BitmapPath::index_scan(ic, rel.rows, big.pages);
  BitmapHeapScanCost c = cost_bitmap_heap_scan(kDefaults, rel, node, {0, 0.0025});
  EXPECT_EQ(c.pages.pages_fetched, 90091);
  EXPECT_EQ(c.pages.tuples_fetched, 6399133);
  EXPECT_EQ(c.pages.exact_pages, 32768);
  EXPECT_NEAR(c.pages.lossy_pages, 57322.1008, 1e-3);
  EXPECT_EQ(cents(c.path.startup), "1875.43");  // 1875.435 is 1875.4349999... in binary
  EXPECT_EQ(cents(c.path.total), "321903.99");
  // With 64 MB of work_mem the bitmap stays exact: 100,000 tuples fetched.
  CostSettings big_mem = kDefaults;
  big_mem.work_mem_kb = 65536;
  BitmapHeapScanCost exact = cost_bitmap_heap_scan(big_mem, rel, node, {0, 0.0025});
  EXPECT_EQ(exact.pages.tuples_fetched, 100000);
  EXPECT_EQ(exact.pages.lossy_pages, 0);
}

// BitmapOr of two index scans (selectivities 0.003 and 0.002, rel rows 4,994).
//  child a: 3,000 tuples, ceil(8.235) = 9 pages*4 = 36 + 3,000*0.0075 = 22.5
//           + 0.425 = 58.925;  child b: 2,000 tuples, ceil(5.49) = 6 -> 24 + 15
//           + 0.425 = 39.425
//  Or = (58.925 + 0.1*0.0025*4,994) + (39.425 + 1.2485) = 100.847 (no combine
//       charge between plain index scans); selectivity 0.005.
//  heap: 5,000 tuples -> 2*5406*5000/15,812 = 3,418.9 -> 3,419 pages;
//        cost/page = 4 - 3*sqrt(3419/5406) = 1.614207
//        run = 3,419*1.614207 + 5,000*(0.01 + 2*0.0025) = 5,518.97 + 75
//  total = 5,694.82
TEST(CostModel, BitmapOrHeapScan) {
  RelSize rel = kT1;
  rel.rows = 4994;
  IndexCost a = cost_btree_index(kDefaults, rel, kT1A, quals_with(0.003, 1, 0));
  IndexCost b = cost_btree_index(kDefaults, rel, kT1A, quals_with(0.002, 1, 0));
  EXPECT_NEAR(a.total, 58.925, 1e-9);
  EXPECT_NEAR(b.total, 39.425, 1e-9);
  BitmapPath bor = BitmapPath::or_of({BitmapPath::index_scan(a, rel.rows, kT1A.pages),
                                      BitmapPath::index_scan(b, rel.rows, kT1A.pages)});
  BitmapCombineCost oc = cost_bitmap_or(kDefaults, bor.children);
  EXPECT_NEAR(oc.cost, 100.847, 1e-9);
  EXPECT_DOUBLE_EQ(oc.selectivity, 0.005);
  PathCost shown = explain_bitmap_node(kDefaults, bor, rel.tuples);
  EXPECT_EQ(cents(shown.startup), "100.85");
  EXPECT_EQ(shown.rows, 5000);
  BitmapHeapScanCost c = cost_bitmap_heap_scan(kDefaults, rel, bor, {0, 0.005});
  EXPECT_EQ(c.pages.pages_fetched, 3419);
  EXPECT_EQ(cents(c.path.total), "5694.82");

  // An OR of ORs pays 100 * cpu_operator_cost = 0.25 for each combine of a
  // non-index child; an AND pays it for every input after the first and
  // multiplies selectivities.
  BitmapPath nested = BitmapPath::or_of({bor, bor});
  EXPECT_NEAR(cost_bitmap_or(kDefaults, nested.children).cost, 2 * 100.847 + 0.25, 1e-9);
  BitmapPath band = BitmapPath::and_of({BitmapPath::index_scan(a, rel.rows, kT1A.pages),
                                        BitmapPath::index_scan(b, rel.rows, kT1A.pages)});
  BitmapCombineCost ac = cost_bitmap_and(kDefaults, band.children);
  EXPECT_NEAR(ac.cost, 100.847 + 0.25, 1e-9);
  EXPECT_DOUBLE_EQ(ac.selectivity, 0.003 * 0.002);
}

// Sort of 8,867 rows of width 8 fed by a path of total cost 5,824.6299.
//  quicksort: 2*0.0025 * 8,867 * log2(8,867) = 0.005 * 8,867 * 13.11425
//  = 581.42; run = 0.0025 * 8,867 = 22.17.
// PG15: Sort (cost=6406.04..6428.21 rows=8867 width=8) over a Bitmap Heap Scan
// printed as 5824.63; the cents above pin its exact total to [5824.625,
// 5824.6256), so the test feeds 5824.6252.
TEST(CostModel, SortQuicksort) {
  PathCost input{101.14, 5824.6252, 8867};
  PathCost s = cost_sort(kDefaults, input, 8867, 8);
  EXPECT_EQ(cents(s.startup), "6406.04");
  EXPECT_EQ(cents(s.total), "6428.21");
  EXPECT_EQ(s.rows, 8867);
}

// Bounded (top-N) sort: LIMIT 10 of 1e6 rows that fit in work_mem:
//  0.005 * 1e6 * log2(20) = 21,609.64; external sort of 1e6 rows of width 16:
//  input 1e6 * (16 + 24) = 40 MB > 4 MB: npages = ceil(4e7/8192) = 4,883,
//  nruns = 4e7/4,194,304 = 9.54 <= merge order 15 -> one pass:
//  2 * 4,883 * (0.75 + 1) = 17,090.5 plus 0.005 * 1e6 * log2(1e6) = 99,657.84.
TEST(CostModel, SortBoundedAndExternal) {
  PathCost input{0, 15406, 1e6};
  PathCost top = cost_sort(kDefaults, input, 1e6, 16, 0, 10);
  EXPECT_NEAR(top.startup, 15406 + 0.005 * 1e6 * std::log(20.0) / 0.693147180559945, 1e-6);
  EXPECT_NEAR(top.total - top.startup, 2500, 1e-9);
  PathCost ext = cost_sort(kDefaults, input, 1e6, 16);
  EXPECT_NEAR(ext.startup,
              15406 + 0.005 * 1e6 * std::log(1e6) / 0.693147180559945 + 2 * 4883 * 1.75, 1e-6);
}

// Limit over an index scan 0.425..31,439.1798 of 1e6 rows, OFFSET 100 LIMIT 50:
//  startup = 0.425 + 31,438.7548 * 100/1e6 = 3.5689; total = 3.5689 +
//  31,438.7548 * 50/1e6 = 5.1408.  PG15: Limit (cost=3.57..5.14 rows=50)
TEST(CostModel, LimitInterpolates) {
  BtreeIndexInfo t1_d{.pages = 2445, .tuples = 1e6, .tree_height = 2};
  PathCost scan = cost_index_scan(kDefaults, kT1, t1_d, quals_with(1.0, 0, 0.9606904f), {}).path;
  PathCost lim = cost_limit(scan, 100, 50);
  EXPECT_EQ(cents(lim.startup), "3.57");
  EXPECT_EQ(cents(lim.total), "5.14");
  EXPECT_EQ(lim.rows, 50);
  // PG15: Limit (cost=0.42..0.90 rows=10) over the t1_a full scan (0.42..47603.32).
  PathCost a = cost_index_scan(kDefaults, kT1, kT1A, quals_with(1.0, 0, 0.008237577f), {}).path;
  PathCost l10 = cost_limit(a, 0, 10);
  EXPECT_EQ(cents(l10.startup), "0.42");
  EXPECT_EQ(cents(l10.total), "0.90");
  // LIMIT 0 is planned as one row; a limit above the input keeps the input.
  EXPECT_EQ(cost_limit(a, 0, 0).rows, 1);
  PathCost all = cost_limit(a, 0, 5e6);
  EXPECT_EQ(all.total, a.total);
  EXPECT_EQ(all.rows, 1e6);
}

}  // namespace
}  // namespace tp
