// IoSystem: per-thread handle pools, acquire / define / stage / submit, waiting and
// reclaiming. The methods (method_*.cc) only execute what this file submits.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "aio/file.h"
#include "aio/method.h"
#include "aio/stats.h"
#include "engine/core/error.h"
#include "engine/core/wait_event.h"

namespace tp::aio {

// The state behind one IoSystem. Slots are created on demand and kept until the IoSystem
// is destroyed, so a handle index always resolves to live memory.
class IoSystemCore {
 public:
  IoSystemCore(const IoConfig& config, uint64_t id) : config(config), id(id) {}

  const IoConfig config;
  const uint64_t id;
  std::unique_ptr<IoMethod> method;

  std::mutex slots_mutex;  // guards all_slots / free_slots
  std::vector<std::unique_ptr<ThreadSlot>> all_slots;
  std::vector<ThreadSlot*> free_slots;
  std::atomic<ThreadSlot*> slot_by_index[kMaxThreadSlots] = {};

  ThreadSlot* find_my_slot();
  ThreadSlot& my_slot();
  void release_slot(ThreadSlot& slot);

  IoHandle& handle_at(uint32_t index) {
    ThreadSlot* slot = slot_by_index[index / kMaxHandlesPerThread].load(std::memory_order_acquire);
    TP_ASSERT(slot != nullptr && int(index % kMaxHandlesPerThread) < slot->handle_count);
    return slot->handles[index % kMaxHandlesPerThread];
  }

  IoHandle* acquire(IoResult* result, bool may_wait);
  void release(ThreadSlot& slot, IoHandle& h);
  void start(IoHandle& h, IoOp op, IoFile& file, BlockNumber first_block,
             std::span<std::byte* const> blocks);
  // Releases `h` and throws the caller error `why` about this I/O.
  [[noreturn]] void refuse(IoHandle& h, IoOp op, const IoFile& file, BlockNumber first_block,
                           int nblocks, const std::string& why);
  // Splits a contiguous buffer into per-block pointers; refuses a bad count.
  int contiguous_blocks(IoHandle& h, IoOp op, const IoFile& file, BlockNumber first_block,
                        std::byte* buffer, int nblocks, std::byte** blocks);
  void submit_staged(ThreadSlot& slot);
  void reclaim_completed(ThreadSlot& slot);
  void wait(IoWaitRef ref, ThreadSlot* caller);
  bool check_done(IoWaitRef ref, ThreadSlot* caller);
  void wait_all(ThreadSlot& slot);
};

namespace {

// Bit of IoHandle::shown_shape_ set for an I/O its issuer runs inline (kIoFlagSynchronous).
constexpr uint64_t kShapeInline = uint64_t{1} << 16;

// Live systems by id, so a thread exiting after its IoSystem was destroyed does nothing.
std::mutex registry_mutex;
std::unordered_map<uint64_t, IoSystemCore*> live_systems;
std::atomic<uint64_t> next_system_id{1};

struct Binding {
  uint64_t system_id = 0;
  ThreadSlot* slot = nullptr;
};

// The slots this thread holds, one per IoSystem it used. Trivially destructible on
// purpose: an IoSystem that is a static object may be destroyed after this thread's
// thread_local destructors ran, and must still be able to look here (and find nothing).
constexpr int kMaxBindingsPerThread = 16;
struct BindingTable {
  Binding entries[kMaxBindingsPerThread];
  int count;
};
thread_local BindingTable tl_table;
thread_local Binding tl_last;  // one-entry cache in front of tl_table

// Returns this thread's slots when it exits (after its in-flight I/O completes).
struct ThreadExitHook {
  ~ThreadExitHook() {
    std::lock_guard lock(registry_mutex);
    for (int i = 0; i < tl_table.count; ++i) {
      auto it = live_systems.find(tl_table.entries[i].system_id);
      if (it != live_systems.end()) it->second->release_slot(*tl_table.entries[i].slot);
    }
    tl_table.count = 0;
    tl_last = Binding{};
  }
};
thread_local ThreadExitHook tl_exit_hook;

void forget_binding(uint64_t system_id) {
  int kept = 0;
  for (int i = 0; i < tl_table.count; ++i)
    if (tl_table.entries[i].system_id != system_id) tl_table.entries[kept++] = tl_table.entries[i];
  tl_table.count = kept;
  if (tl_last.system_id == system_id) tl_last = Binding{};
}

uint32_t required_alignment(const IoFile& file) {
  return std::max<uint32_t>(uint32_t(kDirectIoAlignment), file.dio_mem_align());
}

std::string block_range(BlockNumber first, int nblocks) {
  if (nblocks == 1) return "block " + std::to_string(first);
  return "blocks " + std::to_string(first) + ".." + std::to_string(uint64_t(first) + nblocks - 1);
}

uint64_t elapsed_us(std::chrono::steady_clock::time_point since) {
  return uint64_t(std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::steady_clock::now() - since)
                      .count());
}

}  // namespace

