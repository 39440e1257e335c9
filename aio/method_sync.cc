// io_method=sync: no background execution at all.
//
// Writes, direct reads and reads without advice run in the issuing thread at submission.
// A buffered read whose issuer set kIoFlagAdvice (it reads ahead, effective_io_concurrency
// > 0) is instead announced to the kernel with posix_fadvise(WILLNEED) and executed when
// someone first waits for it, as PostgreSQL <= 17 prefetched: the kernel reads the range
// into its page cache meanwhile, so the later pread is a copy.
//
// Any thread may execute a deferred read (the one that waits first claims it), so a
// thread waiting for another thread's read never depends on the issuer making progress.
#include <fcntl.h>

#include "aio/file.h"
#include "aio/method.h"
#include "aio/stats.h"

namespace tp::aio {

// Exactly one thread executes each I/O: the first to move the handle's claim to this
// generation (the issuer at submission, or the first waiter of a deferred read).
//
// The claim only moves forward, and only to the generation the handle is in while it is
// SUBMITTED. A waiter can read the handle at generation g, be descheduled, and call this
// after g completed and the handle's next I/O (g + 1) was claimed: moving the claim back
// to g would let another waiter of g + 1 claim it again and complete one I/O twice.
bool sync_claim_execution(IoHandle& h, uint64_t generation) {
  const uint64_t word = HandleOps::load_word(h);
  if (word_generation(word) != generation || word_state(word) != IoState::kSubmitted)
    return false;  // finished (or recycled) already: nothing to claim
  std::atomic<uint64_t>& claimed = HandleOps::claimed_generation(h);
  uint64_t seen = claimed.load(std::memory_order_acquire);
  while (seen < generation)
    if (claimed.compare_exchange_weak(seen, generation, std::memory_order_acq_rel)) return true;
  return false;  // someone claimed this generation (or, if stale, a newer one)
}

namespace {

class SyncMethod final : public IoMethod {
 public:
  IoMethodKind kind() const override { return IoMethodKind::kSync; }

  void submit(ThreadSlot& slot, std::span<IoHandle* const> ios) override {
    for (IoHandle* h : ios) {
      bool deferred = HandleOps::op(*h) == IoOp::kRead && !HandleOps::direct(*h) &&
                      (HandleOps::flags(*h) & kIoFlagAdvice);
      if (!deferred) {
        // Claim it like a waiter would: a thread already waiting for this read (it
        // became visible as SUBMITTED) may have claimed and run it first.
        if (sync_claim_execution(*h, word_generation(HandleOps::load_word(*h))))
          complete_io(*h, execute_io_now(*h), &slot);
        continue;
      }
      // Advice only: an error here costs at most the prefetch, so it is not reported.
      (void)::posix_fadvise(HandleOps::fd(*h), off_t(HandleOps::offset_bytes(*h)),
                            off_t(HandleOps::bytes_requested(*h)), POSIX_FADV_WILLNEED);
      io_stats_count_advice(IoMethodKind::kSync, HandleOps::context(*h));
    }
  }

  bool wait_one(IoHandle& h, uint64_t generation, ThreadSlot* caller) override {
    // Claim the read for this generation; the loser sleeps until it completes.
    if (!sync_claim_execution(h, generation)) return false;
    // Re-check: the claim may belong to a recycled handle's new I/O.
    uint64_t word = HandleOps::load_word(h);
    if (word_generation(word) != generation || word_state(word) != IoState::kSubmitted) return true;
    complete_io(h, execute_io_now(h), caller);
    return true;
  }
};

}  // namespace

std::unique_ptr<IoMethod> make_sync_method() {
  return std::make_unique<SyncMethod>();
}

}  // namespace tp::aio
