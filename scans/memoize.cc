#include "scans/memoize.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include "engine/core/datum_ops.h"
#include "engine/core/error.h"

namespace tp::scans {

namespace {

constexpr uint32_t kOutputBatchRows = 1024;

// The bytes of one entry's by-reference values, in chunks that never move (the stored
// Datums point into them). Chunks start small and double with what the entry holds:
// a cache is many entries of a few short rows each, and a batch's 32 kB arena chunk
// per entry would fill work_mem with empty room. held() counts the chunks as this
// policy sizes them; clear() keeps a small first chunk for the next entry of the slot
// (an entry of a busy cache is evicted to make room for one much like it), so a cache
// that evicts on every miss does not allocate on every miss.
class EntryBytes {
 public:
  Datum copy(const char* p, size_t n) {
    const size_t need = (n + 7) & ~size_t(7);
    if (room_ - used_ < need) add_chunk(need);
    char* dst = last_ + used_;
    used_ += need;
    std::memcpy(dst, p, n);
    return pointer_datum(dst);
  }
  uint64_t held() const { return held_; }
  void clear() {
    more_.clear();
    if (first_size_ > kKeptChunk) {
      first_.reset();
      first_size_ = 0;
    }
    last_ = nullptr;
    room_ = used_ = 0;
    held_ = 0;
  }

 private:
  static constexpr size_t kFirstChunk = 128;
  static constexpr size_t kMaxChunk = 16 * 1024;
  static constexpr size_t kKeptChunk = 1024;

  void add_chunk(size_t need) {
    const size_t size = std::max(need, std::clamp<size_t>(held_, kFirstChunk, kMaxChunk));
    if (held_ == 0) {
      if (first_size_ < size) {
        first_ = std::make_unique_for_overwrite<char[]>(size);
        first_size_ = size;
      }
      last_ = first_.get();
    } else {
      more_.push_back(std::make_unique_for_overwrite<char[]>(size));
      last_ = more_.back().get();
    }
    room_ = size;
    used_ = 0;
    held_ += size;
  }

