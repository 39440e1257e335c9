#include "engine/session/table_locks.h"

#include <algorithm>
#include <chrono>

#include "engine/core/error.h"
#include "engine/core/interrupts.h"
#include "engine/core/wait_event.h"

namespace tp {
namespace {

// How often a waiter looks at its cancel flag: cancels and timeouts are
// noticed within this.
constexpr auto kPollInterval = std::chrono::milliseconds(10);

std::string describe(const LockObject& o) {
  switch (o.kind) {
    case LockObject::kDatabase:
      return "database";
    case LockObject::kWriter:
      return "writer";
    case LockObject::kTable:
      break;
  }
  return "table " + o.table;
}

}  // namespace

bool LockManager::grantable(const State& s, LockMode mode) const {
  if (mode == LockMode::kExclusive) return !s.exclusive && s.shared == 0;
  if (mode == LockMode::kWatch) return !s.exclusive;
  // A share request queues behind an exclusive one that waits already.
  return !s.exclusive && s.exclusive_waiters == 0;
}

void LockManager::acquire(const LockObject& object, LockMode mode, int64_t timeout_ms) {
  std::unique_lock lock(mutex_);
  State& s = objects_[object];
  if (!grantable(s, mode)) {
    WaitEventScope wait(WaitEvent::kLockRelation);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    int& waiters = mode == LockMode::kExclusive ? s.exclusive_waiters : s.share_waiters;
    ++waiters;
    try {
      while (!grantable(s, mode)) {
        released_.wait_for(lock, kPollInterval);
        check_for_interrupts();
        if (timeout_ms > 0 && std::chrono::steady_clock::now() >= deadline)
          throw Error(
              "canceling statement due to lock timeout",
              "waited " + std::to_string(timeout_ms) + " ms for the " + describe(object) + " lock",
              "Another session's statement holds it; lock_timeout bounds the wait.")
              .with_sqlstate(sqlstate::kLockNotAvailable);
      }
    } catch (...) {
      --waiters;
      if (s.shared == 0 && !s.exclusive && s.exclusive_waiters == 0 && s.share_waiters == 0)
        objects_.erase(object);
      released_.notify_all();  // share waiters queued behind this one may go now
      throw;
    }
    --waiters;
  }
  if (mode == LockMode::kExclusive)
    s.exclusive = true;
  else
    ++s.shared;
}

bool LockManager::try_acquire(const LockObject& object, LockMode mode) {
  std::lock_guard lock(mutex_);
  State& s = objects_[object];
  if (!grantable(s, mode)) {
    if (s.shared == 0 && !s.exclusive && s.exclusive_waiters == 0 && s.share_waiters == 0)
      objects_.erase(object);
    return false;
  }
  if (mode == LockMode::kExclusive)
    s.exclusive = true;
  else
    ++s.shared;
  return true;
}

void LockManager::release(const LockObject& object, LockMode mode) {
  {
    std::lock_guard lock(mutex_);
    auto it = objects_.find(object);
    if (it == objects_.end()) return;
    State& s = it->second;
    if (mode == LockMode::kExclusive)
      s.exclusive = false;
    else if (s.shared > 0)
      --s.shared;
    if (s.shared == 0 && !s.exclusive && s.exclusive_waiters == 0 && s.share_waiters == 0)
      objects_.erase(it);  // one entry per table ever named would only grow
  }
  released_.notify_all();
}

std::vector<LockManager::Row> LockManager::snapshot() const {
  std::lock_guard lock(mutex_);
  std::vector<Row> rows;
  for (const auto& [object, s] : objects_) {
    if (s.exclusive || s.exclusive_waiters > 0)
      rows.push_back(
          {describe(object), LockMode::kExclusive, s.exclusive ? 1 : 0, s.exclusive_waiters});
    if (s.shared > 0 || s.share_waiters > 0)
      rows.push_back({describe(object), LockMode::kShare, s.shared, s.share_waiters});
  }
  return rows;
}

void StatementLocks::take(std::vector<LockRequest> requests) {
  // One global order; an object named twice is taken once, in the stronger mode.
  std::sort(requests.begin(), requests.end(), [](const LockRequest& a, const LockRequest& b) {
    return a.object < b.object || (a.object == b.object && a.mode > b.mode);
  });
  requests.erase(
      std::unique(requests.begin(), requests.end(),
                  [](const LockRequest& a, const LockRequest& b) { return a.object == b.object; }),
      requests.end());
  const size_t before = held_.size();
  // Releases what this call took.
  auto give_back = [&] {
    while (held_.size() > before) {
      manager_->release(held_.back().object, held_.back().mode);
      held_.pop_back();
    }
  };
  try {
    for (;;) {
      const LockRequest* busy = nullptr;
      for (const LockRequest& r : requests) {
        if (holds(r.object, r.mode)) continue;
        // A holder never asks again in a stronger mode (it would wait for itself).
        TP_ASSERT(!holds(r.object, LockMode::kWatch));
        if (!manager_->try_acquire(r.object, r.mode)) {
          busy = &r;
          break;
        }
        held_.push_back(r);
      }
      if (busy == nullptr) return;
      // Nothing this call took is held while it waits; the one it waited for is
      // kept, the others tried again.
      give_back();
      manager_->acquire(busy->object, busy->mode, timeout_ms_);
      held_.push_back(*busy);
    }
  } catch (...) {
    give_back();
    throw;
  }
}

StatementLocks::StatementLocks(StatementLocks&& other) noexcept
    : manager_(other.manager_), timeout_ms_(other.timeout_ms_), held_(std::move(other.held_)) {
  other.held_.clear();
}

StatementLocks& StatementLocks::operator=(StatementLocks&& other) noexcept {
  if (this != &other) {
    release_all();
    manager_ = other.manager_;
    timeout_ms_ = other.timeout_ms_;
    held_ = std::move(other.held_);
    other.held_.clear();
  }
  return *this;
}

bool StatementLocks::holds(const LockObject& object, LockMode mode) const {
  for (const LockRequest& r : held_)
    if (r.object == object && r.mode >= mode) return true;
  return false;
}

std::vector<std::string> StatementLocks::exclusive_tables() const {
  std::vector<std::string> names;
  for (const LockRequest& r : held_)
    if (r.object.kind == LockObject::kTable && r.mode == LockMode::kExclusive)
      names.push_back(r.object.table);
  return names;
}

void StatementLocks::release_all() {
  // Newest first, though any order is safe: nothing is acquired while releasing.
  for (auto it = held_.rbegin(); it != held_.rend(); ++it) manager_->release(it->object, it->mode);
  held_.clear();
}

}  // namespace tp
