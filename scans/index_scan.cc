#include "scans/index_scan.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "engine/core/error.h"
#include "engine/core/io_trace.h"

namespace tp::scans {

namespace {

constexpr uint32_t kIndexBatchRows = 256;

}  // namespace

std::string leaf_readahead_line(const btree::LeafReadaheadStats& stats) {
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "Leaf Read-ahead: ios=%llu blocks=%llu waits=%llu distance avg=%.1f",
                (unsigned long long)stats.io.ios, (unsigned long long)stats.io.io_blocks,
                (unsigned long long)stats.io.waits, stats.io.avg_distance());
  std::string line = buf;
  if (stats.mismatches > 0) line += ", dropped=" + std::to_string(stats.mismatches);
  return line;
}

IndexScanNode::IndexScanNode(bufmgr::BufferPool& pool, aio::IoFile& heap, IndexScanParams params)
    : pool_(pool), heap_(heap), params_(std::move(params)) {
  const bufmgr::PrefetchPolicyDef* def =
      params_.stream.policy ? params_.stream.policy
                            : bufmgr::find_prefetch_policy(bufmgr::kDefaultPrefetchPolicy);
  if (!params_.prefetch) return;
  policy_ = def->make(params_.stream.policy_settings);
  bounded_by_limit_ = policy_->bounded_by_limit();
  if (std::string_view(def->name) != bufmgr::kDefaultPrefetchPolicy)
    params_.stream.policy_instance = policy_.get();
}

IndexScanNode::~IndexScanNode() {
  stream_.reset();  // before the ring its callback reads
}

std::string IndexScanNode::explain_name() const {
  std::string name = params_.index_only ? "Index Only Scan" : "Index Scan";
  if (params_.parallel) name = "Parallel " + name;
  return params_.direction == btree::ScanDirection::kBackward ? name + " Backward" : name;
}

std::string IndexScanNode::explain_target() const {
  return " using " + params_.index.name + " on " + params_.relation;
}

void IndexScanNode::do_open() {
  current_page_ = bufmgr::ReadGuard();
  if (opened_ && policy_) restart_for_rescan();
  opened_ = true;
  finished_ = false;
  earlier_items_ += consumed_items_;
  earlier_rows_ += emitted_rows_;
  consumed_items_ = ahead_items_ = emitted_rows_ = 0;
  stream_active_ = false;
  if (stream_) {
    run_io_blocks_ = stream_->stats().io_blocks;
    run_waits_ = stream_->stats().waits;
  }
  current_block_ = kInvalidBlock;
  for (auto& b : ring_) spare_.push_back(std::move(b));
  ring_.clear();
  item_ = 0;
  ahead_batch_ = ahead_item_ = 0;
  block_switches_ = 0;
  heap_reads_ = 0;
  if (!params_.runtime_keys.empty()) refresh_runtime_sets();
  // No condition set: an empty array (= ANY ('{}')) matches nothing.
  index_done_ = sets().empty();
  condition_set_ = 0;
  static const std::vector<btree::ColumnCondition> kNoConditions;
  const std::vector<btree::ColumnCondition>& first = index_done_ ? kNoConditions : sets()[0];
  if (scan_ && !params_.parallel) {
    // A rescan (the inner side of a Nested Loop, once per outer row) restarts the same
    // B-tree scan, whose read-ahead figures go on accumulating.
    scan_->rescan(first);
  } else {
    if (scan_) readahead_ += scan_->leaf_readahead_stats();
    scan_ = std::make_unique<btree::IndexScan>(*params_.index.tree, first, params_.direction,
                                               params_.leaf_readahead && !params_.parallel);
  }
  batch_.reset(params_.output.width(), 0);  // grown as rows come (room_for_next_row)
  batch_.shape = params_.output.shape();
}

