#include "engine/btree/btree_build.h"

#include <algorithm>
#include <deque>
#include <optional>

#include "engine/core/datum_ops.h"
#include "engine/core/huge_page_allocator.h"
#include "engine/core/string_types.h"
#include "engine/core/value_arena.h"

namespace tp::btree {

const char* build_phase_name(BuildProgress::Phase phase) {
  switch (phase) {
    case BuildProgress::Phase::kSorting:
      return "sorting";
    case BuildProgress::Phase::kLoading:
      return "loading tuples";
    case BuildProgress::Phase::kDone:
      return "done";
  }
  return "?";
}

const char* builder_state_name(BuilderState state) {
  switch (state) {
    case BuilderState::kCollecting:
      return "collecting";
    case BuilderState::kWriting:
      return "writing";
    case BuilderState::kFinished:
      return "finished";
    case BuilderState::kFailed:
      return "failed";
  }
  return "?";
}

// Entries to sort, stored as fixed-size records for the index's column count
// so sorting moves 16..72-byte records, never pointers.
class SortBuffer {
 public:
  virtual ~SortBuffer() = default;
  virtual void reserve(size_t n) = 0;
  virtual void add(const KeyValues& key, Tid tid) = 0;
  // Sorts the entries. `interrupt` runs every kInterruptInterval comparisons; if
  // it throws, the entries are left in some order (all still present).
  virtual void sort(const std::function<void()>& interrupt) = 0;
  virtual size_t size() const = 0;
  virtual void get(size_t i, KeyValues& key, Tid& tid) const = 0;
};

namespace {

// Sorts trivially copyable records, calling `interrupt` every kInterruptInterval
// comparisons. A throw from inside std::sort leaves a permutation of them: nothing is
// lost or half-moved.
template <typename Records, typename Less>
void sort_records(Records& records, const std::function<void()>& interrupt, Less less) {
  if (!interrupt) {
    std::sort(records.begin(), records.end(), less);
    return;
  }
  uint64_t compared = 0;
  std::sort(records.begin(), records.end(), [&](const auto& a, const auto& b) {
    if (++compared % kInterruptInterval == 0) interrupt();
    return less(a, b);
  });
}

// Integer keys without NULLs: records of raw values, compared as integers.
template <int N>
class SortBufferN final : public SortBuffer {
  struct Record {
    int64_t key[N];
    uint64_t tid;  // block << 16 | offset: orders like Tid
  };

 public:
  void reserve(size_t n) override { records_.reserve(n); }
  void add(const KeyValues& key, Tid tid) override {
    Record r;
    for (int i = 0; i < N; ++i) r.key[i] = key[i];
    r.tid = (uint64_t(tid.block) << 16) | tid.offset;
    records_.push_back(r);
  }
  void sort(const std::function<void()>& interrupt) override {
    sort_records(records_, interrupt, [](const Record& a, const Record& b) {
      for (int i = 0; i < N; ++i)
        if (a.key[i] != b.key[i]) return a.key[i] < b.key[i];
      return a.tid < b.tid;
    });
  }
  size_t size() const override { return records_.size(); }
  void get(size_t i, KeyValues& key, Tid& tid) const override {
    const Record& r = records_[i];
    key.n = N;
    key.nulls = 0;
    for (int c = 0; c < N; ++c) key.v[size_t(c)] = r.key[c];
    tid = Tid{BlockNumber(r.tid >> 16), OffsetNumber(r.tid & 0xFFFF)};
  }

