#include "engine/btree/mem_page_store.h"

namespace tp::btree {

namespace {

// Reads each block when asked: memory has nothing to gain from reading ahead.
class OnDemandStream final : public BlockStream {
 public:
  OnDemandStream(MemPageStore& store, BlockSource source, std::atomic<uint64_t>& stream_reads)
      : store_(store), source_(std::move(source)), stream_reads_(stream_reads) {}
  PageGuard next() override {
    if (ended_) return {};
    BlockNumber block = source_();
    if (block == kInvalidBlock) {
      ended_ = true;
      return {};
    }
    PageGuard guard = store_.read(block, PageLock::kShared);
    ++counters_.blocks_returned;
    stream_reads_.fetch_add(1, std::memory_order_relaxed);
    return guard;
  }
  StreamCounters counters() const override { return counters_; }

 private:
  MemPageStore& store_;
  BlockSource source_;
  std::atomic<uint64_t>& stream_reads_;
  StreamCounters counters_;
  bool ended_ = false;
};

}  // namespace

std::unique_ptr<BlockStream> MemPageStore::open_stream(BlockSource source) {
  return std::make_unique<OnDemandStream>(*this, std::move(source), stream_reads_);
}

MemPageStore::MemPageStore(std::string relation_name)
    : name_(std::move(relation_name)), chunks_(new std::atomic<Frame*>[kMaxChunks]) {
  for (uint32_t i = 0; i < kMaxChunks; ++i) chunks_[i].store(nullptr, std::memory_order_relaxed);
}

MemPageStore::~MemPageStore() {
  for (uint32_t i = 0; i < kMaxChunks; ++i) delete[] chunks_[i].load(std::memory_order_relaxed);
}

MemPageStore::Frame& MemPageStore::frame(BlockNumber block) {
  Frame* chunk = chunks_[block / kFramesPerChunk].load(std::memory_order_acquire);
  TP_ASSERT(chunk != nullptr);
  return chunk[block % kFramesPerChunk];
}

BlockNumber MemPageStore::append_frame(bool loaded, bool latch) {
  BlockNumber block = nblocks_.load(std::memory_order_relaxed);
  if (block / kFramesPerChunk >= kMaxChunks)
    throw Error("cannot extend relation \"" + name_ + "\" beyond " + std::to_string(block) +
                " blocks")
        .with_sqlstate(sqlstate::kProgramLimitExceeded);
  std::atomic<Frame*>& slot = chunks_[block / kFramesPerChunk];
  if (slot.load(std::memory_order_relaxed) == nullptr)
    slot.store(new Frame[kFramesPerChunk], std::memory_order_release);
  Frame& f = slot.load(std::memory_order_relaxed)[block % kFramesPerChunk];
  f.bytes.reset(new char[kBlockSize]());
  f.loaded = loaded;
  f.dirty = false;
  // Latched before it is published, so nobody sees the block half made. No
  // one else can hold it yet: try_lock cannot fail (and, unlike lock(), adds
  // no lock-order edge against the extend mutex).
  if (latch) {
    bool latched = f.latch.try_lock();
    TP_ASSERT(latched);
  }
  nblocks_.store(block + 1, std::memory_order_release);
  return block;
}

PageGuard MemPageStore::read(BlockNumber block, PageLock lock) {
  if (block >= nblocks())
    throw Error("could not read block " + std::to_string(block) + " in relation \"" + name_ +
                "\": it has only " + std::to_string(nblocks()) + " blocks")
        .with_sqlstate(sqlstate::kDataCorrupted);
  reads_.fetch_add(1, std::memory_order_relaxed);
  Frame& f = frame(block);
  if (lock == PageLock::kExclusive)
    f.latch.lock();
  else
    f.latch.lock_shared();
  // Loading happens under the load mutex, so two readers never both fill a frame.
  if (!f.loaded) {
    std::lock_guard<std::mutex> guard(load_mutex_);
    if (!f.loaded) {
      try {
        load(block, f);
      } catch (...) {
        if (lock == PageLock::kExclusive)
          f.latch.unlock();
        else
          f.latch.unlock_shared();
        throw;
      }
      f.loaded = true;
    }
  }
  return make_guard(block, f.bytes.get(), lock, block);
}

PageGuard MemPageStore::extend() {
  std::lock_guard<std::mutex> guard(extend_mutex_);
  BlockNumber block = append_frame(/*loaded=*/true, /*latch=*/true);
  Frame& f = frame(block);
  return make_guard(block, f.bytes.get(), PageLock::kExclusive, block);
}

char* MemPageStore::raw_page(BlockNumber block) {
  TP_ASSERT(block < nblocks());
  return frame(block).bytes.get();
}

void MemPageStore::on_mark_dirty(BlockNumber, uint64_t) {}

void MemPageStore::on_release(BlockNumber block, uint64_t, PageLock lock, bool) noexcept {
  Frame& f = frame(block);
  if (lock == PageLock::kExclusive)
    f.latch.unlock();
  else
    f.latch.unlock_shared();
}

}  // namespace tp::btree