void IndexScanNode::restart_for_rescan() {
  bufmgr::RescanInfo last{.rescans = ++rescans_,
                          .block_switches = block_switches_,
                          .heap_reads = heap_reads_,
                          .finished = finished_};
  if (stream_) {
    const bufmgr::ReadStreamStats& st = stream_->stats();
    last.heap_reads += int(st.io_blocks - run_io_blocks_);
    last.waits = int(st.waits - run_waits_);
    if (stream_active_) last.distance = stream_->distance();
  }
  rescan_distance_ = policy_->on_rescan(last);
  if (!stream_) return;
  // What the stream read ahead for the old key goes back now, not when the new run
  // starts it: it would hold pins the new key's blocks may need.
  if (rescan_distance_ > 0)
    stream_->restart(std::exchange(rescan_distance_, 0));
  else
    stream_->reset();
}

void IndexScanNode::mark_all_visible(btree::IndexBatch& b) {
  b.heap_skip.resize(b.size());
  BlockNumber block = kInvalidBlock;
  bool skip = false;
  for (size_t i = 0; i < b.size(); ++i) {
    if (b.tids[i].block != block) {
      block = b.tids[i].block;
      skip = params_.all_visible(block);
    }
    b.heap_skip[i] = skip ? 1 : 0;
  }
}

bool IndexScanNode::load_batch() {
  if (index_done_) return false;
  btree::IndexBatch b;
  if (!spare_.empty()) {
    b = std::move(spare_.back());
    spare_.pop_back();
  }
  if (params_.parallel) {
    if (!load_parallel_batch(b)) {
      index_done_ = true;
      spare_.push_back(std::move(b));
      return false;
    }
    if (params_.all_visible) mark_all_visible(b);
    ring_.push_back(std::move(b));
    return true;
  }
  while (!scan_->next_batch(b)) {
    if (++condition_set_ >= sets().size()) {
      index_done_ = true;
      spare_.push_back(std::move(b));
      return false;
    }
    scan_->rescan(sets()[condition_set_]);
  }
  if (params_.all_visible) mark_all_visible(b);
  ring_.push_back(std::move(b));
  return true;
}

bool IndexScanNode::load_parallel_batch(btree::IndexBatch& b) {
  btree::ParallelLeafScan& shared = params_.parallel->leaves;
  while (std::optional<btree::ParallelLeafScan::Seized> s = shared.seize()) {
    bool handed_on = false;
    try {
      if (s->primitive != condition_set_) {
        condition_set_ = s->primitive;
        scan_->rescan(params_.condition_sets[condition_set_]);
      }
      // The next participant goes on as soon as this one has read the page.
      scan_->read_one_page(s->position, b, [&](const btree::LeafPosition& next) {
        handed_on = true;
        shared.release(next);
      });
    } catch (...) {
      // Nobody may wait for a position this participant will not give.
      if (!handed_on) shared.abandon();
      throw;
    }
    if (!b.empty()) return true;
  }
  return false;
}

void IndexScanNode::retire_front_batch() {
  spare_.push_back(std::move(ring_.front()));
  ring_.pop_front();
  item_ = 0;
  if (ahead_batch_ == 0)
    ahead_item_ = 0;
  else
    --ahead_batch_;
  if (stream_ && stream_->paused()) stream_->resume();
}

// The stream's callback: the next heap block after the consumer's, walking
// the ring (and filling it from the index) ahead of the consumer.
BlockNumber IndexScanNode::next_prefetch_block() {
  for (;;) {
    if (ahead_batch_ >= ring_.size()) {
      if (index_done_) return kInvalidBlock;
      if (ring_.size() >= kMaxIndexBatches) return bufmgr::kReadStreamPause;
      // Loading a batch takes a B-tree leaf's content lock. The stream stages its reads
      // in batch mode; a thread that holds the leaf exclusively may be waiting for one
      // of those reads, which only this thread can submit. So submit them first.
      pool_.io().submit_staged();
      if (!load_batch()) return kInvalidBlock;
      continue;
    }
    const btree::IndexBatch& b = ring_[ahead_batch_];
    if (ahead_item_ >= b.size()) {
      ++ahead_batch_;
      ahead_item_ = 0;
      continue;
    }
    // Under a LIMIT: no further than the rows still wanted may reach (the consumer
    // resumes the stream when it needs a block). The consumer may be past this point:
    // the entries after a yielded block on the same page are counted only as it
    // passes them.
    if (bounded_by_limit_ && ahead_items_ > consumed_items_ &&
        ahead_items_ - consumed_items_ >= items_needed())
      return bufmgr::kReadStreamPause;
    ++ahead_items_;
    // An all-visible page is not read at all (the consumer skips it too: the same flag).
    if (params_.all_visible && b.heap_skip[ahead_item_] != 0) {
      ++ahead_item_;
      continue;
    }
    BlockNumber block = b.tids[ahead_item_++].block;
    if (block != last_yielded_) {
      last_yielded_ = block;
      return block;
    }
  }
}

