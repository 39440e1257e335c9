// The iomethod experiment's results and how they are shown: the article's grid
// (one row per I/O configuration and mode, one column per parallel worker
// count), David Rowley's buffered/direct `cmp`, the io_workers sweep, the chart
// against the raw device, and the comparison with the published tables.
// iomethod.cc measures into an IoMethodResults; iomethod_report.cc formats it
// (pure functions of the results, so tests check them without a disk).
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tools/experiments/plot.h"

namespace tp::experiments {

// The I/O configurations of the grid, in row order.
enum class IoSetup { kSync, kWorker, kWorkerScaled, kIoUring };
constexpr size_t kNumIoSetups = 4;
constexpr int kDefaultIoWorkers = 3;  // io_workers' default, as PostgreSQL 18's

// "sync", "worker", "worker (scaled)", "io_uring".
const char* io_setup_label(IoSetup setup);
// The io_method setting of a configuration.
const char* io_setup_method(IoSetup setup);
// The I/O workers one participant each: parallel workers + the leader, at least the
// default 3 and at most io_workers' maximum 32. With io_method sync every participant
// reads on its own thread, so N + 1 participants keep N + 1 reads in flight; the
// default 3 I/O workers cap every participant's reads at 3 in flight together. Scaled,
// the worker method gets at least the concurrency sync has.
int scaled_io_workers(int parallel_workers);
// io_workers for a configuration at a worker count (the default for all but scaled).
int io_workers_for(IoSetup setup, int parallel_workers);
// Whether `worker (scaled)` at this worker count is the default worker configuration
// (io_workers 3), measured once under `worker`.
bool scaled_is_default(int parallel_workers);

// One point's runs: their seconds, and the Workers Launched that EXPLAIN ANALYZE
// showed at the point's worker count (-1: not checked).
struct IoCell {
  std::vector<double> seconds;
  int launched = -1;
  double median_s() const;  // NaN when nothing was measured
};

struct IoMethodResults {
  std::vector<int> workers;  // the grid's columns: parallel workers
  // grid[setup][direct][column]
  std::array<std::array<std::vector<IoCell>, 2>, kNumIoSetups> grid;
  // The io_workers sweep at 0 parallel workers: worker with these io_workers beside
  // sync, io_uring and worker 3 from the grid.
  std::vector<int> sweep_io_workers;
  std::vector<std::array<IoCell, 2>> sweep;  // [io_workers index][direct]
  double table_mb = 0;                       // the table's size, 10^6 bytes
  uint64_t table_pages = 0;
  // The raw device measured in this run: 128 kB sequential reads at depth 16, the best
  // method's median, direct and buffered (kernel readahead and caches below it).
  double device_seq_mb_s = NAN;
  double device_seq_buffered_mb_s = NAN;

  // Sized for these worker counts and io_workers values, nothing measured.
  IoMethodResults(std::vector<int> worker_counts, std::vector<int> sweep_values);
  // The cell whose runs stand for (setup, direct, column): worker (scaled) at a
  // count where it is the default configuration is worker's cell.
  const IoCell& cell(IoSetup setup, int direct, size_t column) const;
  double median_s(IoSetup setup, int direct, size_t column) const;
  // David Rowley's cmp: buffered time / direct time, in percent (NaN if either is missing).
  double cmp_pct(IoSetup setup, size_t column) const;
  // The column of a worker count, or -1.
  int column_of(int parallel_workers) const;
};

// The grid as the article prints it: rows per configuration (buffered, direct, cmp),
// columns per worker count, seconds (medians). A cell whose worker count launched fewer
// workers than planned is marked with " (N launched)".
std::string grid_table(const IoMethodResults& r);
// The published tables in the same shape (Andres Freund's 0-4 workers; David Rowley's
// io_uring buffered / direct / cmp at 0-64 workers).
std::string published_tables();
// The shape compared with the published tables, computed from the measured medians:
// speed-up from 0 to 4 workers per configuration and mode, where buffered and direct
// converge (cmp >= 95% from there on), the best time against the raw device.
std::string shape_comparison(const IoMethodResults& r);
// The lowest share of a configuration's best throughput that it reaches with 0 workers
// (its fastest time / its time at 0), over the asynchronous configurations (worker,
// io_uring; not sync, which reads one block at a time per process) and both modes; the name of that
// configuration in *which. NaN when 0 workers was not measured.
double lowest_share_at_zero_workers(const IoMethodResults& r, std::string* which);
// The io_workers sweep at 0 parallel workers (rows io_method, buffered and direct).
std::string sweep_table(const IoMethodResults& r);
// Time against parallel workers, per configuration and mode, and the raw device's
// sequential limit (table bytes / device rate) as a flat line, direct and buffered.
Chart grid_chart(const IoMethodResults& r);

// Parses "0,1,2,4": ascending, distinct, each 0..1024 (max_parallel_workers' range).
// Throws tp::Error naming the list otherwise.
std::vector<int> parse_worker_list(const std::string& text);

}  // namespace tp::experiments
