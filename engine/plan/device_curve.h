// What one way of reading the disk costs, in microseconds per 8 kB page: the figures
// `tidepool calibrate` measures and the prefetch-aware cost model reads
// (engine/plan/prefetch_cost.h). One curve per I/O method and direct/buffered mode,
// written as a setting:
//
//   device_io_uring_direct = 'seq=6.5 d1=123 d4=37.5 d16=25.4 d32=23.4 d64=21'
//
// seq: µs per page while a large sequential read runs (128 kB reads, 16 in flight), the
// device's transfer time per page. s1 (optional): µs per page of 128 kB sequential reads
// made one at a time (effective_io_concurrency = 0). dN: µs per random 8 kB read with N reads in
// flight, i.e. 1e6 / IOPS at depth N (at depth 1 this is the read's latency).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tp {

struct DeviceCurve {
  double seq_us = 0;
  double seq1_us = 0;                             // one sequential read at a time; 0: not measured
  std::vector<std::pair<int, double>> random_us;  // (depth, µs per read), depths ascending

  // µs per random 8 kB read with `depth` reads in flight: interpolated on log(depth)
  // between the measured depths, held flat beyond them, and never above a shallower
  // depth's figure (a deeper queue can always behave like a shallower one, so a dip in
  // the measurements is noise).
  double random_read_us(double depth) const;
  // µs for one read of `blocks` consecutive pages with `depth` reads in flight: the
  // random read's time for the first page, transfer time for the rest.
  double read_us(double blocks, double depth) const {
    return random_read_us(depth) + (blocks - 1) * seq_us;
  }
  // µs per page of a sequential scan's `blocks`-block reads with `depth` in flight:
  // bandwidth-bound from two on; with one, s1 when measured, else each read's latency
  // plus its transfer.
  double sequential_us(double blocks, double depth) const {
    if (depth >= 2) return seq_us;
    return seq1_us > 0 ? seq1_us : read_us(blocks, 1) / blocks;
  }
};

// Parses the setting's text. Throws tp::Error naming `setting` and what is wrong (an
// unknown key, a figure that is not a positive number, no seq or no d1).
DeviceCurve parse_device_curve(std::string_view text, std::string_view setting);
// The setting's text for `curve` (what calibrate writes).
std::string format_device_curve(const DeviceCurve& curve);

}  // namespace tp
