// ValueArena: the bytes of by-reference values (text, numeric, interval) that a row
// batch or an expression's result points at, allocated in 32 kB chunks and forgotten
// all at once, so copying a row or computing a value costs no allocation per value.
// clear() keeps up to 256 kB of chunks for the next batch: a batch of computed values
// that fills several chunks does not go back to malloc (and the kernel's zeroed pages)
// every time.
//
//   ValueArena a;
//   Datum d = a.copy(varlena, varlena_size(varlena));   // lives until a.clear()
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "engine/core/datum.h"

namespace tp {

// Bytes of by-reference values: chunks that never move (Datums point into them),
// emptied together.
class ValueArena {
 public:
  ValueArena() = default;
  // A moved-from arena is empty (its last chunk now belongs to the new one).
  ValueArena(ValueArena&& o) noexcept { *this = std::move(o); }
  ValueArena& operator=(ValueArena&& o) noexcept {
    if (this == &o) return *this;
    chunks_ = std::move(o.chunks_);
    sizes_ = std::move(o.sizes_);
    current_ = std::exchange(o.current_, 0);
    last_ = std::exchange(o.last_, nullptr);
    room_ = std::exchange(o.room_, 0);
    used_ = std::exchange(o.used_, 0);
    held_ = std::exchange(o.held_, 0);
    o.chunks_.clear();
    o.sizes_.clear();
    return *this;
  }
  // `n` bytes, 8-aligned.
  char* allocate(size_t n) {
    n = (n + 7) & ~size_t(7);
    if (used_ + n > room_ || last_ == nullptr) return allocate_chunk(n);
    char* p = last_ + used_;
    used_ += n;
    return p;
  }
  // Forgets every value; keeps the first chunks (up to kKeep bytes) for the next batch.
  void clear() {
    if (current_ != 0) keep_first_chunks();
    used_ = 0;
  }
  // Bytes held (the chunks' sizes), for memory accounting.
  size_t bytes_held() const { return held_; }
  // A copy of `n` bytes at `p`.
  Datum copy(const char* p, size_t n) {
    char* dst = allocate(n);
    std::memcpy(dst, p, n);
    return pointer_datum(dst);
  }

 private:
  static constexpr size_t kChunk = 32 * 1024;
  static constexpr size_t kKeep = 256 * 1024;
  // Moves to the next chunk (a kept one if it has room for `n` rounded bytes, else a new
  // one) and takes them from it.
  char* allocate_chunk(size_t n);
  // Frees the chunks past the first kKeep bytes and goes back to the first.
  void keep_first_chunks();

  std::vector<std::unique_ptr<char[]>> chunks_;
  std::vector<size_t> sizes_;
  size_t current_ = 0;    // the chunk being filled
  char* last_ = nullptr;  // its bytes
  size_t room_ = 0;       // its size
  size_t used_ = 0;       // bytes used in it
  size_t held_ = 0;
};

}  // namespace tp
