// ReadStream: pinned buffers for a sequence of blocks, read ahead and combined.
//
// The consumer supplies a callback that yields block numbers (kInvalidBlock = end of
// stream, kReadStreamPause = "no block yet": the stream returns what it has, then
// reports paused() until resume()) and may fill a per-buffer data slot for each block.
// next_buffer() returns the blocks pinned, in callback order. Behind it the stream keeps
// up to `distance` buffers pinned ahead of the consumer, merges consecutive blocks into
// single reads of up to io_combine_limit blocks, and keeps at most
// effective_io_concurrency reads in flight (no more than the thread's I/O handles).
//
//   tp::BlockNumber next = 0;
//   ReadStream stream(pool, *file, {.effective_io_concurrency = 16},
//                     [&](void*) { return next < nblocks ? next++ : tp::kInvalidBlock; });
//   while (PinGuard buf = stream.next_buffer()) {
//     ReadGuard page = std::move(buf).lock_shared();
//     ...
//   }
//
// Distance (how far ahead it reads), in buffers, is the prefetch policy's decision
// (bufmgr/prefetch_policy.h, ReadStreamConfig::policy); the stream clamps it to
// [1, max_pinned()]. The default policy, `tidepool`:
//   - starts at 1, so a fully cached scan pins one buffer at a time (the fast path);
//   - doubles, up to max_pinned(), each time the consumer had to wait for a read (a
//     read run synchronously counts as a wait);
//   - after a read is consumed, a hold-off of max_pinned() hits passes, then each hit
//     (a block found in the pool) lowers it by one, down to 1.
// max_pinned() = min((max_ios() + 1) * io_combine_limit, the pin budget left to this
// thread minus one (the consumer's current buffer), the ring's pin limit), at least 1;
// max_ios() = effective_io_concurrency clamped to the thread's I/O handles. Before each
// read the pin budget is checked again (other streams of the thread pin too): short of
// pins the read waits and the distance shrinks.
//
// A stream belongs to one thread. It is not copyable or movable.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <vector>

#include "bufmgr/buffer_pool.h"
#include "bufmgr/prefetch_policy.h"
#include "engine/core/io_trace.h"
#include "engine/core/stream_gauges.h"

namespace tp::bufmgr {

// The callback's "no block yet" answer (index-prefetch streams wait for the index).
inline constexpr BlockNumber kReadStreamPause = 0xFFFFFFFEu;

struct ReadStreamConfig {
  // Reads in flight at most (clamped to the thread's I/O handles); 0 = read
  // synchronously, one read at a time, no advice.
  int effective_io_concurrency = 16;  // 0..1000
  // Most blocks per read (16 = 128 kB).
  int io_combine_limit = 16;  // 1..128
  // Ring to confine evictions to (seq scans of big tables); not owned; may be null.
  BufferStrategy* strategy = nullptr;
  // Bytes of per-buffer data the callback fills for each block (0 = none).
  size_t per_buffer_data_size = 0;
  // Stage the reads of one look-ahead round and submit them together. The callback
  // must not block on anything another thread may hold while waiting for I/O.
  bool use_batching = true;
  // The consumer reads sequentially: never pass the advice flag (kernel readahead
  // already covers it).
  bool sequential = false;
  // Most buffers the stream pins at once (0: no limit of its own beyond the thread's
  // pin budget and the ring). A parallel scan's participant takes its share of the pool.
  int max_pinned = 0;
  // How far ahead to read (bufmgr/prefetch_policy.h); null: the default, `tidepool`.
  // A registry entry: it outlives every stream.
  const PrefetchPolicyDef* policy = nullptr;
  PolicySettings policy_settings = {};
  // The policy object itself, not owned, instead of a new one made from `policy` (an
  // index scan keeps one through its rescans); it must outlive the stream.
  PrefetchPolicy* policy_instance = nullptr;
  // What the stream reads, for an I/O trace's counter tracks ("index heap", "index
  // leaves"): a string literal.
  const char* label = "stream";
};

struct ReadStreamStats {
  uint64_t buffers_returned = 0;
  uint64_t ios = 0;           // reads started (each may cover several blocks)
  uint64_t io_blocks = 0;     // blocks those reads covered
  uint64_t waits = 0;         // times the consumer had to wait for a read
  uint64_t distance_sum = 0;  // look-ahead distance at each returned buffer
  uint64_t distance_max = 0;
  uint64_t fast_path_returns = 0;  // buffers returned by the all-cached fast path
  // Reads the stream may keep in flight: effective_io_concurrency clamped to the I/O
  // handles a thread has (aio's handles_per_thread, the io_max_concurrency setting), at
  // least 1. Below effective_io_concurrency means the handles clamped it.
  uint64_t max_ios = 0;
  uint64_t effective_io_concurrency = 0;  // what the stream was asked for (0..1000)
  uint64_t ios_in_flight_max = 0;         // most reads it actually had in flight at once
  // Blocks the stream read that the consumer has not taken: while it runs, reads ahead
  // of the consumer; once it is reset or destroyed (a LIMIT stopped early), reads
  // wasted.
  uint64_t wasted_reads = 0;
  // (A rescanned index scan keeps its stream: the figures cover all its runs.)
  const char* policy = nullptr;  // the prefetch policy's name; null for the default

