// The engine step: what one read at a time costs through the engine's own scans. The
// probe issues its depth-1 reads back to back; a scan at effective_io_concurrency 0 also
// finds a victim buffer, waits for the read, verifies and visits the page between two
// reads, and the worker method hands every read to a thread and back, so its reads one at
// a time can take longer (or, with the kernel's read-ahead behind a buffered seq scan,
// less) than the probe's. A plan without prefetching pays exactly these: cold scans of
// the scattered scratch table at effective_io_concurrency 0, one per I/O method and
// mode, give each curve's s1 (a seq scan) and d1 (an index scan without prefetching),
// with the CPU figures measured before taken out.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "engine/core/error.h"
#include "engine/core/interrupts.h"
#include "engine/session/session.h"
#include "tools/calibrate/calibrate.h"

namespace tp::calibrate {

namespace {

// An engine figure below this share of the probe's came from a cache, not the device
// (the kernel kept the pages): the probe's figure is kept.
constexpr double kImplausibleShare = 0.25;

// Buffers line and execution time of an EXPLAIN (ANALYZE, BUFFERS, TIMING OFF).
struct ColdRun {
  double ms = 0;
  uint64_t reads = 0;
};

// The pool emptied and, for buffered I/O, the table and its index dropped from the
// kernel's page cache, as the experiments' cold runs do.
void make_cold(Session& s, bool direct) {
  s.storage().evict_all();
  if (direct) return;
  for (const char* name : {kScatteredTable, kScatteredIndexName}) {
    const RelationEntry* rel = s.catalog().find(name);
    if (rel == nullptr)
      throw Error(std::string("calibrate: scratch relation ") + name + " is missing");
    int fd = s.storage().file(*rel).buffered_fd();
    if (::fdatasync(fd) != 0)
      throw Error(std::string("calibrate: fdatasync of ") + name +
                  " failed: " + std::strerror(errno));
    if (int rc = ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED); rc != 0)
      throw Error(std::string("calibrate: could not drop ") + name +
                  " from the page cache: " + std::strerror(rc));
  }
}

ColdRun cold_run(Session& s, bool direct, const std::string& sql) {
  check_for_interrupts();
  make_cold(s, direct);
  ColdRun run;
  bool buffers_seen = false;
  for (const auto& row : s.execute("EXPLAIN (ANALYZE, BUFFERS, TIMING OFF) " + sql).rows) {
    if (row.empty()) continue;
    const std::string& line = row[0];
    // The top node's line comes first and counts its children's reads too.
    if (!buffers_seen && line.find("Buffers: shared") != std::string::npos) {
      run.reads = explain_field(line, "read=");
      buffers_seen = true;
    }
    if (size_t at = line.find("Execution Time: "); at != std::string::npos)
      run.ms = std::strtod(line.c_str() + at + 16, nullptr);
  }
  return run;
}

// Keeps `engine_us` as the curve's figure unless a cache answered the reads.
double checked(double engine_us, double probe_us, const std::string& what,
               std::vector<std::string>* notes) {
  if (probe_us <= 0 || engine_us >= kImplausibleShare * probe_us) return engine_us;
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "%s: the engine's scan took %.3g us per read against the probe's %.3g; "
                "a cache answered it, the probe's figure kept",
                what.c_str(), engine_us, probe_us);
  notes->emplace_back(buf);
  return probe_us;
}

void measure_one(Session& s, const CpuFigures& f, uint64_t index_rows, DeviceResult* d,
                 std::vector<std::string>* notes) {
  const std::string mode = d->method + (d->direct ? " direct" : " buffered");
  s.execute("SET io_method = " + d->method);
  s.execute(std::string("SET io_direct = ") + (d->direct ? "on" : "off"));
  const std::string count = std::string("SELECT count(b) FROM ") + kScatteredTable;
  EngineReads& e = d->engine;

  s.execute("SET enable_seqscan = on");
  s.execute("SET enable_indexscan = off");
  const ColdRun seq = cold_run(s, d->direct, count);
  e.seq_ms = seq.ms, e.seq_reads = seq.reads, e.seq_rows = f.scattered_rows;
  if (seq.reads > 0) {
    const double pages = double(seq.reads);
    const double cpu_us =
        pages * (f.page_hit_us + f.page_read_cpu_us) + double(f.scattered_rows) * f.cpu_tuple_us;
    e.s1_us = checked((seq.ms * 1000 - cpu_us) / pages, d->curve.seq1_us, mode + " s1", notes);
  }

  s.execute("SET enable_seqscan = off");
  s.execute("SET enable_indexscan = on");
  const ColdRun index = cold_run(s, d->direct, count + " WHERE a <= " + std::to_string(index_rows));
  e.index_ms = index.ms, e.index_reads = index.reads, e.index_rows = index_rows;
  if (index.reads > 0) {
    // Each entry: the index tuple, the heap tuple, the index cond, and its heap visit.
    const double entry_us =
        f.cpu_index_tuple_us + f.cpu_tuple_us + f.cpu_operator_us + f.index_fetch_us;
    const double cpu_us = double(index_rows) * entry_us + double(index.reads) * f.page_read_cpu_us;
    const double probe_d1 = d->curve.random_us.front().second;
    e.d1_us =
        checked((index.ms * 1000 - cpu_us) / double(index.reads), probe_d1, mode + " d1", notes);
  }
}

}  // namespace

void measure_engine_reads(const std::string& scratch_dir, const CpuFigures& cpu,
                          std::vector<DeviceResult>* devices, std::vector<std::string>* notes,
                          const std::function<void(const std::string&)>& say) {
  say("engine: cold scans at effective_io_concurrency 0, per I/O method and mode");
  auto db = open_scratch(scratch_dir);
  Session s(db);
  for (const char* setting : {"effective_io_concurrency = 0", "index_prefetch = off",
                              "enable_bitmapscan = off", "enable_indexonlyscan = off"})
    s.execute(std::string("SET ") + setting);
  // About 4,000 heap pages, each a read of its own: a few tenths of a second at the
  // device's latency, and few enough that the table's index leaves are a rounding error.
  const uint64_t index_rows =
      std::max<uint64_t>(100, std::min<uint64_t>(4000, cpu.scattered_rows / 10));
  for (DeviceResult& d : *devices) {
    if (d.curve.random_us.empty() || d.curve.random_us.front().first != 1) continue;
    measure_one(s, cpu, index_rows, &d, notes);
    EngineReads& e = d.engine;
    char line[200];
    std::snprintf(line, sizeof line, "%s %s: s1 %.2f us (probe %.2f), d1 %.1f us (probe %.1f)",
                  d.method.c_str(), d.direct ? "direct" : "buffered", e.s1_us, d.curve.seq1_us,
                  e.d1_us, d.curve.random_us.front().second);
    say(line);
    e.probe_s1_us = d.curve.seq1_us;
    e.probe_d1_us = d.curve.random_us.front().second;
    if (e.s1_us > 0) d.curve.seq1_us = e.s1_us;
    if (e.d1_us > 0) d.curve.random_us.front().second = e.d1_us;
  }
}

}  // namespace tp::calibrate
