#include "engine/btree/parallel_scan.h"

#include <thread>

#include "engine/core/error.h"

namespace tp::btree {

namespace {
constexpr int kSpins = 64;
}  // namespace

ParallelLeafScan::ParallelLeafScan(size_t primitive_scans) : primitives_(primitive_scans) {
  reset();
}

void ParallelLeafScan::reset() {
  std::lock_guard lock(mutex_);
  primitive_ = 0;
  position_ = LeafPosition{};
  advancing_ = false;
  done_ = primitives_ == 0;
  pages_ = 0;
}

std::optional<ParallelLeafScan::Seized> ParallelLeafScan::seize() {
  std::unique_lock lock(mutex_);
  // The advancer holds the position only while it reads one page (microseconds):
  // yield a few times before sleeping on the condition variable.
  for (int i = 0; i < kSpins && advancing_ && !done_; ++i) {
    lock.unlock();
    std::this_thread::yield();
    lock.lock();
  }
  released_.wait(lock, [&] { return !advancing_ || done_; });
  if (done_) return std::nullopt;
  advancing_ = true;
  ++pages_;
  return Seized{primitive_, position_};
}

void ParallelLeafScan::release(const LeafPosition& next) {
  {
    std::lock_guard lock(mutex_);
    TP_ASSERT(advancing_);
    advancing_ = false;
    position_ = next;
    if (next.state == ScanState::kDone) {
      position_ = LeafPosition{};
      if (++primitive_ >= primitives_) done_ = true;
    }
  }
  released_.notify_all();
}

void ParallelLeafScan::abandon() {
  {
    std::lock_guard lock(mutex_);
    advancing_ = false;
    done_ = true;
  }
  released_.notify_all();
}

size_t ParallelLeafScan::pages_handed_out() const {
  std::lock_guard lock(mutex_);
  return pages_;
}

}  // namespace tp::btree
