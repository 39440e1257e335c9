// ValueArena: the bytes of by-reference values (text, numeric, interval) that a row
// batch or an expression's result points at, allocated in 32 kB chunks and forgotten
// all at once, so copying a row or computing a value costs no allocation per value.
//
//   ValueArena a;
//   Datum d = a.copy(varlena, varlena_size(varlena));   // lives until a.clear()
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "engine/core/datum.h"

namespace tp {

// Bytes of by-reference values: chunks that never move (Datums point into them),
// emptied together.
class ValueArena {
 public:
  // `n` bytes, 8-aligned.
  char* allocate(size_t n);
  // Forgets every value; keeps the first chunk for the next batch.
  void clear();
  // Bytes held (the chunks' sizes), for memory accounting.
  size_t bytes_held() const { return held_; }
  // A copy of `n` bytes at `p`.
  Datum copy(const char* p, size_t n);

 private:
  static constexpr size_t kChunk = 32 * 1024;
  std::vector<std::unique_ptr<char[]>> chunks_;
  std::vector<size_t> sizes_;
  size_t used_ = 0;  // bytes used in the last chunk
  size_t held_ = 0;
};

}  // namespace tp
