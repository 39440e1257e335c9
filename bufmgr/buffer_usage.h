// BufferUsage: what one thread's work cost in buffers, for EXPLAIN (ANALYZE, BUFFERS).
//
// Cumulative per thread (like PostgreSQL's pgBufferUsage). A scan takes a snapshot when
// it starts and subtracts it when it ends:
//   BufferUsage before = thread_buffer_usage();
//   ... run the scan ...
//   BufferUsage used = thread_buffer_usage() - before;  // "shared hit=12 read=4420"
#pragma once

#include <cstdint>

namespace tp::bufmgr {

struct BufferUsage {
  uint64_t shared_hit = 0;        // pins that found the page in the pool
  uint64_t shared_read = 0;       // blocks read from files
  uint64_t shared_dirtied = 0;    // clean pages this thread made dirty
  uint64_t shared_written = 0;    // blocks this thread wrote back
  uint64_t io_read_time_us = 0;   // time spent issuing and waiting for reads
  uint64_t io_write_time_us = 0;  // time spent writing back

  BufferUsage& operator+=(const BufferUsage& o) {
    shared_hit += o.shared_hit;
    shared_read += o.shared_read;
    shared_dirtied += o.shared_dirtied;
    shared_written += o.shared_written;
    io_read_time_us += o.io_read_time_us;
    io_write_time_us += o.io_write_time_us;
    return *this;
  }
  friend BufferUsage operator-(const BufferUsage& a, const BufferUsage& b) {
    return {a.shared_hit - b.shared_hit,           a.shared_read - b.shared_read,
            a.shared_dirtied - b.shared_dirtied,   a.shared_written - b.shared_written,
            a.io_read_time_us - b.io_read_time_us, a.io_write_time_us - b.io_write_time_us};
  }
};

// The calling thread's cumulative usage (all pools).
inline BufferUsage& thread_buffer_usage() {
  thread_local BufferUsage usage;
  return usage;
}

}  // namespace tp::bufmgr
