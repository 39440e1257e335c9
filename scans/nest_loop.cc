#include "scans/nest_loop.h"

#include <algorithm>
#include <cassert>

#include "scans/project.h"

namespace tp::scans {

namespace {
constexpr uint32_t kOutputBatchRows = 1024;
}  // namespace

NestLoopNode::NestLoopNode(std::unique_ptr<ExecNode> outer, std::unique_ptr<ExecNode> inner,
                           JoinSpec spec, ExecParams* params, std::vector<uint32_t> param_slots)
    : outer_(std::move(outer)),
      inner_(std::move(inner)),
      rows_(spec),
      params_(params),
      param_slots_(std::move(param_slots)) {
  assert(!fills_inner(spec.type));
  assert(params_ == nullptr ? param_slots_.empty() : param_slots_.size() == params_->size());
}

NestLoopNode::NestLoopNode(std::unique_ptr<ExecNode> outer, std::unique_ptr<ExecNode> inner,
                           JoinSpec spec, std::unique_ptr<ExecParams> params,
                           std::vector<uint32_t> param_slots)
    : NestLoopNode(std::move(outer), std::move(inner), std::move(spec), params.get(),
                   std::move(param_slots)) {
  owned_params_ = std::move(params);
}

bool NestLoopNode::enable_prefetch(int rows_ahead) {
  if (params_ == nullptr) return false;
  ExecNode* n = inner_.get();
  while (auto* p = dynamic_cast<ProjectNode*>(n)) n = p->mutable_children().at(0);
  auto* scan = dynamic_cast<IndexScanNode*>(n);
  if (scan == nullptr || !scan->probe_supported()) return false;
  const JoinType type = rows_.spec().type;
  // A semi or anti join's inner scan stops at its first match: its first block will do.
  const bool one_match = type == JoinType::kSemi || type == JoinType::kAnti;
  prefetch_ =
      std::make_unique<NestLoopPrefetch>(*scan, *params_, param_slots_, rows_ahead,
                                         one_match ? 1 : NestLoopPrefetch::kMaxBlocksPerRow);
  return true;
}

void NestLoopNode::explain_details(std::vector<std::string>& lines, bool analyze) const {
  explain_join_filter(rows_, instr.rows_filtered, instr.loops, analyze, lines);
  if (prefetch_)
    lines.push_back("Prefetch Batch: " + std::to_string(prefetch_->rows_ahead()) + " outer rows");
}

void NestLoopNode::do_open() {
  if (prefetch_) prefetch_->reset();
  // A semi or anti join (or a unique inner) is done with an outer row at its first
  // match: the inner scan returns one row at a time and reads no page beyond it, as
  // PostgreSQL's does (EXPLAIN's rows=1 per loop; no heap page read for nothing).
  const JoinSpec& spec = rows_.spec();
  if (spec.type == JoinType::kSemi || spec.type == JoinType::kAnti || spec.inner_unique)
    inner_->row_limit_hint = 1;
  outer_->open();
  // A fresh run: the inner side is opened (not rescanned) at the first outer row, so a
  // Materialize below forgets the rows of an earlier run.
  inner_started_ = false;
  outer_batch_ = nullptr;
  outer_at_ = 0;
  outer_done_ = false;
  have_outer_ = false;
  inner_batch_ = nullptr;
}

void NestLoopNode::do_rescan() {
  if (prefetch_) prefetch_->reset();
  outer_->rescan();
  outer_batch_ = nullptr;
  outer_at_ = 0;
  outer_done_ = false;
  have_outer_ = false;
  inner_batch_ = nullptr;
}

bool NestLoopNode::start_next_outer() {
  while (outer_batch_ == nullptr || outer_at_ >= outer_batch_->count) {
    if (outer_done_) return false;
    rows_.keep_outer_refs(batch_);
    outer_batch_ = outer_->next();
    outer_at_ = 0;
    if (outer_batch_ == nullptr) {
      outer_done_ = true;
      return false;
    }
    if (prefetch_) prefetch_->new_batch();
  }
  if (prefetch_) prefetch_->before_row(*outer_batch_, outer_at_);
  const RowRef o = outer_batch_->ref(outer_at_++);
  rows_.set_outer(o);
  if (params_) params_->set_from_row(param_slots_, o);
  rows_.keep_inner_refs(batch_);  // a rescan may reuse the inner's batch
  open_or_rescan(*inner_, inner_started_);
  inner_batch_ = nullptr;
  inner_at_ = 0;
  matched_ = false;
  have_outer_ = true;
  return true;
}

const RowBatch* NestLoopNode::do_next() {
  const JoinType type = rows_.spec().type;
  const bool one_match = type == JoinType::kSemi || rows_.spec().inner_unique;
  const uint32_t limit =
      uint32_t(std::min<uint64_t>(kOutputBatchRows, std::max<uint64_t>(row_limit_hint, 1)));
  rows_.start_batch(batch_, limit);
  while (batch_.count < limit) {
    if (!have_outer_ && !start_next_outer()) break;
    // The current outer row against the rest of its inner scan, until the batch is full.
    while (batch_.count < limit) {
      if (inner_batch_ == nullptr || inner_at_ >= inner_batch_->count) {
        rows_.keep_inner_refs(batch_);
        inner_batch_ = inner_->next();
        inner_at_ = 0;
        if (inner_batch_ == nullptr) {
          if (!matched_ && fills_outer(type)) {
            rows_.set_inner_null();
            rows_.emit(batch_);
          }
          have_outer_ = false;
          break;
        }
      }
      cancel_.tick();
      rows_.set_inner(inner_batch_->ref(inner_at_++));
      if (!rows_.filter_passes(instr.rows_filtered)) continue;
      matched_ = true;
      if (type == JoinType::kAnti) {
        have_outer_ = false;
        break;
      }
      rows_.emit(batch_);
      if (one_match) {
        have_outer_ = false;
        break;
      }
    }
  }
  return batch_.count > 0 ? &batch_ : nullptr;
}

}  // namespace tp::scans
