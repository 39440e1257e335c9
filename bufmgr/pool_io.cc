// The read path: StartReadBuffers / WaitReadBuffers, the shared-completion callback that
// verifies pages, zero-fill, and read_buffer built on them.
//
// I/O-in-progress protocol for one buffer (see bufmgr/README.md for the diagram):
//   1. A reader pins the buffer (pin_block) and finds it not VALID.
//   2. Under the header lock it sets IO_IN_PROGRESS, stores the I/O's wait ref in the
//      descriptor and adds a pin owned by the I/O. Whoever finds IO_IN_PROGRESS set
//      instead copies the wait ref and waits on it only when it needs the page.
//   3. The shared-completion callback (any thread) verifies the page, sets VALID or
//      IO_ERROR (or neither for blocks a short read missed), clears IO_IN_PROGRESS and
//      the wait ref, drops the I/O's pin and wakes sleepers on the state word.
//   4. The issuer reads the result and raises the error on its own thread; a waiter that
//      finds the buffer still not VALID starts the read itself.
#include <algorithm>
#include <cerrno>
#include <cstring>

#include "bufmgr/buffer_pool.h"
#include "bufmgr/pool_internal.h"
#include "bufmgr/strategy.h"
#include "engine/core/error.h"
#include "engine/core/page.h"
#include "engine/core/wait_event.h"

