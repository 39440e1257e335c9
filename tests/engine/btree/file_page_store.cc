#include "tests/engine/btree/file_page_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace tp::btree {

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
