// io-methods: the same cold seq scan under io_method sync, worker and io_uring, each with
// its own I/O trace. The trace says which thread ran the read system calls: the query
// thread itself under sync, the I/O workers under worker, none under io_uring (the
// kernel runs the reads; the query thread only submits and reaps).
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
  std::string method;
  double ms = 0;
  std::string threads;  // "query: 12, io worker 1: 3", or why there is no run
};

std::string threads_text(const std::vector<std::pair<std::string, int>>& calls) {
  if (calls.empty()) return "none (the kernel ran them)";
  std::string s;
  for (const auto& [name, n] : calls) s += (s.empty() ? "" : ", ") + name + ": " + num(n);
  return s;
}

Run scan_with(Guide& g, const std::string& method) {
  Run run;
  run.method = method;
  g.step("cold seq scan under io_method = " + method + ", traced");
  try {
    g.set({"SET io_method = " + method});
  } catch (const Error& e) {
    g.note(std::string("io_method = ") + method + " is not available on this machine: " + e.what() +
           (e.hint().empty() ? "" : " (" + e.hint() + ")") + ". The lab goes on without it.");
    run.threads = "not available here";
    return run;
  }
  const std::string path = g.out_dir() + "/io-methods-" + method + ".json";
  g.set({"SET io_trace = '" + path + "'"});
  g.cold({"iom_t"});
  ResultSet r = g.run("EXPLAIN (ANALYZE, BUFFERS) SELECT count(*) FROM iom_t");
  g.set({"RESET io_trace"});
  experiments::parse_execution_time_ms(r, &run.ms);
  run.threads = threads_text(trace_syscalls_by_thread(path));
  g.note("System calls in " + path + ", by thread: " + run.threads);
  if (method == "sync")
    g.look_at(
        "the query thread ran every read itself: while a read is in the kernel the "
        "scan does nothing else (it can only hint ahead with posix_fadvise).");
  else if (method == "worker")
    g.look_at(
        "the reads ran on the \"io worker\" threads; the query thread queued them and "
        "went on, waiting only when a page it needed was not there yet.");
  else
    g.look_at(
        "no thread of tidepool ran a read call: the query thread submitted them to the "
        "ring and the kernel completed them.");
  return run;
}

void summary(Guide& g, const std::vector<Run>& runs) {
  g.step("the three methods side by side");
  std::ostringstream t;
  for (const Run& r : runs) {
    char ms[32] = "-";
    if (r.ms > 0) std::snprintf(ms, sizeof ms, "%.1f ms", r.ms);
    t << "  " << r.method << std::string(10 - r.method.size(), ' ') << ms
      << std::string(12 - std::string(ms).size(), ' ') << "system calls: " << r.threads << "\n";
  }
  g.note(t.str());
  std::vector<std::string> files, titles;
  for (const Run& r : runs)
    if (r.ms > 0) {
      files.push_back(g.out_dir() + "/io-methods-" + r.method + ".json");
      titles.push_back("io_method = " + r.method);
    }
  g.picture(files, titles, g.out_dir() + "/io-methods.png");
  g.note("Each trace in text: tidepool trace summary FILE.");
  g.look_at(
      "in each trace the track that holds the read slices, and the Execution Times: "
      "what each method costs per read (a system call on the query thread, a hand-off "
      "to a worker and back, a ring submission) on this device.");
}

void run(Guide& g) {
  g.table({"iom_t",
           g.rows(),
           {"CREATE TABLE iom_t (a int, b int) WITH (fillfactor = 10)",
            "INSERT INTO iom_t SELECT i, i FROM generate_series(1, " + num(g.rows()) + ") s(i)",
            "ANALYZE iom_t"},
           {}});
  g.step("the table's size");
  const uint64_t pages = g.relation_pages("iom_t");
  g.look_at(num(pages) + " pages; each method below reads all of them cold.");
  std::vector<Run> runs;
  for (const char* method : {"sync", "worker", "io_uring"}) runs.push_back(scan_with(g, method));
  g.set({"RESET io_method"});
  summary(g, runs);
}

}  // namespace

LabDef io_methods_lab() {
  return {"io-methods",
          "io_method sync, worker, io_uring: one cold seq scan each, traced",
          200'000,
          run,
          {"Under sync, which thread waits in the kernel for each read? Where is that wait "
           "under worker, and under io_uring?",
           "The worker method adds a hand-off between threads for every read. When can it "
           "still be as fast as io_uring?",
           "With io_direct = off, the sync method still gets ahead of the scan. How (see "
           "pg_stat_io's fadvises column)?"},
          {{"aio/README.md", "the three methods and an I/O's life from staged to reaped"},
           {"aio/method_sync.cc", "sync: the issuing thread runs preadv itself"},
           {"aio/method_worker.cc", "worker: the queue and the I/O worker threads"},
           {"aio/method_uring.cc", "io_uring: one ring per thread, submit and reap"},
           {"engine/session/trace_file.h", "the trace's tracks and the io.syscall slices"}}};
}

}  // namespace tp::labs