 private:
  std::vector<Record, HugePageAllocator<Record>> records_;
};

// An order-preserving 128-bit prefix of a key's first column, as PostgreSQL's
// abbreviated keys: keys whose abbreviations differ are ordered by them and equal keys
// have equal ones, so most comparisons of a sort touch neither the values nor their
// bytes. Integer kinds abbreviate exactly; strings to their first sixteen bytes (the C
// collation's order; char(n) without its trailing blanks), exact when that is all of
// them (text holds no zero byte); other types to 0, never exact (compared in full).
struct Abbreviation {
  uint64_t hi = 0, lo = 0;
  bool exact = false;
};

Abbreviation abbreviate(TypeId type, Datum d) {
  if (datum_is_integral(type)) return {uint64_t(d) ^ (uint64_t(1) << 63), 0, true};
  switch (type) {
    case TypeId::kText:
    case TypeId::kVarchar:
    case TypeId::kBpchar: {
      std::string_view v = varlena_payload(datum_pointer(d));
      if (type == TypeId::kBpchar) v = bpchar_to_text(v);
      auto word = [&v](size_t from) {
        uint64_t w = 0;
        for (size_t i = from; i < from + 8; ++i) w = (w << 8) | (i < v.size() ? uint8_t(v[i]) : 0);
        return w;
      };
      return {word(0), word(8), v.size() <= 16};
    }
    default:
      return {};
  }
}

// Keys of any type, NULLs included: 32-byte records (the first column's abbreviation,
// the TID, the row of the key's values) sorted; the values themselves stay in place,
// their by-reference bytes in the buffer's arena (the caller's point into a heap page
// it is about to unpin).
class TypedSortBuffer final : public SortBuffer {
  struct Record {
    uint64_t hi, lo;  // the first column's abbreviation (0 when NULL)
    uint64_t tid;     // block << 16 | offset: orders like Tid
    uint32_t row;     // the key's values: values_[row * ncols ...], nulls_[row]
    bool null0;       // the first column is NULL: NULLs sort last
    bool exact0;      // the abbreviation is the first column's whole value
  };

 public:
  explicit TypedSortBuffer(const TupleLayout& layout) : layout_(layout) {}
  void reserve(size_t n) override {
    records_.reserve(n);
    values_.reserve(n * size_t(layout_.ncols));
    nulls_.reserve(n);
  }
  void add(const KeyValues& key, Tid tid) override {
    if (records_.size() >= UINT32_MAX)
      throw Error("cannot sort more than " + std::to_string(UINT32_MAX) + " index entries");
    const auto row = uint32_t(records_.size());
    for (int i = 0; i < layout_.ncols; ++i) {
      const AttrFormat& a = layout_.attrs[size_t(i)];
      Datum d = key[i];
      if (!a.byval && !key.is_null(i)) d = arena_.copy(datum_pointer(d), datum_ref_size(a.len, d));
      values_.push_back(d);
    }
    nulls_.push_back(key.nulls);
    const bool null0 = key.is_null(0);
    const Abbreviation a =
        null0 ? Abbreviation{0, 0, true}
              : abbreviate(layout_.type_ids[0], values_[size_t(row) * size_t(layout_.ncols)]);
    records_.push_back(
        Record{a.hi, a.lo, (uint64_t(tid.block) << 16) | tid.offset, row, null0, a.exact});
  }
  void sort(const std::function<void()>& interrupt) override {
    sort_records(records_, interrupt, [this](const Record& a, const Record& b) {
      if (a.null0 != b.null0) return b.null0;
      if (a.hi != b.hi) return a.hi < b.hi;
      if (a.lo != b.lo) return a.lo < b.lo;
      for (int i = (a.exact0 && b.exact0) ? 1 : 0; i < layout_.ncols; ++i) {
        const int c = compare_column(i, a.row, b.row);
        if (c != 0) return c < 0;
      }
      return a.tid < b.tid;
    });
  }
  size_t size() const override { return records_.size(); }
  void get(size_t i, KeyValues& key, Tid& tid) const override {
    const Record& r = records_[i];
    key.n = layout_.ncols;
    key.nulls = nulls_[r.row];
    for (int c = 0; c < layout_.ncols; ++c)
      key.v[size_t(c)] = values_[size_t(r.row) * size_t(layout_.ncols) + size_t(c)];
    tid = Tid{BlockNumber(r.tid >> 16), OffsetNumber(r.tid & 0xFFFF)};
  }