uint64_t IndexScanNode::items_needed() const {
  if (rows_wanted_ == UINT64_MAX) return UINT64_MAX;
  const uint64_t rows = rows_wanted_ > batch_.count ? rows_wanted_ - batch_.count : 0;
  // Entries per row so far, this run's and the earlier runs' of a rescanned scan (1
  // before the first row: no Filter has spoken yet), rounded up. The earlier runs teach
  // a semi-join's inner scan how many entries a match takes from its first entry on.
  const uint64_t items = earlier_items_ + consumed_items_ + 1;
  const uint64_t done = earlier_rows_ + emitted_rows_ + 1;
  return (rows * items + done - 1) / done;
}

void IndexScanNode::start_stream(bool include_current) {
  ahead_batch_ = 0;
  ahead_item_ = item_ + (include_current ? 0 : 1);
  ahead_items_ = consumed_items_ + (include_current ? 0 : 1);
  last_yielded_ = current_block_;
  stream_active_ = true;
  // A rescanned scan's stream was reset (or restarted) when the run began.
  if (stream_) return;
  bufmgr::ReadStreamConfig config = params_.stream;
  config.sequential = false;
  config.label = "index heap";
  stream_ = std::make_unique<bufmgr::ReadStream>(pool_, heap_, config,
                                                 [this](void*) { return next_prefetch_block(); });
  run_io_blocks_ = run_waits_ = 0;
  if (rescan_distance_ > 0) stream_->restart(std::exchange(rescan_distance_, 0));
}

bool IndexScanNode::stream_wanted() const {
  if (stream_active_ || !params_.prefetch) return false;
  return params_.prefetch_start_switches == 0 ||
         policy_->should_start(
             {.block_switches = block_switches_, .heap_reads = heap_reads_, .rescans = rescans_});
}

void IndexScanNode::switch_to(BlockNumber block) {
  // index_prefetch = immediate (or a policy that starts at once): the stream starts
  // before the first heap read.
  if (stream_wanted()) start_stream(/*include_current=*/true);
  current_page_ = bufmgr::ReadGuard();
  bufmgr::PinGuard pin;
  if (stream_active_) {
    pin = stream_->next_buffer();
    while (!pin && stream_->paused()) {
      stream_->resume();
      pin = stream_->next_buffer();
    }
    TP_ASSERT(pin && pin.block() == block);
  } else {
    const uint64_t reads_before = bufmgr::thread_buffer_usage().shared_read;
    pin = pool_.read_buffer(heap_, block);
    if (bufmgr::thread_buffer_usage().shared_read != reads_before) ++heap_reads_;
    if (IoTrace* trace = current_io_trace()) trace_unstreamed(*trace);
  }
  current_page_ = std::move(pin).lock_shared();
  current_block_ = block;
  ++block_switches_;
  if (stream_wanted()) start_stream();
}

// Without a stream each heap page is read when the scan reaches it: a look-ahead
// distance of 1, drawn on the same trace track a stream would use (sampled: one in 64).
void IndexScanNode::trace_unstreamed(IoTrace& trace) const {
  if (block_switches_ % 64 != 0) return;
  trace.counter(TraceCounter::kStreamDistance, 1, "index heap");
  trace.counter(TraceCounter::kStreamPinned, 1, "index heap");
  const bufmgr::BufferUsage& used = bufmgr::thread_buffer_usage();
  trace.counter(TraceCounter::kBufferHits, int64_t(used.shared_hit));
  trace.counter(TraceCounter::kBufferReads, int64_t(used.shared_read));
}

