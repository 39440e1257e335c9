// page-life: a page's life in the buffer pool. A miss then a hit on a repeated read;
// usage counts rising with each visit up to their cap of 5; the clock sweep evicting
// when the pool is a quarter of the table (an index scan, which has no ring, rereads
// pages it had already read); and a large seq scan confined to a ring, so that it
// leaves the pool's other pages alone.
#include <algorithm>
#include <ostream>

#include "tools/labs/labs.h"

namespace tp::labs {

namespace {

std::string pool_size(uint64_t buffers) {
  return "'" + std::to_string(std::max<uint64_t>(16, buffers) * 8) + "kB'";
}

std::string num(uint64_t n) {
  return std::to_string(n);
}

void build(Guide& g) {
  const std::string rows = num(g.rows());
  g.table(
      {"pl_t",
       g.rows(),
       {"CREATE TABLE pl_t (a int, b int)",
        "INSERT INTO pl_t SELECT i, i FROM generate_series(1, " + rows + ") s(i) ORDER BY random()",
        "CREATE INDEX pl_t_a_idx ON pl_t (a)", "ANALYZE pl_t"},
       {"pl_t_a_idx"}});
  const uint64_t hot = g.rows() / 10;
  g.table({"pl_hot",
           hot,
           {"CREATE TABLE pl_hot (a int, b int)",
            "INSERT INTO pl_hot SELECT i, i FROM generate_series(1, " + num(hot) + ") s(i)",
            "ANALYZE pl_hot"},
           {}});
}

void hits_and_usage(Guide& g, uint64_t pages) {
  // A table under a quarter of the pool gets no ring: every page it reads stays.
  g.step("a pool over 4x the table, so that a seq scan keeps every page it reads");
  g.set({"SET shared_buffers = " + pool_size(std::max<uint64_t>(16384, 5 * pages))});
  g.step("first read of pl_t: every page is a miss");
  g.cold({"pl_t"});
  g.run("EXPLAIN (ANALYZE, BUFFERS) SELECT count(*) FROM pl_t");
  g.look_at("\"Buffers: shared read=" + num(pages) +
            "\": all of pl_t's pages came from storage (misses), none from the pool.");
  g.buffer_counts("pl_t");
  g.look_at("each page is now in a buffer with usagecount 1: one visit.");

  g.step("the same read again: every page is a hit");
  g.run("EXPLAIN (ANALYZE, BUFFERS) SELECT count(*) FROM pl_t");
  g.look_at("\"Buffers: shared hit=" + num(pages) +
            "\" and no read=: the pages were still in the pool. Compare the Execution Time.");
  g.buffer_counts("pl_t");
  g.look_at("usagecount 2 now: each pin of an unpinned buffer adds one.");

  g.step("four more reads: the usage count stops at 5");
  for (int i = 0; i < 4; ++i) g.run("SELECT count(*) FROM pl_t");
  g.buffer_counts("pl_t");
  g.look_at(
      "usagecount 5 for every page, not 6: the count is capped (kMaxUsageCount, PostgreSQL's "
      "BM_MAX_USAGE_COUNT), so "
      "a page is never more than five sweeps of the clock from eviction.");
}

void clock_sweep(Guide& g, uint64_t pages) {
  const uint64_t pool = std::max<uint64_t>(16, pages / 4);
  g.step("a pool a quarter of the table: the clock sweep must evict");
  g.set({"SET shared_buffers = " + pool_size(pool), "SET enable_seqscan = off",
         "SET enable_bitmapscan = off"});
  g.note(
      "An index scan of the shuffled table visits its pages in random order, one row at a "
      "time, and uses no ring: each miss takes a victim buffer from the clock sweep.");
  g.cold({"pl_t", "pl_t_a_idx"});
  // Eight rows a page is enough to see pages read again; all rows would take minutes at
  // --rows 1000000, each miss a random read.
  const uint64_t k = std::min(g.rows(), 8 * pages);
  g.run("EXPLAIN (ANALYZE, BUFFERS) SELECT count(b) FROM pl_t WHERE a BETWEEN 1 AND " + num(k));
  g.look_at("read= is far more than pl_t's " + num(pages) + " pages for " + num(k) +
            " rows: the pool (" + num(pool) +
            " buffers) held a quarter of them, so the sweep evicted most pages before the scan "
            "came back to them, and the same page was read again and again.");
  g.buffer_counts("pl_t");
  g.look_at("at most " + num(pool) +
            " buffers, whatever the table's size: the pool is full and every new page "
            "replaced one whose usage count the sweep had brought down to 0.");
  g.set({"RESET enable_seqscan", "RESET enable_bitmapscan"});
}

void ring(Guide& g, uint64_t pages) {
  const uint64_t pool = 2 * pages;
  g.step("a pool twice the table: pl_t is over a quarter of it, so its seq scan uses a ring");
  g.set({"SET shared_buffers = " + pool_size(pool)});
  g.run("SELECT count(*) FROM pl_hot");
  g.run("SELECT count(*) FROM pl_hot");
  const Guide::BufferCounts hot = g.buffer_counts("pl_hot");
  g.look_at("pl_hot, the small table, is in the pool (" + num(hot.buffers) +
            " buffers, usagecount 2).");
  g.run("EXPLAIN (ANALYZE, BUFFERS) SELECT count(*) FROM pl_t");
  g.look_at("read=" + num(pages) + ": the whole table went through the pool.");
  g.buffer_counts("pl_t");
  g.look_at("only a few buffers hold pl_t (at most an eighth of the pool's " + num(pool) +
            "): the scan reused the same ring of buffers over and over, at usagecount 1.");
  g.buffer_counts("pl_hot");
  g.run("EXPLAIN (ANALYZE, BUFFERS) SELECT count(*) FROM pl_hot");
  g.look_at("pl_hot still all hits: without the ring, pl_t's " + num(pages) +
            " pages would have taken half the pool and swept pl_hot's usage counts down.");
}

void run(Guide& g) {
  build(g);
  g.step("the table's size in 8 kB pages");
  const uint64_t pages = g.relation_pages("pl_t");
  g.look_at("pl_t has " + num(pages) + " pages (226 rows a page at the default fillfactor).");
  hits_and_usage(g, pages);
  clock_sweep(g, pages);
  ring(g, pages);
  g.set({"RESET shared_buffers"});
}

}  // namespace

LabDef page_life_lab() {
  return {"page-life",
          "a page's life in the buffer pool: misses, hits, usage counts, clock sweep, rings",
          100'000,
          run,
          {"Why does the second scan print only shared hit=, and why is it faster?",
           "Why is the usage count capped at 5? What would a page read a million times do to "
           "the clock sweep without a cap?",
           "With a pool a quarter of the table, the index scan read many pages several times. "
           "Would a seq scan of the same table reread any page? Why not?",
           "A ring keeps a big scan from flushing the pool. Who pays for it, and when would "
           "you want the scan's pages to stay?"},
          {{"bufmgr/strategy.h", "the clock sweep and the bulk-read ring, step by step"},
           {"bufmgr/strategy.cc", "ClockSweep::victim and the ring's reuse of its slots"},
           {"bufmgr/buffer_state.h", "the usage count and its cap in a buffer's state word"},
           {"bufmgr/buffer_pool.h", "pinning, hits and misses: the pool's interface"},
           {"scans/seq_scan.cc", "where a seq scan asks for a ring (for_seq_scan)"}}};
}

}  // namespace tp::labs
