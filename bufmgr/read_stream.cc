#include "bufmgr/read_stream.h"

#include <algorithm>

#include "engine/core/error.h"

namespace tp::bufmgr {

namespace {

int checked(int value, int lo, int hi, const char* name) {
  if (value < lo || value > hi)
    throw Error(
        std::string("invalid value for parameter \"") + name + "\": " + std::to_string(value),
        std::string(name) + " must be between " + std::to_string(lo) + " and " +
            std::to_string(hi) + ".")
        .with_sqlstate(sqlstate::kInvalidParameterValue);
  return value;
}

}  // namespace

ReadStream::ReadStream(BufferPool& pool, aio::IoFile& file, const ReadStreamConfig& config,
                       BlockCallback callback)
    : pool_(pool),
      file_(file),
      callback_(std::move(callback)),
      strategy_(config.strategy),
      max_ios_(std::min(std::max(1, checked(config.effective_io_concurrency, 0, 1000,
                                            "effective_io_concurrency")),
                        pool.io().handles_per_thread())),
      io_combine_limit_(
          checked(config.io_combine_limit, 1, ReadBuffersOp::kMaxBlocks, "io_combine_limit")),
      synchronous_(config.effective_io_concurrency == 0),
      advice_(config.effective_io_concurrency > 0 && !config.sequential),
      use_batching_(config.use_batching && config.effective_io_concurrency > 0),
      per_buffer_size_(config.per_buffer_data_size) {
  TP_ASSERT(callback_ != nullptr);
  label_ = config.label;
  // Reads in flight: at most what the setting asks and what this thread has I/O
  // handles for (aio's acquire blocks when a thread has none available); each read
  // also checks that a handle is available (start_pending_read).
  stats_.max_ios = uint64_t(max_ios_);
  stats_.effective_io_concurrency = uint64_t(config.effective_io_concurrency);
  // Pins: enough for every read in flight plus one being built, within what this thread
  // may still pin and what the ring can recycle. The budget is checked again before
  // every read (pin_limit), as other streams of this thread may have pinned meanwhile.
  int64_t want = int64_t(max_ios_ + 1) * io_combine_limit_;
  // Minus one: the buffer last returned stays pinned by the consumer while we look ahead.
  int64_t budget_left = int64_t(pool.max_pins_per_thread()) - int64_t(pool.my_pin_count()) - 1;
  want = std::min(want, budget_left);
  if (strategy_) want = std::min<int64_t>(want, strategy_->pin_limit());
  if (config.max_pinned > 0) want = std::min<int64_t>(want, config.max_pinned);
  max_pinned_ = int(std::max<int64_t>(1, want));
  // One extra slot: the per-buffer data of the buffer returned last stays valid.
  queue_size_ = max_pinned_ + 1;
  buffers_.assign(size_t(queue_size_), kInvalidBuffer);
  slot_op_.assign(size_t(queue_size_), kNoRead);
  per_buffer_data_.assign(size_t(queue_size_) * per_buffer_size_, 0);
  ops_.resize(size_t(max_ios_));
  if (config.policy_instance) {
    custom_ = config.policy_instance;
  } else if (config.policy && std::string_view(config.policy->name) != kDefaultPrefetchPolicy) {
    owned_ = config.policy->make(config.policy_settings);
    custom_ = owned_.get();
  }
  if (custom_ && std::string_view(custom_->name()) != kDefaultPrefetchPolicy)
    stats_.policy = custom_->name();
  distance_ = start_distance();
  ++pool.my_pins().open_streams;
  if (StreamGauges* gauges = stream_gauge_slot().gauges) {
    gauge_ = gauges->claim(label_, stream_gauge_slot().worker, max_pinned_);
    publish_gauge();
  }
}

int ReadStream::start_distance() {
  const PrefetchLimits limits{.max_pinned = max_pinned_,
                              .max_ios = max_ios_,
                              .io_combine_limit = io_combine_limit_,
                              .synchronous = synchronous_};
  return clamped(custom_ ? custom_->initial_distance(limits) : builtin_.initial_distance(limits));
}

ReadStream::~ReadStream() {
  release_all();
  if (gauge_) StreamGauges::release(*gauge_);
  // (A pool resized meanwhile has a fresh count: never let it go negative.)
  int& streams = pool_.my_pins().open_streams;
  streams = std::max(0, streams - 1);
}

void ReadStream::release_all() noexcept {
  // Reads in flight write into ops_: let them finish before anything goes away.
  for (int i = 0; i < ios_in_progress_; ++i) {
    ReadBuffersOp& op = ops_[size_t((ops_head_ + i) % max_ios_)];
    if (!op.foreign_io && op.io_nblocks > 0 && op.io_ref.valid()) pool_.io().wait(op.io_ref);
    op.io_nblocks = 0;
  }
  for (int i = 0; i < pinned_; ++i) {
    int q = queue_at(i);
    pool_.unpin(buffers_[size_t(q)]);
    buffers_[size_t(q)] = kInvalidBuffer;
    slot_op_[size_t(q)] = kNoRead;  // a read one stays in stats_.wasted_reads: never returned
  }
  if (forwarded_ != kInvalidBuffer) pool_.unpin(std::exchange(forwarded_, kInvalidBuffer));
  pinned_ = 0;
  ios_in_progress_ = 0;
  pending_len_ = 0;
  unget_ = kInvalidBlock;
}

void ReadStream::reset() {
  release_all();
  at_end_ = false;
  paused_ = false;
  distance_ = start_distance();
  publish_gauge();
}

void ReadStream::restart(int distance) {
  release_all();
  at_end_ = false;
  paused_ = false;
  // Not initial_distance: the policy chose this in on_rescan and keeps what it learnt.
  distance_ = clamped(distance);
  publish_gauge();
}

int ReadStream::pins_allowed() {
  // What this thread may still pin, plus the forwarded buffer, which is pinned already.
  // Reading ahead (the consumer has buffers to take) leaves one pin for each other
  // stream of the thread, so a stream that ran dry can always pin the block its
  // consumer needs next.
  ThreadPins& pins = pool_.my_pins();
  int64_t left = int64_t(pool_.max_pins_per_thread()) - int64_t(pins.distinct());
  if (pinned_ > 0) left -= std::max(0, pins.open_streams - 1);
  if (forwarded_ != kInvalidBuffer) ++left;
  return int(std::clamp<int64_t>(left, 0, ReadBuffersOp::kMaxBlocks));
}

bool ReadStream::start_pending_read() {
  if (ios_in_progress_ >= max_ios_) return false;
  // Other I/O of this thread (another stream, a write-back) may hold the handles: with a
  // read of ours in flight, wait for the consumer rather than block inside acquire.
  if (ios_in_progress_ > 0 && pool_.io().available_handles() == 0) return false;
  // PostgreSQL 18's rule: the pin budget is shared by every stream of the thread, so
  // check it per read. Short of pins, shrink the distance and wait for the consumer
  // to release some; with nothing pinned, read what the budget allows (at least one
  // block), so the stream always makes progress.
  int n = pending_len_;
  const int allowed = pins_allowed();
  if (allowed < n) {
    distance_ = std::max(1, std::min(distance_, pinned_ + allowed));
    if (pinned_ > 0) return false;
    n = std::max(1, allowed);
  }
  const int op_index = (ops_head_ + ios_in_progress_) % max_ios_;
  ReadBuffersOp& op = ops_[size_t(op_index)];
  op.file = &file_;
  op.strategy = strategy_;
  op.advice = advice_;
  op.forwarded_in = std::exchange(forwarded_, kInvalidBuffer);
  bool need_wait = pool_.start_read_buffers(op, pending_block_, &n);
  const int first_slot = queue_at(pinned_);
  for (int i = 0; i < n; ++i) {
    int q = queue_at(pinned_ + i);
    buffers_[size_t(q)] = op.buffers[i];
    slot_op_[size_t(q)] = need_wait ? kRead : kNoRead;
  }
  if (op.forwarded) forwarded_ = op.buffers[n];
  pinned_ += n;
  pending_block_ += BlockNumber(n);
  pending_len_ -= n;
  if (need_wait) {
    stats_.ios += 1;
    stats_.io_blocks += uint64_t(n);
    stats_.wasted_reads += uint64_t(n);  // until the consumer takes them
    distance_ = after_read_started(n);
    if (synchronous_) {
      // effective_io_concurrency = 0: the read completes before we look further.
      const bool waited = pool_.wait_read_buffers(op);
      if (waited) stats_.waits += 1;
      distance_ = after_read_consumed(waited);
    } else {
      slot_op_[size_t(first_slot)] = int16_t(op_index);
      ++ios_in_progress_;
      stats_.ios_in_flight_max =
          std::max<uint64_t>(stats_.ios_in_flight_max, uint64_t(ios_in_progress_));
    }
  } else {
    distance_ = after_hit();
  }
  trace_counters();
  publish_gauge();
  return true;
}

void ReadStream::record_counters(IoTrace& trace) {
  traced_distance_ = distance_;
  traced_pinned_ = pinned_;
  trace.counter(TraceCounter::kStreamDistance, distance_, label_);
  trace.counter(TraceCounter::kStreamPinned, pinned_, label_);
  const BufferUsage& used = thread_buffer_usage();
  trace.counter(TraceCounter::kBufferHits, int64_t(used.shared_hit));
  trace.counter(TraceCounter::kBufferReads, int64_t(used.shared_read));
}

void ReadStream::look_ahead() {
  // Paused or at the end, the callback is not asked again, but a pending read is still
  // started below: otherwise its blocks would sit unread (and unreturned) while the
  // stream reports paused().
  if ((paused_ || at_end_) && pending_len_ == 0) return;
  aio::IoSystem& io = pool_.io();
  const bool batch = use_batching_ && !io.in_batch();
  if (batch) io.enter_batch();
  try {
    while (!at_end_ && !paused_ && ios_in_progress_ < max_ios_ &&
           pinned_ + pending_len_ < distance_) {
      BlockNumber block;
      if (unget_ != kInvalidBlock) {
        block = std::exchange(unget_, kInvalidBlock);
      } else {
        block = callback_(data_slot(queue_at(pinned_ + pending_len_)));
      }
      if (block == kInvalidBlock) {
        at_end_ = true;
        break;
      }
      if (block == kReadStreamPause) {
        paused_ = true;
        break;
      }
      if (pending_len_ > 0 && block == pending_block_ + BlockNumber(pending_len_) &&
          pending_len_ < io_combine_limit_) {
        ++pending_len_;
        continue;
      }
      // Not consecutive (or the read is full): start what is pending first. A split
      // read may need several starts; if the read slots run out, keep the block.
      bool started_all = true;
      while (pending_len_ > 0) {
        if (!start_pending_read()) {
          started_all = false;
          break;
        }
      }
      if (!started_all) {
        unget_ = block;
        break;
      }
      pending_block_ = block;
      pending_len_ = 1;
    }
    // Start the pending read now if it cannot grow any more, or the consumer is about
    // to need it (nothing pinned); otherwise give it the chance to reach full size.
    if (pending_len_ > 0 && (pending_len_ >= io_combine_limit_ || at_end_ || paused_ ||
                             (pinned_ == 0 && pending_len_ >= distance_))) {
      while (pending_len_ > 0 && start_pending_read()) {
      }
    }
  } catch (...) {
    if (batch) io.exit_batch();
    throw;
  }
  if (batch) io.exit_batch();
}

PinGuard ReadStream::next_buffer(void** per_buffer_data) {
  // Fast path: everything so far was cached, so the stream holds exactly one pinned
  // buffer and nothing else is going on; replace it with the next block in place.
  if (pinned_ == 1 && ios_in_progress_ == 0 && pending_len_ == 0 && distance_ == 1 &&
      forwarded_ == kInvalidBuffer && unget_ == kInvalidBlock && per_buffer_size_ == 0 &&
      !at_end_ && !paused_ && slot_op_[size_t(oldest_)] == kNoRead) {
    int32_t b = buffers_[size_t(oldest_)];
    oldest_ = (oldest_ + 1) % queue_size_;
    pinned_ = 0;
    stats_.buffers_returned += 1;
    stats_.distance_sum += 1;
    stats_.distance_max = std::max<uint64_t>(stats_.distance_max, 1);
    stats_.fast_path_returns += 1;
    PinGuard result(&pool_, b);
    look_ahead();  // one callback call, one pin; a miss starts a read and leaves the path
    if (per_buffer_data) *per_buffer_data = nullptr;
    return result;
  }

  if (pinned_ == 0) {
    look_ahead();
    if (pinned_ == 0) return {};  // end of stream, or paused
  }
  const int q = oldest_;
  if (slot_op_[size_t(q)] >= 0) {
    ReadBuffersOp& op = ops_[size_t(slot_op_[size_t(q)])];
    TP_ASSERT(slot_op_[size_t(q)] == ops_head_);
    bool waited;
    try {
      waited = pool_.wait_read_buffers(op);
    } catch (...) {
      // The op's buffers are not valid: drop everything and end the stream.
      slot_op_[size_t(q)] = kRead;
      ops_head_ = (ops_head_ + 1) % max_ios_;
      --ios_in_progress_;
      release_all();
      at_end_ = true;
      throw;
    }
    slot_op_[size_t(q)] = kRead;
    ops_head_ = (ops_head_ + 1) % max_ios_;
    --ios_in_progress_;
    if (waited) stats_.waits += 1;
    distance_ = after_read_consumed(waited);
    trace_counters();
    publish_gauge();
  }
  int32_t b = buffers_[size_t(q)];
  buffers_[size_t(q)] = kInvalidBuffer;
  returned(q);
  oldest_ = (oldest_ + 1) % queue_size_;
  --pinned_;
  stats_.buffers_returned += 1;
  stats_.distance_sum += uint64_t(distance_);
  stats_.distance_max = std::max<uint64_t>(stats_.distance_max, uint64_t(distance_));
  PinGuard result(&pool_, b);
  if (per_buffer_data) *per_buffer_data = data_slot(q);
  look_ahead();
  return result;
}

}  // namespace tp::bufmgr
