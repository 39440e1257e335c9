// prefetch-limit: index prefetching reads heap pages ahead of an index scan, which pays
// off on a long scan and can be wasted on a short one. Cold index scans of a shuffled
// fillfactor-10 table, whole and under LIMIT 10 / LIMIT 100, with index_prefetch off, on
// (the stream starts after a few heap-block switches) and immediate.
#include <cstdio>
#include <ostream>
#include <sstream>

#include "tools/experiments/explain.h"
#include "tools/labs/labs.h"

namespace tp::labs {

namespace {

std::string num(uint64_t n) {
  return std::to_string(n);
}

struct Run {
  std::string query;
  std::string prefetch_setting;
  double ms = 0;
  uint64_t read = 0;
  std::string prefetch;  // the Prefetch line, "" without a stream
};

Run scan(Guide& g, const std::string& limit, const std::string& prefetch) {
  const std::string what = limit.empty() ? "whole index" : limit;
  g.step("cold index scan, " + what + ", index_prefetch = " + prefetch);
  g.set({"SET index_prefetch = " + prefetch});
  g.cold({"pf_t", "pf_t_a_idx"});
  ResultSet r = g.run("EXPLAIN (ANALYZE, BUFFERS) SELECT a, b FROM pf_t ORDER BY a" +
                      (limit.empty() ? "" : " " + limit));
  Run run;
  run.query = what;
  run.prefetch_setting = prefetch;
  experiments::parse_execution_time_ms(r, &run.ms);
  uint64_t hit = 0;
  experiments::parse_top_buffers(r, &hit, &run.read);
  run.prefetch = explain_line(r, "Prefetch:");
  if (prefetch == "off") {
    g.look_at(
        "no Prefetch line: each heap page is read when the scan reaches its row, one "
        "at a time. shared read=" +
        num(run.read) + ".");
    return run;
  }
  const uint64_t ios = uint64_t(number_after(run.prefetch, "I/Os="));
  const uint64_t wasted = uint64_t(number_after(run.prefetch, "wasted="));
  g.look_at("the Prefetch line: I/Os=" + num(ios) + " against shared read=" + num(run.read) +
            " (Buffers counts the blocks the query used)" +
            (wasted ? "; wasted=" + num(wasted) +
                          ": blocks read ahead that the query stopped "
                          "before using."
                    : ": nothing read ahead was left unused."));
  return run;
}

void summary(Guide& g, const std::vector<Run>& runs) {
  g.step("all runs side by side");
  std::ostringstream t;
  t << "  query        index_prefetch  Execution ms  shared read   I/Os  wasted\n";
  for (const Run& r : runs) {
    char line[160];
    const bool stream = !r.prefetch.empty();
    std::snprintf(line, sizeof line, "  %-12s %-15s %12.2f %12llu %6s  %6s\n", r.query.c_str(),
                  r.prefetch_setting.c_str(), r.ms, (unsigned long long)r.read,
                  stream ? num(uint64_t(number_after(r.prefetch, "I/Os="))).c_str() : "-",
                  stream ? num(uint64_t(number_after(r.prefetch, "wasted="))).c_str() : "-");
    t << line;
  }
  g.note(t.str());
  g.look_at(
      "the whole-index scan is several times faster with prefetching: its reads overlap. "
      "Under LIMIT the stream issues more I/Os than the query uses (wasted). On an idle fast "
      "device the extra reads cost this one query little time; they cost device bandwidth, "
      "which a busy server's queries share (the index-prefetch experiment measures LIMIT 1 "
      "queries per second: tools/experiments/README.md).");
}

void run(Guide& g) {
  g.table({"pf_t",
           g.rows(),
           {"CREATE TABLE pf_t (a int, b int) WITH (fillfactor = 10)",
            "INSERT INTO pf_t SELECT i, i FROM generate_series(1, " + num(g.rows()) +
                ") s(i) ORDER BY random()",
            "CREATE INDEX pf_t_a_idx ON pf_t (a)", "ANALYZE pf_t"},
           {"pf_t_a_idx"}});
  g.step("index scans only, so that every query below reads the heap in the index's order");
  g.set({"SET enable_seqscan = off", "SET enable_bitmapscan = off"});
  g.look_at(
      "pf_t is shuffled: consecutive index entries point at pages far apart, so each "
      "heap fetch is a random read unless something read it ahead.");
  std::vector<Run> runs;
  for (const char* p : {"off", "on"}) runs.push_back(scan(g, "", p));
  for (const char* limit : {"LIMIT 10", "LIMIT 100"})
    for (const char* p : {"off", "on", "immediate"}) runs.push_back(scan(g, limit, p));
  summary(g, runs);
  g.set({"RESET index_prefetch", "RESET enable_seqscan", "RESET enable_bitmapscan"});
}

}  // namespace

LabDef prefetch_limit_lab() {
  return {"prefetch-limit",
          "index prefetching and LIMIT: off, on, immediate; whole scans and LIMIT 10/100",
          100'000,
          run,
          {"Why does index_prefetch = on wait for a few heap-block switches before starting "
           "its stream? What does that cost a long scan?",
           "Under LIMIT 10, where do immediate's wasted reads come from, and why can they "
           "make the query slower although the reads run in parallel?",
           "A planner does not know the LIMIT will stop the scan early in every case (think "
           "of a WHERE clause that filters). How would you choose the start rule then?"},
          {{"scans/index_scan.cc", "the index scan and its heap-fetch stream"},
           {"scans/README.md", "index prefetching: when the stream starts and what it reads"},
           {"bufmgr/read_stream.h", "the stream's distance and its wasted-read count"},
           {"bufmgr/prefetch_policy.h", "the policy interface that decides the start"},
           {"tools/experiments/index_prefetch.cc", "the full experiment (patch 4351)"}}};
}

}  // namespace tp::labs