 private:
  // Column `col` of two rows by the index's order: NULLs last and equal to each other.
  int compare_column(int col, uint32_t a, uint32_t b) const {
    const bool an = ((nulls_[a] >> col) & 1) != 0, bn = ((nulls_[b] >> col) & 1) != 0;
    if (an || bn) return an == bn ? 0 : (an ? 1 : -1);
    const size_t n = size_t(layout_.ncols);
    return layout_.compare_values(col, values_[a * n + size_t(col)], values_[b * n + size_t(col)]);
  }

  const TupleLayout& layout_;
  ValueArena arena_;
  std::vector<Record, HugePageAllocator<Record>> records_;
  std::vector<Datum, HugePageAllocator<Datum>> values_;
  std::vector<uint8_t> nulls_;
};

std::unique_ptr<SortBuffer> make_sort_buffer(const TupleLayout& layout, bool nulls) {
  if (!layout.integral || nulls) return std::make_unique<TypedSortBuffer>(layout);
  switch (layout.ncols) {
    case 1:
      return std::make_unique<SortBufferN<1>>();
    case 2:
      return std::make_unique<SortBufferN<2>>();
    case 3:
      return std::make_unique<SortBufferN<3>>();
    case 4:
      return std::make_unique<SortBufferN<4>>();
    case 5:
      return std::make_unique<SortBufferN<5>>();
    case 6:
      return std::make_unique<SortBufferN<6>>();
    case 7:
      return std::make_unique<SortBufferN<7>>();
    case 8:
      return std::make_unique<SortBufferN<8>>();
  }
  TP_ASSERT(false);
  return nullptr;
}

constexpr OffsetNumber kFirstKey = 2;  // first data item while the high key slot is reserved

// Writes one level after another, bottom-up, one open page per level.
class LevelWriter {
 public:
  LevelWriter(PageStore& store, const TupleLayout& layout) : store_(store), layout_(layout) {}

  // Adds a tuple to `level`, closing its page first if it is full. `trunc_extra`:
  // the bytes a posting list loses when it becomes a high key (its TID array).
  void add(uint32_t level, const char* tuple, uint16_t size, uint32_t trunc_extra = 0) {
    if (level == levels_.size()) open_level(level);
    Level& s = levels_[level];
    const bool leaf = level == 0;
    const uint32_t free = page_free_space(s.page.data());
    const uint32_t aligned = maxalign(size);
    const uint32_t close_below =
        kBlockSize * (100 - (leaf ? kLeafBuildFillfactor : kInternalBuildFillfactor)) / 100;
    // The soft limit counts the last item as the high key it would become, which
    // is smaller when it is a posting list (PostgreSQL's btps_lastextra).
    const uint32_t last_extra = s.last_extra;
    s.last_extra = trunc_extra;
    // A leaf keeps room to grow its high key by a heap TID when it is closed.
    if (free < aligned + (leaf ? 8 : 0) ||
        (free + last_extra < close_below && s.last_off > kFirstKey))
      close_page(level);
    Level& t = levels_[level];
    t.last_off = OffsetNumber(t.last_off + 1);
    char* page = t.page.data_for_write();
    OffsetNumber added;
    if (!leaf && t.last_off == kFirstKey) {
      alignas(8) char first[kMaxTupleSize];
      uint16_t first_size = copy_pivot(TupleView{tuple}, TupleView{tuple}.downlink(), true, first);
      added = page_add_item(page, first, first_size);
    } else {
      added = page_add_item(page, tuple, size);
    }
    TP_ASSERT(added == t.last_off);
  }

  // Closes the rightmost page of every level; returns (root block, root level).
  MetaInfo finish() {
    MetaInfo root;
    for (uint32_t level = 0; level < levels_.size(); ++level) {
      Level& s = levels_[level];
      char* page = s.page.data_for_write();
      if (level + 1 == levels_.size()) {
        bt_special(page)->flags |= kBtRoot;
        root = MetaInfo{s.page.block(), level};
      } else {
        alignas(8) char downlink[kMaxTupleSize];
        uint16_t size = downlink_for(s, downlink);
        add(level + 1, downlink, size);  // may add a level: the loop bound re-reads size()
      }
      // Rightmost page: drop the reserved high key slot.
      OffsetNumber max = page_max_offset(page);
      std::memmove(page_item_id(page, 1), page_item_id(page, 2), size_t(max - 1) * kItemIdSize);
      page_header(page)->lower = uint16_t(page_header(page)->lower - kItemIdSize);
      levels_[level].page.release();
      ++pages_written_;
    }
    return root;
  }