ThreadSlot* IoSystemCore::find_my_slot() {
  if (tl_last.system_id == id) return tl_last.slot;
  for (int i = 0; i < tl_table.count; ++i) {
    if (tl_table.entries[i].system_id == id) {
      tl_last = tl_table.entries[i];
      return tl_last.slot;
    }
  }
  return nullptr;
}

ThreadSlot& IoSystemCore::my_slot() {
  if (ThreadSlot* slot = find_my_slot()) return *slot;
  // Forget bindings to systems that no longer exist; refuse a thread using too many.
  {
    std::lock_guard lock(registry_mutex);
    int kept = 0;
    for (int i = 0; i < tl_table.count; ++i)
      if (live_systems.contains(tl_table.entries[i].system_id))
        tl_table.entries[kept++] = tl_table.entries[i];
    tl_table.count = kept;
  }
  if (tl_table.count >= kMaxBindingsPerThread)
    throw Error("a thread may use at most " + std::to_string(kMaxBindingsPerThread) +
                " I/O systems at once")
        .with_sqlstate(sqlstate::kProgramLimitExceeded);
  (void)&tl_exit_hook;  // constructs the hook, so its destructor runs at thread exit
  ThreadSlot* slot = nullptr;
  {
    std::lock_guard lock(slots_mutex);
    if (!free_slots.empty()) {
      slot = free_slots.back();
      free_slots.pop_back();
    } else {
      if (all_slots.size() >= size_t(kMaxThreadSlots))
        throw Error("too many threads use asynchronous I/O at once (at most " +
                    std::to_string(kMaxThreadSlots) + ")")
            .with_sqlstate(sqlstate::kInsufficientResources);
      auto fresh = std::make_unique<ThreadSlot>();
      fresh->slot_index = uint32_t(all_slots.size());
      fresh->handle_count = config.handles_per_thread;
      fresh->handles = std::make_unique<IoHandle[]>(size_t(fresh->handle_count));
      for (int i = 0; i < fresh->handle_count; ++i) {
        IoHandle& h = fresh->handles[i];
        HandleOps::index(h) = fresh->slot_index * kMaxHandlesPerThread + uint32_t(i);
        HandleOps::owner(h) = fresh.get();
        fresh->idle.push_back(h);
      }
      slot = fresh.get();
      slot_by_index[slot->slot_index].store(slot, std::memory_order_release);
      all_slots.push_back(std::move(fresh));
    }
    slot->owner_tid.store(current_tid(), std::memory_order_relaxed);
  }
  try {
    method->thread_start(*slot);
  } catch (...) {
    slot->owner_tid.store(0, std::memory_order_relaxed);
    std::lock_guard lock(slots_mutex);
    free_slots.push_back(slot);
    throw;
  }
  tl_table.entries[tl_table.count++] = Binding{id, slot};
  tl_last = {id, slot};
  return *slot;
}

