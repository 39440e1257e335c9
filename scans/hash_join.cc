#include "scans/hash_join.h"

#include <algorithm>
#include <cassert>

namespace tp::scans {

namespace {
constexpr uint32_t kOutputBatchRows = 1024;

std::vector<TypeId> key_types(const JoinSpec& spec, const std::vector<uint32_t>& outer_keys) {
  std::vector<TypeId> types;
  for (uint32_t s : outer_keys) types.push_back(spec.outer_types[s]);
  return types;
}
}  // namespace

HashJoinNode::HashJoinNode(std::unique_ptr<ExecNode> outer, std::unique_ptr<HashNode> hash,
                           JoinSpec spec, std::vector<uint32_t> outer_keys, std::string hash_cond)
    : outer_(std::move(outer)),
      hash_(std::move(hash)),
      rows_(spec),
      outer_keys_(std::move(outer_keys)),
      key_equal_(key_types(spec, outer_keys_)),
      hash_cond_(std::move(hash_cond)) {
  assert(outer_keys_.size() == hash_->keys().size());
  hash_->set_keep_nulls(fills_inner(spec.type));
  outer_files_.set_space(hash_->temp_space());
}

void HashJoinNode::drop_batches() {
  outer_file_.reset();
  outer_files_.clear();
  hash_->release_batches();
}

void HashJoinNode::shutdown() {
  if (hash_->nbatch() > 1) {
    drop_batches();
    table_ready_ = false;
    if (phase_ != Phase::kBuild) phase_ = Phase::kDone;
  }
  ExecNode::shutdown();
}

void HashJoinNode::do_open() {
  drop_batches();
  outer_->open();
  phase_ = Phase::kBuild;
  hash_started_ = false;
  table_ready_ = false;
  outer_not_empty_ = false;
  outer_batch_ = nullptr;
  outer_done_ = false;
  have_outer_ = false;
}

void HashJoinNode::do_rescan() {
  if (table_ready_ && hash_->nbatch() == 1 && !hash_->params_changed()) {
    // The single-batch shortcut: same inner rows, so the same table.
    std::fill(inner_matched_.begin(), inner_matched_.end(), uint8_t(0));
    phase_ = Phase::kProbe;
  } else {
    drop_batches();
    phase_ = Phase::kBuild;
    table_ready_ = false;
  }
  outer_not_empty_ = false;
  outer_->rescan();
  outer_batch_ = nullptr;
  outer_done_ = false;
  have_outer_ = false;
}

bool HashJoinNode::build() {
  const JoinType type = rows_.spec().type;
  // Reading one outer batch first saves building a table no outer row will probe. Not
  // when unmatched inner rows are returned: they are wanted even with no outer row.
  if (!fills_inner(type) &&
      (fills_outer(type) ||
       (outer_->estimate.startup_cost < hash_->estimate.total_cost && !outer_not_empty_))) {
    outer_batch_ = outer_->next();
    outer_at_ = 0;
    if (outer_batch_ == nullptr) {
      outer_done_ = true;
      return false;
    }
    outer_not_empty_ = true;
  }
  open_or_rescan(*hash_, hash_started_);
  table_ready_ = true;
  nbatch_outstart_ = hash_->nbatch();
  if (hash_->total_rows() == 0 && !fills_outer(type)) return false;
  inner_matched_.assign(fills_inner(type) ? hash_->rows().count : 0, 0);
  return true;
}

bool HashJoinNode::next_outer_row(RowRef& row) {
  while (outer_batch_ == nullptr || outer_at_ >= outer_batch_->count) {
    if (outer_done_) return false;
    rows_.keep_outer_refs(batch_);  // the outer batch is about to be replaced
    if (hash_->current_batch() == 0) {
      outer_batch_ = outer_->next();
    } else {
      // No child's next() polls here, and a file's rows may all move on without output.
      check_for_interrupts();
      outer_batch_ =
          outer_files_.read(*outer_file_, outer_file_rows_) ? &outer_file_rows_ : nullptr;
    }
    outer_at_ = 0;
    if (outer_batch_ == nullptr) {
      outer_done_ = true;
      return false;
    }
  }
  if (outer_at_ == 0) prepare_probes();
  row = outer_batch_->ref(outer_at_++);
  return true;
}

// Probing one row at a time waits for each of its dependent loads in turn: its bucket,
// the chain's hashes and links, the matching row. The rows of a batch are independent,
// so their lookups are done first, in two short loops: hashes and bucket prefetches,
// then each row's first candidate (prefetched for the key comparison and the filter).
// The CPU then has many rows' cache misses in flight at once, and probe() finds its
// memory cached. A NULL-key row's hash is never used; a row of a later batch starts
// nowhere (it goes to its file).
void HashJoinNode::prepare_probes() {
  const RowBatch& b = *outer_batch_;
  probe_hash_.resize(b.count);
  probe_start_.resize(b.count);
  for (uint32_t i = 0; i < b.count; ++i) {
    probe_hash_[i] = hash_slots(outer_keys_, b.shape.get(), b.ref(i));
    hash_->prefetch_bucket(probe_hash_[i]);
  }
  for (uint32_t i = 0; i < b.count; ++i) {
    const uint64_t h = probe_hash_[i];
    const uint32_t r =
        hash_->batch_of(h) == hash_->current_batch() ? hash_->first_with_hash(h) : HashNode::kNoRow;
    probe_start_[i] = r;
    if (r != HashNode::kNoRow) __builtin_prefetch(hash_->rows().row(r));
  }
}

void HashJoinNode::probe(uint32_t limit) {
  const JoinType type = rows_.spec().type;
  const bool one_match = type == JoinType::kSemi || rows_.spec().inner_unique;
  while (batch_.count < limit) {
    if (!have_outer_) {
      RowRef o{nullptr, nullptr};
      if (!next_outer_row(o)) {
        phase_ = fills_inner(type) ? Phase::kFill : Phase::kNextBatch;
        fill_at_ = 0;
        return;
      }
      rows_.set_outer(o);
      bool null_key = false;
      for (uint32_t k : outer_keys_) null_key = null_key || o.is_null(k);
      if (null_key) {
        // A NULL never equals anything: the row is unmatched.
        if (fills_outer(type)) {
          rows_.set_inner_null();
          rows_.emit(batch_);
        }
        continue;
      }
      outer_hash_ = probe_hash_[outer_at_ - 1];
      const uint32_t batch = hash_->batch_of(outer_hash_);
      if (batch != hash_->current_batch()) {
        // Its inner rows are in a later batch (never an earlier one: nbatch only grows).
        assert(batch > hash_->current_batch());
        outer_files_.add(batch, *outer_batch_, outer_at_ - 1);
        continue;
      }
      chain_ = probe_start_[outer_at_ - 1];
      matched_ = false;
      have_outer_ = true;
    }
    const RowRef o = outer_batch_->ref(outer_at_ - 1);
    while (chain_ != HashNode::kNoRow && batch_.count < limit) {
      const uint32_t r = chain_;
      chain_ = hash_->next_in_bucket(r);
      cancel_.tick();
      if (hash_->row_hash(r) != outer_hash_ ||
          !key_equal_(o.values, outer_keys_.data(), hash_->rows().row(r), hash_->keys().data()))
        continue;
      rows_.set_inner(hash_->rows().ref(r));
      if (!rows_.filter_passes(instr.rows_filtered)) continue;
      matched_ = true;
      if (fills_inner(type)) inner_matched_[r] = 1;
      if (type == JoinType::kAnti) {
        chain_ = HashNode::kNoRow;
        break;
      }
      rows_.emit(batch_);
      if (one_match) chain_ = HashNode::kNoRow;
    }
    if (chain_ != HashNode::kNoRow) return;  // the batch is full mid-chain
    if (!matched_ && fills_outer(type)) {
      if (batch_.count >= limit) return;  // emitted at the next call
      rows_.set_inner_null();
      rows_.emit(batch_);
    }
    have_outer_ = false;
  }
}

void HashJoinNode::fill(uint32_t limit) {
  const RowBatch& inner = hash_->rows();
  rows_.set_outer_null();
  while (fill_at_ < inner.count && batch_.count < limit) {
    const uint32_t r = fill_at_++;
    cancel_.tick();
    if (inner_matched_[r]) continue;
    rows_.set_inner(inner.ref(r));
    rows_.emit(batch_);
  }
  if (fill_at_ >= inner.count) phase_ = Phase::kNextBatch;
}

bool HashJoinNode::next_batch() {
  if (hash_->nbatch() == 1) return false;
  outer_file_.reset();  // the batch just probed: read
  const JoinType type = rows_.spec().type;
  uint32_t b = hash_->current_batch() + 1;
  for (; b < hash_->nbatch(); ++b) {
    // PostgreSQL's rules for a batch that must be read: both sides have rows; unmatched
    // rows of one side are returned; or nbatch grew since that side's rows were placed,
    // so some may belong to a later batch now.
    const bool inner = hash_->batch_has_rows(b), outer = outer_files_.has(b);
    if (inner && outer) break;
    if ((outer && fills_outer(type)) || (inner && fills_inner(type))) break;
    if (inner && hash_->nbatch() != hash_->nbatch_start()) break;
    if (outer && hash_->nbatch() != nbatch_outstart_) break;
    hash_->skip_batch(b);
    outer_files_.drop(b);
  }
  if (b >= hash_->nbatch()) {
    drop_batches();
    return false;
  }
  rows_.keep_inner_refs(batch_);  // the table is about to be replaced
  hash_->load_batch(b);
  inner_matched_.assign(fills_inner(type) ? hash_->rows().count : 0, 0);
  outer_file_ = outer_files_.take(b);
  outer_batch_ = nullptr;
  outer_at_ = 0;
  outer_done_ = outer_file_ == nullptr;
  have_outer_ = false;
  return true;
}

const RowBatch* HashJoinNode::do_next() {
  const uint32_t limit =
      uint32_t(std::min<uint64_t>(kOutputBatchRows, std::max<uint64_t>(row_limit_hint, 1)));
  rows_.start_batch(batch_, limit);
  try {
    if (phase_ == Phase::kBuild) phase_ = build() ? Phase::kProbe : Phase::kDone;
    while (phase_ != Phase::kDone && batch_.count < limit) {
      if (phase_ == Phase::kProbe)
        probe(limit);
      else if (phase_ == Phase::kFill)
        fill(limit);
      else
        phase_ = next_batch() ? Phase::kProbe : Phase::kDone;
    }
  } catch (...) {
    // The files go now, not when the plan does; a rescan starts over.
    drop_batches();
    table_ready_ = false;
    phase_ = Phase::kDone;
    throw;
  }
  return batch_.count > 0 ? &batch_ : nullptr;
}

void HashJoinNode::explain_details(std::vector<std::string>& lines, bool analyze) const {
  lines.push_back("Hash Cond: " + hash_cond_);
  explain_join_filter(rows_, instr.rows_filtered, instr.loops, analyze, lines);
}

}  // namespace tp::scans
