// SeqScanNode: every live tuple of a table in block order through a read
// stream (the bulk-read ring for tables larger than a quarter of the pool,
// as HeapScan chooses it), with the WHERE clause applied on the page.
//
// One batch is one page's passing rows: the page is share-locked only while
// its tuples are tested and copied out, never across next() calls.
#pragma once

#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "aio/file.h"
#include "bufmgr/buffer_pool.h"
#include "bufmgr/read_stream.h"
#include "bufmgr/strategy.h"
#include "scans/exec_node.h"
#include "scans/parallel_blocks.h"
#include "scans/qual.h"
#include "scans/tuple_reader.h"

namespace tp::scans {

struct SeqScanParams {
  std::string relation;  // for EXPLAIN ("Seq Scan on t")
  BlockNumber nblocks = 0;
  bufmgr::ReadStreamConfig stream;  // eic, io_combine_limit; the ring is chosen here
  TupleReader output;
  CompiledQual qual;
  std::string filter_text;  // "(a < 5)" as EXPLAIN prints it; empty without a qual
  // A Parallel Seq Scan: this participant reads the blocks it claims from the
  // blocks shared by all participants (scans/gather.h), not every block.
  ParallelBlocks* parallel = nullptr;
};

class SeqScanNode final : public ExecNode {
 public:
  // The pool and file must outlive the node.
  SeqScanNode(bufmgr::BufferPool& pool, aio::IoFile& file, SeqScanParams params);
  ~SeqScanNode() override;

  std::string explain_name() const override {
    return params_.parallel ? "Parallel Seq Scan" : "Seq Scan";
  }
  std::string explain_target() const override { return " on " + params_.relation; }
  void explain_details(std::vector<std::string>& lines, bool analyze) const override;
  const bufmgr::ReadStreamStats* stream_stats() const override;

 protected:
  void do_open() override;
  const RowBatch* do_next() override;

 private:
  bufmgr::BufferPool& pool_;
  aio::IoFile& file_;
  SeqScanParams params_;
  BlockNumber next_block_ = 0;
  std::optional<ParallelBlockClaimer> claimer_;  // a Parallel Seq Scan's claims
  std::unique_ptr<bufmgr::BufferStrategy> ring_;
  std::unique_ptr<bufmgr::ReadStream> stream_;
  bufmgr::ReadStreamStats last_stats_;  // of the stream of the last loop
  // The page being returned when a Limit above stopped mid-page.
  bufmgr::ReadGuard page_;
  OffsetNumber next_offset_ = 1;
  DeformScratch scratch_;
  RowBatch batch_;
};

}  // namespace tp::scans
