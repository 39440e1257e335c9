// The seq scan against the device reading the table's own file (seq_vs_device.h).
#include "tools/experiments/seq_vs_device.h"

#include <algorithm>
#include <exception>
#include <thread>

#include "engine/core/error.h"

namespace tp::experiments {

namespace {

aio::IoMethodKind method_kind(const std::string& name) {
  if (name == "sync") return aio::IoMethodKind::kSync;
  if (name == "worker") return aio::IoMethodKind::kWorker;
  if (name == "io_uring") return aio::IoMethodKind::kIoUring;
  throw Error("seq scan vs device: unknown io_method \"" + name + "\"");
}

// The probe needs a thread with no I/O system in use; the session's stays open on this one.
aio::DeviceProbeRow probe_on_own_thread(const std::string& path, aio::IoMethodKind method,
                                        bool direct, int depth, int blocks, int io_workers) {
  aio::DeviceProbeRow row;
  std::exception_ptr failure;
  std::thread probe([&] {
    try {
      row = aio::probe_file_sequential(path, method, direct, depth, blocks, io_workers);
    } catch (...) {
      failure = std::current_exception();
    }
  });
  probe.join();
  if (failure) std::rethrow_exception(failure);
  if (row.failed_ios != 0)
    throw Error("seq scan vs device: " + std::to_string(row.failed_ios) + " of " +
                std::to_string(row.ios) + " reads of \"" + path + "\" failed");
  return row;
}

Record round_record(const SeqVsDevice& m, size_t i) {
  const Timed& scan = m.scans[i];
  const aio::DeviceProbeRow& dev = m.device[i];
  return {{"round", std::to_string(i)},
          {"scan_pages_read", std::to_string(scan.shared_read)},
          {"scan_ms", fixed(scan.execution_ms, 3)},
          {"scan_mb_per_s", fixed(seq_scan_mb_s(scan), 1)},
          {"device_depth", std::to_string(dev.depth)},
          {"device_read_bytes", std::to_string(dev.block_size_bytes)},
          {"device_reads", std::to_string(dev.ios)},
          {"device_seconds", fixed(dev.seconds, 4)},
          {"device_mb_per_s", fixed(dev.mb_per_s, 1)},
          {"scan_over_device", fixed(scan_over_device(m, i), 3)}};
}

}  // namespace

double seq_scan_mb_s(const Timed& scan) {
  return scan.execution_ms > 0 ? double(scan.shared_read) * 8192 / 1e6 / (scan.execution_ms / 1e3)
                               : NAN;
}

double scan_over_device(const SeqVsDevice& m, size_t i) {
  if (i >= m.scans.size() || i >= m.device.size() || m.device[i].mb_per_s <= 0) return NAN;
  return seq_scan_mb_s(m.scans[i]) / m.device[i].mb_per_s;
}

std::vector<SeqVsDevice> measure_seq_vs_device(Lab& lab, Progress& progress, Recorder& record,
                                               const std::string& table, uint64_t rows,
                                               const std::vector<std::string>& methods,
                                               int rounds) {
  const RelationEntry* rel = lab.session().catalog().find(table);
  if (!rel) throw Error("seq scan vs device: table \"" + table + "\" does not exist");
  const std::string path = lab.session().storage().file(*rel).path();
  std::vector<SeqVsDevice> out;
  for (const std::string& method : methods) {
    SeqVsDevice m;
    m.method = method;
    try {
      lab.sql("SET io_method = " + method);
    } catch (const Error& e) {
      m.skipped = e.what();
      out.push_back(m);
      continue;
    }
    const Settings& s = lab.session().settings();
    m.io_workers = int(s.get_int("io_workers"));
    const bool direct = s.get_bool("io_direct");
    // The scan's stream: io_combine_limit blocks a read, effective_io_concurrency reads in
    // flight (at least one: eic 0 reads synchronously, one read at a time).
    const int blocks = std::max<int>(1, int(s.get_int("io_combine_limit")));
    const int depth = std::max<int>(1, int(s.get_int("effective_io_concurrency")));
    for (int i = 0; i < rounds; ++i) {
      const std::string label =
          "seq scan vs device, " + method + " (round " + std::to_string(i + 1) + ")";
      progress.step("cold " + label);
      lab.make_cold({table});
      m.scans.push_back(explain_analyze(lab, "SELECT * FROM " + table, {"Seq Scan", rows},
                                        "rpc: seq scan vs device"));
      progress.step("device reading the table's file, " + method + " (round " +
                    std::to_string(i + 1) + ")");
      m.device.push_back(
          probe_on_own_thread(path, method_kind(method), direct, depth, blocks, m.io_workers));
      record.add(round_record(m, m.device.size() - 1));
    }
    out.push_back(m);
  }
  lab.sql("RESET io_method");
  return out;
}

std::string seq_vs_device_report(const std::vector<SeqVsDevice>& measured) {
  std::vector<std::vector<std::string>> rows;
  std::string sentences, skipped;
  for (const SeqVsDevice& m : measured) {
    if (!m.skipped.empty()) {
      skipped += "- " + m.method + " not measured: " + m.skipped + "\n";
      continue;
    }
    const size_t n = std::min(m.scans.size(), m.device.size());
    if (n == 0) continue;
    std::vector<double> scan, dev, ratio;
    for (size_t i = 0; i < n; ++i) {
      scan.push_back(seq_scan_mb_s(m.scans[i]));
      dev.push_back(m.device[i].mb_per_s);
      ratio.push_back(scan_over_device(m, i));
    }
    const auto [lo, hi] = std::minmax_element(ratio.begin(), ratio.end());
    const std::string name = m.method == "worker"
                                 ? "worker (io_workers " + std::to_string(m.io_workers) + ")"
                                 : m.method;
    rows.push_back({name, std::to_string(n), fixed(median(scan), 0), fixed(median(dev), 0),
                    fixed(100 * median(ratio), 0) + "%",
                    fixed(100 * *lo, 0) + "-" + fixed(100 * *hi, 0) + "%"});
    sentences +=
        (sentences.empty() ? "" : " and ") + fixed(100 * median(ratio), 0) + "% (" + name + ")";
  }
  if (rows.empty() && skipped.empty()) return "";
  std::string md =
      "Cold seq scan against the raw device reading the table's own heap file right after it, "
      "round by round (the same reads in flight and read size as the scan's stream, the same "
      "io_direct; medians of the per-round ratios):\n\n";
  if (!rows.empty())
    md += markdown_table({"io_method", "rounds", "seq scan MB/s", "device MB/s (same file)",
                          "scan / device", "range"},
                         rows, {false, true, true, true, true, false}) +
          "\nThe seq scan ran at " + sentences + " of the device's rate reading the same file.\n";
  return md + skipped + "\n";
}

}  // namespace tp::experiments
