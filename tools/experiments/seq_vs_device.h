// A cold seq scan set against the raw device reading the very same heap file, round by
// round in one run, per I/O method. The device section probes a file of its own, which a
// cache below the guest may hold or not hold as it holds the table; reading the table's
// file right after each scan puts both through the same caches and the same drift, so
// their ratio says how close the scan gets to what the device gives it.
#pragma once

#include <string>
#include <vector>

#include "aio/device_probe.h"
#include "tools/experiments/experiment.h"

namespace tp::experiments {

struct SeqVsDevice {
  std::string method;  // io_method of the scan and of the device reads
  int io_workers = 0;  // the worker method's threads (its reads at the device)
  std::vector<Timed> scans;
  std::vector<aio::DeviceProbeRow> device;  // device[i] read the file right after scans[i]
  std::string skipped;                      // why the method did not run here, if it did not
};

// Per method in `methods`: `rounds` rounds of a cold `SELECT * FROM <table>` (a Seq Scan
// of `rows` rows) under that io_method, then the table's heap file read once, start to
// end, through an I/O system of that method with the scan's shape (io_combine_limit
// blocks a read, effective_io_concurrency reads in flight, the session's io_direct and
// io_workers). Each round is a CSV row of `record`. A method the machine cannot start is
// skipped with its reason. io_method is back to the session's afterwards.
std::vector<SeqVsDevice> measure_seq_vs_device(Lab& lab, Progress& progress, Recorder& record,
                                               const std::string& table, uint64_t rows,
                                               const std::vector<std::string>& methods, int rounds);

// The scan's rate over the device's of round i (pages read * 8 kB / execution time).
double seq_scan_mb_s(const Timed& scan);
double scan_over_device(const SeqVsDevice& m, size_t i);

// A table of the medians per method and a sentence per method ("the seq scan reached N%
// of the device reading its file"); empty if nothing was measured.
std::string seq_vs_device_report(const std::vector<SeqVsDevice>& measured);

}  // namespace tp::experiments
