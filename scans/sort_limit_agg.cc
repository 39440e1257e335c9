#include "scans/sort_limit_agg.h"

#include <algorithm>
#include <numeric>

#include "engine/core/datum_ops.h"
#include "engine/core/error.h"
#include "engine/core/types.h"
#include "scans/typed_agg.h"

namespace tp::scans {

namespace {
constexpr uint32_t kOutputBatchRows = 1024;
constexpr uint64_t kMaxDistinctBytes = uint64_t(2) << 30;
}  // namespace

// ---------------------------------------------------------------- Sort

SortNode::SortNode(std::unique_ptr<ExecNode> child, std::vector<SortKey> keys, std::string key_text,
                   int64_t bound, uint64_t max_bytes)
    : child_(std::move(child)),
      keys_(std::move(keys)),
      key_text_(std::move(key_text)),
      bound_(bound),
      max_bytes_(max_bytes) {}

bool SortNode::less(uint32_t a, uint32_t b) const {
  return rows_less(keys_, 0, shape_.get(), rows_.ref(a), rows_.ref(b));
}

void SortNode::do_open() {
  child_->open();
  rows_.clear_rows();
  order_.clear();
  emitted_ = 0;
  sorted_ = false;
  used_bound_ = false;
  peak_bytes_ = 0;
}

void SortNode::keep_best() {
  std::vector<uint32_t> idx(rows_.count);
  std::iota(idx.begin(), idx.end(), 0u);
  // Stable: among equal keys the earlier input row wins, as in the full sort.
  SortCancelCheck cancel;
  std::stable_sort(idx.begin(), idx.end(), [&](uint32_t x, uint32_t y) {
    cancel.tick();
    return less(x, y);
  });
  idx.resize(std::min<size_t>(idx.size(), size_t(bound_)));
  RowBatch kept;
  kept.width = rows_.width;
  kept.shape = rows_.shape;
  for (uint32_t i : idx) kept.push(rows_, i);
  std::swap(rows_, kept);
  used_bound_ = true;
}

void SortNode::note_rows_held() {
  const uint64_t bytes = held_bytes(rows_);
  peak_bytes_ = std::max(peak_bytes_, bytes);
  memory_.set(rows_.bytes_held());
  if (bytes > max_bytes_)
    throw Error("sort of " + std::to_string(rows_.count) + "+ rows needs more than " +
                    std::to_string(max_bytes_ >> 20) + " MB, the in-memory sort limit",
                "", "Add a LIMIT or a WHERE clause that keeps fewer rows.")
        .with_sqlstate(sqlstate::kProgramLimitExceeded);
}

void SortNode::read_input() {
  const size_t keep_at = std::max<size_t>(size_t(bound_) * 2, 1024);
  while (const RowBatch* b = child_->next()) {
    if (rows_.width != b->width) rows_.width = b->width;
    if (!shape_) shape_ = b->shape;
    const bool bounded = bound_ > 0 && rows_.width > 0;
    if (!used_bound_) {
      for (uint32_t r = 0; r < b->count; ++r) rows_.push(*b, r);
      note_rows_held();
      if (bounded && rows_.count >= keep_at) keep_best();
      continue;
    }
    // The best `bound_` rows are held (keep_best ran): a row that does not sort before
    // the last of them cannot be in the result (on a tie the earlier row wins), so it
    // is dropped with one comparison, uncopied, as PostgreSQL's bounded heap drops a
    // row worse than its top. Rows are kept down to the best again as soon as twice as
    // many are held, so later rounds hold no more than the first.
    for (uint32_t r = 0; r < b->count; ++r) {
      if (!rows_less(keys_, 0, shape_.get(), b->ref(r), rows_.ref(uint32_t(bound_ - 1)))) continue;
      rows_.push(*b, r);
      if (rows_.count < keep_at) continue;
      note_rows_held();
      keep_best();
    }
    note_rows_held();
  }
}

const RowBatch* SortNode::do_next() {
  if (!sorted_) {
    read_input();
    order_.resize(rows_.count);
    memory_.set(rows_.bytes_held() + order_.capacity() * sizeof(uint32_t));
    std::iota(order_.begin(), order_.end(), 0u);
    SortCancelCheck cancel;
    std::stable_sort(order_.begin(), order_.end(), [&](uint32_t x, uint32_t y) {
      cancel.tick();
      return less(x, y);
    });
    if (bound_ > 0 && order_.size() > size_t(bound_)) {
      order_.resize(size_t(bound_));
      used_bound_ = true;
    }
    sorted_ = true;
  }
  if (emitted_ >= order_.size()) return nullptr;
  uint32_t n = uint32_t(std::min<size_t>(kOutputBatchRows, order_.size() - emitted_));
  batch_.reset(rows_.width, n);
  for (uint32_t i = 0; i < n; ++i) batch_.append(rows_, order_[emitted_ + i]);
  emitted_ += n;
  return &batch_;
}

void SortNode::explain_details(std::vector<std::string>& lines, bool analyze) const {
  lines.push_back("Sort Key: " + key_text_);
  if (analyze && instr.loops > 0) {
    uint64_t kb = (peak_bytes_ + 1023) / 1024;
    lines.push_back(std::string("Sort Method: ") + (used_bound_ ? "top-N heapsort" : "quicksort") +
                    "  Memory: " + std::to_string(kb) + "kB");
  }
}

// ---------------------------------------------------------------- Limit

LimitNode::LimitNode(std::unique_ptr<ExecNode> child, int64_t count, int64_t offset)
    : child_(std::move(child)), count_(count), offset_(offset) {}

void LimitNode::do_open() {
  skipped_ = 0;
  returned_ = 0;
  if (count_ != 0) child_->open();
}

const RowBatch* LimitNode::do_next() {
  if (count_ >= 0 && returned_ >= count_) {
    // The parent has every row it wants: a Gather below stops its workers now
    // (PostgreSQL's Limit shuts its subplan down at the end of its window).
    if (count_ > 0) child_->shutdown();
    return nullptr;
  }
  for (;;) {
    if (count_ >= 0) {
      const int64_t wanted = offset_ - skipped_ + count_ - returned_;
      child_->row_limit_hint = wanted < 0 ? UINT64_MAX : uint64_t(wanted);
    }
    const RowBatch* b = child_->next();
    if (!b) return nullptr;
    // Rows of this batch still to skip, then the ones the window takes.
    const uint32_t skip = uint32_t(std::min<int64_t>(offset_ - skipped_, b->count));
    skipped_ += skip;
    uint32_t keep = b->count - skip;
    if (count_ >= 0) keep = uint32_t(std::min<int64_t>(keep, count_ - returned_));
    if (keep == 0) continue;
    returned_ += keep;
    if (skip == 0 && keep == b->count) return b;
    batch_.reset(b->width, keep);
    batch_.append_rows(*b, skip, keep);
    return &batch_;
  }
}

// ---------------------------------------------------------------- Aggregate

AggregateNode::AggregateNode(std::unique_ptr<ExecNode> child, std::vector<AggSpec> aggs,
                             AggMode mode)
    : child_(std::move(child)), aggs_(std::move(aggs)), mode_(mode) {
  // A Partial Aggregate's typed states may hold by-reference values: its rows say so.
  bool typed = false;
  for (const AggSpec& a : aggs_) typed = typed || a.typed;
  if (mode_ != AggMode::kPartial || !typed) return;
  std::vector<TypeId> types(kPartialSlots * aggs_.size(), TypeId::kInt8);
  for (size_t a = 0; a < aggs_.size(); ++a)
    if (aggs_[a].typed) types[kPartialSlots * a + 1] = typed_state_type(aggs_[a]);
  partial_shape_ = std::make_shared<const RowShape>(std::move(types));
}

std::string AggregateNode::explain_name() const {
  switch (mode_) {
    case AggMode::kPartial:
      return "Partial Aggregate";
    case AggMode::kFinalize:
      return "Finalize Aggregate";
    case AggMode::kSimple:
      break;
  }
  return "Aggregate";
}

void AggregateNode::do_open() {
  child_->open();
  states_.assign(aggs_.size(), AggState{});
  distinct_values_.assign(aggs_.size(), {});
  distinct_bytes_.clear();
  for (size_t a = 0; a < aggs_.size(); ++a)
    distinct_bytes_.push_back(aggs_[a].distinct ? std::make_unique<ValueArena>() : nullptr);
  done_ = false;
}

namespace {

// Adds `n` input values (at v, v + w, ...) to a state.
void accumulate(AggState& st, const int64_t* v, uint32_t w, uint32_t n) {
  if (n == 0) return;  // v[0] below would read past an empty batch
  if (st.count == 0) st.min = st.max = v[0];
  __int128 sum = 0;
  int64_t mn = st.min, mx = st.max;
  for (uint32_t i = 0; i < n; ++i, v += w) {
    sum += *v;
    mn = std::min(mn, *v);
    mx = std::max(mx, *v);
  }
  st.sum += sum;
  st.min = mn;
  st.max = mx;
  st.count += n;
}

}  // namespace

// A state as a Partial Aggregate's output slots, and back (PostgreSQL's
// serialize / deserialize functions, here five int64 slots).
void int_put_state(const AggState& st, int64_t* out) {
  const auto bits = static_cast<unsigned __int128>(st.sum);
  out[0] = st.count;
  out[1] = static_cast<int64_t>(static_cast<uint64_t>(bits));
  out[2] = static_cast<int64_t>(static_cast<uint64_t>(bits >> 64));
  out[3] = st.min;
  out[4] = st.max;
}

// Adds a partial state (PostgreSQL's combine functions).
void int_combine(AggState& st, const int64_t* in) {
  if (in[0] == 0) return;  // that participant saw no rows: min and max mean nothing
  const auto hi = static_cast<unsigned __int128>(static_cast<uint64_t>(in[2])) << 64;
  const auto sum = static_cast<__int128>(hi | static_cast<uint64_t>(in[1]));
  if (st.count == 0) {
    st.min = in[3];
    st.max = in[4];
  } else {
    st.min = std::min(st.min, in[3]);
    st.max = std::max(st.max, in[4]);
  }
  st.count += in[0];
  st.sum += sum;
}

void AggregateNode::collect_distinct(size_t a, const RowBatch& b) {
  const AggSpec& spec = aggs_[a];
  std::vector<Datum>& vals = distinct_values_[a];
  const TypeInfo& info = type_info(spec.type);
  for (uint32_t r = 0; r < b.count; ++r) {
    if (b.is_null(r, spec.slot)) continue;
    const Datum d = b.row(r)[spec.slot];
    vals.push_back(
        info.byval ? d : distinct_bytes_[a]->copy(datum_pointer(d), datum_ref_size(info.len, d)));
  }
  uint64_t held = 0;
  for (size_t i = 0; i < aggs_.size(); ++i) {
    held += distinct_values_[i].capacity() * sizeof(Datum);
    if (distinct_bytes_[i]) held += distinct_bytes_[i]->bytes_held();
  }
  memory_.set(held);
  // The same bound as the in-memory Sort's (scans/README.md).
  if (held > kMaxDistinctBytes)
    throw Error("a DISTINCT aggregate over " + std::to_string(vals.size()) +
                    "+ rows needs more than " + std::to_string(kMaxDistinctBytes >> 20) +
                    " MB, the in-memory limit",
                "", "Add a WHERE clause that keeps fewer rows.")
        .with_sqlstate(sqlstate::kProgramLimitExceeded);
}

// The distinct values, in the type's order with repeats removed, go into the state.
void AggregateNode::finish_distinct(size_t a) {
  const AggSpec& spec = aggs_[a];
  std::vector<Datum>& vals = distinct_values_[a];
  if (spec.typed) {
    const TypeId t = spec.type;
    std::sort(vals.begin(), vals.end(),
              [t](Datum x, Datum y) { return compare_datums(t, x, y) < 0; });
    vals.erase(std::unique(vals.begin(), vals.end(),
                           [t](Datum x, Datum y) { return datums_equal(t, x, y); }),
               vals.end());
    AggState& st = states_[a];
    if (spec.kind == AggKind::kCount) {
      st.count += int64_t(vals.size());
    } else {
      for (Datum d : vals) typed_accumulate(st, spec, d);
    }
  } else if (!vals.empty()) {
    std::sort(vals.begin(), vals.end());
    vals.erase(std::unique(vals.begin(), vals.end()), vals.end());
    accumulate(states_[a], vals.data(), 1, uint32_t(vals.size()));
  }
  std::vector<Datum>().swap(vals);
  distinct_bytes_[a].reset();
}

const RowBatch* AggregateNode::do_next() {
  if (done_) return nullptr;
  while (const RowBatch* b = child_->next()) {
    for (size_t a = 0; a < aggs_.size(); ++a) {
      AggState& st = states_[a];
      const AggSpec& spec = aggs_[a];
      if (mode_ == AggMode::kFinalize) {
        for (uint32_t r = 0; r < b->count; ++r)
          spec.typed ? typed_combine(st, spec, b->row(r) + kPartialSlots * a)
                     : int_combine(st, b->row(r) + kPartialSlots * a);
      } else if (spec.distinct) {
        collect_distinct(a, *b);
      } else if (spec.typed && spec.kind != AggKind::kCount && spec.kind != AggKind::kCountStar) {
        for (uint32_t r = 0; r < b->count; ++r)
          if (!b->is_null(r, spec.slot)) typed_accumulate(st, spec, b->row(r)[spec.slot]);
      } else if (spec.kind == AggKind::kCountStar) {
        st.count += b->count;
      } else if (b->has_nulls) {
        // Aggregates skip NULL inputs (count(a) counts the others).
        for (uint32_t r = 0; r < b->count; ++r)
          if (!b->is_null(r, spec.slot))
            spec.kind == AggKind::kCount ? void(++st.count)
                                         : accumulate(st, b->row(r) + spec.slot, b->width, 1);
      } else if (spec.kind == AggKind::kCount) {
        st.count += b->count;
      } else {
        accumulate(st, b->values.data() + spec.slot, b->width, b->count);
      }
    }
  }
  done_ = true;
  for (size_t a = 0; a < aggs_.size(); ++a)
    if (aggs_[a].distinct) finish_distinct(a);
  for (size_t a = 0; a < aggs_.size(); ++a)
    if (aggs_[a].typed) typed_settle(states_[a], aggs_[a]);
  if (mode_ == AggMode::kPartial) {
    batch_.shape = partial_shape_;
    batch_.reset(uint32_t(kPartialSlots * aggs_.size()), 1);
    for (size_t a = 0; a < aggs_.size(); ++a)
      aggs_[a].typed ? typed_put_state(states_[a], aggs_[a], batch_, uint32_t(kPartialSlots * a))
                     : int_put_state(states_[a], batch_.row(0) + kPartialSlots * a);
  } else {
    batch_.reset(0, 1);
  }
  batch_.count = 1;
  return &batch_;
}

}  // namespace tp::scans
