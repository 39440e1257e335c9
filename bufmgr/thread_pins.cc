#include "bufmgr/thread_pins.h"

#include <unordered_map>
#include <utility>

#include "engine/core/error.h"

namespace tp::bufmgr {

namespace {

// Live pools by id. Leaked on purpose: thread_local destructors of the main thread may
// run after static destructors would have torn a static map down.
struct Registry {
  std::mutex mutex;
  std::unordered_map<uint64_t, PoolThreads*> pools;
  uint64_t next_id = 1;
};
Registry& registry() {
  static Registry* r = new Registry;
  return *r;
}

}  // namespace

// Destroyed at thread exit: hands the thread's ThreadPins back to the pools still alive.
struct ThreadExitHook {
  std::vector<std::pair<uint64_t, ThreadPins*>> owned;
  ~ThreadExitHook() {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    for (auto [id, pins] : owned) {
      auto it = r.pools.find(id);
      if (it != r.pools.end()) it->second->thread_exited(pins);
    }
  }
};

namespace {
thread_local ThreadExitHook exit_hook;
}

PoolThreads::PoolThreads(int buffers) : buffers_(buffers) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  id_ = r.next_id++;
  r.pools.emplace(id_, this);
}

PoolThreads::~PoolThreads() {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  r.pools.erase(id_);
}

ThreadPins& PoolThreads::register_thread() {
  // A thread that alternates between pools comes back here: keep its one ThreadPins.
  for (auto& [id, pins] : exit_hook.owned)
    if (id == id_) return *pins;
  ThreadPins* pins = nullptr;
  {
    std::lock_guard lock(mutex_);
    for (auto& p : all_)
      if (!p->in_use) {
        pins = p.get();
        break;
      }
    if (pins == nullptr) {
      all_.push_back(std::make_unique<ThreadPins>(buffers_));
      pins = all_.back().get();
    }
    pins->in_use = true;
  }
  // Forget hooks of pools that are gone, so a long-lived thread's list stays short.
  {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    std::erase_if(exit_hook.owned, [&](auto& e) { return !r.pools.contains(e.first); });
  }
  exit_hook.owned.emplace_back(id_, pins);
  return *pins;
}

void PoolThreads::thread_exited(ThreadPins* pins) {
  // A thread that ends while holding pins leaks them for good: a broken invariant.
  TP_ASSERT(pins->distinct() == 0);
  std::lock_guard lock(mutex_);
  pins->in_use = false;
}

PoolCounters PoolThreads::totals(IoContext context) const {
  PoolCounters sum;
  std::lock_guard lock(mutex_);
  for (auto& p : all_) p->add_to(context, sum);
  return sum;
}

uint64_t PoolThreads::pins_held() const {
  uint64_t n = 0;
  std::lock_guard lock(mutex_);
  for (auto& p : all_) n += p->distinct();
  return n;
}

}  // namespace tp::bufmgr