const char* IndexScanNode::formed_tuple(const btree::IndexBatch& batch, size_t item,
                                        uint32_t& len) {
  const size_t natts = params_.null_format->natts();
  if (!formed_nulls_) {
    formed_values_.assign(natts, 0);
    formed_nulls_ = std::make_unique<bool[]>(natts);
    std::fill(formed_nulls_.get(), formed_nulls_.get() + natts, true);
  }
  for (size_t k = 0; k < params_.key_columns.size(); ++k) {
    const auto c = size_t(params_.key_columns[k]);
    formed_nulls_[c] = batch.is_null(item, int(k));
    formed_values_[c] = batch.datum(item, int(k));
  }
  len = params_.null_format->tuple_size(formed_values_.data(), formed_nulls_.get());
  if (formed_tuple_.size() < len) formed_tuple_.resize(len);
  std::memset(formed_tuple_.data(), 0, len);
  params_.null_format->form(formed_values_.data(), formed_nulls_.get(), Tid{0, 0},
                            formed_tuple_.data(), len);
  return formed_tuple_.data();
}

const char* IndexScanNode::tuple_from_index(const btree::IndexBatch& batch, size_t item,
                                            uint32_t& len) {
  if (params_.key_slots.empty() || batch.nulls[item] != 0) return formed_tuple(batch, item, len);
  len = params_.tuple_size;
  if (index_tuple_.size() < params_.tuple_size) {
    // A real heap tuple's header, so a qual that deforms the row (a typed expression)
    // reads it as one: the columns up to the last key, none NULL.
    index_tuple_.assign(params_.tuple_size, 0);
    write_heap_tuple_header(index_tuple_.data(), Tid{0, 0}, params_.tuple_natts, 0,
                            uint8_t(kHeapTupleDataOffset));
  }
  const int64_t* keys = batch.keys.data() + item * size_t(batch.ncols);
  for (size_t k = 0; k < params_.key_slots.size(); ++k) {
    const OutputColumn& slot = params_.key_slots[k];
    const int64_t v = keys[k];  // integer keys (planner_uses_index): the values themselves
    if (slot.len == 8) {
      std::memcpy(index_tuple_.data() + slot.offset, &v, 8);
    } else {
      const int32_t v4 = int32_t(v);
      std::memcpy(index_tuple_.data() + slot.offset, &v4, 4);
    }
  }
  return index_tuple_.data();
}

const RowBatch* IndexScanNode::do_next() {
  const bool has_filter = !params_.filter.empty();
  batch_.clear_rows();
  const uint32_t cap =
      row_at_a_time ? 1u : uint32_t(std::min<uint64_t>(kIndexBatchRows, row_limit_hint));
  rows_wanted_ = row_limit_hint;
  while (batch_.count < cap) {
    if (ring_.empty() || item_ >= ring_.front().size()) {
      if (!ring_.empty()) {
        retire_front_batch();
        continue;
      }
      if (!load_batch()) break;
      continue;
    }
    Tid tid = ring_.front().tids[item_];
    const char* tuple;
    uint32_t tuple_len = params_.tuple_size;
    if (params_.all_visible && ring_.front().heap_skip[item_] != 0) {
      ++consumed_items_;
      tuple = tuple_from_index(ring_.front(), item_++, tuple_len);
    } else {
      if (tid.block != current_block_) switch_to(tid.block);
      ++item_;
      ++consumed_items_;
      ++instr.heap_fetches;
      const char* page = current_page_.page();
      if (tid.offset > page_max_offset(page))
        throw Error("index \"" + params_.index.name + "\" points past the end of block " +
                    std::to_string(tid.block) + " of relation \"" + params_.relation + "\"")
            .with_sqlstate(sqlstate::kIndexCorrupted);
      const ItemId* id = page_item_id(page, tid.offset);
      if (id->state != uint32_t(ItemState::kNormal)) continue;
      tuple = page + id->off;
      tuple_len = id->len;
    }
    if (has_filter && !params_.output.passes(params_.filter, tuple, tuple_len, scratch_)) {
      ++instr.rows_filtered;
      continue;
    }
    batch_.room_for_next_row(cap);
    params_.output.read(tuple, tuple_len, batch_, scratch_);
    ++emitted_rows_;
  }
  if (batch_.count == 0) {
    // The stream stays for a rescan: it has returned every block it read.
    current_page_ = bufmgr::ReadGuard();
    finished_ = true;
    return nullptr;
  }
  return &batch_;
}