void IoSystemCore::release_slot(ThreadSlot& slot) {
  if (slot.handed_out != nullptr) release(slot, *slot.handed_out);
  slot.in_batch = false;
  wait_all(slot);
  method->thread_end(slot);
  slot.owner_tid.store(0, std::memory_order_relaxed);
  std::lock_guard lock(slots_mutex);
  free_slots.push_back(&slot);
}

IoHandle* IoSystemCore::acquire(IoResult* result, bool may_wait) {
  ThreadSlot& slot = my_slot();
  // One handle handed out and undefined at a time: this is what guarantees that waiting
  // for this thread's oldest I/O always frees a handle.
  TP_ASSERT(slot.handed_out == nullptr);
  if (slot.staged_count >= kMaxBatchSize) submit_staged(slot);
  if (slot.idle.empty()) reclaim_completed(slot);
  if (slot.idle.empty()) {
    if (!may_wait) return nullptr;
    submit_staged(slot);
    reclaim_completed(slot);
    while (slot.idle.empty()) {
      TP_ASSERT(!slot.in_flight.empty());
      wait(slot.in_flight.front().wait_ref(), &slot);
      reclaim_completed(slot);
    }
  }
  IoHandle& h = slot.idle.front();
  slot.idle.pop_front();
  HandleOps::set_state(h, IoState::kHandedOut);
  HandleOps::issuer_result(h) = result;
  if (result != nullptr) *result = IoResult{};
  HandleOps::completion(h) = IoCompletion{};
  HandleOps::context(h) = IoContext::kNormal;
  HandleOps::flags(h) = 0;
  HandleOps::op(h) = IoOp::kInvalid;
  HandleOps::file(h) = nullptr;
  HandleOps::progress_bytes(h) = 0;
  HandleOps::shown_target(h).store(0, std::memory_order_release);
  HandleOps::shown_shape(h).store(uint64_t(uint32_t(current_tid())) << 32,
                                  std::memory_order_release);
  slot.handed_out = &h;
  return &h;
}

void IoSystemCore::release(ThreadSlot& slot, IoHandle& h) {
  TP_ASSERT(HandleOps::owner(h) == &slot && slot.handed_out == &h);
  slot.handed_out = nullptr;
  HandleOps::issuer_result(h) = nullptr;
  HandleOps::set_state(h, IoState::kIdle);  // bumps the generation: waiters return
  slot.idle.push_front(h);
}

