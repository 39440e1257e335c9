// BufferPool: pinning, lookup-or-allocate, victims, write-back, extend, flush.
// The read I/O path lives in pool_io.cc; building, resizing, drop and evict in
// pool_lifecycle.cc.
#include "bufmgr/buffer_pool.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "bufmgr/pool_internal.h"
#include "bufmgr/strategy.h"
#include "engine/core/error.h"
#include "engine/core/page.h"

namespace tp::bufmgr {

using internal::now_us;

// ---- pins -------------------------------------------------------------------------

void BufferPool::check_pin_budget(uint32_t more) {
  ThreadPins& pins = my_pins();
  if (pins.distinct() + more > uint32_t(max_pins_))
    throw Error("too many buffers pinned by one thread",
                "this thread pins " + std::to_string(pins.distinct()) + " buffers and asked for " +
                    std::to_string(more) + " more; the limit is " + std::to_string(max_pins_),
                "raise max_pins_per_thread or shared_buffers")
        .with_sqlstate(sqlstate::kInsufficientResources);
}

uint32_t BufferPool::pin_shared(BufferDesc& d, bool ring) {
  uint32_t old = d.state.load(std::memory_order_relaxed);
  for (int spins = 0;;) {
    if (old & kFlagLocked) {
      BufferDesc::wait_header_unlocked(spins++);
      old = d.state.load(std::memory_order_relaxed);
      continue;
    }
    uint32_t next = old + kRefcountOne;
    uint32_t usage = usage_of(old);
    if (ring ? usage == 0 : usage < kMaxUsageCount) next += kUsageOne;
    if (d.state.compare_exchange_weak(old, next, std::memory_order_acquire,
                                      std::memory_order_relaxed))
      return next;
  }
}

void BufferPool::note_private_pin(int32_t buffer) {
  ThreadPins& pins = my_pins();
  uint32_t& count = pins.count(buffer);
  TP_ASSERT(count == 0);
  count = 1;
  pins.set_distinct(pins.distinct() + 1);
}

void BufferPool::pin_again(int32_t buffer) {
  uint32_t& count = my_pins().count(buffer);
  TP_ASSERT(count > 0);
  ++count;
}

void BufferPool::unpin(int32_t buffer) {
  ThreadPins& pins = my_pins();
  uint32_t& count = pins.count(buffer);
  TP_ASSERT(count > 0);
  if (--count == 0) {
    pins.set_distinct(pins.distinct() - 1);
    descs_[size_t(buffer)].state.fetch_sub(kRefcountOne, std::memory_order_release);
  }
}

int32_t BufferPool::pin_block(aio::IoFile& file, BlockNumber block, BufferStrategy* strategy,
                              IoContext context, bool* valid) {
  ThreadPins& pins = my_pins();
  const BufferTag tag{file.relnumber(), block};
  const uint64_t hash = buffer_tag_hash(tag);
  RwLatch& latch = table_->latch(hash);

  // Pins `d` (found in the table, latch held) for this thread and reports validity.
  auto pin_found = [&](BufferDesc& d) {
    uint32_t& count = pins.count(d.id);
    uint32_t state = count == 0 ? pin_shared(d, strategy != nullptr) : d.load_state();
    if (count++ == 0) pins.set_distinct(pins.distinct() + 1);
    *valid = (state & kFlagValid) != 0;
    return d.id;
  };

  latch.lock_shared();
  if (BufferDesc* d = table_->find(tag, hash)) {
    if (pins.count(d->id) == 0 && pins.distinct() >= uint32_t(max_pins_)) {
      latch.unlock_shared();
      check_pin_budget(1);  // throws
    }
    int32_t b = pin_found(*d);
    latch.unlock_shared();
    return b;
  }
  latch.unlock_shared();

  // Miss: find a victim holding no locks, then insert it unless someone beat us.
  check_pin_budget(1);
  BufferDesc& victim = get_victim(strategy, context);
  latch.lock();
  if (BufferDesc* other = table_->find(tag, hash)) {
    int32_t b = pin_found(*other);
    latch.unlock();
    unpin(victim.id);  // it has no tag: it simply goes back to the clock
    return b;
  }
  victim.lock_header();
  victim.tag = tag;
  victim.file = &file;
  table_->insert(&victim, hash);
  victim.unlock_header(kFlagTagValid, 0, 1);
  latch.unlock();
  *valid = false;
  return victim.id;
}

// ---- victims and write-back ------------------------------------------------------

BufferDesc& BufferPool::get_victim(BufferStrategy* strategy, IoContext context) {
  for (;;) {
    BufferDesc* d = strategy ? strategy->next_reusable(*this) : nullptr;
    if (d == nullptr) {
      d = &sweep_->victim(descs_.get());
      if (strategy) strategy->remember(d->id);
    }
    note_private_pin(d->id);
    if (d->load_state() & kFlagDirty) {
      // Conditional lock: someone who pinned it meanwhile may hold it, and waiting here
      // could deadlock (two threads each holding the page the other wants to evict).
      if (!d->content.try_lock()) {
        unpin(d->id);
        continue;
      }
      try {
        write_back_locked(*d, context);
      } catch (...) {
        d->content.unlock();
        unpin(d->id);
        throw;
      }
      d->content.unlock();
    }
    if (!invalidate_victim(*d, context)) {
      unpin(d->id);
      continue;
    }
    return *d;
  }
}

bool BufferPool::invalidate_victim(BufferDesc& d, IoContext context) {
  // Only our pin holds it, so the tag cannot change under us; TAG_VALID was set by the
  // last owner with a release we acquired when pinning.
  if (!(d.load_state() & kFlagTagValid)) return true;
  const uint64_t hash = buffer_tag_hash(d.tag);
  RwLatch& latch = table_->latch(hash);
  latch.lock();
  uint32_t w = d.lock_header();
  if (refcount_of(w) != 1 || (w & kFlagDirty)) {
    d.unlock_header();
    latch.unlock();
    return false;
  }
  table_->erase(&d, hash);
  d.unlock_header(0, kLifecycleFlags, 0);
  latch.unlock();
  if (w & kFlagValid) my_pins().add(context, Counter::kEviction);
  return true;
}

void BufferPool::write_back_locked(BufferDesc& d, IoContext context) {
  if (!(d.load_state() & kFlagDirty)) return;
  char* page = page_of(d.id);
  // A never-initialised page stays all zero on disk: page_verify accepts it only so.
  if (!page_is_new(page)) page_set_checksum(page, d.tag.block);
  const uint64_t start_us = now_us();
  aio::IoResult result;
  aio::IoHandle* h = io_->acquire(&result);
  h->set_context(context);
  aio::IoWaitRef ref = h->wait_ref();
  io_->start_write(h, *d.file, d.tag.block, reinterpret_cast<const std::byte*>(page), 1);
  io_->wait(ref);
  aio::check_io_result(result, *d.file);
  // Only exclusive-lock holders set DIRTY and we hold that lock: nobody re-dirtied it.
  d.lock_header();
  d.unlock_header(0, kFlagDirty);
  my_pins().add(context, Counter::kWrite);
  BufferUsage& usage = thread_buffer_usage();
  usage.shared_written += 1;
  usage.io_write_time_us += now_us() - start_us;
}

void BufferPool::mark_dirty(int32_t buffer) {
  BufferDesc& d = desc(buffer);
  TP_ASSERT(d.content.held_exclusive());
  uint32_t old = d.lock_header();
  d.unlock_header(kFlagDirty, 0);
  if (!(old & kFlagDirty)) thread_buffer_usage().shared_dirtied += 1;
}

// ---- extend -------------------------------------------------------------------------

std::vector<WriteGuard> BufferPool::extend(aio::IoFile& file, int count, BufferStrategy* strategy) {
  if (count < 1)
    throw Error("cannot extend relation \"" + file.name() + "\" by " + std::to_string(count) +
                " blocks")
        .with_sqlstate(sqlstate::kProgramLimitExceeded);
  check_pin_budget(uint32_t(count));
  BlockNumber first;
  {
    std::lock_guard lock(extend_locks_[file.relnumber() % kExtendLocks]);
    first = file.size_blocks();
    if (uint64_t(first) + uint64_t(count) >= kInvalidBlock)
      throw Error("cannot extend relation \"" + file.name() + "\" beyond " +
                  std::to_string(kInvalidBlock - 1) + " blocks")
          .with_sqlstate(sqlstate::kProgramLimitExceeded);
    file.extend_zeros(first + BlockNumber(count));
  }
  IoContext context = strategy ? strategy->context() : IoContext::kNormal;
  std::vector<WriteGuard> pages;
  pages.reserve(size_t(count));
  for (int i = 0; i < count; ++i) {
    pages.push_back(
        read_buffer(file, first + BlockNumber(i), ReadMode::kZeroFill, strategy).lock_exclusive());
    // A page the pool still holds for a block past the old end means the file was cut
    // without drop_relation: refuse rather than hand out stale contents as new.
    if (!page_is_new(pages.back().page()))
      throw Error("unexpected data beyond EOF in block " + std::to_string(first + BlockNumber(i)) +
                      " of relation \"" + file.name() + "\"",
                  {}, "call drop_relation after truncating a relation's file")
          .with_sqlstate(sqlstate::kDataCorrupted);
    my_pins().add(context, Counter::kExtend);
  }
  return pages;
}

WriteGuard BufferPool::extend(aio::IoFile& file, BufferStrategy* strategy) {
  std::vector<WriteGuard> one = extend(file, 1, strategy);
  return std::move(one.front());
}

// ---- flush ------------------------------------------------------

// One page write of a flush batch: the buffer stays pinned and exclusively locked until
// the write is waited for.
struct BufferPool::PendingWrite {
  int32_t buffer;
  aio::IoWaitRef ref;
  aio::IoResult result;
};

void BufferPool::flush_buffers(uint32_t relnumber, bool all) {
  // Writes go out in batches of up to 32 (pinned, exclusively locked, checksummed, then
  // submitted together and waited for). Only the first page of a batch is locked with
  // waiting; the others are tried, and a busy one closes the batch first, so holding
  // several content locks can never deadlock against another thread.
  constexpr int kFlushBatch = 32;
  ThreadPins& pins = my_pins();
  if (pins.distinct() >= uint32_t(max_pins_)) check_pin_budget(1);  // throws
  const int batch_limit = std::min<int>(kFlushBatch, max_pins_ - int(pins.distinct()));
  std::vector<PendingWrite> batch;
  batch.reserve(size_t(batch_limit));
  std::vector<aio::IoFile*> files;
  const uint64_t start_us = now_us();
  try {
    for (int b = 0; b < nbuffers_; ++b) {
      aio::IoFile* file = pin_dirty_buffer(b, relnumber, all);
      if (file == nullptr) continue;
      BufferDesc& d = descs_[size_t(b)];
      if (!d.content.try_lock()) {
        finish_flush_batch(batch);
        d.content.lock();
      }
      if (!(d.load_state() & kFlagDirty)) {  // someone wrote it back meanwhile
        d.content.unlock();
        unpin(b);
        continue;
      }
      start_flush_write(b, *file, batch);
      if (std::find(files.begin(), files.end(), file) == files.end()) files.push_back(file);
      if (int(batch.size()) == batch_limit) finish_flush_batch(batch);
    }
    finish_flush_batch(batch);
  } catch (...) {
    abandon_flush_batch(batch);
    throw;
  }
  thread_buffer_usage().io_write_time_us += now_us() - start_us;
  for (aio::IoFile* f : files) f->fsync();
}

// Pins `buffer` if it is dirty and (unless `all`) holds a page of `relnumber`; returns its
// file, or null if it is not one to flush. Pinned under the header lock, so the tag cannot
// change before the caller locks the content.
aio::IoFile* BufferPool::pin_dirty_buffer(int32_t buffer, uint32_t relnumber, bool all) {
  BufferDesc& d = descs_[size_t(buffer)];
  if (!(d.load_state() & kFlagDirty)) return nullptr;  // unlocked peek; rechecked below
  uint32_t w = d.lock_header();
  if (!(w & kFlagDirty) || (!all && d.tag.relnumber != relnumber)) {
    d.unlock_header();
    return nullptr;
  }
  if (my_pins().count(buffer) == 0) {
    d.state.fetch_add(kRefcountOne, std::memory_order_acquire);
    note_private_pin(buffer);
  } else {
    pin_again(buffer);
  }
  aio::IoFile* file = d.file;
  d.unlock_header();
  return file;
}

// Checksums the pinned, exclusively locked page and stages its write into `batch`.
void BufferPool::start_flush_write(int32_t buffer, aio::IoFile& file,
                                   std::vector<PendingWrite>& batch) {
  BufferDesc& d = desc(buffer);
  char* page = page_of(buffer);
  if (!page_is_new(page)) page_set_checksum(page, d.tag.block);
  batch.push_back({buffer, {}, {}});
  PendingWrite& pw = batch.back();
  aio::IoHandle* h = io_->acquire(&pw.result);
  const aio::IoWaitRef ref = h->wait_ref();
  io_->start_write(h, file, d.tag.block, reinterpret_cast<const std::byte*>(page), 1);
  pw.ref = ref;  // only now: a write that failed to start has nothing to wait for
}

// Waits for every write of the batch, then clears DIRTY on the written pages and releases
// all locks and pins; raises the first failure afterwards.
void BufferPool::finish_flush_batch(std::vector<PendingWrite>& batch) {
  if (batch.empty()) return;
  io_->submit_staged();
  std::string failure;
  const char* failure_code = sqlstate::kIoError;
  for (PendingWrite& w : batch) {
    io_->wait(w.ref);
    BufferDesc& d = desc(w.buffer);
    if (w.result.ok()) {
      d.lock_header();
      d.unlock_header(0, kFlagDirty);
      my_pins().add(IoContext::kNormal, Counter::kWrite);
      thread_buffer_usage().shared_written += 1;
    } else if (failure.empty()) {
      failure = aio::describe_io_failure(w.result, d.file->name());
      failure_code = aio::io_failure_sqlstate(w.result);
    }
    d.content.unlock();
    unpin(w.buffer);
  }
  batch.clear();
  if (!failure.empty()) throw Error(failure).with_sqlstate(failure_code);
}

// After an error: releases what the batch still holds (writes already started complete
// first), leaving the pages dirty.
void BufferPool::abandon_flush_batch(std::vector<PendingWrite>& batch) {
  for (PendingWrite& w : batch) {
    if (w.ref.valid()) io_->wait(w.ref);
    desc(w.buffer).content.unlock();
    unpin(w.buffer);
  }
  batch.clear();
}

void BufferPool::flush_relation(aio::IoFile& file) {
  flush_buffers(file.relnumber(), false);
  file.fsync();
}

void BufferPool::flush_all() {
  flush_buffers(0, true);
}

// ---- introspection -------------------------------------------------------------------

PoolCounters BufferPool::counters_total() const {
  PoolCounters sum;
  for (int c = 0; c < kIoContextCount; ++c) {
    PoolCounters part = counters(IoContext(c));
    sum.hits += part.hits;
    sum.reads += part.reads;
    sum.writes += part.writes;
    sum.evictions += part.evictions;
    sum.extends += part.extends;
  }
  return sum;
}

int BufferPool::cached_blocks(const aio::IoFile& file) const {
  int n = 0;
  for (int b = 0; b < nbuffers_; ++b) {
    BufferDesc& d = descs_[size_t(b)];
    uint32_t w = d.lock_header();
    if ((w & kFlagValid) && d.tag.relnumber == file.relnumber()) ++n;
    d.unlock_header();
  }
  return n;
}

bool BufferPool::is_cached(const aio::IoFile& file, BlockNumber block) {
  const BufferTag tag{file.relnumber(), block};
  const uint64_t hash = buffer_tag_hash(tag);
  RwLatch& latch = table_->latch(hash);
  latch.lock_shared();
  BufferDesc* d = table_->find(tag, hash);
  bool valid = d != nullptr && (d->load_state() & kFlagValid);
  latch.unlock_shared();
  return valid;
}

std::vector<BufferPool::BufferInfo> BufferPool::snapshot() const {
  std::shared_lock layout(layout_mutex_);
  std::vector<BufferInfo> buffers;
  buffers.reserve(size_t(nbuffers_));
  for (int32_t b = 0; b < nbuffers_; ++b) buffers.push_back(inspect(b));
  return buffers;
}

int32_t BufferPool::clock_hand() const {
  std::shared_lock layout(layout_mutex_);
  return sweep_->position();
}

BufferPool::BufferInfo BufferPool::inspect(int32_t buffer) const {
  BufferDesc& d = descs_[size_t(buffer)];
  uint32_t w = d.lock_header();
  BufferInfo info{buffer_state_of(w), refcount_of(w), usage_of(w), d.tag};
  d.unlock_header();
  return info;
}

}  // namespace tp::bufmgr
