// Appends rows to a table the way a bulk load does, through the buffer pool: new
// blocks are taken from the pool in runs (pool.extend under the bulk-write ring),
// tuples fill each page until the fillfactor rule refuses the next one, and each full
// run is written with one vectored O_DIRECT write of up to 1 MB, several runs in
// flight while the next fills. Rows go where PostgreSQL's heap_insert puts them: the
// table's committed last page first, and a row the current page cannot take goes to an
// earlier page the free space map offers (engine/storage/free_space_map.h) before a new
// one. A page read back so is written by the pool; a committed page's before-image goes
// to the statement journal first.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "aio/aio.h"
#include "bufmgr/buffer_pool.h"
#include "bufmgr/strategy.h"
#include "engine/core/heap_tuple.h"
#include "engine/core/tuple_format.h"
#include "engine/storage/catalog.h"
#include "engine/storage/datadir.h"
#include "engine/storage/free_space_map.h"
#include "engine/storage/storage.h"

namespace tp {

class HeapLoader {
 public:
  HeapLoader(DataDir& dir, Storage& storage, const RelationEntry& table);
  // Waits for writes still in flight (a failing statement's; their errors do not matter).
  ~HeapLoader();
  HeapLoader(const HeapLoader&) = delete;
  HeapLoader& operator=(const HeapLoader&) = delete;

  // Adds one row of a table of integer columns (HeapTupleLayout::all_integers); values
  // are already converted to the columns' types. Returns where it was stored.
  Tid add(const int64_t* values);
  // Adds one row of any table: its values as Datums (by-reference ones pointing at
  // their bytes) and NULL flags. A row larger than a page takes is refused (54000
  // "row is too big", no TOAST).
  Tid add_row(const Datum* values, const bool* isnull);
  // Writes the remaining pages and makes the file durable. Returns the
  // table's page count after the load.
  uint64_t finish();

  uint64_t rows_added() const { return rows_added_; }
  uint64_t bytes_written() const { return bytes_written_; }

 private:
  struct Run {
    std::vector<bufmgr::WriteGuard> pages;
    BlockNumber first = kInvalidBlock;
    int used = 0;  // pages holding rows (or being filled)
    aio::IoResult result;
    aio::IoWaitRef ref;
  };

  static void check_fits(uint32_t len);
  Tid place(uint32_t len);
  void store(Tid self, uint32_t len);
  void next_page();
  void move_to(BlockNumber b);
  void start_run();
  void submit_run();
  void wait_oldest();

  DataDir& dir_;
  bufmgr::BufferPool& pool_;
  aio::IoFile& file_;
  uint32_t relnumber_;
  HeapTupleLayout layout_;
  TupleFormat format_;
  int fillfactor_;
  std::unique_ptr<bufmgr::BufferStrategy> ring_;
  int run_blocks_ = 128;
  int max_runs_in_flight_ = 4;

  FreeSpaceMap fsm_;              // the pages this statement left with room
  bufmgr::WriteGuard revisit_;    // the page rows go to when it is no page of current_
  std::unique_ptr<Run> current_;  // the run being filled
  std::deque<std::unique_ptr<Run>> in_flight_;
  char* page_ = nullptr;  // the page rows go to now
  BlockNumber page_block_ = kInvalidBlock;
  BlockNumber next_block_ = 0;  // first block past everything handed out
  BlockNumber end_block_ = 0;   // first block past pages holding rows
  uint64_t table_pages_ = 0;    // the table's committed pages when the load began
  bool started_ = false;        // the first row has been placed
  uint64_t rows_added_ = 0;
  uint64_t bytes_written_ = 0;
  std::unique_ptr<char[]> tuple_;
};

}  // namespace tp