void IoSystemCore::start(IoHandle& h, IoOp op, IoFile& file, BlockNumber first_block,
                         std::span<std::byte* const> blocks) {
  ThreadSlot& slot = my_slot();
  TP_ASSERT(HandleOps::owner(h) == &slot && slot.handed_out == &h);
  TP_ASSERT(h.state() == IoState::kHandedOut);
  const int nblocks = int(blocks.size());
  auto refuse = [&](const std::string& why) {
    this->refuse(h, op, file, first_block, nblocks, why);
  };
  if (nblocks < 1 || nblocks > kMaxBlocksPerIo)
    refuse("one I/O covers 1 to " + std::to_string(kMaxBlocksPerIo) + " blocks, not " +
           std::to_string(nblocks));
  if (first_block == kInvalidBlock || uint64_t(first_block) + uint64_t(nblocks) > kInvalidBlock)
    refuse("block number out of range");
  const bool direct = config.io_direct || (HandleOps::flags(h) & kIoFlagDirect);
  for (int i = 0; i < nblocks; ++i) {
    if (blocks[i] == nullptr) refuse("buffer " + std::to_string(i) + " is null");
    if (direct && reinterpret_cast<uintptr_t>(blocks[i]) % required_alignment(file) != 0) {
      char addr[32];
      std::snprintf(addr, sizeof addr, "%p", static_cast<void*>(blocks[i]));
      refuse(std::string("buffer ") + addr + " is not aligned to " +
             std::to_string(required_alignment(file)) + " bytes, as direct I/O requires");
    }
  }
  int fd = -1;
  try {
    fd = file.fd(direct);
  } catch (...) {
    release(slot, h);
    throw;
  }

  HandleOps::op(h) = op;
  HandleOps::direct(h) = direct;
  HandleOps::fd(h) = fd;
  HandleOps::file(h) = &file;
  HandleOps::first_block(h) = first_block;
  HandleOps::nblocks(h) = nblocks;
  HandleOps::progress_bytes(h) = 0;
  iovec* iov = HandleOps::iov(h);
  for (int i = 0; i < nblocks; ++i) iov[i] = iovec{blocks[i], kBlockSize};
  HandleOps::shown_target(h).store(uint64_t(file.relnumber()) << 32 | first_block,
                                   std::memory_order_release);
  const uint64_t inline_bit = (HandleOps::flags(h) & kIoFlagSynchronous) ? kShapeInline : 0;
  HandleOps::shown_shape(h).store(uint64_t(op) | uint64_t(nblocks) << 8 | inline_bit |
                                      uint64_t(HandleOps::context(h)) << 24 |
                                      uint64_t(uint32_t(current_tid())) << 32,
                                  std::memory_order_release);
  HandleOps::set_state(h, IoState::kDefined);
  slot.handed_out = nullptr;
  if (IoTrace* trace = current_io_trace()) trace_staged(h, *trace, config.method);
  HandleOps::set_state(h, IoState::kStaged);
  slot.staged[slot.staged_count++] = &h;
  if (!slot.in_batch || slot.staged_count >= kMaxBatchSize ||
      (HandleOps::flags(h) & kIoFlagSynchronous))
    submit_staged(slot);
}

void IoSystemCore::refuse(IoHandle& h, IoOp op, const IoFile& file, BlockNumber first_block,
                          int nblocks, const std::string& why) {
  // Caller errors: give the handle back and throw on this (the issuing) thread.
  release(my_slot(), h);
  throw Error(std::string("could not ") + io_op_name(op) + " " +
              block_range(first_block, std::max(nblocks, 1)) + " of relation \"" + file.name() +
              "\": " + why);
}

int IoSystemCore::contiguous_blocks(IoHandle& h, IoOp op, const IoFile& file,
                                    BlockNumber first_block, std::byte* buffer, int nblocks,
                                    std::byte** blocks) {
  if (nblocks < 1 || nblocks > kMaxBlocksPerIo)
    refuse(h, op, file, first_block, nblocks,
           "one I/O covers 1 to " + std::to_string(kMaxBlocksPerIo) + " blocks, not " +
               std::to_string(nblocks));
  for (int i = 0; i < nblocks; ++i)
    blocks[i] = buffer == nullptr ? nullptr : buffer + size_t(i) * kBlockSize;
  return nblocks;
}

void IoSystemCore::submit_staged(ThreadSlot& slot) {
  if (slot.staged_count == 0) return;
  IoHandle* to_method[kMaxBatchSize];
  IoHandle* to_run_here[kMaxBatchSize];
  int n_method = 0, n_here = 0;
  for (int i = 0; i < slot.staged_count; ++i) {
    IoHandle& h = *slot.staged[i];
    HandleOps::set_state(h, IoState::kSubmitted);
    slot.in_flight.push_back(h);
    io_stats_count_submit(config.method, HandleOps::context(h), HandleOps::op(h),
                          HandleOps::nblocks(h));
    if (HandleOps::flags(h) & kIoFlagSynchronous)
      to_run_here[n_here++] = &h;
    else
      to_method[n_method++] = &h;
  }
  slot.staged_count = 0;
  if (n_method > 0) method->submit(slot, std::span<IoHandle* const>(to_method, n_method));
  for (int i = 0; i < n_here; ++i)
    complete_io(*to_run_here[i], execute_io_now(*to_run_here[i]), &slot);
}

