// The raw device as seen through the aio layer alone (no buffer pool): sequential large
// reads and random 8 kB reads at several queue depths, per method, direct and buffered.
// bench/device_probe prints its rows; `tidepool experiment device` will call it too, so
// an experiment can quote the device measured in the same run next to its own figures.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "aio/aio.h"

namespace tp::aio {

struct DeviceProbeConfig {
  std::string directory;         // where the probe file lives (created if missing)
  uint64_t file_size_mb = 2048;  // larger than any cache the VM keeps in front of the disk
  double seconds_per_run = 3.0;  // each measurement runs this long (after a short warm-up)
  std::vector<IoMethodKind> methods = {IoMethodKind::kSync, IoMethodKind::kWorker,
                                       IoMethodKind::kIoUring};
  std::vector<bool> direct_modes = {true, false};
  int sequential_depth = 16;
  int sequential_blocks = 16;  // 128 kB per read
  std::vector<int> random_depths = {1, 4, 16, 32, 64};
  int io_workers = 3;
  int repeats = 1;  // each measurement this many times (report medians over rows)
};

struct DeviceProbeRow {
  std::string method;
  bool direct = false;
  std::string pattern;  // "seq" or "random"
  int depth = 0;
  uint32_t block_size_bytes = 0;
  int repeat = 0;
  uint64_t ios = 0;
  double seconds = 0;
  double mb_per_s = 0;  // 10^6 bytes per second
  double iops = 0;
  double avg_latency_us = 0;  // submit -> completion seen by the issuer
  double cpu_us_per_io = 0;   // process CPU (user + system, all threads) per I/O
  uint64_t failed_ios = 0;    // I/O errors or pages that did not hold their block number
  std::string kernel;
};

// One line, every field named: "method=io_uring direct=1 pattern=random depth=16 ...".
std::string format_device_probe_row(const DeviceProbeRow& row);

// Creates (or reuses, if it has the right size and stamp) the probe file: every block
// starts with its own block number, so reads are checked. Returns its path.
std::string prepare_device_probe_file(const DeviceProbeConfig& config);

// Runs every (method, direct mode, pattern, depth, repeat) measurement and returns the
// rows, also handing each to `on_row` as soon as it is measured. A method that cannot
// start here (e.g. io_uring disabled) is reported through `on_note` and skipped.
// Must be called from a thread with no other IoSystem in use. Throws tp::Error on setup
// failures (directory, file).
std::vector<DeviceProbeRow> run_device_probe(
    const DeviceProbeConfig& config, const std::function<void(const DeviceProbeRow&)>& on_row = {},
    const std::function<void(const std::string&)>& on_note = {});

// Reads the existing file at `path` once, start to end, with `blocks`-block reads and
// `depth` of them in flight (a seq scan's stream at the defaults is 16 and 16), through
// an IoSystem of its own: the device reading the very file a scan reads, so the two can
// be set side by side in one run whatever caches sit below the guest. Reads only; checks
// no contents (a failed read counts in failed_ios). A file too small for `depth` reads of
// `blocks` blocks gets fewer or smaller ones (the row says which). Call from a thread with
// no other IoSystem in use. Throws tp::Error if the file cannot be opened or is empty.
DeviceProbeRow probe_file_sequential(const std::string& path, IoMethodKind method, bool direct,
                                     int depth, int blocks, int io_workers);

}  // namespace tp::aio
