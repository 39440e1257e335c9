// eic: effective_io_concurrency is how many reads a read stream keeps in flight. A cold
// bitmap heap scan of scattered pages (2% of a shuffled fillfactor-10 table) at eic 1, 8
// and 64, with direct I/O so that every read goes to the device: the time falls as the
// device gets more reads at once, until its queue (or the method's threads) is full.
#include <cstdio>
#include <ostream>
#include <sstream>

#include "engine/core/error.h"
#include "tools/experiments/explain.h"
#include "tools/labs/labs.h"

namespace tp::labs {

namespace {

std::string num(uint64_t n) {
  return std::to_string(n);
}

struct Run {
  int eic;
  double ms;
  std::string prefetch;
};

// io_uring hands every read to the kernel at once; without it the worker method's
// threads are the queue, so give it enough of them for eic 64 to mean something.
std::string choose_method(Guide& g) {
  try {
    g.set({"SET io_method = io_uring"});
    return "io_uring";
  } catch (const Error& e) {
    g.note(std::string("io_uring is not available here (") + e.what() +
           (e.hint().empty() ? "" : " " + e.hint()) +
           "); the lab goes on with io_method = worker and 16 I/O workers.");
    g.set({"SET io_method = worker", "SET io_workers = 16"});
    return "worker";
  }
}

Run scan_at(Guide& g, int eic, uint64_t k) {
  g.step("cold bitmap heap scan at effective_io_concurrency = " + num(uint64_t(eic)));
  g.set({"SET effective_io_concurrency = " + num(uint64_t(eic))});
  g.cold({"eic_t", "eic_t_a_idx"});
  ResultSet r = g.run(
      "EXPLAIN (ANALYZE, BUFFERS) SELECT count(b) FROM eic_t WHERE a BETWEEN 1 AND " + num(k));
  Run run{eic, 0, explain_line(r, "Prefetch:")};
  experiments::parse_execution_time_ms(r, &run.ms);
  g.look_at("the Bitmap Heap Scan's Prefetch line, \"in flight max=" +
            num(uint64_t(number_after(run.prefetch, "in flight max="))) + " of " +
            num(uint64_t(number_after(run.prefetch, " of "))) +
            "\": the most reads the stream had at the device at once; and the Execution Time.");
  return run;
}

void summary(Guide& g, const std::vector<Run>& runs) {
  g.step("the three runs side by side");
  std::ostringstream t;
  t << "   eic | Execution Time ms | in flight max | I/Os  | waits\n"
    << "  -----+-------------------+---------------+-------+------\n";
  for (const Run& r : runs) {
    char line[160];
    std::snprintf(line, sizeof line, "  %4d | %17.1f | %13.0f | %5.0f | %5.0f\n", r.eic, r.ms,
                  number_after(r.prefetch, "in flight max="), number_after(r.prefetch, "I/Os="),
                  number_after(r.prefetch, "waits="));
    t << line;
  }
  g.note(t.str());
  g.look_at(
      "the time from eic 1 to 8 (the device works on several reads at once) against "
      "8 to 64 (the gain shrinks once the device's queue is full, or the scan's CPU "
      "work is the limit); waits fall as reads are issued further ahead.");
}

void run(Guide& g) {
  g.table({"eic_t",
           g.rows(),
           {"CREATE TABLE eic_t (a int, b int) WITH (fillfactor = 10)",
            "INSERT INTO eic_t SELECT i, i FROM generate_series(1, " + num(g.rows()) +
                ") s(i) ORDER BY random()",
            "CREATE INDEX eic_t_a_idx ON eic_t (a)", "ANALYZE eic_t"},
           {"eic_t_a_idx"}});
  g.step("the I/O set up: direct I/O, so that the OS page cache does not answer reads");
  const std::string method = choose_method(g);
  g.set({"SET io_direct = on", "SET io_combine_limit = 1", "SET enable_seqscan = off",
         "SET enable_indexscan = off"});
  g.look_at("io_method = " + method +
            ". A bitmap heap scan reads its pages in block order but with gaps. With "
            "io_combine_limit = 1 each page is a read of its own (8 kB), so only reads in "
            "flight together can use the device's parallelism.");
  const uint64_t k = std::max<uint64_t>(1, g.rows() / 50);
  std::vector<Run> runs;
  for (int eic : {1, 8, 64}) runs.push_back(scan_at(g, eic, k));
  summary(g, runs);
  g.set({"RESET effective_io_concurrency", "RESET enable_seqscan", "RESET enable_indexscan",
         "RESET io_direct", "RESET io_combine_limit", "RESET io_workers", "RESET io_method"});
}

}  // namespace

LabDef eic_lab() {
  return {"eic",
          "effective_io_concurrency: a cold bitmap heap scan at eic 1, 8, 64",
          100'000,
          run,
          {"Why does a bitmap heap scan need effective_io_concurrency when a seq scan of "
           "the same table gets most of its speed from io_combine_limit?",
           "in flight max stays below the limit at some settings: what stops the stream from "
           "using all of it (look at the distance on the same line)?",
           "On a single spinning disk, what would you expect from eic 64, and why?",
           "Why does the lab turn on io_direct? What would the OS page cache's read-ahead "
           "do to the comparison?"},
          {{"bufmgr/read_stream.h",
            "how a stream keeps up to effective_io_concurrency reads "
            "in flight"},
           {"scans/bitmap_scan.cc", "the bitmap heap scan feeding its stream in block order"},
           {"aio/method_uring.cc", "io_uring: reads handed to the kernel in one batch"},
           {"aio/method_worker.cc", "the worker method: I/O threads as the queue"},
           {"tools/experiments/eic.cc", "the full eic experiment (eic 0..256, every method)"}}};
}

}  // namespace tp::labs