  // Sums another stream's figures (a parallel scan's participants): counts add,
  // maxima take the larger.
  ReadStreamStats& operator+=(const ReadStreamStats& o) {
    buffers_returned += o.buffers_returned;
    ios += o.ios;
    io_blocks += o.io_blocks;
    waits += o.waits;
    distance_sum += o.distance_sum;
    distance_max = std::max(distance_max, o.distance_max);
    fast_path_returns += o.fast_path_returns;
    max_ios = std::max(max_ios, o.max_ios);
    effective_io_concurrency = std::max(effective_io_concurrency, o.effective_io_concurrency);
    ios_in_flight_max = std::max(ios_in_flight_max, o.ios_in_flight_max);
    wasted_reads += o.wasted_reads;
    if (!policy) policy = o.policy;
    return *this;
  }

  // True if the thread's I/O handles held max_ios below effective_io_concurrency.
  bool ios_clamped() const { return max_ios < effective_io_concurrency; }
  double blocks_per_io() const { return ios ? double(io_blocks) / double(ios) : 0.0; }
  double avg_distance() const {
    return buffers_returned ? double(distance_sum) / double(buffers_returned) : 0.0;
  }
};

class ReadStream {
 public:
  using BlockCallback = std::function<BlockNumber(void* per_buffer_data)>;

  // Throws tp::Error for settings out of range. The pool, file, strategy and callback
  // must outlive the stream.
  ReadStream(BufferPool& pool, aio::IoFile& file, const ReadStreamConfig& config,
             BlockCallback callback);
  // Waits for reads in flight and unpins every buffer the stream still holds.
  ~ReadStream();
  ReadStream(const ReadStream&) = delete;
  ReadStream& operator=(const ReadStream&) = delete;

  // The next block's buffer, pinned; empty at the end of the stream or while paused.
  // `per_buffer_data` (if given) receives that block's data slot, valid until the next
  // call. Throws tp::Error if a read fails (naming relation and block); the stream is
  // then at its end (reset() to reuse it).
  PinGuard next_buffer(void** per_buffer_data = nullptr);

  // True after the callback answered kReadStreamPause and the stream returned every
  // block the callback gave before the pause.
  bool paused() const { return paused_ && pinned_ == 0 && pending_len_ == 0; }
  // Lets the stream call the callback again.
  void resume() { paused_ = false; }
  // Drops everything read ahead (waiting for reads in flight), forgets end of stream
  // and pause, and starts again at the prefetch policy's initial distance with the next
  // callback answer.
  void reset();
  // The same, restarting at `distance` (clamped to [1, max_pinned]) without calling
  // initial_distance, so the policy keeps its history: a rescanned index scan's policy
  // chose the distance (PrefetchPolicy::on_rescan).
  void restart(int distance);

  const ReadStreamStats& stats() const { return stats_; }
  int distance() const { return distance_; }
  int max_pinned() const { return max_pinned_; }
  // Reads in flight at most (effective_io_concurrency clamped to the thread's handles).
  int max_ios() const { return max_ios_; }
  int pinned() const { return pinned_; }
  int ios_in_progress() const { return ios_in_progress_; }

