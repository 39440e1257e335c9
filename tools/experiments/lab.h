// The lab: what every experiment shares. It owns the session on the
// experiment data directory, runs SQL steps (naming the step when one fails),
// makes runs cold, times statements, repeats measurements, reuses tables whose
// definition is unchanged, prints progress and stops cleanly on Ctrl-C.
//
//   Lab lab(options);
//   lab.ensure_table({"t", 1000000, {"CREATE TABLE t ...", "INSERT INTO t ..."}});
//   lab.sql("SET effective_io_concurrency = 0");
//   lab.make_cold({"t"});
//   Timed run = lab.timed("SELECT count(*) FROM t");  // wall ms, buffers hit/read
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/session/session.h"

namespace tp::experiments {

struct LabOptions {
  uint64_t rows = 1'000'000;          // rows of the article tables (rpc, selectivity, eic, ...)
  uint64_t iomethod_table_mb = 2048;  // size of the iomethod experiment's table
  // The iomethod grid's parallel worker counts (the article's axis).
  std::vector<int> iomethod_workers = {0, 1, 2, 4, 8, 16, 32};
  // Rows of the index-prefetch table: its nine cold full index scans at 1 M rows
  // would take ten minutes here, more than the default run's budget.
  uint64_t prefetch_rows = 200'000;
  // rpc: the smallest pool the experiment lowers shared_buffers to, in 8 kB blocks, so that
  // its table is 4x the pool (the pin budget, a sixteenth of the pool, must not throttle
  // prefetching: 1024 blocks = 8 MB, 64 pins). Tests lower it.
  int64_t min_pool_blocks = 1024;
  // The tidepool executable the `limit` experiment serves its data directory with (for
  // pgbench); empty: this process's own, when it is a `tidepool`.
  std::string tidepool_binary;
  // limit: the longest round of queries per point (tests shorten it).
  double limit_round_seconds = 0.25;
  // prefetch-suite: queries generated from its families besides its own 15, and the
  // generator's seed (the same seed, the same queries).
  int suite_random = 10;
  uint64_t suite_seed = 1;
  // prefetch-suite: rounds per query, each running every configuration once (a cold
  // run on this VM varies by up to 30%, so three runs cannot tell 6%).
  int suite_rounds = 7;
  // prefetch-suite: a warm round's executions per configuration fill this long
  // (--suite-warm-ms; tests shorten it).
  double suite_warm_ms = 100;
  // rpc --sweep: also estimate random_page_cost over several tables (rpc_sweep.cc).
  bool rpc_sweep = false;
  std::string data_dir;  // default: <out_dir>/data
  std::string out_dir = "results";
  int repeat = 3;  // each measurement this many times (medians reported)
  // A measurement whose first run took longer than this is not repeated (keeps the
  // default run of `all` inside its time budget; 0 = always repeat).
  double max_repeat_seconds = 20;
  std::vector<std::string> settings;  // --set name=value, the session's starting values
  bool fresh = false;                 // rebuild tables even when reusable
  bool drop_caches = false;           // also write /proc/sys/vm/drop_caches (root only)
  // Run `tidepool calibrate` on the data directory before the experiments (`all` does
  // unless --no-calibrate), so the prefetch-aware model is priced for this machine.
  bool calibrate = false;
  std::vector<std::string> calibrate_args;  // --calibrate-option: more arguments for it
  bool progress = true;                     // progress lines on stderr
  // Tests: a progress step whose label contains this acts as a Ctrl-C pressed at that
  // step (the experiment stops at its next statement), to check what a stop keeps.
  std::string stop_at_step;
  double device_seconds = 1.0;     // device experiment: seconds per measurement
  uint64_t device_file_mb = 2048;  // device experiment: probe file size
};

// A statement's measurement. Buffers come from EXPLAIN (ANALYZE, BUFFERS)
// output when the statement is one, else from the thread's buffer counters.
struct Timed {
  double wall_ms = 0;       // wall time of Session::execute
  double execution_ms = 0;  // EXPLAIN's "Execution Time", else wall_ms
  uint64_t shared_hit = 0;
  uint64_t shared_read = 0;
  ResultSet result;
};

// Thrown when Ctrl-C asked the experiment to stop; runs already measured are kept.
struct Stopped {};

// The step-by-step progress of one experiment: "[rpc] step 3/12 cold seq scan (eic=16)
// elapsed 41 s, about 80 s left".
class Progress {
 public:
  // Prints when options.progress; honours options.stop_at_step.
  Progress(std::string experiment, int total_steps, const LabOptions& options);
  // Announces the next step; its duration feeds the estimate of what is left.
  void step(const std::string& what);

