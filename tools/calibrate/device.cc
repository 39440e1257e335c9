// The device step: the device probe (aio/device_probe.h) at calibrate's budget, and its
// rows turned into the curves the prefetch-aware cost model reads.
#include <map>

#include "engine/core/error.h"
#include "engine/core/interrupts.h"
#include "tools/calibrate/calibrate.h"

namespace tp::calibrate {

namespace {

// One 8 kB page's transfer time in µs at `mb_per_s` (10^6 bytes per second is one byte
// per µs).
double seq_us_per_page(double mb_per_s) {
  return double(kBlockSize) / mb_per_s;
}

std::string mode_name(const DeviceResult& r) {
  return r.method + (r.direct ? " direct" : " buffered");
}

}  // namespace

std::vector<DeviceResult> device_results(const std::vector<aio::DeviceProbeRow>& rows,
                                         std::vector<std::string>* notes) {
  std::vector<DeviceResult> out;
  std::map<std::pair<std::string, bool>, size_t> index;
  for (const aio::DeviceProbeRow& row : rows) {
    auto key = std::make_pair(row.method, row.direct);
    if (!index.count(key)) {
      index[key] = out.size();
      DeviceResult fresh;
      fresh.method = row.method;
      fresh.direct = row.direct;
      out.push_back(std::move(fresh));
    }
    DeviceResult& r = out[index[key]];
    // A read that returned the wrong block would make every figure of the row a lie.
    if (row.failed_ios != 0 || row.ios == 0 || row.iops <= 0) {
      notes->push_back(mode_name(r) + " " + row.pattern + " depth " + std::to_string(row.depth) +
                       ": " + std::to_string(row.failed_ios) + " failed of " +
                       std::to_string(row.ios) + " reads, left out");
      continue;
    }
    if (row.pattern == "seq" && row.depth == 1) {
      r.curve.seq1_us = seq_us_per_page(row.mb_per_s);
    } else if (row.pattern == "seq") {
      r.seq_mb_per_s = row.mb_per_s;
      r.curve.seq_us = seq_us_per_page(row.mb_per_s);
    } else {
      r.random.push_back({row.depth, row.iops, row.avg_latency_us});
      r.curve.random_us.emplace_back(row.depth, 1e6 / row.iops);
    }
  }
  std::vector<DeviceResult> complete;
  for (DeviceResult& r : out) {
    bool has_d1 = !r.curve.random_us.empty() && r.curve.random_us.front().first == 1;
    if (r.curve.seq_us > 0 && has_d1)
      complete.push_back(std::move(r));
    else
      notes->push_back(mode_name(r) + ": no sequential or depth-1 figure, setting " +
                       device_curve_setting(r.method, r.direct) + " not written");
  }
  return complete;
}

std::vector<DeviceResult> measure_device(const Options& options, std::vector<std::string>* notes,
                                         const std::function<void(const std::string&)>& say) {
  aio::DeviceProbeConfig config;
  config.directory = options.data_dir;
  config.file_size_mb = options.file_size_mb;
  config.seconds_per_run = options.seconds_per_run;
  config.methods = options.methods;
  config.direct_modes = {true, false};
  config.random_depths = options.depths;
  config.io_workers = options.io_workers;
  config.repeats = 1;
  auto on_row = [&](const aio::DeviceProbeRow& r) {
    check_for_interrupts();  // Ctrl-C stops between two measurements
    say(r.method + (r.direct ? " direct " : " buffered ") + r.pattern + " depth " +
        std::to_string(r.depth) + ": " + std::to_string(int64_t(r.mb_per_s)) + " MB/s, " +
        std::to_string(int64_t(r.iops)) + " IOPS");
  };
  auto on_note = [&](const std::string& note) {
    notes->push_back(note);
    say(note);
  };
  std::vector<aio::DeviceProbeRow> rows = aio::run_device_probe(config, on_row, on_note);
  // The same sequential reads one at a time (effective_io_concurrency = 0's seq scan):
  // the curve's s1.
  config.sequential_depth = 1;
  config.random_depths.clear();
  for (aio::DeviceProbeRow& r : aio::run_device_probe(config, on_row, {})) rows.push_back(r);
  return device_results(rows, notes);
}

}  // namespace tp::calibrate
