#include "bufmgr/page_guard.h"

#include "bufmgr/buffer_pool.h"

namespace tp::bufmgr {

PinGuard& PinGuard::operator=(PinGuard&& other) noexcept {
  if (this != &other) {
    reset();
    pool_ = other.pool_;
    buffer_ = std::exchange(other.buffer_, kInvalidBuffer);
  }
  return *this;
}

BlockNumber PinGuard::block() const {
  return pool_->desc(buffer_).tag.block;
}
uint32_t PinGuard::relnumber() const {
  return pool_->desc(buffer_).tag.relnumber;
}

ReadGuard PinGuard::lock_shared() && {
  pool_->desc(buffer_).content.lock_shared();
  return ReadGuard(pool_, std::exchange(buffer_, kInvalidBuffer));
}

WriteGuard PinGuard::lock_exclusive() && {
  pool_->desc(buffer_).content.lock();
  return WriteGuard(pool_, std::exchange(buffer_, kInvalidBuffer));
}

void PinGuard::reset() {
  if (buffer_ != kInvalidBuffer) pool_->unpin(std::exchange(buffer_, kInvalidBuffer));
}

ReadGuard& ReadGuard::operator=(ReadGuard&& other) noexcept {
  if (this != &other) {
    reset();
    pool_ = other.pool_;
    buffer_ = std::exchange(other.buffer_, kInvalidBuffer);
  }
  return *this;
}

BlockNumber ReadGuard::block() const {
  return pool_->desc(buffer_).tag.block;
}
const char* ReadGuard::page() const {
  return pool_->page_of(buffer_);
}

PinGuard ReadGuard::unlock() && {
  pool_->desc(buffer_).content.unlock_shared();
  return PinGuard(pool_, std::exchange(buffer_, kInvalidBuffer));
}

void ReadGuard::reset() {
  if (buffer_ == kInvalidBuffer) return;
  int32_t b = std::exchange(buffer_, kInvalidBuffer);
  pool_->desc(b).content.unlock_shared();
  pool_->unpin(b);
}

WriteGuard& WriteGuard::operator=(WriteGuard&& other) noexcept {
  if (this != &other) {
    reset();
    pool_ = other.pool_;
    buffer_ = std::exchange(other.buffer_, kInvalidBuffer);
  }
  return *this;
}

BlockNumber WriteGuard::block() const {
  return pool_->desc(buffer_).tag.block;
}
char* WriteGuard::page() const {
  return pool_->page_of(buffer_);
}
void WriteGuard::mark_dirty() {
  pool_->mark_dirty(buffer_);
}

PinGuard WriteGuard::unlock() && {
  pool_->desc(buffer_).content.unlock();
  return PinGuard(pool_, std::exchange(buffer_, kInvalidBuffer));
}

void WriteGuard::reset() {
  if (buffer_ == kInvalidBuffer) return;
  int32_t b = std::exchange(buffer_, kInvalidBuffer);
  pool_->desc(b).content.unlock();
  pool_->unpin(b);
}

}  // namespace tp::bufmgr
