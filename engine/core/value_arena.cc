#include "engine/core/value_arena.h"

#include <algorithm>
#include <cstring>

namespace tp {

char* ValueArena::allocate_chunk(size_t n) {
  const size_t next = chunks_.empty() ? 0 : current_ + 1;
  if (next >= chunks_.size() || sizes_[next] < n) {
    const size_t size = std::max(kChunk, n);
    chunks_.insert(chunks_.begin() + ptrdiff_t(next), std::make_unique_for_overwrite<char[]>(size));
    sizes_.insert(sizes_.begin() + ptrdiff_t(next), size);
    held_ += size;
  }
  current_ = next;
  last_ = chunks_[next].get();
  room_ = sizes_[next];
  used_ = n;
  return last_;
}

void ValueArena::keep_first_chunks() {
  size_t kept = 0, bytes = 0;
  while (kept < chunks_.size() && (kept == 0 || bytes + sizes_[kept] <= kKeep))
    bytes += sizes_[kept++];
  chunks_.resize(kept);
  sizes_.resize(kept);
  held_ = bytes;
  current_ = 0;
  last_ = kept > 0 ? chunks_[0].get() : nullptr;
  room_ = kept > 0 ? sizes_[0] : 0;
}

}  // namespace tp
