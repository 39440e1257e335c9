// HashBatchFiles: the temporary files of one side of a multi-batch hash join, one per
// batch (PostgreSQL's innerBatchFile / outerBatchFile arrays of nodeHash.c), in
// scans/row_file.h's format. The Hash keeps one for the inner rows of later batches, the
// Hash Join one for the outer rows.
//
//   files.add(batch, rows, r);            // row r of rows, for batch `batch`
//   auto f = files.take(batch);           // every row added for it, rewound (null: none)
//   while (files.read(*f, batch_rows)) use(batch_rows);
//
// Rows wait in one staging batch shared by every batch file, written out when it holds
// kStageBytes, each batch's rows as one file batch. So the memory of the buffers does not
// grow with the number of batches (a RowBatch per batch would cost a 32 kB arena chunk
// each as soon as a text value came), apart from each open file's own 8 kB write buffer
// (aio/temp_file.h, buffile.c's), which HashNode bounds by capping the batches.
//
// A file is created with the first row of its batch, so has() says whether the batch got
// rows. The files go with the object, with take()'s caller, or at clear().
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "aio/temp_file.h"
#include "engine/core/session_memory.h"
#include "scans/row_batch.h"

namespace tp::scans {

class HashBatchFiles {
 public:
  // Staged row bytes that make a write (slots and by-reference values).
  static constexpr uint64_t kStageBytes = 64 * 1024;

  void set_space(aio::TempFileSpace* space) { space_ = space; }

  // Appends a copy of row `r` of `rows` to batch `batch`'s file.
  void add(uint32_t batch, const RowBatch& rows, uint32_t r);
  bool has(uint32_t batch) const { return batch < files_.size() && files_[batch] != nullptr; }
  // The file holding every row added for `batch`, rewound; null when it got none. The set
  // forgets it, so the caller's pointer decides when the file goes.
  std::unique_ptr<aio::TempFile> take(uint32_t batch);
  // Removes batch `batch`'s file unread (a batch the join can skip).
  void drop(uint32_t batch);
  // The next file batch of a file take() gave, into `out`; false at its end.
  bool read(aio::TempFile& file, RowBatch& out) const;
  // Removes every file and staged row.
  void clear();
  // Files alive in the set (taken ones not counted).
  uint32_t files() const;

 private:
  void flush();

  aio::TempFileSpace* space_ = nullptr;
  std::vector<std::unique_ptr<aio::TempFile>> files_;  // by batch; null: no row yet
  std::shared_ptr<const RowShape> shape_;              // the rows' (taken from the first)
  uint32_t width_ = 0;
  RowBatch stage_;                   // rows not written yet, of any batch
  std::vector<uint32_t> stage_to_;   // each staged row's batch
  uint64_t staged_bytes_ = 0;        // their slots and values
  RowBatch sorted_;                  // the staged rows grouped by batch, for writing
  std::vector<uint32_t> run_start_;  // per batch, its first row in sorted_
  std::string scratch_;
  TrackedMemory memory_{MemoryPart::kExecutor};
};

}  // namespace tp::scans
