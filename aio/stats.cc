// Process-wide I/O counters, one cell per (method, context).
#include "aio/stats.h"

#include <atomic>

namespace tp::aio {

namespace {

struct Cell {
  std::atomic<uint64_t> reads{0}, writes{0}, read_blocks{0}, write_blocks{0};
  std::atomic<uint64_t> prefetch_advices{0}, submitted_inline{0}, waits{0}, wait_time_us{0};
};

Cell cells[kIoMethodCount][kIoContextCount];

Cell& cell(IoMethodKind method, IoContext context) {
  return cells[int(method)][int(context)];
}

void add(std::atomic<uint64_t>& counter, uint64_t n) {
  counter.fetch_add(n, std::memory_order_relaxed);
}

}  // namespace

void io_stats_count_submit(IoMethodKind method, IoContext context, IoOp op, int nblocks) {
  Cell& c = cell(method, context);
  if (op == IoOp::kRead) {
    add(c.reads, 1);
    add(c.read_blocks, uint64_t(nblocks));
  } else {
    add(c.writes, 1);
    add(c.write_blocks, uint64_t(nblocks));
  }
}

void io_stats_count_advice(IoMethodKind method, IoContext context) {
  add(cell(method, context).prefetch_advices, 1);
}

void io_stats_count_inline(IoMethodKind method, IoContext context) {
  add(cell(method, context).submitted_inline, 1);
}

void io_stats_count_wait(IoMethodKind method, IoContext context, uint64_t wait_time_us) {
  Cell& c = cell(method, context);
  add(c.waits, 1);
  add(c.wait_time_us, wait_time_us);
}

IoStatsRow io_stats_for(IoMethodKind method, IoContext context) {
  const Cell& c = cell(method, context);
  IoStatsRow row{method, context};
  row.reads = c.reads.load(std::memory_order_relaxed);
  row.writes = c.writes.load(std::memory_order_relaxed);
  row.read_blocks = c.read_blocks.load(std::memory_order_relaxed);
  row.write_blocks = c.write_blocks.load(std::memory_order_relaxed);
  row.read_bytes = row.read_blocks * kBlockSize;
  row.write_bytes = row.write_blocks * kBlockSize;
  row.prefetch_advices = c.prefetch_advices.load(std::memory_order_relaxed);
  row.submitted_inline = c.submitted_inline.load(std::memory_order_relaxed);
  row.waits = c.waits.load(std::memory_order_relaxed);
  row.wait_time_us = c.wait_time_us.load(std::memory_order_relaxed);
  return row;
}

std::vector<IoStatsRow> io_stats_snapshot() {
  std::vector<IoStatsRow> rows;
  for (int m = 0; m < kIoMethodCount; ++m) {
    for (int c = 0; c < kIoContextCount; ++c) {
      IoStatsRow row = io_stats_for(IoMethodKind(m), IoContext(c));
      if (row.reads || row.writes || row.waits || row.prefetch_advices) rows.push_back(row);
    }
  }
  return rows;
}

void io_stats_reset() {
  for (auto& per_method : cells) {
    for (Cell& c : per_method) {
      for (auto* counter : {&c.reads, &c.writes, &c.read_blocks, &c.write_blocks,
                            &c.prefetch_advices, &c.submitted_inline, &c.waits, &c.wait_time_us})
        counter->store(0, std::memory_order_relaxed);
    }
  }
}

}  // namespace tp::aio
