// `tidepool calibrate -D DIR`: measures this machine's device through the aio layer and
// the engine's CPU costs, and writes the prefetch-aware cost model's settings they imply
// into DIR/tidepool.conf, between two marker lines (tools/calibrate/README.md).
//
//   command.cc    options, claiming DIR, the order of the steps, the report
//   device.cc     the device probe's rows -> one DeviceCurve per method and mode
//   cpu.cc        a scratch Database inside DIR: cached scans solved for per-page,
//                 per-tuple, per-operator and per-index-entry costs; checksums; preads
//   engine_reads.cc  cold scans of its scattered table at effective_io_concurrency 0:
//                 each curve's s1 and d1 as the engine's scans achieve them
//   conf_block.cc the marker block's text, and splicing it into the user's conf
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "aio/aio.h"
#include "aio/device_probe.h"
#include "engine/plan/device_curve.h"
#include "engine/session/database.h"
#include "engine/session/settings_defs_model.h"

namespace tp::calibrate {

inline constexpr const char* kBlockBegin = "# BEGIN tidepool calibrate";
inline constexpr const char* kBlockEnd = "# END tidepool calibrate";
// Inside DIR, created and removed by the CPU step; a killed run leaves it for the next.
inline constexpr const char* kScratchName = "calibrate_scratch";
// The scratch table that is shuffled, fillfactor 10 and larger than the CPU caches (the
// experiments' tables are), and its index on a.
inline constexpr const char* kScatteredTable = "calibrate_scattered";
inline constexpr const char* kScatteredIndexName = "calibrate_scattered_a_idx";

struct Options {
  std::string data_dir;
  double seconds_per_run = 0.3;  // each device measurement
  uint64_t file_size_mb = 0;     // 0: the existing probe file's size, else 1024
  std::vector<aio::IoMethodKind> methods = {aio::IoMethodKind::kSync, aio::IoMethodKind::kWorker,
                                            aio::IoMethodKind::kIoUring};
  std::vector<int> depths = {1, 2, 4, 8, 16, 32, 64};
  int io_workers = 3;    // the worker method's threads (DIR's conf value when it sets one)
  int cpu_repeats = 15;  // rounds of each trial's timed queries, the fastest kept
  int cpu_trials = 5;    // trials of the cached scans, spread over seconds; medians kept
  // Rows of the two scratch tables: sparse at fillfactor 10, dense at 100.
  uint64_t sparse_rows = 300000;  // fillfactor 10: 13,637 pages, beyond the CPU caches
  uint64_t dense_rows = 300000;
  // Shuffled, fillfactor 10: an index scan's random visits. The rows an index scan touches
  // must overflow the CPU's last-level cache, as the experiments' 1 M-row tables do.
  uint64_t scattered_rows = 1000000;
  bool dry_run = false;
  bool quiet = false;
};

// One (method, mode)'s reads one at a time through the engine (engine_reads.cc).
struct EngineReads {
  double seq_ms = 0;  // cold seq scan, effective_io_concurrency 0
  uint64_t seq_reads = 0, seq_rows = 0;
  double index_ms = 0;  // cold index scan without prefetching
  uint64_t index_reads = 0, index_rows = 0;
  double s1_us = 0, d1_us = 0;              // solved; 0: not measured
  double probe_s1_us = 0, probe_d1_us = 0;  // what the probe measured, which they replace
};

// One (method, mode): its curve and the figures it came from.
struct DeviceResult {
  std::string method;
  bool direct = false;
  DeviceCurve curve;
  double seq_mb_per_s = 0;
  struct Random {
    int depth = 0;
    double iops = 0;
    double latency_us = 0;
  };
  std::vector<Random> random;
  EngineReads engine;
};

// The curves of every (method, mode) the probe measured, in its order. A row that read
// nothing (or read wrong data) leaves its depth out; a mode without seq or d1 is dropped
// with a note.
std::vector<DeviceResult> device_results(const std::vector<aio::DeviceProbeRow>& rows,
                                         std::vector<std::string>* notes);
// Runs the device probe on DIR's probe file (created or reused) with `options`' methods,
// depths, seconds and file size (already resolved), both modes, and returns the curves.
// A method that cannot start here is a note. Call with no other IoSystem in use.
std::vector<DeviceResult> measure_device(const Options& options, std::vector<std::string>* notes,
                                         const std::function<void(const std::string&)>& say);

struct CpuFigures {
  double cpu_tuple_us = 0;
  double cpu_index_tuple_us = 0;
  double cpu_operator_us = 0;
  double page_hit_us = 0;
  double page_read_cpu_us = 0;
  double os_cache_page_us = 0;
  // What they were solved from, for the report and the block's comments.
  uint64_t sparse_pages = 0, sparse_rows = 0, dense_pages = 0, dense_rows = 0;
  uint64_t scattered_rows = 0;
  double sparse_ms = 0, dense_ms = 0, qual1_ms = 0, qual2_ms = 0;
  double index_sparse_ms = 0, index_ms = 0;  // full index scans, sparse and dense
  uint64_t index_sparse_hits = 0, index_hits = 0;
  double index_fetch_us = 0;       // an index scan's heap page visit (solved with the index tuple)
  double prefetch_index_ms = 0;    // the scattered index scan with index_prefetch = immediate
  double stream_block_us = 0;      // what the stream adds per heap visit
  double bitmap_ms = 0;            // the same tenth as a bitmap heap scan
  uint64_t bitmap_pages = 0;       // its heap pages
  double bitmap_page_us = 0;       // per heap page beyond the entries' work
  int trials = 0;                  // how many trials the figures are the medians of
  std::vector<std::string> notes;  // clamped figures, pages not cached
};

// Opens a scratch Database at `scratch_dir` (created, or a leftover of a killed run
// holding only calibrate's tables), loads the two tables, times the cached queries, and
// times checksums and preads of the cached `probe_file`. Sets *claimed once the scratch
// directory is known to be calibrate's (created, or holding only its tables): only then
// may the caller remove it, even after an error. Call with no other IoSystem in use on
// this thread.
CpuFigures measure_cpu(const std::string& scratch_dir, const std::string& probe_file,
                       const Options& options, const std::function<void(const std::string&)>& say,
                       bool* claimed);
// The number after `key` in an EXPLAIN line ("hit=" in "Buffers: shared hit=12 read=3"),
// or 0.
uint64_t explain_field(const std::string& line, const char* key);
// The scratch directory's Database: new, or a killed run's leftover holding nothing but
// calibrate's tables (anything else is someone's data: refused with an error).
std::shared_ptr<Database> open_scratch(const std::string& scratch_dir);
// Cold scans of the scratch directory's scattered table (measure_cpu loaded it) at
// effective_io_concurrency 0 under each device's method and mode: its curve's s1 and d1
// become what the engine's seq scan and index scan without prefetching take per read, the
// CPU figures `cpu` taken out; the probe's figures stay in DeviceResult::engine. A
// figure a cache must have answered is a note, and the probe's is kept.
void measure_engine_reads(const std::string& scratch_dir, const CpuFigures& cpu,
                          std::vector<DeviceResult>* devices, std::vector<std::string>* notes,
                          const std::function<void(const std::string&)>& say);
// Removes what a tidepool data directory holds (marker, catalog, pid file, journal,
// base/<relnumber>[_vm]) and then the directory; anything else stays, and so does the
// directory, which the return value says (false).
bool remove_scratch_dir(const std::string& scratch_dir);

// Everything one run measured, for the block and the report.
struct Calibration {
  std::string when_utc;  // "2026-12-02 02:10 UTC"
  std::string kernel;
  uint64_t file_size_mb = 0;
  double seconds_per_run = 0;
  std::vector<DeviceResult> devices;
  CpuFigures cpu;
  std::vector<std::string> notes;
  // DIR's io_method and io_direct (its conf, else the defaults): the curve the PostgreSQL
  // equivalents in the comments are taken from.
  std::string io_method = "worker";
  bool io_direct = false;
};

// The marker block: BEGIN line, figures as comments, `name = 'value'` settings, the
// PostgreSQL constants they imply as comments only, END line; each line ends in '\n'.
std::string calibrate_block(const Calibration& c);
// `conf` with its calibrate block replaced by `block`, or `block` appended when it has
// none; every other line is kept as it was. Throws tp::Error when a BEGIN line has no END
// line after it (the user's lines after it cannot be told from the block's).
std::string splice_calibrate_block(const std::string& conf, const std::string& block);
// The settings of `conf` set after its calibrate block's END line among `names`: those
// lines override what calibrate wrote.
std::vector<std::string> settings_overridden_after_block(const std::string& conf,
                                                         const std::vector<std::string>& names);

// Runs the command with the arguments after "calibrate". Returns the exit code: 0 done, 1
// a failure (directory refused or in use, a measurement failed), 2 a usage error.
int run_calibrate_command(const std::vector<std::string>& args, std::ostream& out,
                          std::ostream& err);

}  // namespace tp::calibrate
