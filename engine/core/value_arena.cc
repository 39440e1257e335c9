#include "engine/core/value_arena.h"

#include <algorithm>
#include <cstring>

namespace tp {

char* ValueArena::allocate(size_t n) {
  n = (n + 7) & ~size_t(7);
  if (chunks_.empty() || used_ + n > sizes_.back()) {
    const size_t size = std::max(kChunk, n);
    chunks_.push_back(std::make_unique<char[]>(size));
    sizes_.push_back(size);
    held_ += size;
    used_ = 0;
  }
  char* p = chunks_.back().get() + used_;
  used_ += n;
  return p;
}

void ValueArena::clear() {
  if (chunks_.size() > 1) {
    chunks_.resize(1);
    sizes_.resize(1);
    held_ = sizes_[0];
  }
  used_ = 0;
}

Datum ValueArena::copy(const char* p, size_t n) {
  char* dst = allocate(n);
  std::memcpy(dst, p, n);
  return pointer_datum(dst);
}

}  // namespace tp
