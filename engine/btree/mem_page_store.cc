#include "engine/btree/mem_page_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace tp::btree {

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
                " blocks");
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
                "\": it has only " + std::to_string(nblocks()) + " blocks");
  reads_.fetch_add(1, std::memory_order_relaxed);
  Frame& f = frame(block);
  if (lock == PageLock::Exclusive)
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
        if (lock == PageLock::Exclusive)
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
  return make_guard(block, f.bytes.get(), PageLock::Exclusive, block);
}

char* MemPageStore::raw_page(BlockNumber block) {
  TP_ASSERT(block < nblocks());
  return frame(block).bytes.get();
}

void MemPageStore::on_mark_dirty(BlockNumber, uint64_t) {}

void MemPageStore::on_release(BlockNumber block, uint64_t, PageLock lock, bool) noexcept {
  Frame& f = frame(block);
  if (lock == PageLock::Exclusive)
    f.latch.unlock();
  else
    f.latch.unlock_shared();
}

// ---------------------------------------------------------------------------

FilePageStore::FilePageStore(std::string relation_name, std::string path)
    : MemPageStore(std::move(relation_name)), path_(std::move(path)) {
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw Error("could not open file \"" + path_ + "\": " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd_, &st) != 0) {
    int err = errno;
    ::close(fd_);
    throw Error("could not stat file \"" + path_ + "\": " + std::strerror(err));
  }
  if (st.st_size % kBlockSize != 0) {
    ::close(fd_);
    throw Error("file \"" + path_ + "\" of relation \"" + name_ + "\" has size " +
                std::to_string(st.st_size) + ", not a multiple of " + std::to_string(kBlockSize));
  }
  for (off_t i = 0; i < st.st_size / off_t(kBlockSize); ++i)
    append_frame(/*loaded=*/false, /*latch=*/false);
}

FilePageStore::~FilePageStore() {
  try {
    flush();
  } catch (const Error& e) {
    std::fprintf(stderr, "tidepool: %s\n", e.what());
  }
  ::close(fd_);
}

void FilePageStore::load(BlockNumber block, Frame& f) {
  size_t done = 0;
  while (done < kBlockSize) {
    ssize_t n = ::pread(fd_, f.bytes.get() + done, kBlockSize - done,
                        off_t(block) * kBlockSize + off_t(done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      throw Error("could not read block " + std::to_string(block) + " in file \"" + path_ +
                  "\": " + std::strerror(errno));
    if (n == 0)
      throw Error("could not read block " + std::to_string(block) + " in file \"" + path_ +
                  "\": read only " + std::to_string(done) + " of " + std::to_string(kBlockSize) +
                  " bytes");
    done += size_t(n);
  }
  if (!page_verify(f.bytes.get(), block))
    throw Error("invalid page in block " + std::to_string(block) + " of relation \"" + name_ + "\"",
                "The page checksum or header does not match its contents.");
}

PageGuard FilePageStore::extend() {
  PageGuard guard = MemPageStore::extend();
  // A new block is written at the next flush even if never modified, so the
  // file always covers nblocks() blocks.
  frame(guard.block()).dirty = true;
  return guard;
}

void FilePageStore::on_mark_dirty(BlockNumber block, uint64_t) {
  frame(block).dirty = true;
}

void FilePageStore::flush() {
  alignas(8) char copy[kBlockSize];
  BlockNumber n = nblocks();
  for (BlockNumber block = 0; block < n; ++block) {
    Frame& f = frame(block);
    std::shared_lock<std::shared_mutex> latch(f.latch);
    if (!f.loaded || !f.dirty) continue;
    std::memcpy(copy, f.bytes.get(), kBlockSize);
    if (!page_is_new(copy)) page_set_checksum(copy, block);
    size_t done = 0;
    while (done < kBlockSize) {
      ssize_t w =
          ::pwrite(fd_, copy + done, kBlockSize - done, off_t(block) * kBlockSize + off_t(done));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0)
        throw Error("could not write block " + std::to_string(block) + " in file \"" + path_ +
                    "\": " + (w < 0 ? std::strerror(errno) : "wrote nothing"));
      done += size_t(w);
    }
    f.dirty = false;
  }
  if (::fsync(fd_) != 0)
    throw Error("could not fsync file \"" + path_ + "\": " + std::strerror(errno));
}

void FilePageStore::drop_cache() {
  flush();
  BlockNumber n = nblocks();
  for (BlockNumber block = 0; block < n; ++block) frame(block).loaded = false;
}

}  // namespace tp::btree