void IoSystemCore::reclaim_completed(ThreadSlot& slot) {
  for (auto it = slot.in_flight.begin(); it != slot.in_flight.end();) {
    IoHandle& h = *it++;
    if (h.state() == IoState::kCompletedShared) reclaim_io(h);
  }
}

namespace {

// pg_stat_activity's name for a wait: our own read or write, or an I/O another thread
// started (a second reader of the same buffer).
WaitEvent wait_event_for(bool own, IoOp op) {
  if (!own) return WaitEvent::kAioIoCompletion;
  return op == IoOp::kWrite ? WaitEvent::kDataFileWrite : WaitEvent::kDataFileRead;
}

}  // namespace

void IoSystemCore::wait(IoWaitRef ref, ThreadSlot* caller) {
  if (!ref.valid()) return;
  // The batch rule, honoured here: never block with I/O of our own still staged.
  if (caller != nullptr && caller->staged_count > 0) submit_staged(*caller);
  IoHandle& h = handle_at(ref.handle_index);
  bool blocked = false;
  std::chrono::steady_clock::time_point started;
  uint64_t shape = 0;
  std::optional<WaitEventScope> waiting;  // published only once the I/O is found unfinished
  for (;;) {
    uint64_t word = HandleOps::load_word(h);
    if (word_generation(word) != ref.generation) break;  // finished and recycled
    IoState state = word_state(word);
    if (state == IoState::kCompletedShared || state == IoState::kCompletedLocal) {
      if (state == IoState::kCompletedShared && HandleOps::owner(h) == caller) reclaim_io(h);
      break;
    }
    if (state == IoState::kIdle) break;
    // Waiting on our own handle that we have not started would never end.
    TP_ASSERT(!(
        HandleOps::owner(h) == caller &&
        (state == IoState::kHandedOut || state == IoState::kDefined || state == IoState::kStaged)));
    if (!blocked) {
      blocked = true;
      started = std::chrono::steady_clock::now();
      shape = HandleOps::shown_shape(h).load(std::memory_order_relaxed);
      waiting.emplace(wait_event_for(HandleOps::owner(h) == caller, IoOp(shape & 0xff)));
    }
    // An I/O flagged synchronous runs inline in its issuer and never reaches the method:
    // nothing to claim (sync) or reap (io_uring), so sleep until the issuer completes it.
    // The flag is read from the atomic mirror: the plain field may be rewritten by a
    // recycle meanwhile (then the word moved on too, and the sleep returns at once).
    const bool inline_io = HandleOps::shown_shape(h).load(std::memory_order_relaxed) & kShapeInline;
    if (state == IoState::kSubmitted && !inline_io && method->wait_one(h, ref.generation, caller))
      continue;
    HandleOps::sleep_on(h, word);
  }
  if (blocked)
    io_stats_count_wait(config.method, IoContext((shape >> 24) & 0xff), elapsed_us(started));
}

bool IoSystemCore::check_done(IoWaitRef ref, ThreadSlot* caller) {
  if (!ref.valid()) return true;
  IoHandle& h = handle_at(ref.handle_index);
  for (int attempt = 0; attempt < 2; ++attempt) {
    uint64_t word = HandleOps::load_word(h);
    if (word_generation(word) != ref.generation) return true;
    IoState state = word_state(word);
    if (state == IoState::kCompletedShared || state == IoState::kCompletedLocal) {
      if (state == IoState::kCompletedShared && HandleOps::owner(h) == caller) reclaim_io(h);
      return true;
    }
    if (state == IoState::kIdle) return true;
    if (state != IoState::kSubmitted || attempt > 0) return false;
    method->check_one(h, ref.generation, caller);
  }
  return false;
}

void IoSystemCore::wait_all(ThreadSlot& slot) {
  submit_staged(slot);
  while (!slot.in_flight.empty()) wait(slot.in_flight.front().wait_ref(), &slot);
}