 private:
  void look_ahead();
  // Starts (part of) the pending read. False if no read slot is free, or the thread's
  // pin budget has no room for it while the consumer still has buffers to take.
  bool start_pending_read();
  // Buffers this read may still pin within the thread's budget (PostgreSQL's
  // GetAdditionalPinLimit), counting the forwarded pin as available.
  int pins_allowed();
  void* data_slot(int queue_index) {
    return per_buffer_size_ ? &per_buffer_data_[size_t(queue_index) * per_buffer_size_] : nullptr;
  }
  int queue_at(int offset) const { return (oldest_ + offset) % queue_size_; }
  void release_all() noexcept;
  // A traced statement (engine/core/io_trace.h) gets the distance, the pins and the
  // thread's hits and reads whenever the distance changed since the last sample, or the
  // pins by an eighth of it: a few samples per distance's worth of buffers, and none
  // while a cached scan stays at one buffer.
  void trace_counters() {
    IoTrace* t = current_io_trace();
    if (t == nullptr) return;
    const int step = std::max(1, distance_ / 8);
    if (distance_ != traced_distance_ || std::abs(pinned_ - traced_pinned_) >= step)
      record_counters(*t);
  }
  void record_counters(IoTrace& trace);
  // A watched session's stream (engine/core/stream_gauges.h) shows its look-ahead: three
  // relaxed stores per block, to its own gauge.
  void publish_gauge() {
    if (gauge_ != nullptr) gauge_->publish(distance_, pinned_, ios_in_progress_);
  }
  // The policy's hooks, clamped to [1, max_pinned_]. The default policy is called
  // directly (no vtable) on the per-block paths.
  int clamped(int distance) const { return std::clamp(distance, 1, max_pinned_); }
  int start_distance();
  int after_hit() {
    return clamped(custom_ ? custom_->on_hit(distance_) : builtin_.on_hit(distance_));
  }
  int after_read_started(int nblocks) {
    return custom_ ? clamped(custom_->on_read_started(distance_, nblocks)) : distance_;
  }
  int after_read_consumed(bool waited) {
    return clamped(custom_ ? custom_->on_read_consumed(distance_, waited)
                           : builtin_.on_read_consumed(distance_, waited));
  }
  // slot_op_ besides a read op's index: the slot's buffer needed no read by this
  // stream, or this stream read it (counted in stats_.wasted_reads until returned). The
  // fast path takes only kNoRead slots, so it never has to look at the count.
  static constexpr int16_t kNoRead = -1;
  static constexpr int16_t kRead = -2;
  // The buffer at queue slot q goes to the consumer: it is no longer read ahead.
  void returned(int q) {
    if (slot_op_[size_t(q)] == kRead) --stats_.wasted_reads;
    slot_op_[size_t(q)] = kNoRead;
  }

  BufferPool& pool_;
  aio::IoFile& file_;
  BlockCallback callback_;
  BufferStrategy* strategy_;
  const int max_ios_;
  const int io_combine_limit_;
  const bool synchronous_;
  const bool advice_;
  const bool use_batching_;
  const size_t per_buffer_size_;
  int max_pinned_ = 1;
  int queue_size_ = 2;

  // The queue: pinned buffers in consumer order, oldest first, and each slot's read op
  // (index into ops_) when a read covering it starts there.
  std::vector<int32_t> buffers_;
  std::vector<int16_t> slot_op_;
  std::vector<unsigned char> per_buffer_data_;
  int oldest_ = 0;
  int pinned_ = 0;

  // Reads in flight, a ring in start order.
  std::vector<ReadBuffersOp> ops_;
  int ops_head_ = 0;
  int ios_in_progress_ = 0;

  // The read being built: blocks [pending_block_, pending_block_ + pending_len_).
  BlockNumber pending_block_ = kInvalidBlock;
  int pending_len_ = 0;
  int32_t forwarded_ = kInvalidBuffer;  // pinned, valid: the pending read's first block
  BlockNumber unget_ = kInvalidBlock;   // a block taken from the callback but not used yet

  int distance_ = 1;
  int traced_distance_ = -1, traced_pinned_ = -1;  // the trace's last samples
  const char* label_ = nullptr;                    // ReadStreamConfig::label
  StreamGauge* gauge_ = nullptr;                   // the watched session's, or none
  TidepoolPolicy builtin_;
  PrefetchPolicy* custom_ = nullptr;  // a policy other than the default (owned_ or borrowed)
  std::unique_ptr<PrefetchPolicy> owned_;
  bool at_end_ = false;
  bool paused_ = false;
  ReadStreamStats stats_;
};

}  // namespace tp::bufmgr
