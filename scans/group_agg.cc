#include "scans/group_agg.h"

#include <algorithm>

#include "engine/core/datetime.h"
#include "engine/core/error.h"
#include "engine/core/interrupts.h"
#include "scans/row_file.h"
#include "scans/typed_agg.h"

namespace tp::scans {
namespace {

constexpr uint32_t kOutputBatchRows = 1024;
constexpr int kMinSpillPartitions = 4;        // HASHAGG_MIN_PARTITIONS
constexpr uint64_t kSpillBufferBytes = 8192;  // a partition's write buffer (BLCKSZ)

// One non-NULL integer input into a state.
void accumulate_int(AggState& st, int64_t v) {
  if (st.count == 0) {
    st.min = st.max = v;
  } else {
    st.min = std::min(st.min, v);
    st.max = std::max(st.max, v);
  }
  st.sum += v;
  ++st.count;
}

}  // namespace

GroupAggNode::GroupAggNode(std::unique_ptr<ExecNode> child, GroupAggSpec spec)
    : child_(std::move(child)), spec_(std::move(spec)) {
  out_shape_ = std::make_shared<const RowShape>(spec_.row_types);
  // sum(x) and avg(x) keep one state, as their shared transition function does in
  // PostgreSQL (sum and avg of real do not: sum adds in real, avg in double precision).
  for (size_t a = 0; a < spec_.aggs.size(); ++a) {
    owner_.push_back(a);
    const AggSpec& x = spec_.aggs[a];
    auto sums = [](const AggSpec& s) {
      return (s.kind == AggKind::kSum || s.kind == AggKind::kAvg) && !s.distinct &&
             s.type != TypeId::kFloat4;
    };
    if (!sums(x) || spec_.mode == AggMode::kFinalize) continue;
    for (size_t b = 0; b < a; ++b) {
      const AggSpec& y = spec_.aggs[b];
      if (owner_[b] == b && sums(y) && y.slot == x.slot && y.type == x.type) {
        owner_[a] = b;
        break;
      }
    }
  }
  flags_ = std::make_unique<bool[]>(std::max<size_t>(spec_.row_types.size(), 1));
}

std::vector<TypeId> partial_row_types(std::vector<TypeId> key_types,
                                      const std::vector<AggSpec>& aggs) {
  for (const AggSpec& a : aggs)
    for (uint32_t i = 0; i < kPartialSlots; ++i)
      key_types.push_back(a.typed && i == 1 ? typed_state_type(a) : TypeId::kInt8);
  return key_types;
}

std::string GroupAggNode::explain_name() const {
  const bool plain = spec_.keys.empty();
  if (spec_.aggs.empty() && spec_.strategy == GroupStrategy::kSorted && !plain) return "Group";
  const std::string name = plain                                      ? "Aggregate"
                           : spec_.strategy == GroupStrategy::kSorted ? "GroupAggregate"
                                                                      : "HashAggregate";
  switch (spec_.mode) {
    case AggMode::kPartial:
      return "Partial " + name;
    case AggMode::kFinalize:
      return "Finalize " + name;
    case AggMode::kSimple:
      break;
  }
  return name;
}

void GroupAggNode::explain_details(std::vector<std::string>& lines, bool analyze) const {
  if (!spec_.keys.empty()) lines.push_back("Group Key: " + spec_.group_text);
  if (spec_.having) lines.push_back("Filter: " + spec_.having_text);
  if (spec_.strategy == GroupStrategy::kHashed) {
    std::string line = spec_.planned_partitions > 0
                           ? "Planned Partitions: " + std::to_string(spec_.planned_partitions)
                           : "";
    if (analyze) {
      line += (line.empty() ? "" : "  ") + std::string("Batches: ") +
              std::to_string(batches_used_) +
              "  Memory Usage: " + std::to_string((peak_bytes_ + 1023) / 1024) + "kB";
      if (batches_used_ > 1)
        line += "  Disk Usage: " + std::to_string((disk_bytes_ + 1023) / 1024) + "kB";
    }
    if (!line.empty()) lines.push_back(line);
  }
  if (analyze && spec_.having && instr.rows_filtered > 0)
    lines.push_back(rows_removed_line("Filter", instr.rows_filtered, instr.loops));
}

void GroupAggNode::do_open() {
  child_->open();
  groups_.clear_rows();
  groups_.width = 0;
  states_.clear();
  table_.clear();
  hashes_.clear();
  distinct_.clear();
  distinct_.resize(spec_.aggs.size());
  emitted_ = 0;
  emitted_any_ = false;
  statement_time_ = timestamp_now();  // CURRENT_DATE in HAVING: one time per statement
  input_done_ = false;
  filled_ = false;
  peak_bytes_ = 0;
  spill_.clear();
  batches_.clear();
  input_file_.reset();
  level_ = 0;
  batches_used_ = 1;
  disk_bytes_ = 0;
}

uint32_t GroupAggNode::find_group(uint64_t hash, RowRef row) const {
  if (table_.empty()) return kNoGroup;
  const size_t mask = table_.size() - 1;
  for (size_t i = size_t(hash) & mask;; i = (i + 1) & mask) {
    const uint32_t entry = table_[i];
    if (entry == 0) return kNoGroup;
    const uint32_t g = entry - 1;
    if (hashes_[g] == hash && slots_equal(spec_.keys, in_shape_.get(), groups_.ref(g), row))
      return g;
  }
}

void GroupAggNode::insert_group(uint64_t hash, uint32_t group) {
  hashes_.push_back(hash);
  if (table_.size() < 2 * hashes_.size()) {  // at most half full: double and re-place
    std::vector<uint32_t> bigger(std::max<size_t>(64, table_.size() * 2), 0);
    const size_t mask = bigger.size() - 1;
    for (uint32_t g = 0; g < group; ++g) {
      size_t i = size_t(hashes_[g]) & mask;
      while (bigger[i] != 0) i = (i + 1) & mask;
      bigger[i] = g + 1;
    }
    table_ = std::move(bigger);
  }
  const size_t mask = table_.size() - 1;
  size_t i = size_t(hash) & mask;
  while (table_[i] != 0) i = (i + 1) & mask;
  table_[i] = group + 1;
}

void GroupAggNode::accumulate(AggState* states, const RowBatch& b, uint32_t r) {
  const Datum* row = b.row(r);
  for (size_t a = 0; a < spec_.aggs.size(); ++a) {
    if (owner_[a] != a) continue;  // another aggregate keeps its state
    const AggSpec& spec = spec_.aggs[a];
    AggState& st = states[a];
    if (spec_.mode == AggMode::kFinalize) {  // a participant's state at spec.slot
      spec.typed ? typed_combine(st, spec, row + spec.slot) : int_combine(st, row + spec.slot);
      continue;
    }
    if (spec.kind == AggKind::kCountStar) {
      ++st.count;
      continue;
    }
    if (b.is_null(r, spec.slot)) continue;  // aggregates skip NULL inputs
    const Datum v = row[spec.slot];
    if (spec.distinct) {
      DistinctValues& d = distinct_[a];
      const TypeInfo& info = type_info(spec.type);
      d.values.push_back(info.byval ? v
                                    : d.bytes.copy(datum_pointer(v), datum_ref_size(info.len, v)));
    } else if (spec.kind == AggKind::kCount) {
      ++st.count;
    } else if (spec.typed) {
      typed_accumulate(st, spec, v);
    } else {
      accumulate_int(st, int64_t(v));
    }
  }
}

// The group's distinct values, in the type's order with repeats removed, into its states.
void GroupAggNode::finish_distinct(AggState* states) {
  for (size_t a = 0; a < spec_.aggs.size(); ++a) {
    const AggSpec& spec = spec_.aggs[a];
    if (!spec.distinct) continue;
    std::vector<Datum>& vals = distinct_[a].values;
    const TypeId t = spec.type;
    std::sort(vals.begin(), vals.end(),
              [t](Datum x, Datum y) { return compare_datums(t, x, y) < 0; });
    vals.erase(std::unique(vals.begin(), vals.end(),
                           [t](Datum x, Datum y) { return datums_equal(t, x, y); }),
               vals.end());
    AggState& st = states[a];
    for (Datum v : vals) {
      if (spec.kind == AggKind::kCount)
        ++st.count;
      else if (spec.typed)
        typed_accumulate(st, spec, v);
      else
        accumulate_int(st, int64_t(v));
    }
    vals.clear();
    distinct_[a].bytes.clear();
  }
}

void GroupAggNode::emit(uint32_t group_row, AggState* states) {
  const uint32_t width = uint32_t(spec_.row_types.size());
  if (out_.values.size() < size_t(out_.count + 1) * width) {
    out_.values.resize(std::max(size_t(out_.count + 1) * width, out_.values.size() * 2));
    if (out_.has_nulls) out_.nulls.resize(out_.values.size(), 0);
  }
  const uint32_t i = out_.count;
  Datum* row = out_.row(i);
  if (out_.has_nulls) std::fill_n(out_.nulls.data() + size_t(i) * width, width, uint8_t(0));
  const size_t nkeys = spec_.keys.size();
  // (no keys: an Aggregate's one group, maybe over no rows, has no first row to read)
  const RowRef key = nkeys > 0 ? groups_.ref(group_row) : RowRef{nullptr, nullptr};
  for (size_t k = 0; k < nkeys; ++k) {
    const uint32_t slot = spec_.keys[k];
    flags_[k] = key.is_null(slot);
    if (flags_[k]) {
      out_.set_null(i, uint32_t(k));
      continue;
    }
    const TypeInfo& info = type_info(spec_.row_types[k]);
    const Datum v = key.values[slot];
    row[k] = info.byval ? v : out_.arena.copy(datum_pointer(v), datum_ref_size(info.len, v));
  }
  if (spec_.mode == AggMode::kPartial) {
    for (size_t a = 0; a < spec_.aggs.size(); ++a) {
      const auto first = uint32_t(nkeys + kPartialSlots * a);
      AggState& st = states[owner_[a]];
      if (spec_.aggs[a].typed) {
        typed_settle(st, spec_.aggs[a]);
        typed_put_state(st, spec_.aggs[a], out_, first, i);
      } else {
        int_put_state(st, row + first);
      }
    }
    out_.count = i + 1;
    return;
  }
  for (size_t a = 0; a < spec_.aggs.size(); ++a) {
    AggState& st = states[owner_[a]];
    if (spec_.aggs[a].typed) typed_settle(st, spec_.aggs[a]);
    bool isnull = false;
    const Datum v = spec_.finalize(a, st, out_.arena, isnull);
    flags_[nkeys + a] = isnull;
    row[nkeys + a] = isnull ? 0 : v;
    if (isnull) out_.set_null(i, uint32_t(nkeys + a));
  }
  if (spec_.having) {
    EvalState st{&out_.arena, statement_time_};
    if (!evaluate_qual(*spec_.having, row, flags_.get(), st)) {
      ++instr.rows_filtered;
      return;
    }
  }
  out_.count = i + 1;
}

const RowBatch* GroupAggNode::next_sorted() {
  const size_t naggs = spec_.aggs.size();
  while (out_.count == 0) {
    if (input_done_) return nullptr;
    const RowBatch* b = child_->next();
    if (b == nullptr) {
      input_done_ = true;
      if (groups_.count > 0 || (spec_.keys.empty() && !emitted_any_)) {
        // Without keys there is one group, rows or none (an Aggregate's one row).
        if (groups_.count == 0) states_.assign(naggs, AggState{});
        finish_distinct(states_.data());
        emit(0, states_.data());
        groups_.clear_rows();
      }
      continue;
    }
    if (!in_shape_) in_shape_ = b->shape;
    for (uint32_t r = 0; r < b->count; ++r) {
      if (groups_.count > 0 &&
          !slots_equal(spec_.keys, in_shape_.get(), groups_.ref(0), b->ref(r))) {
        finish_distinct(states_.data());
        emit(0, states_.data());
        groups_.clear_rows();
      }
      if (groups_.count == 0) {
        groups_.width = b->width;
        groups_.push(*b, r);
        states_.assign(naggs, AggState{});
        emitted_any_ = true;
      }
      accumulate(states_.data(), *b, r);
    }
  }
  return &out_;
}

uint64_t GroupAggNode::memory_bytes() const {
  return groups_.bytes_held() + states_.capacity() * sizeof(AggState) +
         table_.capacity() * sizeof(uint32_t) + hashes_.capacity() * sizeof(uint64_t);
}

// The next rows of the current pass: the child's, or a spilled partition's.
const RowBatch* GroupAggNode::next_input() {
  if (!input_file_) return child_->next();
  if (read_row_file_batch(*input_file_, in_shape_, input_width_, file_batch_)) return &file_batch_;
  return nullptr;
}

// Groups beyond hash_mem: from now on, a row whose group is not in the table goes to one
// of `partitions` files by its hash's bits for this pass (PostgreSQL's spill mode).
void GroupAggNode::start_spill() {
  int n = std::max(spec_.planned_partitions, kMinSpillPartitions);
  while (n & (n - 1)) ++n;  // a power of two
  spill_.clear();
  spill_.resize(size_t(n));
  spill_bits_ = 0;
  while ((1 << spill_bits_) < n) ++spill_bits_;
}

bool GroupAggNode::may_spill() const {
  return spec_.temp_space != nullptr && spec_.hash_mem > 0 &&
         (level_ + 1) * std::max(spill_bits_, 2) <= 64;
}

void GroupAggNode::spill_row(const RowBatch& b, uint32_t r, uint64_t hash) {
  const auto part = size_t((hash >> (level_ * spill_bits_)) & ((uint64_t(1) << spill_bits_) - 1));
  Partition& p = spill_[part];
  if (!p.file) {
    p.file = spec_.temp_space->create();
    p.pending.width = b.width;
  }
  p.pending.push(b, r);
  // A block's worth per partition waits in memory, as buffile.c's buffer.
  if (uint64_t(p.pending.count) * p.pending.width * sizeof(Datum) + p.pending.arena.bytes_held() >=
      kSpillBufferBytes)
    flush(p);
}

void GroupAggNode::flush(Partition& p) {
  if (p.pending.count == 0) return;
  const uint64_t before = p.file->size_bytes();
  write_row_file_batch(*p.file, p.pending, 0, p.pending.count, scratch_);
  disk_bytes_ += p.file->size_bytes() - before;
  p.pending.clear_rows();
}

void GroupAggNode::read_hashed() {
  const size_t naggs = spec_.aggs.size();
  while (const RowBatch* b = next_input()) {
    if (!in_shape_) in_shape_ = b->shape;
    groups_.width = input_width_ = b->width;
    for (uint32_t r = 0; r < b->count; ++r) {
      const RowRef row = b->ref(r);
      const uint64_t hash = hash_slots(spec_.keys, in_shape_.get(), row);
      uint32_t g = find_group(hash, row);
      if (g == kNoGroup) {
        if (!spill_.empty()) {
          spill_row(*b, r, hash);
          continue;
        }
        groups_.push(*b, r);
        g = groups_.count - 1;
        insert_group(hash, g);
        states_.resize(states_.size() + naggs);
      }
      accumulate(states_.data() + size_t(g) * naggs, *b, r);
    }
    const uint64_t held = memory_bytes();
    peak_bytes_ = std::max(peak_bytes_, held);
    memory_.set(held);
    if (spill_.empty() && held > spec_.hash_mem && may_spill()) start_spill();
    if (held > spec_.max_bytes)
      throw Error("HashAggregate of " + std::to_string(hashes_.size()) +
                      "+ groups needs more than " + std::to_string(spec_.max_bytes >> 20) +
                      " MB, its in-memory limit",
                  "", "Add a WHERE clause that keeps fewer rows, or SET enable_hashagg = off.")
          .with_sqlstate(sqlstate::kProgramLimitExceeded);
  }
  // The partitions this pass spilled wait as batches (the last one is read first).
  for (Partition& p : spill_) {
    if (!p.file) continue;
    flush(p);
    p.file->rewind();
    batches_.push_back({std::move(p.file), level_ + 1});
  }
  spill_.clear();
  input_file_.reset();  // a partition read is gone, its file with it
  filled_ = true;
}

// The next spilled partition becomes the input of a fresh table.
void GroupAggNode::next_batch() {
  Batch b = std::move(batches_.back());
  batches_.pop_back();
  input_file_ = std::move(b.file);
  level_ = b.level;
  ++batches_used_;
  // A fresh table, its memory given back: the batch's own groups are what it measures.
  std::vector<uint32_t>().swap(table_);
  std::vector<uint64_t>().swap(hashes_);
  groups_ = RowBatch();
  std::vector<AggState>().swap(states_);
  emitted_ = 0;
  filled_ = false;
}

const RowBatch* GroupAggNode::next_hashed() {
  const size_t naggs = spec_.aggs.size();
  for (;;) {
    if (!filled_) read_hashed();
    while (out_.count == 0 && emitted_ < groups_.count) {
      const uint64_t wanted =
          std::max<uint64_t>(std::min<uint64_t>(row_limit_hint, kOutputBatchRows), 1);
      while (emitted_ < groups_.count && out_.count < wanted) {
        emit(uint32_t(emitted_), states_.data() + emitted_ * naggs);
        ++emitted_;
      }
      check_for_interrupts();
    }
    if (out_.count > 0) return &out_;
    if (batches_.empty()) return nullptr;
    next_batch();
  }
}

const RowBatch* GroupAggNode::do_next() {
  out_.shape = out_shape_;
  out_.reset(uint32_t(spec_.row_types.size()), kOutputBatchRows);
  return spec_.strategy == GroupStrategy::kSorted ? next_sorted() : next_hashed();
}

}  // namespace tp::scans