void IndexScanNode::probe_heap_blocks(std::vector<BlockNumber>& out, size_t max_blocks) {
  TP_ASSERT(probe_supported());
  // Reading leaves takes their locks: no read of this thread may wait staged meanwhile.
  pool_.io().submit_staged();
  set_runtime_keys(probe_sets_, params_.condition_sets, params_.runtime_keys, *params_.params,
                   params_.direction == btree::ScanDirection::kBackward);
  BlockNumber last = kInvalidBlock;
  size_t added = 0;
  for (const std::vector<btree::ColumnCondition>& set : probe_sets_) {
    if (!probe_scan_)
      probe_scan_ = std::make_unique<btree::IndexScan>(*params_.index.tree, set, params_.direction,
                                                       /*leaf_readahead=*/false);
    else
      probe_scan_->rescan(set);
    while (probe_scan_->next_batch(probe_batch_)) {
      for (const Tid& tid : probe_batch_.tids) {
        if (tid.block == last) continue;
        last = tid.block;
        if (params_.all_visible && params_.all_visible(tid.block)) continue;
        out.push_back(tid.block);
        if (++added >= max_blocks) return;
      }
    }
  }
}

const bufmgr::ReadStreamStats* IndexScanNode::stream_stats() const {
  return stream_ ? &stream_->stats() : nullptr;
}

void IndexScanNode::explain_details(std::vector<std::string>& lines, bool analyze) const {
  if (!params_.index_cond_text.empty()) lines.push_back("Index Cond: " + params_.index_cond_text);
  if (!params_.filter_text.empty()) {
    lines.push_back("Filter: " + params_.filter_text);
    if (analyze && instr.rows_filtered > 0)
      lines.push_back(rows_removed_line("Filter", instr.rows_filtered, instr.loops));
  }
  if (analyze) {
    btree::LeafReadaheadStats ra = readahead_;
    if (scan_) ra += scan_->leaf_readahead_stats();
    if (ra.streams > 0) lines.push_back(leaf_readahead_line(ra));
  }
  if (analyze && params_.index_only) {
    char buf[64];
    // A total over the loops, as PostgreSQL prints ntuples2 (not per loop like rows).
    std::snprintf(buf, sizeof buf, "Heap Fetches: %.0f", double(instr.heap_fetches));
    lines.push_back(buf);
  }
}

btree::ColumnCondition runtime_condition(const IndexScanParams::RuntimeKey& k,
                                         const ExecParams& params) {
  const auto v = int64_t(params.value(k.param));
  using C = btree::ColumnCondition;
  return k.op == CmpOp::kLt   ? C::lt(k.column, v)
         : k.op == CmpOp::kLe ? C::le(k.column, v)
         : k.op == CmpOp::kGt ? C::gt(k.column, v)
         : k.op == CmpOp::kGe ? C::ge(k.column, v)
                              : C::eq(k.column, v);
}

ConditionSets with_runtime_keys(const ConditionSets& sets,
                                const std::vector<IndexScanParams::RuntimeKey>& keys,
                                const ExecParams& params, bool backward) {
  ConditionSets out;
  set_runtime_keys(out, sets, keys, params, backward);
  return out;
}