// ---------------------------------------------------------------------------------------
// IoSystem: the public face.

IoSystem::IoSystem(const IoConfig& config) : config_(config) {
  if (config.handles_per_thread < 1 || config.handles_per_thread > kMaxHandlesPerThread)
    throw Error(
        "invalid value for parameter \"io_max_concurrency\": " +
            std::to_string(config.handles_per_thread),
        "io_max_concurrency must be between 1 and " + std::to_string(kMaxHandlesPerThread) + ".")
        .with_sqlstate(sqlstate::kInvalidParameterValue);
  if (config.method == IoMethodKind::kWorker &&
      (config.io_workers < 1 || config.io_workers > kMaxIoWorkers))
    throw Error("invalid value for parameter \"io_workers\": " + std::to_string(config.io_workers),
                "io_workers must be between 1 and " + std::to_string(kMaxIoWorkers) + ".")
        .with_sqlstate(sqlstate::kInvalidParameterValue);
  core_ = std::make_unique<IoSystemCore>(config, next_system_id.fetch_add(1));
  switch (config.method) {
    case IoMethodKind::kSync:
      core_->method = make_sync_method();
      break;
    case IoMethodKind::kWorker:
      core_->method = make_worker_method(config.io_workers, config.handles_per_thread);
      break;
    case IoMethodKind::kIoUring:
      core_->method = make_uring_method(config.handles_per_thread);
      break;
  }
  std::lock_guard lock(registry_mutex);
  live_systems[core_->id] = core_.get();
}

IoSystem::~IoSystem() {
  {
    // After this no exiting thread touches the core.
    std::lock_guard lock(registry_mutex);
    live_systems.erase(core_->id);
  }
  if (ThreadSlot* mine = core_->find_my_slot()) {
    core_->release_slot(*mine);
    forget_binding(core_->id);
  }
  for (auto& slot : core_->all_slots) {
    if (slot->owner_tid.load(std::memory_order_relaxed) == 0) continue;
    // Precondition of the destructor: other threads have nothing staged or in flight.
    TP_ASSERT(slot->staged_count == 0 && slot->in_flight.empty());
    core_->method->thread_end(*slot);
  }
  core_->method.reset();  // joins worker threads
}

IoHandle* IoSystem::acquire(IoResult* result) {
  return core_->acquire(result, true);
}
IoHandle* IoSystem::try_acquire(IoResult* result) {
  return core_->acquire(result, false);
}
void IoSystem::release(IoHandle* handle) {
  core_->release(core_->my_slot(), *handle);
}

void IoSystem::start_readv(IoHandle* handle, IoFile& file, BlockNumber first_block,
                           std::span<std::byte* const> blocks) {
  core_->start(*handle, IoOp::kRead, file, first_block, blocks);
}
void IoSystem::start_writev(IoHandle* handle, IoFile& file, BlockNumber first_block,
                            std::span<std::byte* const> blocks) {
  core_->start(*handle, IoOp::kWrite, file, first_block, blocks);
}
void IoSystem::start_read(IoHandle* handle, IoFile& file, BlockNumber first_block,
                          std::byte* buffer, int nblocks) {
  std::byte* blocks[kMaxBlocksPerIo];
  int n =
      core_->contiguous_blocks(*handle, IoOp::kRead, file, first_block, buffer, nblocks, blocks);
  core_->start(*handle, IoOp::kRead, file, first_block, std::span<std::byte* const>(blocks, n));
}
void IoSystem::start_write(IoHandle* handle, IoFile& file, BlockNumber first_block,
                           const std::byte* buffer, int nblocks) {
  std::byte* blocks[kMaxBlocksPerIo];
  // pwritev's iovec is not const; the bytes are only read.
  int n = core_->contiguous_blocks(*handle, IoOp::kWrite, file, first_block,
                                   const_cast<std::byte*>(buffer), nblocks, blocks);
  core_->start(*handle, IoOp::kWrite, file, first_block, std::span<std::byte* const>(blocks, n));
}

