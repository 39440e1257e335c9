#include "engine/storage/pool_page_store.h"

namespace tp {

PoolPageStore::PoolPageStore(bufmgr::BufferPool& pool, aio::IoFile& file, DataDir* journal,
                             BlockNumber committed_blocks)
    : pool_(pool), file_(file), journal_(journal), committed_blocks_(committed_blocks) {
  // A descent holds at most a few pages at once (a split: the page, its new
  // sibling, the old right neighbour, a parent); 16 slots is ample to start.
  slots_.resize(16);
  for (uint32_t i = 16; i > 0; --i) free_slots_.push_back(i - 1);
}

PoolPageStore::~PoolPageStore() = default;

uint64_t PoolPageStore::take_slot() {
  if (free_slots_.empty()) {
    uint32_t n = uint32_t(slots_.size());
    slots_.resize(n * 2);
    for (uint32_t i = n * 2; i > n; --i) free_slots_.push_back(i - 1);
  }
  uint32_t s = free_slots_.back();
  free_slots_.pop_back();
  return s;
}

btree::PageGuard PoolPageStore::read(BlockNumber block, btree::PageLock lock) {
  if (block >= file_.size_blocks())
    throw Error("could not read block " + std::to_string(block) + " of relation \"" + file_.name() +
                "\": it has only " + std::to_string(file_.size_blocks()) + " blocks")
        .with_sqlstate(sqlstate::kDataCorrupted);
  bufmgr::PinGuard pin = pool_.read_buffer(file_, block);
  uint64_t slot = take_slot();
  Slot& s = slots_[slot];
  char* page;
  if (lock == btree::PageLock::kShared) {
    s.shared = std::move(pin).lock_shared();
    page = const_cast<char*>(s.shared.page());
  } else {
    s.exclusive = std::move(pin).lock_exclusive();
    page = s.exclusive.page();
  }
  return make_guard(block, page, lock, slot);
}

btree::PageGuard PoolPageStore::extend() {
  bufmgr::WriteGuard w = pool_.extend(file_);
  BlockNumber block = w.block();
  uint64_t slot = take_slot();
  slots_[slot].exclusive = std::move(w);
  return make_guard(block, slots_[slot].exclusive.page(), btree::PageLock::kExclusive, slot);
}

void PoolPageStore::on_mark_dirty(BlockNumber block, uint64_t slot) {
  Slot& s = slots_[slot];
  if (journal_ && block < committed_blocks_)
    journal_->save_before_image(file_.relnumber(), block, s.exclusive.page());
  s.exclusive.mark_dirty();
}

void PoolPageStore::on_release(BlockNumber, uint64_t slot, btree::PageLock lock,
                               bool dirty) noexcept {
  Slot& s = slots_[slot];
  if (lock == btree::PageLock::kShared) {
    s.shared.reset();
  } else {
    if (dirty) s.exclusive.mark_dirty();  // after the change, as bufmgr asks
    s.exclusive.reset();
  }
  free_slots_.push_back(uint32_t(slot));
}

}  // namespace tp