namespace {

// An array key's sets: each of `sets` once per distinct non-NULL value (none without one).
ConditionSets with_array_key(const ConditionSets& sets, const IndexScanParams::RuntimeKey& k,
                             const ExecParams& params, bool backward) {
  std::vector<Datum> values = k.constants;
  for (size_t p : k.array)
    if (!params.is_null(p)) values.push_back(params.value(p));
  auto less = [&](Datum a, Datum b) { return compare_datums(k.type, a, b) < 0; };
  std::sort(values.begin(), values.end(), less);
  values.erase(std::unique(values.begin(), values.end(),
                           [&](Datum a, Datum b) { return compare_datums(k.type, a, b) == 0; }),
               values.end());
  if (backward) std::reverse(values.begin(), values.end());
  ConditionSets out;
  out.reserve(sets.size() * values.size());
  for (const auto& set : sets)
    for (Datum v : values) {
      out.push_back(set);
      out.back().push_back(btree::ColumnCondition::eq(k.column, v));
    }
  return out;
}

}  // namespace

void set_runtime_keys(ConditionSets& out, const ConditionSets& sets,
                      const std::vector<IndexScanParams::RuntimeKey>& keys,
                      const ExecParams& params, bool backward) {
  for (const IndexScanParams::RuntimeKey& k : keys)
    if (k.array.empty() && params.is_null(k.param)) {  // `key op NULL` never holds
      out.clear();
      return;
    }
  // Assigned element by element, so a rescan reuses the vectors of the one before.
  out.resize(sets.size());
  for (size_t i = 0; i < sets.size(); ++i) out[i].assign(sets[i].begin(), sets[i].end());
  for (const IndexScanParams::RuntimeKey& k : keys) {
    if (!k.array.empty()) {
      out = with_array_key(out, k, params, backward);
      continue;
    }
    const btree::ColumnCondition c = runtime_condition(k, params);
    for (auto& set : out) set.push_back(c);
  }
}

namespace {

void set_bound(std::optional<btree::Bound>& b, bool present, Datum v, bool inclusive) {
  if (!present) {
    b.reset();
    return;
  }
  if (!b) b.emplace();
  b->value = v;
  b->inclusive = inclusive;
  b->null = false;
}

}  // namespace

void IndexScanNode::refresh_runtime_sets() {
  const std::vector<IndexScanParams::RuntimeKey>& keys = params_.runtime_keys;
  const ExecParams& params = *params_.params;
  // A NULL value leaves no set, and an array key's values decide how many there are: the
  // sets are made again.
  bool remake = false;
  for (const IndexScanParams::RuntimeKey& k : keys)
    remake = remake || !k.array.empty() || params.is_null(k.param);
  if (!runtime_sets_ready_ || remake) {
    set_runtime_keys(runtime_sets_, params_.condition_sets, keys, params,
                     params_.direction == btree::ScanDirection::kBackward);
    runtime_sets_ready_ = !remake;
    return;
  }
  // The sets' own conditions are the same at every rescan: only the runtime keys' (the
  // last of each set, as set_runtime_keys appended them) take the new values.
  for (size_t i = 0; i < runtime_sets_.size(); ++i) {
    std::vector<btree::ColumnCondition>& set = runtime_sets_[i];
    const size_t base = params_.condition_sets[i].size();
    for (size_t j = 0; j < keys.size(); ++j) {
      // Field by field: a whole condition copied through a temporary stalls on store
      // forwarding (its optionals' flags are single bytes read back as words).
      const IndexScanParams::RuntimeKey& k = keys[j];
      btree::ColumnCondition& c = set[base + j];
      const Datum v = params.value(k.param);
      const bool has_lower = k.op != CmpOp::kLt && k.op != CmpOp::kLe;
      const bool has_upper = k.op != CmpOp::kGt && k.op != CmpOp::kGe;
      const bool inclusive = k.op != CmpOp::kLt && k.op != CmpOp::kGt;
      set_bound(c.lower, has_lower, v, inclusive);
      set_bound(c.upper, has_upper, v, inclusive);
    }
  }
}

}  // namespace tp::scans
