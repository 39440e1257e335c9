// Cumulative I/O statistics, per method and per context tag (like pg_stat_io), kept for
// the whole process so they survive an IoSystem rebuild (SET io_method). Counters are
// relaxed atomics: a snapshot taken while I/O runs is approximate, never torn per counter.
#pragma once

#include <cstdint>
#include <vector>

#include "aio/aio.h"

namespace tp::aio {

struct IoStatsRow {
  IoMethodKind method;
  IoContext context;
  uint64_t reads = 0;  // read I/Os submitted (one vectored read counts once)
  uint64_t writes = 0;
  uint64_t read_blocks = 0;  // 8 kB blocks those reads asked for
  uint64_t write_blocks = 0;
  uint64_t read_bytes = 0;
  uint64_t write_bytes = 0;
  uint64_t prefetch_advices = 0;  // posix_fadvise(WILLNEED) issued by the sync method
  // I/Os the worker method ran in the submitting thread because its queue was full:
  // many of these mean the workers are the bottleneck.
  uint64_t submitted_inline = 0;
  uint64_t waits = 0;         // waits that found the I/O not yet complete
  uint64_t wait_time_us = 0;  // time spent in those waits

  double avg_read_size_bytes() const { return reads ? double(read_bytes) / double(reads) : 0; }
};

// Every (method, context) pair that has a non-zero counter, method-major order.
std::vector<IoStatsRow> io_stats_snapshot();
// One pair, zeros included.
IoStatsRow io_stats_for(IoMethodKind method, IoContext context);
// Sets all counters to zero.
void io_stats_reset();

// Recording (aio-internal, called on the issuing or waiting thread).
void io_stats_count_submit(IoMethodKind method, IoContext context, IoOp op, int nblocks);
void io_stats_count_advice(IoMethodKind method, IoContext context);
void io_stats_count_inline(IoMethodKind method, IoContext context);
void io_stats_count_wait(IoMethodKind method, IoContext context, uint64_t wait_time_us);

}  // namespace tp::aio
