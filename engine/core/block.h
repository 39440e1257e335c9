// Block numbers, tuple identifiers and the page size: the vocabulary every
// layer shares. aio/ and bufmgr/ need only these, not the page layout.
#pragma once

#include <compare>
#include <cstdint>

namespace tp {

inline constexpr uint32_t kBlockSize = 8192;
using BlockNumber = uint32_t;
inline constexpr BlockNumber kInvalidBlock = 0xFFFFFFFFu;
using OffsetNumber = uint16_t;  // 1-based; 0 is invalid

// A tuple identifier: where a heap tuple lives.
struct Tid {
  BlockNumber block = kInvalidBlock;
  OffsetNumber offset = 0;
  bool valid() const { return block != kInvalidBlock && offset != 0; }
  friend bool operator==(const Tid&, const Tid&) = default;
  friend auto operator<=>(const Tid&, const Tid&) = default;
};

}  // namespace tp
