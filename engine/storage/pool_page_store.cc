#include "engine/storage/pool_page_store.h"

#include <algorithm>

namespace tp {

namespace {

// Leaf streams keep at most this many buffers pinned: enough for 8 combined reads of
// 16 blocks in flight, and little enough to leave the thread's pin budget to the heap
// stream of the same index scan (index_prefetch), which needs it more.
constexpr int kMaxStreamPins = 128;

}  // namespace

// A read stream handing out its pages through the store's guard slots.
class PoolBlockStream final : public btree::BlockStream {
 public:
  PoolBlockStream(PoolPageStore& store, btree::BlockSource source)
      : store_(store),
        source_(std::move(source)),
        stream_(store.pool_, store.file_, config(store), [this](void*) {
          ++store_.in_stream_source_;
          BlockNumber b;
          try {
            b = source_();
          } catch (...) {
            --store_.in_stream_source_;
            throw;
          }
          --store_.in_stream_source_;
          return b;
        }) {}

  btree::PageGuard next() override {
    bufmgr::PinGuard pin = stream_.next_buffer();
    if (!pin) return {};
    // Inside another stream's batch (index prefetch loads leaves from its heap stream's
    // callback) this stream's reads stay staged; a writer holding this leaf could be
    // waiting for one of them (its right sibling), so submit them before locking it.
    if (store_.pool_.io().staged_count() > 0) store_.pool_.io().submit_staged();
    return store_.hold_shared(std::move(pin).lock_shared());
  }

  btree::StreamCounters counters() const override {
    const bufmgr::ReadStreamStats& s = stream_.stats();
    btree::StreamCounters c;
    c.blocks_returned = s.buffers_returned;
    c.ios = s.ios;
    c.io_blocks = s.io_blocks;
    c.waits = s.waits;
    c.distance_sum = s.distance_sum;
    return c;
  }

 private:
  static bufmgr::ReadStreamConfig config(const PoolPageStore& store) {
    bufmgr::ReadStreamConfig c = store.stream_config_;
    c.strategy = nullptr;  // index pages are worth keeping: no ring
    c.per_buffer_data_size = 0;
    c.sequential = false;
    c.label = "index leaves";
    c.max_pinned = c.max_pinned > 0 ? std::min(c.max_pinned, kMaxStreamPins) : kMaxStreamPins;
    return c;
  }

  PoolPageStore& store_;
  btree::BlockSource source_;
  bufmgr::ReadStream stream_;  // after source_: its callback calls it
};

std::unique_ptr<btree::BlockStream> PoolPageStore::open_stream(btree::BlockSource source) {
  return std::make_unique<PoolBlockStream>(*this, std::move(source));
}

btree::PageGuard PoolPageStore::hold_shared(bufmgr::ReadGuard page) {
  BlockNumber block = page.block();
  uint64_t slot = take_slot();
  Slot& s = slots_[slot];
  s.shared = std::move(page);
  return make_guard(block, const_cast<char*>(s.shared.page()), btree::PageLock::kShared, slot);
}

PoolPageStore::PoolPageStore(bufmgr::BufferPool& pool, aio::IoFile& file, DataDir* journal,
                             BlockNumber committed_blocks)
    : pool_(pool), file_(file), journal_(journal), committed_blocks_(committed_blocks) {
  // A descent holds at most a few pages at once (a split: the page, its new
  // sibling, the old right neighbour, a parent); 16 slots is ample to start.
  slots_.resize(16);
  free_slots_.reserve(16);
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
  // A stream's source reads parent pages while the stream may have reads staged but not
  // submitted; a writer holding that page could be waiting for one of them, which only
  // this thread can submit. So submit them before taking the content lock.
  if (in_stream_source_ > 0) pool_.io().submit_staged();
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