 private:
  std::string experiment_;
  int total_;
  int done_ = 0;
  bool enabled_;
  std::string stop_at_;
  std::chrono::steady_clock::time_point start_;
};

// A table an experiment needs: the statements that build it, in order. The lab
// remembers which of them completed for this name and row count; a later run
// runs only the missing tail (so the 10 M-row table is loaded once).
struct TableSpec {
  std::string name;
  uint64_t rows = 0;
  std::vector<std::string> setup;    // CREATE TABLE, INSERT, CREATE INDEX, ANALYZE, ...
  std::vector<std::string> indexes;  // index names the setup creates (cold runs drop them too)
};

class Lab {
 public:
  // Creates the data and output directories; installs the SIGINT handler. The
  // session opens on first use.
  explicit Lab(LabOptions options);
  ~Lab();
  Lab(const Lab&) = delete;
  Lab& operator=(const Lab&) = delete;

  const LabOptions& options() const { return options_; }
  Session& session();
  // Closes the session (its I/O system and pool): the device probe needs the
  // thread free of any other I/O system.
  void close_session() { session_.reset(); }

  // Runs one statement. On failure throws tp::Error whose message starts with
  // `SQL step "<sql>" failed:` and keeps the engine's message (which names what
  // is missing). Throws Stopped if Ctrl-C was pressed.
  ResultSet sql(const std::string& statement);
  // Runs `statement` and measures it (see Timed).
  Timed timed(const std::string& statement);

  // Builds or reuses the table (see TableSpec). With --fresh the table is rebuilt.
  void ensure_table(const TableSpec& spec);
  // Makes the next run cold for these relations: empties the pool; with
  // buffered I/O drops their files from the OS page cache (and, with
  // --drop-caches as root, the whole page cache).
  void make_cold(const std::vector<std::string>& relations);
  // Empties the pool of one relation's pages only (warm index, cold heap).
  void make_relation_cold(const std::string& relation);
  // Back to the session's starting settings (RESET ALL), with parallel query off
  // (max_parallel_workers_per_gather = 0) unless --set chose otherwise; ignores
  // the stop flag.
  void reset_settings();

  // SET name = value unless the user chose the setting with --set (an
  // experiment's default that the command line can override). Like
  // reset_settings, it ignores the stop flag.
  void default_setting(const std::string& name, const std::string& value);
  // Whether the user chose the setting with --set.
  bool user_set(const std::string& name) const;
  // Every setting, "name=value", for the CSV.
  std::vector<std::pair<std::string, std::string>> all_settings();

  // Throws Stopped when Ctrl-C was pressed since the lab started.
  void check_stop() const;
  static std::atomic<bool>& stop_flag();

  // How many times to run a measurement whose first run took `first_ms`.
  int repeats_after(double first_ms) const;

 private:
  LabOptions options_;
  std::unique_ptr<Session> session_;
  std::string marker_path_;
  std::string session_error_;  // why the session could not open, once it failed
  void* previous_handler_ = nullptr;
};

// Median of the values (0 for none) and their spread (max - min).
double median(std::vector<double> values);
double spread(const std::vector<double>& values);

}  // namespace tp::experiments