namespace tp::bufmgr {

using internal::now_us;

namespace {

IoContext context_of(const BufferStrategy* strategy) {
  return strategy ? strategy->context() : IoContext::kNormal;
}

// Raises a failed read naming the one block that failed (the first not transferred),
// not the whole range of a combined read.
[[noreturn]] void raise_block_error(aio::IoResult r, const aio::IoFile& file) {
  const uint32_t done = r.blocks_done();
  r.first_block += done;
  r.nblocks = 1;
  r.bytes_done -= done * kBlockSize;
  r.bytes_requested = kBlockSize;
  aio::raise_io_error(r, file);
}

// The header half of page_verify: what a read can still check without checksums.
bool page_header_sane(const char* page) {
  const PageHeader* h = page_header(page);
  if (h->upper == 0) return page_is_new(page);
  return h->lower >= kPageHeaderSize && h->lower <= h->upper && h->upper <= h->special &&
         h->special <= kBlockSize && (h->size_version & 0xFF00) == (kBlockSize & 0xFF00);
}

}  // namespace

PinGuard BufferPool::read_buffer(aio::IoFile& file, BlockNumber block, ReadMode mode,
                                 BufferStrategy* strategy) {
  if (block == kInvalidBlock)
    throw Error("invalid block number in a read of relation \"" + file.name() + "\"");
  if (mode == ReadMode::kZeroFill) {
    bool valid = false;
    IoContext context = context_of(strategy);
    PinGuard pin(this, pin_block(file, block, strategy, context, &valid));
    if (valid) {
      my_pins().add(context, Counter::kHit);
      thread_buffer_usage().shared_hit += 1;
    } else {
      zero_fill(desc(pin.buffer()));
    }
    return pin;
  }
  // The hit path: one lookup and pin, no op set up.
  bool valid = false;
  const IoContext context = context_of(strategy);
  const int32_t b = pin_block(file, block, strategy, context, &valid);
  if (valid) {
    my_pins().add(context, Counter::kHit);
    thread_buffer_usage().shared_hit += 1;
    return PinGuard(this, b);
  }
  ReadBuffersOp op;
  op.file = &file;
  op.strategy = strategy;
  op.forwarded_in = b;  // start_read_buffers takes this pin over
  int n = 1;
  bool need_wait = start_read_buffers(op, block, &n);
  PinGuard pin(this, op.buffers[0]);
  if (need_wait) wait_read_buffers(op);
  return pin;
}

bool BufferPool::start_read_buffers(ReadBuffersOp& op, BlockNumber block, int* nblocks) {
  TP_ASSERT(op.file != nullptr);
  TP_ASSERT(*nblocks >= 1 && *nblocks <= ReadBuffersOp::kMaxBlocks);
  if (block == kInvalidBlock || uint64_t(block) + uint64_t(*nblocks) > kInvalidBlock)
    throw Error("invalid block number in a read of relation \"" + op.file->name() + "\"");
  const IoContext context = context_of(op.strategy);
  op.first_block = block;
  op.forwarded = false;
  op.nblocks_done = 0;
  op.io_nblocks = 0;
  op.foreign_io = false;
  op.io_ref = {};
  int n = *nblocks;
  int pinned = 0;
  try {
    for (int i = 0; i < n; ++i) {
      bool valid;
      int32_t b;
      if (i == 0 && op.forwarded_in != kInvalidBuffer) {
        b = std::exchange(op.forwarded_in, kInvalidBuffer);
        valid = (desc(b).load_state() & kFlagValid) != 0;
      } else {
        b = pin_block(*op.file, block + BlockNumber(i), op.strategy, context, &valid);
      }
      op.buffers[i] = b;
      ++pinned;
      if (valid) {
        if (i == 0) {
          // Nothing to read: the op covers just this hit.
          my_pins().add(context, Counter::kHit);
          thread_buffer_usage().shared_hit += 1;
          op.nblocks = op.nblocks_done = *nblocks = 1;
          return false;
        }
        // Stop the I/O before the first valid block and hand its pin to the next op.
        op.forwarded = true;
        n = i;
        break;
      }
    }
  } catch (...) {
    for (int i = 0; i < pinned; ++i) unpin(op.buffers[i]);
    throw;
  }
  op.nblocks = *nblocks = n;
  try {
    start_io(op);
  } catch (...) {
    for (int i = 0; i < pinned; ++i) unpin(op.buffers[i]);
    throw;
  }
  return op.nblocks_done < op.nblocks;
}

void BufferPool::start_io(ReadBuffersOp& op) {
  const IoContext context = context_of(op.strategy);
  while (op.nblocks_done < op.nblocks) {
    const int first = op.nblocks_done;
    // The handle comes first, so its wait ref can be stored with IO_IN_PROGRESS.
    aio::IoHandle* h = io_->acquire(&op.result);
    const aio::IoWaitRef ref = h->wait_ref();
    int claimed = 0;
    bool first_valid = false;
    for (int j = first; j < op.nblocks; ++j) {
      BufferDesc& d = desc(op.buffers[j]);
      uint32_t w = d.lock_header();
      if (w & (kFlagValid | kFlagIoInProgress)) {
        if (j == first) {
          if (w & kFlagValid) {
            first_valid = true;
          } else {
            op.foreign_io = true;  // someone else reads it: wait on their I/O later
            op.io_ref = d.io_ref;
          }
        }
        d.unlock_header();
        break;
      }
      d.io_ref = ref;
      d.state.fetch_add(kRefcountOne, std::memory_order_relaxed);  // the I/O's own pin
      d.unlock_header(kFlagIoInProgress, 0);
      ++claimed;
    }
    if (claimed == 0) {
      io_->release(h);
      if (first_valid) {
        // Another thread finished it since we pinned it: a hit after all.
        my_pins().add(context, Counter::kHit);
        thread_buffer_usage().shared_hit += 1;
        ++op.nblocks_done;
        continue;
      }
      return;  // foreign I/O; wait_read_buffers waits for it
    }
    h->set_completion({&BufferPool::read_completed, {reinterpret_cast<uint64_t>(this)}});
    h->set_context(context);
    if (op.advice) h->set_flags(aio::kIoFlagAdvice);
    std::byte* pages[ReadBuffersOp::kMaxBlocks];
    for (int j = 0; j < claimed; ++j)
      pages[j] = reinterpret_cast<std::byte*>(page_of(op.buffers[first + j]));
    op.io_nblocks = claimed;
    op.io_ref = ref;
    op.foreign_io = false;
    const uint64_t start_us = now_us();
    try {
      io_->start_readv(h, *op.file, op.first_block + BlockNumber(first),
                       std::span<std::byte* const>(pages, size_t(claimed)));
    } catch (...) {
      // The handle was released: give the buffers back as they were.
      for (int j = 0; j < claimed; ++j) {
        BufferDesc& d = desc(op.buffers[first + j]);
        d.lock_header();
        d.io_ref = {};
        d.unlock_header(0, kFlagIoInProgress);
        d.state.fetch_sub(kRefcountOne, std::memory_order_release);
        d.state.notify_all();
      }
      op.io_nblocks = 0;
      op.io_ref = {};
      throw;
    }
    thread_buffer_usage().io_read_time_us += now_us() - start_us;
    return;
  }
}

void BufferPool::read_completed(const aio::IoCompletionInfo& info, aio::IoResult& result) noexcept {
  BufferPool* pool = reinterpret_cast<BufferPool*>(info.data[0]);
  const int nblocks = info.nblocks;
  const int complete = result.status == aio::IoStatus::kOk
                           ? nblocks
                           : std::min(nblocks, int(result.bytes_done / kBlockSize));
  uint32_t first_bad = 0;
  for (int i = 0; i < nblocks; ++i) {
    char* page = static_cast<char*>(info.iov[i].iov_base);
    BufferDesc& d = pool->desc(int32_t((page - pool->pages_) / kBlockSize));
    uint32_t set;
    uint32_t clear = kFlagIoInProgress | kFlagIoError;
    if (i < complete) {
      const bool good = pool->verify_checksums_
                            ? page_verify(page, info.first_block + BlockNumber(i))
                            : page_header_sane(page);
      if (good) {
        set = kFlagValid;
      } else {
        set = kFlagIoError;
        if (first_bad == 0) first_bad = uint32_t(i) + 1;
      }
    } else if (result.status == aio::IoStatus::kPartial && complete > 0) {
      set = 0;  // not read: the issuer reads it again
    } else {
      set = kFlagIoError;
    }
    d.lock_header();
    d.io_ref = {};
    d.unlock_header(set, clear & ~set);
    d.state.fetch_sub(kRefcountOne, std::memory_order_release);
    d.state.notify_all();
  }
  if (first_bad != 0) {
    result.status = aio::IoStatus::kError;
    result.error_number = EILSEQ;
    result.callback_data = first_bad;
  }
}

bool BufferPool::wait_read_buffers(ReadBuffersOp& op) {
  const IoContext context = context_of(op.strategy);
  bool waited = false;
  while (op.nblocks_done < op.nblocks) {
    if (op.io_ref.valid()) {
      const uint64_t start_us = now_us();
      if (!op.foreign_io && io_->method() == aio::IoMethodKind::kSync) waited = true;
      if (!io_->check_done(op.io_ref)) {
        waited = true;
        io_->wait(op.io_ref);
      }
      thread_buffer_usage().io_read_time_us += now_us() - start_us;
    }
    if (op.foreign_io) {
      BufferDesc& d = desc(op.buffers[op.nblocks_done]);
      wait_io_done(d);  // covers a zero-fill, which has no wait ref
      op.foreign_io = false;
      op.io_ref = {};
      if (d.load_state() & kFlagValid) {
        my_pins().add(context, Counter::kHit);
        thread_buffer_usage().shared_hit += 1;
        ++op.nblocks_done;
      }
      // Otherwise the other reader failed: start_io below retries it ourselves.
    } else if (op.io_nblocks > 0) {
      const aio::IoResult result = op.result;
      const int asked = op.io_nblocks;
      op.io_nblocks = 0;
      op.io_ref = {};
      int complete = result.ok() ? asked : std::min(asked, int(result.blocks_done()));
      int good = complete;
      if (result.callback_data != 0) good = int(result.callback_data) - 1;
      my_pins().add(context, Counter::kRead, uint64_t(good));
      thread_buffer_usage().shared_read += uint64_t(good);
      if (result.callback_data != 0)
        throw Error("invalid page in block " +
                        std::to_string(op.first_block + BlockNumber(op.nblocks_done + good)) +
                        " of relation \"" + op.file->name() + "\"",
                    "the page checksum or header does not match its contents")
            .with_sqlstate(sqlstate::kDataCorrupted);
      if (result.status == aio::IoStatus::kError ||
          (result.status == aio::IoStatus::kPartial && complete == 0))
        raise_block_error(result, *op.file);
      op.nblocks_done += complete;
    }
    if (op.nblocks_done < op.nblocks) start_io(op);
  }
  return waited;
}

void BufferPool::wait_io_done(BufferDesc& d) {
  for (;;) {
    uint32_t w = d.lock_header();
    aio::IoWaitRef ref = d.io_ref;
    d.unlock_header();
    if (!(w & kFlagIoInProgress)) return;
    // Never sleep on someone else while our own staged I/O is unsubmitted.
    io_->submit_staged();
    if (ref.valid()) {
      io_->wait(ref);
    } else {
      uint32_t cur = d.load_state();
      if (cur & kFlagIoInProgress) {
        WaitEventScope waiting(WaitEvent::kAioIoCompletion);  // another thread's zero-fill
        d.state.wait(cur, std::memory_order_acquire);
      }
    }
  }
}

void BufferPool::zero_fill(BufferDesc& d) {
  for (;;) {
    uint32_t w = d.lock_header();
    if (w & kFlagValid) {
      d.unlock_header();
      return;
    }
    if (w & kFlagIoInProgress) {
      d.unlock_header();
      wait_io_done(d);
      continue;
    }
    d.unlock_header(kFlagIoInProgress, 0);
    break;
  }
  std::memset(page_of(d.id), 0, kBlockSize);
  d.lock_header();
  d.unlock_header(kFlagValid, kFlagIoInProgress | kFlagIoError);
  d.state.notify_all();
}

}  // namespace tp::bufmgr
