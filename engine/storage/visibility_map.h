// The visibility map: PostgreSQL's <relnumber>_vm fork in spirit. One file per
// table, base/<relnumber>_vm, of 8 kB pages laid out as PostgreSQL's (a page
// header with a checksum, then two bits per heap block: all-visible, and
// all-frozen, which tidepool never sets), so an index-only scan learns that a
// heap page is all-visible without reading it.
//
// Tables are insert-only and every statement is atomic, so a committed page
// holds only committed tuples: a bit may be set for any committed page no
// statement is adding tuples to. VACUUM sets the bits of every page; an INSERT
// clears those of the pages it added tuples to. The file is small (one page
// covers 32,672 heap blocks, 255 MB of table) and is replaced whole and
// atomically (<relnumber>_vm.new, fsync, rename), never overwritten in place,
// so a crash leaves the old map or the new one (engine/storage/README.md
// "Visibility map" has the ordering rules).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/page.h"

namespace tp {

// Heap blocks one map page covers: (8192 - 24) bytes of four blocks each.
inline constexpr uint32_t kVmHeapBlocksPerPage = (kBlockSize - kPageHeaderSize) * 4;
inline constexpr uint8_t kVmAllVisible = 0x01;
inline constexpr uint8_t kVmAllFrozen = 0x02;

class VisibilityMap {
 public:
  bool all_visible(BlockNumber heap_block) const { return (bits(heap_block) & kVmAllVisible) != 0; }
  uint8_t bits(BlockNumber heap_block) const;
  // Marks heap blocks [0, n) all-visible (VACUUM); the map grows to cover them.
  void set_all_visible(BlockNumber n);
  // Clears the bits of heap blocks [from, to) (an INSERT's pages). Returns
  // whether one was set.
  bool clear(BlockNumber from, BlockNumber to);
  // Blocks marked all-visible (PostgreSQL's visibilitymap_count).
  BlockNumber count_all_visible() const;
  // Heap blocks the map's pages cover (a multiple of kVmHeapBlocksPerPage).
  BlockNumber covered() const { return BlockNumber(bytes_.size() * 4); }
  // The first heap block past the last one with any bit set (0: none).
  BlockNumber end_of_set_bits() const;

  // The file's contents: whole pages with headers and checksums.
  std::string serialize() const;
  // Reads a file's contents; throws tp::Error naming `file` and the problem
  // (size not a multiple of 8 kB, a page that fails its checksum or whose
  // header is not a map page's) on anything serialize() could not have written.
  static VisibilityMap parse(const std::string& content, const std::string& file);

 private:
  std::vector<uint8_t> bytes_;  // the pages' bitmaps, concatenated
};

// The map file of table file `relnumber` in base/: "<relnumber>_vm".
std::string vm_file_name(uint32_t relnumber);
// Reads the map at `path`; a missing file is an empty map (a table never
// vacuumed, or one of a data directory older than the map). Throws as parse.
VisibilityMap read_visibility_map(const std::string& path);
// Replaces the map at `path` durably and atomically; an empty map removes it.
void write_visibility_map(const std::string& path, const VisibilityMap& map);

// `tidepool check`'s look at a table's map: the problems (none: sound) of the file
// at `path` for a table of `table_pages` committed blocks: a file that does not
// parse, a bit set for a block past the table's end, all-frozen without
// all-visible.
std::vector<std::string> verify_visibility_map(const std::string& path, BlockNumber table_pages);

}  // namespace tp
