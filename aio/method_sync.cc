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

namespace {

class SyncMethod final : public IoMethod {
 public:
  IoMethodKind kind() const override { return IoMethodKind::kSync; }

  void submit(ThreadSlot& slot, std::span<IoHandle* const> ios) override {
    for (IoHandle* h : ios) {
      bool deferred = HandleOps::op(*h) == IoOp::kRead && !HandleOps::direct(*h) &&
                      (HandleOps::flags(*h) & kIoFlagAdvice);
      if (!deferred) {
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
    // Claim the deferred read for this generation; the loser sleeps until it completes.
    std::atomic<uint64_t>& claim = HandleOps::claimed_generation(h);
    uint64_t seen = claim.load(std::memory_order_acquire);
    if (seen == generation) return false;
    if (!claim.compare_exchange_strong(seen, generation, std::memory_order_acq_rel)) return false;
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
