// fillfactor: why the random_page_cost article's fillfactor-10 table makes every index
// row a random read. The same shuffled rows at fillfactor 100 and 10: ten times the
// pages, and with the pool a quarter of the larger table (the article's method), a cold
// index range scan reads a page for nearly every row of it, against about one read per
// page of the smaller one.
#include <algorithm>
#include <cstdio>
#include <ostream>

#include "tools/experiments/explain.h"
#include "tools/labs/labs.h"

namespace tp::labs {

namespace {

std::string num(uint64_t n) {
  return std::to_string(n);
}

experiments::TableSpec shuffled(const std::string& name, uint64_t rows, int fillfactor) {
  return {name,
          rows,
          {"CREATE TABLE " + name +
               " (a int, b int) WITH (fillfactor = " + std::to_string(fillfactor) + ")",
           "INSERT INTO " + name + " SELECT i, i FROM generate_series(1, " + num(rows) +
               ") s(i) ORDER BY random()",
           "CREATE INDEX " + name + "_a_idx ON " + name + " (a)", "ANALYZE " + name},
          {name + "_a_idx"}};
}

// Runs the cold range scan and returns its shared read count.
uint64_t cold_range_scan(Guide& g, const std::string& table, uint64_t k) {
  g.cold({table, table + "_a_idx"});
  ResultSet r = g.run("EXPLAIN (ANALYZE, BUFFERS) SELECT count(b) FROM " + table +
                      " WHERE a BETWEEN 1 AND " + num(k));
  uint64_t hit = 0, read = 0;
  experiments::parse_top_buffers(r, &hit, &read);
  return read;
}

std::string per_row(uint64_t reads, uint64_t rows) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", rows ? double(reads) / double(rows) : 0.0);
  return buf;
}

void run(Guide& g) {
  g.table(shuffled("ff_100", g.rows(), 100));
  g.table(shuffled("ff_10", g.rows(), 10));

  g.step("the same rows at fillfactor 100 and at fillfactor 10");
  const uint64_t p100 = g.relation_pages("ff_100");
  const uint64_t p10 = g.relation_pages("ff_10");
  g.run(
      "SELECT pg_size_pretty(pg_relation_size('ff_100')), "
      "pg_size_pretty(pg_relation_size('ff_10'))");
  g.look_at(num(p100) + " pages against " + num(p10) +
            ": fillfactor 10 leaves 90% of each page empty, so a page holds 22 rows instead "
            "of 226 and the table is about ten times larger.");

  const uint64_t pool = std::max<uint64_t>(16, p10 / 4);
  const uint64_t k = std::max<uint64_t>(1, g.rows() / 2);
  g.step("a pool a quarter of the fillfactor-10 table, and index scans only");
  g.set({"SET shared_buffers = '" + num(pool * 8) + "kB'", "SET enable_seqscan = off",
         "SET enable_bitmapscan = off"});
  g.note(
      "The random_page_cost article's method: the table 4x the pool, so that a page read "
      "once has mostly left the pool when the scan needs it again. The index returns the "
      "rows in a's order; the shuffled INSERT put them in random order on the pages.");

  g.step("cold index range scan of half the rows, fillfactor 100");
  const uint64_t r100 = cold_range_scan(g, "ff_100", k);
  g.look_at("shared read=" + num(r100) + " for " + num(k) + " rows (" + per_row(r100, k) +
            " reads a row): ff_100's " + num(p100) +
            " pages fit in the pool, so each was read about once and every other row on it "
            "was a hit.");

  g.step("the same scan, fillfactor 10");
  const uint64_t r10 = cold_range_scan(g, "ff_10", k);
  g.look_at("shared read=" + num(r10) + " for " + num(k) + " rows (" + per_row(r10, k) +
            " reads a row): the table is " + num(p10) +
            " pages, 4x the pool, so nearly every "
            "row's page had been evicted (or never read): one random read per row.");
  g.note("Reads a row: fillfactor 100 " + per_row(r100, k) + ", fillfactor 10 " + per_row(r10, k) +
         " (the counts include the index's own pages).");
  g.set({"RESET enable_seqscan", "RESET enable_bitmapscan", "RESET shared_buffers"});
}

}  // namespace

LabDef fillfactor_lab() {
  return {"fillfactor",
          "fillfactor 100 vs 10: table size, and a cold index scan's reads per row",
          100'000,
          run,
          {"How many rows fit on a page at fillfactor 10, and where does that number come "
           "from (page header, line pointers, tuple headers)?",
           "Why does the fillfactor-10 scan read nearly one page per row, and what would "
           "change if the rows had been inserted in order instead of ORDER BY random()?",
           "The random_page_cost article needs a table at least 4x the pool. What would its "
           "measured per-row cost be if the whole table fit in the pool?"},
          {{"engine/storage/README.md", "how rows are laid out on heap pages and fillfactor"},
           {"engine/core/README.md", "the page layout: header, line pointers, tuples"},
           {"scans/index_scan.cc", "the index scan: one heap fetch per index entry"},
           {"bufmgr/strategy.cc", "the clock sweep that evicts pages from a small pool"},
           {"tools/experiments/rpc.cc", "the random_page_cost experiment built on this table"}}};
}

}  // namespace tp::labs
