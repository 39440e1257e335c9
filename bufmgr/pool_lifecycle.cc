// BufferPool: building the pool (and checking that it fits in memory), resizing it
// without ever leaving it half built, and invalidation (drop_relation, evict_all).
//
// Invalidation follows PostgreSQL's InvalidateBuffer. A buffer of the relation being
// dropped may be pinned for a moment by another thread: a clock sweep that picked it as
// a victim, a flush writing it, a read still in flight on it. So under its partition
// latch and header lock we check that it still holds the tag we came for and that
// nobody pins it; if someone does, we let go of both, wait (for the read, or a short
// back-off for a pin) and look again, because the tag may have changed meanwhile.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <string>
#include <thread>

#include "bufmgr/buffer_pool.h"
#include "engine/core/error.h"
#include "engine/core/wait_event.h"

namespace tp::bufmgr {

// ---- building -----------------------------------------------------------------------

struct BufferPool::Parts {
  int nbuffers = 0;
  int max_pins = 0;
  std::unique_ptr<char, decltype(&std::free)> pages{nullptr, &std::free};
  std::unique_ptr<BufferDesc[]> descs;
  std::unique_ptr<MappingTable> table;
  std::unique_ptr<PoolThreads> threads;
  std::unique_ptr<ClockSweep> sweep;
  std::unique_ptr<std::mutex[]> extend_locks;
};

namespace {

constexpr int kMaxBuffers = 1 << 22;  // 32 GB; the refcount field holds 2^18 pins

void validate_config(int shared_buffers, int max_pins) {
  if (shared_buffers < 16 || shared_buffers > kMaxBuffers)
    throw Error(
        "invalid value for shared_buffers: " + std::to_string(shared_buffers),
        "shared_buffers must be between 16 and " + std::to_string(kMaxBuffers) + " buffers of 8 kB")
        .with_sqlstate(sqlstate::kInvalidParameterValue);
  if (max_pins < 0)
    throw Error("invalid value for max_pins_per_thread: " + std::to_string(max_pins))
        .with_sqlstate(sqlstate::kInvalidParameterValue);
}

uint64_t machine_memory_bytes() {
  long pages = ::sysconf(_SC_PHYS_PAGES);
  long page_size = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return 0;  // unknown: only allocation failure counts
  return uint64_t(pages) * uint64_t(page_size);
}

// Resident bytes of this process (the pool being replaced included): memory the new
// pool cannot have.
uint64_t process_resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size_pages = 0, resident_pages = 0;
  if (!(statm >> size_pages >> resident_pages)) return 0;
  return resident_pages * uint64_t(::sysconf(_SC_PAGESIZE));
}

std::string megabytes(uint64_t bytes) {
  return std::to_string(bytes / (1024 * 1024)) + " MB";
}

std::string shared_buffers_text(int shared_buffers) {
  return "shared_buffers = " + megabytes(uint64_t(shared_buffers) * kBlockSize);
}

// Refuses a pool that cannot fit beside the rest of the process in physical memory:
// allocating it would fail or (with overcommit) get the process killed while the
// pages are zeroed.
void check_fits_in_memory(int shared_buffers) {
  const uint64_t machine = machine_memory_bytes();
  if (machine == 0) return;
  const uint64_t in_use = process_resident_bytes();
  const uint64_t available = machine > in_use ? machine - in_use : 0;
  const uint64_t needed = BufferPool::memory_needed(shared_buffers);
  if (needed <= available) return;
  const uint64_t per_buffer = BufferPool::memory_needed(1);
  const uint64_t most_mb = available / per_buffer * kBlockSize / (1024 * 1024);
  throw Error(shared_buffers_text(shared_buffers) + " does not fit in this machine's memory",
              "The buffer pool needs " + megabytes(needed) + "; the machine has " +
                  megabytes(machine) + " of physical memory and this process already uses " +
                  megabytes(in_use) + ".",
              "Set shared_buffers to at most " + std::to_string(most_mb) + "MB.")
      .with_sqlstate(sqlstate::kOutOfMemory);
}

}  // namespace

