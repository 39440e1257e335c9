// The bitmap nodes: BitmapIndexScan (B-tree TIDs into a TidBitmap), BitmapOr /
// BitmapAnd (union / intersection of the children's bitmaps) and BitmapHeapScan,
// which reads the bitmap's heap pages once each, in ascending block order, through a
// read stream, rechecking the index conditions on lossy pages. scans/README.md
// describes the stream and the per-buffer data.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "aio/file.h"
#include "bufmgr/buffer_pool.h"
#include "bufmgr/read_stream.h"
#include "scans/exec_node.h"
#include "scans/index_scan.h"
#include "scans/parallel_shared.h"
#include "scans/qual.h"
#include "scans/seq_scan.h"
#include "scans/tidbitmap.h"

namespace tp::scans {

// A node that produces a TID bitmap rather than rows.
class BitmapNode : public ExecNode {
 public:
  // Builds the bitmap (counting a loop) under a `budget_bytes` memory budget.
  virtual std::unique_ptr<TidBitmap> build(int64_t budget_bytes) = 0;
  // A fresh copy of the node and its children, with their estimates (each participant
  // of a Parallel Bitmap Heap Scan has its own copy of the plan).
  virtual std::unique_ptr<BitmapNode> clone() const = 0;

 protected:
  void do_open() override {}
  const RowBatch* do_next() override { return nullptr; }
};

class BitmapIndexScanNode final : public BitmapNode {
 public:
  // `leaf_readahead`: index_leaf_readahead (see IndexScanParams).
  BitmapIndexScanNode(IndexHandle index, ConditionSets condition_sets, std::string index_cond_text,
                      bool leaf_readahead = false);
  std::unique_ptr<TidBitmap> build(int64_t budget_bytes) override;
  std::unique_ptr<BitmapNode> clone() const override;
  // A parameterized scan (under a Nested Loop): `key = $param` joins every condition set
  // at each build, from the values the outer row set (PostgreSQL's runtime keys).
  void set_runtime_keys(std::vector<IndexScanParams::RuntimeKey> keys, const ExecParams* params) {
    runtime_keys_ = std::move(keys);
    params_ = params;
  }
  std::string explain_name() const override { return "Bitmap Index Scan"; }
  std::string explain_target() const override { return " on " + index_.name; }
  void explain_details(std::vector<std::string>& lines, bool analyze) const override;

 private:
  IndexHandle index_;
  ConditionSets condition_sets_;
  std::vector<IndexScanParams::RuntimeKey> runtime_keys_;
  const ExecParams* params_ = nullptr;
  std::string index_cond_text_;
  bool leaf_readahead_;
  btree::LeafReadaheadStats readahead_;  // all loops
};

// BitmapOr (union) / BitmapAnd (intersection) of child bitmaps.
class BitmapCombineNode final : public BitmapNode {
 public:
  BitmapCombineNode(bool is_and, std::vector<std::unique_ptr<BitmapNode>> children);
  std::unique_ptr<TidBitmap> build(int64_t budget_bytes) override;
  std::unique_ptr<BitmapNode> clone() const override;
  std::string explain_name() const override { return is_and_ ? "BitmapAnd" : "BitmapOr"; }
  void explain_details(std::vector<std::string>&, bool) const override {}
  std::vector<const ExecNode*> children() const override;

 private:
  bool is_and_;
  std::vector<std::unique_ptr<BitmapNode>> children_;
};

// A Parallel Bitmap Heap Scan's shared state, as PostgreSQL's ParallelBitmapHeapState:
// the TID bitmap, built once by the first participant to open its copy (the others
// wait for it; the Bitmap Index Scans below are not parallel), and one iteration over
// its pages from which every participant's read stream claims the next page as it
// looks ahead. So the look-ahead position is shared, each page is read by one
// participant, and the reads in flight are split among the participants:
// effective_io_concurrency in all, as PostgreSQL 15's shared prefetch target keeps it.
class SharedBitmap final : public ParallelShared {
 public:
  // Drops the bitmap: the next run builds it again.
  void reset(int participants) override;
  int participants() const { return participants_; }
  // The bitmap: built here by `build` if no participant has begun it, else waited
  // for. Null when the participant building it failed (it reports the error).
  const TidBitmap* bitmap(const std::function<std::unique_ptr<TidBitmap>()>& build);
  // Claims the next page of the shared iteration into `page`, its exact offsets
  // copied to `offsets` (room for kMaxHeapTuplesPerPage); false at the end.
  bool next_page(TbmPage& page, OffsetNumber* offsets);

 private:
  enum class State : uint8_t { kEmpty, kBuilding, kReady, kFailed };
  std::mutex mutex_;
  std::condition_variable built_;
  State state_ = State::kEmpty;
  int participants_ = 1;
  std::unique_ptr<TidBitmap> bitmap_;
  std::unique_ptr<TidBitmapIterator> iter_;
};

struct BitmapHeapScanParams {
  std::string relation;
  int64_t work_mem_bytes = 4 << 20;
  bufmgr::ReadStreamConfig stream;
  TupleReader output;
  CompiledQual recheck;  // the index conditions, rechecked on lossy pages
  // A parameterized scan: the recheck's `key = $param` comparisons (clause, parameter),
  // their values set from `params` at each open.
  struct ParamRecheck {
    size_t clause = 0;
    size_t param = 0;
  };
  std::vector<ParamRecheck> param_rechecks;
  const ExecParams* params = nullptr;
  CompiledQual filter;  // the other quals
  std::string recheck_text;
  std::string filter_text;
  // Parallel Bitmap Heap Scan: the bitmap and its iteration this participant shares
  // with the others. Null: a serial scan.
  std::shared_ptr<SharedBitmap> parallel;
};

// Reads the bitmap's pages in ascending block order through a read stream.
class BitmapHeapScanNode final : public ExecNode {
 public:
  BitmapHeapScanNode(bufmgr::BufferPool& pool, aio::IoFile& heap, std::unique_ptr<BitmapNode> child,
                     BitmapHeapScanParams params);
  ~BitmapHeapScanNode() override;
  std::string explain_name() const override {
    return params_.parallel ? "Parallel Bitmap Heap Scan" : "Bitmap Heap Scan";
  }
  std::string explain_target() const override { return " on " + params_.relation; }
  void explain_details(std::vector<std::string>& lines, bool analyze) const override;
  const bufmgr::ReadStreamStats* stream_stats() const override;
  std::vector<const ExecNode*> children() const override { return {child_.get()}; }

 protected:
  void do_open() override;
  const RowBatch* do_next() override;

 private:
  struct PageData {
    bool lossy;
    bool recheck;  // exact page of a BitmapAnd that must be rechecked
    uint16_t count;
    OffsetNumber offsets[kMaxHeapTuplesPerPage];
  };
  bufmgr::BufferPool& pool_;
  aio::IoFile& heap_;
  std::unique_ptr<BitmapNode> child_;
  BitmapHeapScanParams params_;
  std::unique_ptr<TidBitmap> bitmap_;
  std::unique_ptr<TidBitmapIterator> iter_;
  std::unique_ptr<bufmgr::ReadStream> stream_;
  bufmgr::ReadStreamStats last_stats_;
  DeformScratch scratch_;
  RowBatch batch_;
};

}  // namespace tp::scans