  BlockNumber pages_written() const { return pages_written_; }
  BlockNumber leaf_pages() const { return leaf_pages_; }

 private:
  struct Level {
    PageGuard page;
    OffsetNumber last_off = 1;  // the high key slot
    uint32_t last_extra = 0;    // trunc_extra of the item added last
    std::string low_key;        // pivot bytes; empty = minus infinity (leftmost)
  };

  void open_level(uint32_t level) {
    levels_.emplace_back();
    levels_.back().page = new_page(level);
  }

  PageGuard new_page(uint32_t level) {
    PageGuard guard = store_.extend();
    guard.mark_dirty();
    char* page = guard.data_for_write();
    bt_page_init(page, level, level == 0 ? kBtLeaf : 0);
    // Reserve line pointer 1 for the high key, filled in when the page closes.
    page_header(page)->lower = uint16_t(page_header(page)->lower + kItemIdSize);
    if (level == 0) ++leaf_pages_;
    return guard;
  }

  uint16_t downlink_for(const Level& s, char* out) const {
    if (s.low_key.empty()) return make_pivot(layout_, KeyValues{}, 0, nullptr, s.page.block(), out);
    return copy_pivot(TupleView{s.low_key.data()}, s.page.block(), false, out);
  }

  // Moves the page's last item to a fresh right sibling, turns it into the
  // high key (suffix-truncated on leaves), and posts the downlink upward.
  void close_page(uint32_t level) {
    const bool leaf = level == 0;
    PageGuard next = new_page(level);
    Level& s = levels_[level];
    char* old_page = s.page.data_for_write();
    char* new_page_bytes = next.data_for_write();
    TP_ASSERT(s.last_off > kFirstKey);

    TupleView last = tuple_at(old_page, s.last_off);
    alignas(8) char moved[kMaxTupleSize];
    uint16_t moved_size = last.size();
    std::memcpy(moved, last.p, moved_size);
    OffsetNumber added;
    if (!leaf) {
      alignas(8) char first[kMaxTupleSize];
      uint16_t first_size = copy_pivot(TupleView{moved}, TupleView{moved}.downlink(), true, first);
      added = page_add_item(new_page_bytes, first, first_size);
    } else {
      added = page_add_item(new_page_bytes, moved, moved_size);
    }
    TP_ASSERT(added == kFirstKey);

    // The last tuple sits lowest in tuple space: drop it and its line pointer,
    // then place the high key there.
    alignas(8) char high_key[kMaxTupleSize];
    uint16_t high_size =
        leaf ? make_separator(layout_, tuple_at(old_page, OffsetNumber(s.last_off - 1)),
                              TupleView{moved}, high_key)
             : copy_pivot(TupleView{moved}, kInvalidBlock, false, high_key);
    PageHeader* h = page_header(old_page);
    TP_ASSERT(page_item_id(old_page, s.last_off)->off == h->upper);
    h->upper = uint16_t(h->upper + maxalign(moved_size));
    h->lower = uint16_t(h->lower - kItemIdSize);
    TP_ASSERT(h->upper >= maxalign(high_size) + h->lower);
    h->upper = uint16_t(h->upper - maxalign(high_size));
    std::memcpy(old_page + h->upper, high_key, high_size);
    std::memset(old_page + h->upper + high_size, 0, maxalign(high_size) - high_size);
    ItemId* hk = page_item_id(old_page, kHighKeyOffset);
    hk->off = h->upper;
    hk->state = uint32_t(ItemState::kNormal);
    hk->len = high_size;

    bt_special(old_page)->next = next.block();
    bt_special(new_page_bytes)->prev = s.page.block();

    alignas(8) char downlink[kMaxTupleSize];
    uint16_t downlink_size = downlink_for(s, downlink);
    s.low_key.assign(high_key, high_size);
    s.page.release();
    ++pages_written_;
    s.page = std::move(next);
    s.last_off = kFirstKey;
    add(level + 1, downlink, downlink_size);  // may reallocate levels_: `s` is dead now
  }

