// The statement journal's on-disk layout (DIR/statement.undo), shared by the
// writer (datadir.cc) and the replay (datadir_restore.cc):
//   magic "tpundo02" (8 bytes), the catalog version the statement started
//   from (8), then records: relnumber (4), block (4), CRC-32 of those and the
//   page (4), zero (4), the page (8192). ("tpundo01" journals, written by
//   earlier versions, have no CRC: relnumber, block, page.)
// A record cut short or torn by a crash (its CRC does not match) at the end is
// ignored: its page was not yet overwritten, since the record is fsynced before
// the page may change. A damaged record before the end, or one naming a block
// the catalog does not have, stops the open with an error naming the journal:
// writing it back would damage a good page.
#pragma once

#include <cstdint>

#include "engine/core/page.h"

namespace tp {

inline constexpr const char* kJournalFile = "statement.undo";
inline constexpr char kJournalMagic[8] = {'t', 'p', 'u', 'n', 'd', 'o', '0', '2'};
inline constexpr char kJournalMagicV1[8] = {'t', 'p', 'u', 'n', 'd', 'o', '0', '1'};
inline constexpr size_t kJournalHeaderSize = 16;

struct JournalRecordHeader {
  uint32_t relnumber;
  uint32_t block;
  uint32_t crc;  // CRC-32 of relnumber, block and the page
  uint32_t zero = 0;
};
struct JournalRecordHeaderV1 {
  uint32_t relnumber;
  uint32_t block;
};

// CRC-32 (the IEEE polynomial, as zlib's) of a record's relnumber, block and page.
uint32_t journal_record_crc(uint32_t relnumber, uint32_t block, const char* page);

inline uint64_t journal_key(uint32_t relnumber, BlockNumber block) {
  return (uint64_t(relnumber) << 32) | block;
}

}  // namespace tp
