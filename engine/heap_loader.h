// Appends rows to a table in page order, the way a bulk load does: tuples
// fill a page until the fillfactor rule refuses the next one, full pages
// collect in a 1 MB buffer, and the buffer goes to disk in one write. The
// table's committed last page, if it has room, is filled first, after its
// before-image is in the statement journal.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "engine/catalog.h"
#include "engine/datadir.h"
#include "engine/heap_tuple.h"

namespace tp {

class HeapLoader {
 public:
  // pages_per_write: pages collected before one write (>= 16, i.e. 128 kB).
  HeapLoader(DataDir& dir, const RelationEntry& table, uint32_t pages_per_write = 128);
  ~HeapLoader();
  HeapLoader(const HeapLoader&) = delete;
  HeapLoader& operator=(const HeapLoader&) = delete;

  // Adds one row; values are already converted to the columns' types.
  void add(const int64_t* values);
  // Writes the remaining pages and makes the file durable. Returns the
  // table's page count after the load.
  uint64_t finish();

  uint64_t rows_added() const { return rows_added_; }
  uint64_t bytes_written() const { return bytes_written_; }
  uint64_t write_calls() const { return write_calls_; }

 private:
  char* page(uint32_t i) { return buffer_.get() + size_t(i) * kBlockSize; }
  void start(const RelationEntry& table);
  void next_page();
  void write_buffer();

  DataDir& dir_;
  std::string name_;
  std::string path_;
  TupleLayout layout_;
  int fillfactor_;
  int fd_ = -1;
  struct FreeDeleter {
    void operator()(char* p) const { std::free(p); }
  };
  std::unique_ptr<char, FreeDeleter> buffer_;
  uint32_t capacity_;
  uint32_t used_ = 0;            // pages in the buffer, the last one being filled
  BlockNumber first_block_ = 0;  // block number of buffer page 0
  uint64_t rows_added_ = 0;
  uint64_t bytes_written_ = 0;
  uint64_t write_calls_ = 0;
  std::unique_ptr<char[]> tuple_;
};

}  // namespace tp
