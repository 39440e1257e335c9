// The statement journal's on-disk layout (DIR/statement.undo), shared by the
// writer (datadir.cc) and the replay (datadir_restore.cc):
//   magic "tpundo01" (8 bytes), the catalog version the statement started
//   from (8), then records: relnumber (4), block (4), the page (8192).
// A record cut short by a crash is ignored: its page was not yet overwritten
// (the record is fsynced before the page may change).
#pragma once

#include <cstdint>

#include "engine/page.h"

namespace tp {

inline constexpr const char* kJournalFile = "statement.undo";
inline constexpr char kJournalMagic[8] = {'t', 'p', 'u', 'n', 'd', 'o', '0', '1'};
inline constexpr size_t kJournalHeaderSize = 16;

struct JournalRecordHeader {
  uint32_t relnumber;
  uint32_t block;
};

inline uint64_t journal_key(uint32_t relnumber, BlockNumber block) {
  return (uint64_t(relnumber) << 32) | block;
}

}  // namespace tp
