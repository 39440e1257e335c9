// read-streams: a seq scan reads through a read stream, which merges consecutive blocks
// into one larger read up to io_combine_limit. The same cold scan at io_combine_limit 1
// (8 kB reads, one per page) and 16 (128 kB, the default): EXPLAIN's Prefetch line and
// pg_stat_io count the reads and their average size. One more run writes an I/O trace.
#include <ostream>

#include "tools/labs/labs.h"
#include "tools/trace/trace_data.h"
#include "tools/trace/trace_summary.h"

namespace tp::labs {

namespace {

std::string num(uint64_t n) {
  return std::to_string(n);
}

const char* const kScan = "EXPLAIN (ANALYZE, BUFFERS) SELECT count(*) FROM rs_t";
const char* const kStatIo =
    "SELECT method, context, reads, read_blocks, avg_read_kb FROM pg_stat_io WHERE reads > 0";

// "113.8" from "avg size=113.8 kB".
std::string avg_size(const std::string& prefetch) {
  size_t at = prefetch.find("avg size=");
  if (at == std::string::npos) return "?";
  at += 9;
  return prefetch.substr(at, prefetch.find(' ', at) - at);
}

void scan_at(Guide& g, int combine, uint64_t pages) {
  const std::string kb = num(uint64_t(combine) * 8);
  g.step("cold seq scan at io_combine_limit = " + num(combine) + " (" + kb + " kB)");
  g.set({"SET io_combine_limit = " + num(combine)});
  g.run("SELECT pg_stat_reset_shared('io')");
  g.cold({"rs_t"});
  ResultSet r = g.run(kScan);
  const std::string prefetch = explain_line(r, "Prefetch:");
  g.look_at("the Prefetch line: I/Os=" + num(uint64_t(number_after(prefetch, "I/Os="))) + " for " +
            num(pages) + " pages, avg size=" + avg_size(prefetch) + " kB" +
            (combine == 1 ? ": one read per page."
                          : ": consecutive blocks merged into reads of up to " + kb + " kB."));
  g.run(kStatIo);
  g.look_at(
      "pg_stat_io counts the same reads for the whole process: reads, read_blocks and "
      "avg_read_kb (" +
      std::string(combine == 1 ? "8.0" : "near " + kb) +
      "). Compare the Execution Time with the other run's.");
}

void traced(Guide& g) {
  const std::string path = g.out_dir() + "/read-streams.json";
  g.step("the same scan once more, with its I/O trace written to a file");
  g.set({"SET io_trace = '" + path + "'"});
  g.cold({"rs_t"});
  g.run(kScan);
  g.set({"RESET io_trace"});
  g.look_at("the \"I/O Trace:\" line: how many I/Os the file holds and where it went.");
  int calls = 0;
  for (const auto& [thread, n] : trace_syscalls_by_thread(path)) calls += n;
  g.note("The trace parses: " + num(uint64_t(calls)) +
         " system-call slices. What it holds, by "
         "`tidepool trace summary " +
         path + "`:");
  g.note(trace::trace_summary(trace::load_trace(path)));
  g.look_at(
      "\"I/Os by size and method\" (the 128 kB reads), the latency of one such read, and "
      "\"look-ahead distance, seq scan\": how far ahead the stream kept reading.");
  g.picture({path}, {"cold seq scan, io_combine_limit 16"}, g.out_dir() + "/read-streams.png");
  g.look_at(
      "in the picture, the look-ahead distance climbing at the start of the scan, and the "
      "I/Os in flight under it.");
}

void run(Guide& g) {
  g.table({"rs_t",
           g.rows(),
           {"CREATE TABLE rs_t (a int, b int) WITH (fillfactor = 10)",
            "INSERT INTO rs_t SELECT i, i FROM generate_series(1, " + num(g.rows()) + ") s(i)",
            "ANALYZE rs_t"},
           {}});
  g.step("the table's size");
  const uint64_t pages = g.relation_pages("rs_t");
  g.look_at(num(pages) +
            " pages: a seq scan reads them in block order, the best case for "
            "merging reads.");
  scan_at(g, 1, pages);
  scan_at(g, 16, pages);
  g.set({"RESET io_combine_limit"});
  traced(g);
}

}  // namespace

LabDef read_streams_lab() {
  return {"read-streams",
          "read streams and I/O combining: io_combine_limit 1 vs 16, pg_stat_io, a trace",
          100'000,
          run,
          {"At io_combine_limit 1, why is I/Os about equal to the table's pages?",
           "Why is the 128 kB run's average read size a little under 128 kB?",
           "What limits how large a merged read can be besides io_combine_limit (think of "
           "the ring, the pin budget, and blocks already in the pool)?",
           "Would an index scan of a shuffled table gain anything from io_combine_limit?"},
          {{"bufmgr/read_stream.h", "the read stream: look-ahead distance and combining"},
           {"bufmgr/read_stream.cc", "where consecutive blocks merge into one read"},
           {"aio/stats.h", "the counters pg_stat_io shows"},
           {"scans/seq_scan.cc", "the seq scan's stream over the table's blocks"},
           {"engine/session/trace_file.h", "every event of the I/O trace file"}}};
}

}  // namespace tp::labs
