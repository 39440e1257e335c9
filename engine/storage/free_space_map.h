// PostgreSQL 15's free space map as a statement's inserts use it, so rows land on the
// pages PostgreSQL's heap_insert would put them on and tables of variable-width rows
// take PostgreSQL's page count. When the page being filled cannot take the next row,
// PostgreSQL notes the page's free space (in 1/256ths of a page, rounded down) and looks
// for another page with room (rounded up) before it extends the table: an earlier page
// left with a gap too small for the row that closed it may take a smaller row later.
//
// Each FSM page covers 4069 heap blocks with a binary tree of maximums over their
// categories; the search starts at the page's "next slot" hint (one past the last page
// it handed out), climbs right and up until a subtree has room, then descends leftmost
// (freespace/fsmpage.c). Inserts search only the FSM page of the block they leave; the
// upper FSM levels stay empty without VACUUM, so nothing else is found.
//
//   FreeSpaceMap fsm;
//   BlockNumber b = fsm.record_and_get(current, free_bytes, needed_bytes);  // or kInvalidBlock
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/core/block.h"

namespace tp {

class FreeSpaceMap {
 public:
  // RecordAndGetPageWithFreeSpace: records that `block` has `avail` bytes free, then
  // returns a block of the same FSM page recorded with room for `needed` bytes, or
  // kInvalidBlock.
  BlockNumber record_and_get(BlockNumber block, uint32_t avail, uint32_t needed);

  // A page's category: free bytes in 32-byte steps, rounded down (what is there) or up
  // (what is needed).
  static uint8_t avail_to_category(uint32_t avail);
  static uint8_t needed_to_category(uint32_t needed);

  static constexpr int kNodesPerPage = 8164;  // BLCKSZ - page header - fp_next_slot
  static constexpr int kNonLeafNodes = 4095;  // BLCKSZ / 2 - 1
  static constexpr int kLeavesPerPage = kNodesPerPage - kNonLeafNodes;  // 4069 heap blocks

 private:
  struct Page {
    std::array<uint8_t, kNodesPerPage> nodes{};
    int next_slot = 0;
    void set(int slot, uint8_t value);
    int search(uint8_t min);  // a slot with at least `min`, or -1
  };
  std::vector<std::unique_ptr<Page>> pages_;  // by FSM page number, made when first used
};

}  // namespace tp