size_t BufferPool::memory_needed(int shared_buffers) {
  // Page, descriptor, a mapping-table bucket and one thread's pin count per buffer.
  return size_t(shared_buffers) *
         (kBlockSize + sizeof(BufferDesc) + 2 * sizeof(void*) + sizeof(uint32_t));
}

BufferPool::Parts BufferPool::allocate(int shared_buffers, int max_pins) {
  validate_config(shared_buffers, max_pins);
  check_fits_in_memory(shared_buffers);
  Parts p;
  try {
    p.nbuffers = shared_buffers;
    p.max_pins = max_pins > 0 ? max_pins : std::max(16, shared_buffers / 16);
    const size_t bytes = size_t(shared_buffers) * kBlockSize;
    p.pages.reset(static_cast<char*>(std::aligned_alloc(aio::kDirectIoAlignment, bytes)));
    if (!p.pages) throw std::bad_alloc();
    std::memset(p.pages.get(), 0, bytes);
    p.descs = std::make_unique<BufferDesc[]>(size_t(shared_buffers));
    for (int i = 0; i < shared_buffers; ++i) p.descs[size_t(i)].id = i;
    p.table = std::make_unique<MappingTable>(shared_buffers);
    p.threads = std::make_unique<PoolThreads>(shared_buffers);
    p.sweep = std::make_unique<ClockSweep>(shared_buffers);
    p.extend_locks = std::make_unique<std::mutex[]>(kExtendLocks);
  } catch (const std::bad_alloc&) {
    throw Error("could not allocate the buffer pool for " + shared_buffers_text(shared_buffers),
                "out of memory: the machine has " + megabytes(machine_memory_bytes()) +
                    " of physical memory",
                "Set shared_buffers lower.")
        .with_sqlstate(sqlstate::kOutOfMemory);
  }
  return p;
}

void BufferPool::install(Parts&& p) noexcept {
  nbuffers_ = p.nbuffers;
  max_pins_ = p.max_pins;
  pages_ = p.pages.release();
  descs_ = std::move(p.descs);
  table_ = std::move(p.table);
  threads_ = std::move(p.threads);
  sweep_ = std::move(p.sweep);
  extend_locks_ = std::move(p.extend_locks);
}

BufferPool::BufferPool(aio::IoSystem& io, const BufferPoolConfig& config)
    : io_(&io), verify_checksums_(config.verify_checksums) {
  install(allocate(config.shared_buffers, config.max_pins_per_thread));
}

BufferPool::~BufferPool() {
  tear_down();
}

void BufferPool::tear_down() {
  if (!descs_) return;
  for (int i = 0; i < nbuffers_; ++i) {
    uint32_t w = descs_[size_t(i)].load_state();
    TP_ASSERT(refcount_of(w) == 0);  // a pin or a read outlived the pool
  }
  table_.reset();
  descs_.reset();
  sweep_.reset();
  threads_.reset();
  std::free(pages_);
  pages_ = nullptr;
}

void BufferPool::resize(int shared_buffers, int max_pins_per_thread) {
  for (int b = 0; b < nbuffers_; ++b)
    if (refcount_of(descs_[size_t(b)].load_state()) != 0)
      throw Error("cannot resize the buffer pool while buffers are pinned")
          .with_sqlstate(sqlstate::kObjectInUse);
  // The new pool first: if it cannot be had, or a dirty page cannot be written, the
  // old pool stays exactly as it was.
  Parts next = allocate(shared_buffers, max_pins_per_thread);
  flush_all();
  std::unique_lock layout(layout_mutex_);  // snapshot() must not see the swap halfway
  tear_down();
  install(std::move(next));
}

void BufferPool::switch_io(aio::IoSystem& io) {
  for (int b = 0; b < nbuffers_; ++b)
    if (refcount_of(descs_[size_t(b)].load_state()) != 0)
      throw Error("cannot change the I/O method while buffers are pinned")
          .with_sqlstate(sqlstate::kObjectInUse);
  evict_all();
  io_ = &io;
}

