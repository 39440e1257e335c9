// The prefetch-aware cost model's arithmetic, checked against figures worked by hand,
// and its device curve's parsing.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/core/error.h"
#include "engine/plan/cost_model.h"
#include "engine/plan/device_curve.h"
#include "engine/plan/prefetch_cost.h"

namespace tp {
namespace {

// seq 5 µs per page, 100 µs for one random read alone, 20 µs each with 16 in flight.
PrefetchModel model(double depth) {
  PrefetchModel m;
  m.enabled = true;
  m.device = parse_device_curve("seq=5 d1=100 d16=20", "device_test");
  m.page_hit_us = 0.1;
  m.random_page_hit_us = 0.3;
  m.stream_block_us = 0.2;
  m.bitmap_page_us = 0.4;
  m.page_read_cpu_us = 0.5;
  m.os_cache_page_us = 2;
  m.seq_depth = m.bitmap_depth = m.index_depth = m.leaf_depth = depth;
  m.io_combine_limit = 16;
  return m;
}

TEST(DeviceCurve, ParsesSortsAndInterpolatesOnLogDepth) {
  DeviceCurve c = parse_device_curve("d16=20 seq=5  d1=100", "x");
  EXPECT_EQ(c.seq_us, 5);
  ASSERT_EQ(c.random_us.size(), 2u);
  EXPECT_EQ(c.random_us[0].first, 1);
  EXPECT_DOUBLE_EQ(c.random_read_us(1), 100);
  EXPECT_DOUBLE_EQ(c.random_read_us(16), 20);
  EXPECT_DOUBLE_EQ(c.random_read_us(4), 60);   // half way on log2: 100 - 80 / 2
  EXPECT_DOUBLE_EQ(c.random_read_us(64), 20);  // flat beyond the deepest
  EXPECT_DOUBLE_EQ(c.random_read_us(0), 100);  // "no look-ahead" is depth 1
  EXPECT_DOUBLE_EQ(c.read_us(16, 16), 20 + 15 * 5);
  EXPECT_EQ(format_device_curve(c), "seq=5 d1=100 d16=20");
}

TEST(DeviceCurve, ADeeperQueueNeverCostsMoreThanAShallowerOne) {
  // d4 measured slower than d1 (noise): taken as d1's figure.
  DeviceCurve c = parse_device_curve("seq=5 d1=50 d4=80 d16=10", "x");
  EXPECT_DOUBLE_EQ(c.random_read_us(4), 50);
  EXPECT_DOUBLE_EQ(c.random_read_us(8), 30);  // between 50 at d4 and 10 at d16
}

TEST(DeviceCurve, OneSequentialReadAtATimeUsesS1WhenMeasured) {
  DeviceCurve c = parse_device_curve("seq=5 d1=100 s1=7", "x");
  EXPECT_EQ(format_device_curve(c), "seq=5 s1=7 d1=100");
  EXPECT_DOUBLE_EQ(c.sequential_us(16, 1), 7);
  EXPECT_DOUBLE_EQ(c.sequential_us(16, 16), 5);
  c.seq1_us = 0;  // not measured: each read's latency, then its transfer
  EXPECT_DOUBLE_EQ(c.sequential_us(16, 1), (100 + 15 * 5) / 16.0);
}

TEST(DeviceCurve, RefusesWhatItCannotRead) {
  for (const char* bad : {"", "seq=5", "d1=10", "seq=5 d1=x", "seq=5 d1=-1", "seq=5 d1=3 d1=4",
                          "seq=5 d1=3 q2=1", "seq=5 d1=3 d0=1", "seq 5 d1=3"}) {
    try {
      parse_device_curve(bad, "device_worker_direct");
      ADD_FAILURE() << "accepted: " << bad;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("\"device_worker_direct\""), std::string::npos) << bad;
    }
  }
}

TEST(PrefetchCost, SequentialPagesAreBandwidthBoundWithReadsInFlight) {
  // 1,000 pages: 0.1 + 0.5 + 5 µs each = 5,600 µs = 1,120 units of 5 µs.
  EXPECT_DOUBLE_EQ(sequential_pages_cost(model(16), 1000, 16, {}), 1120);
  // One read at a time: each 16-page read pays 100 + 15 * 5 = 175 µs, 10.9375 per page.
  EXPECT_DOUBLE_EQ(sequential_pages_cost(model(1), 1000, 1, {}), 1000 * (0.6 + 10.9375) / 5);
  // Half in the pool: 1,000 * 0.1 + 500 * (0.5 + 5) = 2,850 µs.
  EXPECT_DOUBLE_EQ(sequential_pages_cost(model(16), 1000, 16, {.pool = 0.5}), 570);
  // The rest from the kernel's cache: 1,000 * 0.1 + 1,000 * (0.5 + 2) µs.
  EXPECT_DOUBLE_EQ(sequential_pages_cost(model(16), 1000, 16, {.pool = 0, .os = 1}), 520);
  EXPECT_EQ(sequential_pages_cost(model(16), 0, 16, {}), 0);
}

TEST(PrefetchCost, RandomPagesPayTheCurveAtTheirDepth) {
  EXPECT_DOUBLE_EQ(random_pages_cost(model(1), 10, 1, {}), 10 * 100.8 / 5);
  EXPECT_DOUBLE_EQ(random_pages_cost(model(16), 10, 16, {}), 10 * 20.8 / 5);
  // All cached: only the visits.
  EXPECT_DOUBLE_EQ(random_pages_cost(model(16), 10, 16, {.pool = 1}), 10 * 0.3 / 5);
}

TEST(PrefetchCost, BitmapPagesCombineWhereTheyAreDense) {
  // 100 of 10,000 pages: 99 reads (a page starts one unless the page before is in the
  // bitmap), 99 * 20 + 1 * 5 µs of I/O, plus 100 * (0.4 + 0.5) µs: each page the bitmap
  // heap scan visits, and reads.
  EXPECT_DOUBLE_EQ(bitmap_pages_cost(model(16), 100, 10000, {}), (99 * 20 + 5 + 90) / 5.0);
  // Every page: reads of 16 blocks, 625 of them.
  EXPECT_DOUBLE_EQ(bitmap_pages_cost(model(16), 10000, 10000, {}),
                   (625 * 20 + 9375 * 5 + 9000) / 5.0);
  // One read at a time costs more: the depth-1 figure per read.
  EXPECT_GT(bitmap_pages_cost(model(1), 100, 10000, {}),
            bitmap_pages_cost(model(16), 100, 10000, {}));
}

TEST(PrefetchCost, IndexScansPrefetchOnlyAfterTheirStart) {
  PrefetchModel m = model(16);
  m.index_prefetch = true;
  m.index_start_pages = 4;
  // 100 pages read: four alone, 96 with 16 in flight; 0.5 µs of CPU each read; a visit
  // each (0.3 µs), 96 of them through the stream (0.2 µs).
  EXPECT_DOUBLE_EQ(index_heap_pages_cost(m, 100, 100, {}),
                   (4 * 100 + 96 * 20 + 100 * 0.5 + 100 * 0.3 + 96 * 0.2) / 5);
  // 250 heap tuples on those 100 pages, the heap not in index order: a visit per tuple.
  EXPECT_DOUBLE_EQ(index_heap_pages_cost(m, 100, 250, {}),
                   (4 * 100 + 96 * 20 + 100 * 0.5 + 250 * 0.3 + 246 * 0.2) / 5);
  EXPECT_DOUBLE_EQ(index_heap_pages_cost(m, 3, 3, {}), 3 * 100.8 / 5);
  // The same 100 pages over 10 scans (a nested loop's inner loops): each scan's stream
  // starts afresh, so 40 pages are read alone and 60 with 16 in flight.
  EXPECT_DOUBLE_EQ(index_heap_pages_cost(m, 100, 100, {}, 10),
                   (40 * 100 + 60 * 20 + 100 * 0.5 + 100 * 0.3 + 60 * 0.2) / 5);
  // All cached: the visits only.
  EXPECT_DOUBLE_EQ(index_heap_pages_cost(m, 100, 250, {.pool = 1}), (250 * 0.3 + 246 * 0.2) / 5);
  // In block order with prefetching: combined reads, each page through the stream.
  EXPECT_DOUBLE_EQ(in_order_pages_cost(m, 10, {}), (10 * 5.6 + 10 * 0.2) / 5);
  // Without: direct I/O pays each read's latency, buffered I/O has the kernel's
  // read-ahead.
  PrefetchModel alone = model(1);
  EXPECT_DOUBLE_EQ(in_order_pages_cost(alone, 10, {}), 10 * 100.8 / 5);
  alone.buffered = true;
  EXPECT_DOUBLE_EQ(in_order_pages_cost(alone, 10, {}), 10 * 5.6 / 5);
}

TEST(PrefetchCost, SeqScanCostUsesTheModelOnlyWhenEnabled) {
  CostSettings cs;
  RelSize rel{.pages = 1000, .tuples = 100000, .rows = 100000};
  EXPECT_DOUBLE_EQ(cost_seq_scan(cs, rel, {}).total, 1000 + 0.01 * 100000);
  cs.prefetch = model(16);
  cs.cpu_tuple_cost = 0.05 / 5;  // as planner_settings converts cpu_tuple_us = 0.05
  EXPECT_DOUBLE_EQ(cost_seq_scan(cs, rel, {}).total, 1120 + 0.01 * 100000);
  rel.cache.pool = 1;
  EXPECT_DOUBLE_EQ(cost_seq_scan(cs, rel, {}).total, 1000 * 0.1 / 5 + 0.01 * 100000);
}

TEST(PrefetchCost, DescribesTheCurveAndTheLookAhead) {
  PrefetchModel m = model(16);
  m.device_setting = "device_io_uring_direct";
  m.index_depth = 1;
  EXPECT_EQ(describe_cost_model(m),
            "prefetch_aware (device_io_uring_direct = 'seq=5 d1=100 d16=20'; reads in flight: "
            "seq 16, bitmap 16, index 1; 1.0 = 5 us)");
}

}  // namespace
}  // namespace tp