  PageStore& store_;
  const TupleLayout& layout_;
  std::deque<Level> levels_;  // deque: references stay valid when a level is added
  BlockNumber pages_written_ = 0;
  BlockNumber leaf_pages_ = 0;
};

// The run of equal keys a deduplicating build is collecting (nbtsort.c's
// pending posting list): written as one posting list once the key changes or
// the list would outgrow kBuildMaxPostingSize; a run of one stays a plain item.
class PendingPosting {
 public:
  PendingPosting(const TupleLayout& layout, bool deduplicate)
      : layout_(layout), deduplicate_(deduplicate) {}

  void start(const KeyValues& key, Tid tid) {
    key_ = key;
    tids_.assign(1, tid);
  }

  // Adds (key, tid) to the pending run if it extends it; false if it does not.
  bool absorb(const KeyValues& key, Tid tid) {
    if (tids_.empty()) {
      start(key, tid);
      return true;
    }
    if (!deduplicate_ || !keys_equal(layout_, key, key_)) return false;
    if (posting_size(key_tuple_size(layout_, key_, layout_.ncols), int(tids_.size()) + 1) >
        kBuildMaxPostingSize)
      return false;
    tids_.push_back(tid);
    return true;
  }

  void flush(LevelWriter& writer) {
    if (tids_.empty()) return;
    alignas(8) char tuple[kMaxTupleSize];
    if (tids_.size() == 1) {
      writer.add(0, tuple, make_leaf_tuple(layout_, key_, tids_[0], tuple));
    } else {
      uint16_t size = make_posting(layout_, key_, tids_.data(), int(tids_.size()), tuple);
      writer.add(0, tuple, size, size - TupleView{tuple}.posting_offset());
    }
    tids_.clear();
  }

