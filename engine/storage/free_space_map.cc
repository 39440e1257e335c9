#include "engine/storage/free_space_map.h"

#include <algorithm>

#include "engine/core/heap_tuple.h"

namespace tp {
namespace {

constexpr uint32_t kCategoryStep = kBlockSize / 256;  // 32 bytes
constexpr uint32_t kMaxRequest = kMaxStoredTuple;     // MaxFSMRequestSize (MaxHeapTupleSize)

int parent_of(int node) {
  return (node - 1) / 2;
}
int left_child(int node) {
  return 2 * node + 1;
}
// One step right on the same level; past a level's right end, to the next level's
// leftmost node's parent (whose subtree is the wrap-around).
int right_neighbor(int node) {
  ++node;
  if (((node + 1) & node) == 0) node = parent_of(node);
  return node;
}

}  // namespace

uint8_t FreeSpaceMap::avail_to_category(uint32_t avail) {
  if (avail >= kMaxRequest) return 255;
  return uint8_t(std::min<uint32_t>(avail / kCategoryStep, 254));
}

uint8_t FreeSpaceMap::needed_to_category(uint32_t needed) {
  return uint8_t(std::min<uint32_t>((needed + kCategoryStep - 1) / kCategoryStep, 255));
}

void FreeSpaceMap::Page::set(int slot, uint8_t value) {
  int node = kNonLeafNodes + slot;
  nodes[size_t(node)] = value;
  // Each parent holds its children's maximum; stop where nothing changes.
  do {
    node = parent_of(node);
    const int l = left_child(node), r = l + 1;
    uint8_t v = nodes[size_t(l)];
    if (r < kNodesPerPage) v = std::max(v, nodes[size_t(r)]);
    if (nodes[size_t(node)] == v) break;
    nodes[size_t(node)] = v;
  } while (node > 0);
}

int FreeSpaceMap::Page::search(uint8_t min) {
  if (nodes[0] < min) return -1;
  int node = kNonLeafNodes + (next_slot >= 0 && next_slot < kLeavesPerPage ? next_slot : 0);
  // Widen the searched triangle to the right of the start until it holds a page with room.
  while (node > 0 && nodes[size_t(node)] < min) node = parent_of(right_neighbor(node));
  // Then down to the leftmost such page.
  while (node < kNonLeafNodes) {
    const int l = left_child(node);
    node = l < kNodesPerPage && nodes[size_t(l)] >= min ? l : l + 1;
  }
  const int slot = node - kNonLeafNodes;
  next_slot = slot + 1;
  return slot;
}

BlockNumber FreeSpaceMap::record_and_get(BlockNumber block, uint32_t avail, uint32_t needed) {
  const size_t page = block / kLeavesPerPage;
  if (pages_.size() <= page) pages_.resize(page + 1);
  if (!pages_[page]) pages_[page] = std::make_unique<Page>();
  Page& p = *pages_[page];
  p.set(int(block % kLeavesPerPage), avail_to_category(avail));
  const int slot = p.search(needed_to_category(needed));
  if (slot < 0) return kInvalidBlock;
  return BlockNumber(page * kLeavesPerPage + size_t(slot));
}

}  // namespace tp