// ---- invalidation -------------------------------------------------------------------

namespace {

// Waits a little for another thread's pin to go away (pins are short: a sweep looking
// at the buffer, a flush writing it, a scan reading one page).
void back_off(int attempt) {
  if (attempt < 64) {
    cpu_relax();
  } else if (attempt < 1024) {
    std::this_thread::yield();
  } else {
    // A pin that outlasts the spins: the thread really waits (pg_stat_activity shows it).
    WaitEventScope waiting(WaitEvent::kBufferPin);
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

}  // namespace

void BufferPool::write_back_tagged(BufferDesc& d, const BufferTag& tag) {
  uint32_t w = d.lock_header();
  if (!(w & kFlagTagValid) || !(d.tag == tag) || !(w & kFlagDirty)) {
    d.unlock_header();
    return;
  }
  // Pinned under the header lock, so the tag cannot change before the content lock.
  d.state.fetch_add(kRefcountOne, std::memory_order_acquire);
  note_private_pin(d.id);
  d.unlock_header();
  d.content.lock();
  try {
    write_back_locked(d, IoContext::kNormal);
  } catch (...) {
    d.content.unlock();
    unpin(d.id);
    throw;
  }
  d.content.unlock();
  unpin(d.id);
}

void BufferPool::invalidate_buffer(BufferDesc& d, const BufferTag& tag, bool keep_dirty) {
  const uint64_t hash = buffer_tag_hash(tag);
  RwLatch& latch = table_->latch(hash);
  for (int attempt = 0;; ++attempt) {
    latch.lock();
    uint32_t w = d.lock_header();
    if (!(w & kFlagTagValid) || !(d.tag == tag)) {  // recycled meanwhile: nothing to do
      d.unlock_header();
      latch.unlock();
      return;
    }
    const bool pinned = refcount_of(w) != 0;
    const bool write_first = keep_dirty && (w & kFlagDirty);
    if (!pinned && !write_first) {
      table_->erase(&d, hash);
      d.unlock_header(0, kLifecycleFlags, 0);
      latch.unlock();
      if (keep_dirty && (w & kFlagValid)) my_pins().add(IoContext::kNormal, Counter::kEviction);
      return;
    }
    d.unlock_header();
    latch.unlock();
    if (!pinned) {
      write_back_tagged(d, tag);  // then look again: it may have been dirtied anew
    } else if (my_pins().count(d.id) != 0) {
      throw Error("cannot invalidate block " + std::to_string(tag.block) + " of relation \"" +
                      d.file->name() + "\": this thread still pins it",
                  {}, "release every page of the relation first")
          .with_sqlstate(sqlstate::kObjectInUse);
    } else if (w & kFlagIoInProgress) {
      wait_io_done(d);
    } else {
      back_off(attempt);
    }
  }
}

void BufferPool::drop_relation(aio::IoFile& file) {
  const uint32_t rel = file.relnumber();
  for (int b = 0; b < nbuffers_; ++b) {
    BufferDesc& d = descs_[size_t(b)];
    if (!(d.load_state() & kFlagTagValid)) continue;  // unlocked peek; rechecked below
    uint32_t w = d.lock_header();
    const BufferTag tag = d.tag;
    d.unlock_header();
    if ((w & kFlagTagValid) && tag.relnumber == rel) invalidate_buffer(d, tag, false);
  }
}

void BufferPool::evict_all() {
  if (uint32_t mine = my_pins().distinct(); mine > 0)
    throw Error("cannot evict the buffer pool: " + std::to_string(mine) + " buffers are pinned",
                "this thread still pins them")
        .with_sqlstate(sqlstate::kObjectInUse);
  flush_all();
  for (int b = 0; b < nbuffers_; ++b) {
    BufferDesc& d = descs_[size_t(b)];
    if (!(d.load_state() & kFlagTagValid)) continue;
    uint32_t w = d.lock_header();
    const BufferTag tag = d.tag;
    d.unlock_header();
    if (w & kFlagTagValid) invalidate_buffer(d, tag, true);
  }
}

}  // namespace tp::bufmgr