 private:
  const TupleLayout& layout_;
  const bool deduplicate_;
  KeyValues key_;
  std::vector<Tid> tids_;
};

}  // namespace

BTreeBuilder::BTreeBuilder(PageStore& store, IndexDef def)
    : store_(&store), def_(std::move(def)), layout_(TupleLayout::from(def_)) {
  if (store.nblocks() != 0)
    throw Error("cannot build index \"" + def_.name + "\": its relation already has " +
                std::to_string(store.nblocks()) + " blocks");
  entries_ = make_sort_buffer(layout_, false);
  typed_entries_ = !layout_.integral;
}

BTreeBuilder::~BTreeBuilder() = default;

void BTreeBuilder::reserve(size_t tuples) {
  entries_->reserve(tuples);
}

void BTreeBuilder::set_state(BuilderState next) {
  bool legal = (state_ == BuilderState::kCollecting && next == BuilderState::kWriting) ||
               (state_ == BuilderState::kWriting &&
                (next == BuilderState::kFinished || next == BuilderState::kFailed));
  TP_ASSERT(legal);
  state_ = next;
}

void BTreeBuilder::add(const KeyValues& key, Tid tid) {
  TP_ASSERT(state_ == BuilderState::kCollecting);
  check_key_range(def_, key);
  if (!tid.valid()) throw Error("cannot index an invalid TID in index \"" + def_.name + "\"");
  check_item_size(def_, layout_, key, tid);
  if (key.has_null() && !typed_entries_) {
    // The first NULL: integer records cannot hold it; move them over.
    std::unique_ptr<SortBuffer> typed = make_sort_buffer(layout_, true);
    typed->reserve(entries_->size());
    KeyValues k;
    Tid t;
    for (size_t i = 0; i < entries_->size(); ++i) {
      entries_->get(i, k, t);
      typed->add(k, t);
    }
    entries_ = std::move(typed);
    typed_entries_ = true;
  }
  entries_->add(key, tid);
}

BuildStats BTreeBuilder::finish(const BuildProgressFn& progress,
                                const BuildInterruptFn& interrupt) {
  set_state(BuilderState::kWriting);
  try {
    BuildStats stats = write(progress, interrupt);
    set_state(BuilderState::kFinished);
    return stats;
  } catch (...) {
    set_state(BuilderState::kFailed);
    throw;
  }
}

BuildStats BTreeBuilder::write(const BuildProgressFn& progress, const BuildInterruptFn& interrupt) {
  if (store_->nblocks() != 0)
    throw Error("cannot build index \"" + def_.name + "\": its relation gained " +
                std::to_string(store_->nblocks()) + " blocks while the build collected entries");
  const uint64_t total = entries_->size();
  if (progress) progress({BuildProgress::Phase::kSorting, 0, total, 0});
  std::function<void()> sort_interrupt;
  if (interrupt) {
    interrupt(BuildProgress::Phase::kSorting);
    sort_interrupt = [&] { interrupt(BuildProgress::Phase::kSorting); };
  }
  entries_->sort(sort_interrupt);

  KeyValues key, previous;
  Tid tid;
  if (def_.unique) {
    // Entries are sorted by key, then TID: in a run of equal keys the second entry is
    // the first to repeat it; of those, the one with the lowest TID is reported.
    std::optional<size_t> repeated;
    bool in_run = false;
    for (size_t i = 0; i < total; ++i) {
      entries_->get(i, key, tid);
      // NULLs are distinct from each other: a key holding one never duplicates.
      const bool equal = i > 0 && !key.has_null() && keys_equal(layout_, key, previous);
      if (equal && !in_run && (!repeated || tid < repeated_tid_)) {
        repeated = i;
        repeated_tid_ = tid;
      }
      in_run = equal;
      previous = key;
    }
    if (repeated) {
      entries_->get(*repeated, key, tid);
      throw Error("could not create unique index \"" + def_.name + "\"",
                  key_detail(def_, layout_, key) + " is duplicated.")
          .with_sqlstate(sqlstate::kUniqueViolation);
    }
  }

  // The metapage is block 0 but written last, once the root is known.
  PageGuard meta = store_->extend();
  TP_ASSERT(meta.block() == kMetaBlock);
  meta.mark_dirty();
  LevelWriter writer(*store_, layout_);
  PendingPosting pending(layout_, def_.deduplicate && !def_.unique && layout_.equal_image);
  const uint64_t step = std::max<uint64_t>(1, total / 100);
  for (size_t i = 0; i < total; ++i) {
    entries_->get(i, key, tid);
    if (!pending.absorb(key, tid)) {
      pending.flush(writer);
      pending.start(key, tid);
    }
    if (interrupt && (i + 1) % kInterruptInterval == 0) interrupt(BuildProgress::Phase::kLoading);
    if (progress && (i + 1) % step == 0)
      progress({BuildProgress::Phase::kLoading, i + 1, total, writer.pages_written()});
  }
  pending.flush(writer);
  MetaInfo root = total > 0 ? writer.finish() : MetaInfo{};

  char* page = meta.data_for_write();
  bt_meta_init(page, layout_, def_.unique, def_.deduplicate);
  bt_meta(page)->root = bt_meta(page)->fast_root = root.root;
  bt_meta(page)->level = bt_meta(page)->fast_level = root.level;
  meta.release();

  BuildStats stats;
  stats.tuples = total;
  stats.pages = store_->nblocks();
  stats.leaf_pages = writer.leaf_pages();
  stats.root_level = root.level;
  if (progress) progress({BuildProgress::Phase::kDone, total, total, stats.pages});
  return stats;
}

BuildStats build_index(PageStore& store, const IndexDef& def,
                       const std::vector<std::pair<KeyValues, Tid>>& entries,
                       const BuildProgressFn& progress) {
  BTreeBuilder builder(store, def);
  builder.reserve(entries.size());
  for (const auto& [key, tid] : entries) builder.add(key, tid);
  return builder.finish(progress);
}

}  // namespace tp::btree