void IoSystem::enter_batch() {
  ThreadSlot& slot = core_->my_slot();
  TP_ASSERT(!slot.in_batch);  // batch mode does not nest
  slot.in_batch = true;
}
void IoSystem::exit_batch() {
  ThreadSlot& slot = core_->my_slot();
  TP_ASSERT(slot.in_batch);
  slot.in_batch = false;
  core_->submit_staged(slot);
}
bool IoSystem::in_batch() const {
  return core_->my_slot().in_batch;
}
void IoSystem::submit_staged() {
  core_->submit_staged(core_->my_slot());
}
int IoSystem::staged_count() const {
  return core_->my_slot().staged_count;
}

void IoSystem::forget_result(IoWaitRef ref) {
  ThreadSlot& slot = core_->my_slot();
  IoHandle& h = core_->handle_at(ref.handle_index);
  TP_ASSERT(HandleOps::owner(h) == &slot);
  if (h.generation() == ref.generation) HandleOps::issuer_result(h) = nullptr;
}

void IoSystem::wait(IoWaitRef ref) {
  core_->wait(ref, core_->find_my_slot());
}
bool IoSystem::check_done(IoWaitRef ref) {
  return core_->check_done(ref, core_->find_my_slot());
}
void IoSystem::wait_all() {
  if (ThreadSlot* slot = core_->find_my_slot()) core_->wait_all(*slot);
}
int IoSystem::in_flight_count() const {
  ThreadSlot* slot = core_->find_my_slot();
  return slot == nullptr ? 0 : int(slot->in_flight.size());
}
int IoSystem::idle_count() const {
  return int(core_->my_slot().idle.size());
}
int IoSystem::queued_at_workers() const {
  return core_->method->queued();
}
std::vector<pid_t> IoSystem::method_threads() const {
  return core_->method->own_threads();
}
std::unique_lock<std::mutex> IoSystem::lock_queue_for_testing() {
  return core_->method->lock_queue_for_testing();
}
int IoSystem::available_handles() {
  ThreadSlot& slot = core_->my_slot();
  core_->reclaim_completed(slot);
  return int(slot.idle.size());
}

std::vector<IoInFlightRow> IoSystem::in_flight() const {
  std::vector<IoInFlightRow> rows;
  for (int s = 0; s < kMaxThreadSlots; ++s) {
    ThreadSlot* slot = core_->slot_by_index[s].load(std::memory_order_acquire);
    if (slot == nullptr) break;  // slots are created in index order
    for (int i = 0; i < slot->handle_count; ++i) {
      IoHandle& h = slot->handles[i];
      uint64_t word = HandleOps::load_word(h);
      if (word_state(word) == IoState::kIdle) continue;
      // Release stores / acquire loads on the mirror: a reader that sees a newer mirror
      // value also sees the state change before it, so the re-check below catches it.
      uint64_t target = HandleOps::shown_target(h).load(std::memory_order_acquire);
      uint64_t shape = HandleOps::shown_shape(h).load(std::memory_order_acquire);
      // Like a seqlock read: keep the row only if the handle did not move meanwhile.
      if (HandleOps::load_word(h) != word) continue;
      if (word_state(word) == IoState::kHandedOut) {
        target = 0;  // nothing defined yet; the mirror may already show the next I/O
        shape &= ~uint64_t{0xffffffff};
      }
      rows.push_back(IoInFlightRow{h.index(), word_generation(word), word_state(word),
                                   IoOp(shape & 0xff), uint32_t(target >> 32),
                                   BlockNumber(target & 0xffffffffu), uint16_t((shape >> 8) & 0xff),
                                   shape >> 32});
    }
  }
  return rows;
}

}  // namespace tp::aio