  std::unique_ptr<char[]> first_;
  size_t first_size_ = 0;  // its real size (at least what held() counts for it)
  std::vector<std::unique_ptr<char[]>> more_;
  char* last_ = nullptr;
  size_t room_ = 0;
  size_t used_ = 0;
  uint64_t held_ = 0;
};

// Empties a vector, keeping its storage when small (the slot's next entry reuses it).
template <typename T>
void clear_keeping_small(std::vector<T>& v) {
  constexpr size_t kKeptBytes = 1024;
  if (v.capacity() * sizeof(T) > kKeptBytes)
    std::vector<T>().swap(v);
  else
    v.clear();
}

// Binary mode's hash and equality: the value's image (a varlena's payload, whichever
// header form it has, as PostgreSQL's datum_image_eq compares).
uint64_t image_hash(int16_t typlen, Datum d) {
  if (typlen == 0) return hash_datum(TypeId::kInt8, d);
  // text's hash is a hash of the payload's bytes, whatever the varlena holds.
  if (typlen < 0) return hash_datum(TypeId::kText, d);
  uint64_t h = 0;
  const char* p = datum_pointer(d);
  for (int16_t at = 0; at < typlen; at += 8) {
    uint64_t w = 0;
    std::memcpy(&w, p + at, std::min<size_t>(8, size_t(typlen - at)));
    h = hash_datum(TypeId::kInt8, Datum(h ^ w));
  }
  return h;
}

bool image_equal(int16_t typlen, Datum a, Datum b) {
  if (typlen == 0) return a == b;
  if (typlen < 0) return varlena_payload(datum_pointer(a)) == varlena_payload(datum_pointer(b));
  return std::memcmp(datum_pointer(a), datum_pointer(b), size_t(typlen)) == 0;
}

}  // namespace

// What a lookup and an eviction touch, dense: the hash chains and the LRU list.
struct MemoizeNode::Slot {
  uint64_t hash = 0;
  uint32_t chain = kNone;       // the next entry of its bucket
  uint32_t chain_prev = kNone;  // the previous one (kNone: the bucket's head)
  uint32_t lru_prev = kNone;
  uint32_t lru_next = kNone;
};

// The rest of an entry (its key values are in keys_ and key_nulls_).
struct MemoizeNode::Entry {
  bool complete = false;  // the scan for this key ran to its end (or, singlerow, one row)
  uint32_t rows = 0;
  uint64_t bytes = 0;                 // what mem_used_ counts for it
  std::unique_ptr<char[]> key_bytes;  // the by-reference key values (the key points in)
  size_t key_bytes_size = 0;
  std::vector<Datum> values;   // rows x width_; by-reference slots point into ref_bytes
  std::vector<uint8_t> nulls;  // rows x width_ once a stored row had a NULL, else empty
  EntryBytes ref_bytes;
};

// What an entry costs besides its key and rows: the figure the cache has always charged
// (its entry record and bucket slot when each entry held its own key vectors), which
// sets EXPLAIN's Evictions and Memory Usage to PostgreSQL's. A constant, so that a
// change of the entries' layout leaves those figures as they are.
constexpr uint64_t kEntryOverhead = 212;

uint64_t MemoizeNode::entry_overhead() {
  return kEntryOverhead;
}

uint64_t MemoizeNode::entry_bytes(const Entry& e) const {
  const uint64_t nkeys = key_params_.size();
  return kEntryOverhead + nkeys * sizeof(Datum) + nkeys + e.key_bytes_size +
         e.values.size() * sizeof(Datum) + e.nulls.size() + e.ref_bytes.held();
}

MemoizeNode::MemoizeNode(std::unique_ptr<ExecNode> child, const ExecParams* params,
                         std::vector<size_t> key_params, std::string key_text, bool binary_mode,
                         bool singlerow, uint32_t est_entries, uint64_t max_bytes,
                         std::vector<const ExecParams*> upper_params)
    : child_(std::move(child)),
      params_(params),
      key_params_(std::move(key_params)),
      key_text_(std::move(key_text)),
      binary_mode_(binary_mode),
      singlerow_(singlerow),
      est_entries_(est_entries),
      max_bytes_(max_bytes),
      upper_params_(std::move(upper_params)) {
  if (key_params_.empty())
    throw Error("Memoize without a cache key", "A Memoize node needs at least one key parameter.")
        .with_sqlstate(sqlstate::kInternalError);
  for (size_t p : key_params_) {
    const TypeInfo& info = type_info(params_->type(p));
    key_typlen_.push_back(info.byval ? 0 : info.len);
  }
  for (const ExecParams* p : upper_params_) upper_generations_.push_back(p->generation());
  probe_.resize(key_params_.size());
  probe_nulls_.resize(key_params_.size());
}

MemoizeNode::~MemoizeNode() = default;

void MemoizeNode::do_open() {
  // A new run: nothing cached survives it, and the child is opened afresh at the first
  // miss (as a Nested Loop opens its inner side), not rescanned.
  purge_all();
  child_started_ = false;
  lookup();
}

void MemoizeNode::do_rescan() {
  lookup();
}

void MemoizeNode::read_probe() {
  for (size_t k = 0; k < key_params_.size(); ++k) {
    const size_t p = key_params_[k];
    probe_nulls_[k] = params_->is_null(p) ? 1 : 0;
    probe_[k] = probe_nulls_[k] ? 0 : params_->value(p);
  }
}

uint64_t MemoizeNode::probe_hash() const {
  uint64_t h = 0x9e3779b97f4a7c15ull;
  for (size_t k = 0; k < probe_.size(); ++k) {
    uint64_t v;
    if (probe_nulls_[k])
      v = 0x5bd1e995u;
    else if (binary_mode_)
      v = image_hash(key_typlen_[k], probe_[k]);
    else
      v = hash_datum(params_->type(key_params_[k]), probe_[k]);
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
  }
  return h ^ (h >> 33);
}

bool MemoizeNode::probe_equals(uint32_t i) const {
  const size_t nkeys = probe_.size();
  const Datum* key = keys_.data() + size_t(i) * nkeys;
  const uint8_t* key_nulls = key_nulls_.data() + size_t(i) * nkeys;
  for (size_t k = 0; k < nkeys; ++k) {
    if (probe_nulls_[k] != key_nulls[k]) return false;
    if (probe_nulls_[k]) continue;  // NULL = NULL for the cache
    const bool eq = binary_mode_ ? image_equal(key_typlen_[k], probe_[k], key[k])
                                 : datums_equal(params_->type(key_params_[k]), probe_[k], key[k]);
    if (!eq) return false;
  }
  return true;
}

uint32_t MemoizeNode::find_entry(uint64_t hash) const {
  for (uint32_t i = buckets_[hash & (buckets_.size() - 1)]; i != kNone; i = slots_[i].chain)
    if (slots_[i].hash == hash && probe_equals(i)) return i;
  return kNone;
}

void MemoizeNode::lookup() {
  // A parameter of an enclosing loop that the child reads may change its rows for
  // every key: nothing cached holds then.
  bool upper_changed = false;
  for (size_t i = 0; i < upper_params_.size(); ++i) {
    const uint64_t g = upper_params_[i]->generation();
    upper_changed = upper_changed || g != upper_generations_[i];
    upper_generations_[i] = g;
  }
  if (upper_changed) purge_all();
  state_ = State::kEnd;
  current_ = kNone;
  read_at_ = 0;
  extra_row_ = false;
  if (buckets_.empty()) {
    // The planner's estimate, but never more buckets than entries could fit in
    // max_bytes (PostgreSQL builds the table at the first lookup too).
    const uint64_t fit = std::max<uint64_t>(max_bytes_ / entry_overhead(), 16);
    const uint64_t want = est_entries_ != 0 ? est_entries_ : 1024;
    const size_t expected = size_t(std::min(want, fit));
    buckets_.assign(std::bit_ceil(expected), kNone);
    // Room for the entries expected, reserved but not touched: growing by doubling
    // copies them and faults their pages in twice.
    entries_.reserve(expected);
    slots_.reserve(expected);
    keys_.reserve(expected * probe_.size());
    key_nulls_.reserve(expected * probe_.size());
  }
  read_probe();
  const uint64_t hash = probe_hash();
  uint32_t i = find_entry(hash);
  if (i != kNone) {
    lru_unlink(i);
    lru_push_tail(i);
    if (entries_[i].complete) {
      ++hits_;
      current_ = i;
      state_ = State::kHit;
      return;
    }
    // A scan cut short: its rows are a prefix of an order the next scan need not repeat.
    purge_rows(entries_[i]);
    account(i);
  } else {
    i = new_entry(hash);
    if (!account(i)) i = kNone;
  }
  ++misses_;
  current_ = i;
  state_ = State::kFilling;
  publish_memory();
  open_or_rescan(*child_, child_started_);
}

uint32_t MemoizeNode::new_entry(uint64_t hash) {
  const size_t nkeys = probe_.size();
  uint32_t i;
  if (!free_.empty()) {
    i = free_.back();
    free_.pop_back();
  } else {
    i = uint32_t(entries_.size());
    entries_.emplace_back();
    slots_.emplace_back();
    keys_.resize(keys_.size() + nkeys);
    key_nulls_.resize(key_nulls_.size() + nkeys);
  }
  Entry& e = entries_[i];
  Datum* key = keys_.data() + size_t(i) * nkeys;
  std::copy_n(probe_.data(), nkeys, key);
  std::copy_n(probe_nulls_.data(), nkeys, key_nulls_.data() + size_t(i) * nkeys);
  // The parameters' bytes change at the next outer row: the key keeps its own.
  for (size_t k = 0; k < nkeys; ++k)
    if (key_typlen_[k] != 0 && !probe_nulls_[k])
      e.key_bytes_size += (datum_ref_size(key_typlen_[k], probe_[k]) + 7) & ~size_t(7);
  if (e.key_bytes_size > 0) {
    e.key_bytes = std::make_unique_for_overwrite<char[]>(e.key_bytes_size);
    size_t at = 0;
    for (size_t k = 0; k < nkeys; ++k) {
      if (key_typlen_[k] == 0 || probe_nulls_[k]) continue;
      const uint32_t n = datum_ref_size(key_typlen_[k], probe_[k]);
      std::memcpy(e.key_bytes.get() + at, datum_pointer(probe_[k]), n);
      key[k] = pointer_datum(e.key_bytes.get() + at);
      at += (n + 7) & ~size_t(7);
    }
  }
  slots_[i].hash = hash;
  chain_push(i);
  lru_push_tail(i);
  ++live_;
  if (live_ > buckets_.size()) grow_buckets();
  return i;
}

void MemoizeNode::chain_push(uint32_t i) {
  Slot& s = slots_[i];
  uint32_t& head = buckets_[s.hash & (buckets_.size() - 1)];
  s.chain = head;
  s.chain_prev = kNone;
  if (head != kNone) slots_[head].chain_prev = i;
  head = i;
}

void MemoizeNode::grow_buckets() {
  buckets_.assign(buckets_.size() * 2, kNone);
  for (uint32_t i = lru_head_; i != kNone; i = slots_[i].lru_next) chain_push(i);
}

void MemoizeNode::lru_unlink(uint32_t i) {
  Slot& s = slots_[i];
  (s.lru_prev == kNone ? lru_head_ : slots_[s.lru_prev].lru_next) = s.lru_next;
  (s.lru_next == kNone ? lru_tail_ : slots_[s.lru_next].lru_prev) = s.lru_prev;
  s.lru_prev = s.lru_next = kNone;
}

void MemoizeNode::lru_push_tail(uint32_t i) {
  Slot& s = slots_[i];
  s.lru_prev = lru_tail_;
  s.lru_next = kNone;
  (lru_tail_ == kNone ? lru_head_ : slots_[lru_tail_].lru_next) = i;
  lru_tail_ = i;
}

void MemoizeNode::remove_entry(uint32_t i) {
  lru_unlink(i);
  Slot& s = slots_[i];
  (s.chain_prev == kNone ? buckets_[s.hash & (buckets_.size() - 1)] : slots_[s.chain_prev].chain) =
      s.chain;
  if (s.chain != kNone) slots_[s.chain].chain_prev = s.chain_prev;
  s.chain = s.chain_prev = kNone;
  Entry& e = entries_[i];
  mem_used_ -= e.bytes;
  e.bytes = 0;
  e.key_bytes.reset();
  e.key_bytes_size = 0;
  purge_rows(e);
  free_.push_back(i);
  --live_;
}

void MemoizeNode::purge_rows(Entry& e) {
  // The storage stays with the slot when small: the next entry there reuses it.
  clear_keeping_small(e.values);
  clear_keeping_small(e.nulls);
  e.ref_bytes.clear();
  e.rows = 0;
  e.complete = false;
}

void MemoizeNode::purge_all() {
  evictions_ += live_;  // PostgreSQL's cache_purge_all counts them as evictions too
  std::vector<Entry>().swap(entries_);
  std::vector<Slot>().swap(slots_);
  std::vector<Datum>().swap(keys_);
  std::vector<uint8_t>().swap(key_nulls_);
  std::vector<uint32_t>().swap(free_);
  std::fill(buckets_.begin(), buckets_.end(), kNone);
  live_ = 0;
  lru_head_ = lru_tail_ = kNone;
  mem_used_ = 0;
  current_ = kNone;
  state_ = State::kEnd;
  publish_memory();
}

bool MemoizeNode::account(uint32_t i) {
  Entry& e = entries_[i];
  const uint64_t now = entry_bytes(e);
  mem_used_ = mem_used_ - e.bytes + now;
  e.bytes = now;
  mem_peak_ = std::max(mem_peak_, mem_used_);
  // Entry i is the most recently used (a lookup moved it to the tail), so it goes only
  // once every other entry has gone: PostgreSQL's cache_reduce_memory.
  bool kept = true;
  while (mem_used_ > max_bytes_ && lru_head_ != kNone) {
    kept = kept && lru_head_ != i;
    remove_entry(lru_head_);
    ++evictions_;
    cancel_.tick();
  }
  return kept;
}

bool MemoizeNode::store(const RowBatch& b, uint32_t first, uint32_t n) {
  Entry& e = entries_[current_];
  const size_t w = width_;
  e.values.insert(e.values.end(), b.row(first), b.row(first) + size_t(n) * w);
  if (b.has_nulls || !e.nulls.empty()) {
    if (e.nulls.empty()) e.nulls.assign(size_t(e.rows) * w, 0);
    if (b.has_nulls) {
      const uint8_t* from = b.nulls.data() + size_t(first) * w;
      e.nulls.insert(e.nulls.end(), from, from + size_t(n) * w);
    } else {
      e.nulls.resize(e.nulls.size() + size_t(n) * w, 0);
    }
  }
  // The child's bytes are overwritten by its next batch: the entry keeps its own.
  if (shape_ && !shape_->by_ref.empty())
    for (uint32_t r = 0; r < n; ++r) {
      const size_t at = (size_t(e.rows) + r) * w;
      Datum* v = e.values.data() + at;
      const uint8_t* isnull = e.nulls.empty() ? nullptr : e.nulls.data() + at;
      for (const RowShape::ByRef& ref : shape_->by_ref) {
        if (isnull && isnull[ref.slot]) continue;
        v[ref.slot] =
            e.ref_bytes.copy(datum_pointer(v[ref.slot]), datum_ref_size(ref.typlen, v[ref.slot]));
      }
    }
  e.rows += n;
  const bool kept = account(current_);
  if (!kept) current_ = kNone;
  publish_memory();
  return kept;
}

const RowBatch* MemoizeNode::next_filling() {
  if (extra_row_)
    throw Error("Memoize cache entry already complete",
                "The scan below a single-row Memoize returned a second row for one key.")
        .with_sqlstate(sqlstate::kInternalError);
  // One row completes a singlerow entry: a child that honours the hint reads no further.
  child_->row_limit_hint = singlerow_ ? 1 : row_limit_hint;
  const RowBatch* b = child_->next();
  if (b == nullptr) {
    if (current_ != kNone) {
      Entry& e = entries_[current_];
      e.complete = true;
      // Growth's spare room would stay with the entry for as long as it is cached.
      if (e.values.capacity() > e.values.size() + e.values.size() / 4) e.values.shrink_to_fit();
      if (e.nulls.capacity() > e.nulls.size() + e.nulls.size() / 4) e.nulls.shrink_to_fit();
    }
    state_ = State::kEnd;
    return nullptr;
  }
  if (width_ == 0) {
    shape_ = b->shape;
    width_ = b->width;
  }
  if (current_ != kNone && entries_[current_].complete)
    throw Error("Memoize cache entry already complete",
                "The scan below a single-row Memoize returned a second row for one key.")
        .with_sqlstate(sqlstate::kInternalError);
  const uint32_t n = singlerow_ ? 1 : b->count;
  if (current_ == kNone || !store(*b, 0, n)) {
    ++overflows_;
    state_ = State::kBypass;
    return b;
  }
  if (!singlerow_) return b;
  entries_[current_].complete = true;
  if (b->count == 1) return b;
  // The parent may stop after the first row (it is promised no second): return it alone.
  extra_row_ = true;
  batch_.shape = b->shape;
  batch_.reset(b->width, 1);
  batch_.append(*b, 0);
  return &batch_;
}

const RowBatch* MemoizeNode::next_cached() {
  const Entry& e = entries_[current_];
  if (read_at_ >= e.rows) {
    state_ = State::kEnd;
    return nullptr;
  }
  // The stored Datums point into the entry, which stays until the next lookup at least:
  // the batch copies slots, not bytes.
  const uint32_t n = uint32_t(std::min<uint64_t>(
      {kOutputBatchRows, e.rows - read_at_, std::max<uint64_t>(row_limit_hint, 1)}));
  const size_t at = size_t(read_at_) * width_;
  batch_.shape = shape_;
  batch_.reset(width_, n);
  std::copy_n(e.values.data() + at, size_t(n) * width_, batch_.row(0));
  if (!e.nulls.empty()) std::copy_n(e.nulls.data() + at, size_t(n) * width_, batch_.null_flags(0));
  batch_.count = n;
  read_at_ += n;
  return &batch_;
}

const RowBatch* MemoizeNode::do_next() {
  switch (state_) {
    case State::kHit:
      return next_cached();
    case State::kFilling:
      return next_filling();
    case State::kBypass: {
      child_->row_limit_hint = row_limit_hint;
      const RowBatch* b = child_->next();
      if (b == nullptr) state_ = State::kEnd;
      return b;
    }
    case State::kEnd:
      break;
  }
  return nullptr;
}

void MemoizeNode::publish_memory() {
  // The session's gauge costs two atomic adds: it follows the cache in steps, not per
  // miss (a cache at its limit moves by an entry's bytes at each one); empty is exact.
  constexpr uint64_t kStep = 64 * 1024;
  const uint64_t now = mem_used_ + buckets_.size() * sizeof(uint32_t);
  const uint64_t shown = memory_.held();
  if (mem_used_ == 0 || now > shown + kStep || shown > now + kStep) memory_.set(now);
}

void MemoizeNode::explain_details(std::vector<std::string>& lines, bool analyze) const {
  lines.push_back("Cache Key: " + key_text_);
  lines.push_back(std::string("Cache Mode: ") + (binary_mode_ ? "binary" : "logical"));
  // PostgreSQL prints the counts only once there was a lookup (the first one misses).
  if (!analyze || misses_ == 0) return;
  lines.push_back("Hits: " + std::to_string(hits_) + "  Misses: " + std::to_string(misses_) +
                  "  Evictions: " + std::to_string(evictions_) +
                  "  Overflows: " + std::to_string(overflows_) +
                  "  Memory Usage: " + std::to_string((mem_peak_ + 1023) / 1024) + "kB");
}

}  // namespace tp::scans
