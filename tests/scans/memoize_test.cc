// Memoize (scans/memoize.h) on a Nested Loop's inner side over parameterized test nodes:
// the joins' rows equal the same joins without it (random outer rows with repeated and
// NULL keys, every Nested Loop type, with room for everything and with a few kB that
// force evictions); numeric keys equal by value in logical mode and by image in binary
// mode; exact hit, miss, eviction (LRU, not FIFO) and overflow counts; singlerow entries
// complete after one row (and an error when a second comes); a scan cut short is
// rebuilt in full at the next lookup of its key; a change of an enclosing loop's
// parameter empties the cache; a key of two parameters; EXPLAIN's lines; the child's loops
// are the misses.
#include <gmock/gmock.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/datum_ops.h"
#include "engine/core/error.h"
#include "engine/core/numeric.h"
#include "scans/memoize.h"
#include "scans/nest_loop.h"
#include "tests/scans/join_test_rows.h"

namespace tp {
namespace {

using scans::JoinType;
using scans::MemoizeNode;

using namespace join_test;  // NOLINT(google-build-using-namespace): the shared helpers

// Returns the rows whose slot `slot` (1: text, 2: numeric) equals parameter $0 by the
// type's equality (none for a NULL $0): a parameterized scan on a by-reference column.
class SlotParamRowsNode final : public RowsNode {
 public:
  SlotParamRowsNode(std::vector<TRow> rows, uint32_t batch, const scans::ExecParams& params,
                    uint32_t slot)
      : RowsNode(std::move(rows), batch), params_(params), slot_(slot) {}

 protected:
  bool wanted(const TRow& r) const override {
    const std::optional<std::string>& v = slot_ == 1 ? r.t : r.n;
    if (params_.is_null(0) || !v) return false;
    const std::string bytes = slot_ == 1 ? make_varlena(*v) : numeric_in(*v, kNoTypmod);
    return compare_datums(kTypes[slot_], pointer_datum(bytes.data()), params_.value(0)) == 0;
  }

 private:
  const scans::ExecParams& params_;
  uint32_t slot_;
};

// (key, payload) int8 rows; returns those whose key is $0, `batch` rows a batch. Every
// entry of the same number of rows takes the same bytes, so the tests can size
// max_bytes in entries.
class IntParamNode final : public scans::ExecNode {
 public:
  IntParamNode(std::vector<std::pair<int64_t, int64_t>> rows, uint32_t batch,
               const scans::ExecParams& params)
      : rows_(std::move(rows)), batch_rows_(batch), params_(params) {
    shape_ =
        std::make_shared<const scans::RowShape>(std::vector<TypeId>{TypeId::kInt8, TypeId::kInt8});
  }
  std::string explain_name() const override { return "Rows"; }
  void explain_details(std::vector<std::string>&, bool) const override {}

 protected:
  void do_open() override { at_ = 0; }
  const scans::RowBatch* do_next() override {
    batch_.shape = shape_;
    batch_.reset(2, batch_rows_);
    while (at_ < rows_.size() && batch_.count < batch_rows_) {
      const auto [key, payload] = rows_[at_++];
      if (params_.is_null(0) || Datum(key) != params_.value(0)) continue;
      batch_.row(batch_.count)[0] = Datum(key);
      batch_.row(batch_.count)[1] = Datum(payload);
      ++batch_.count;
    }
    return batch_.count > 0 ? &batch_ : nullptr;
  }

 private:
  std::vector<std::pair<int64_t, int64_t>> rows_;
  uint32_t batch_rows_;
  const scans::ExecParams& params_;
  std::shared_ptr<const scans::RowShape> shape_;
  size_t at_ = 0;
  scans::RowBatch batch_;
};

// `per_key` rows for each key in `keys`, payloads numbered.
std::vector<std::pair<int64_t, int64_t>> int_rows(
    const std::vector<std::pair<int64_t, int>>& keys) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (auto [key, n] : keys)
    for (int i = 0; i < n; ++i) out.emplace_back(key, key * 1000 + i);
  return out;
}

// Looks `key` up (the first time by open(), as a Nested Loop does) and returns its rows.
std::vector<Out> scan_key(MemoizeNode& m, scans::ExecParams& params, int64_t key, bool& opened) {
  params.set(0, Datum(key), false);
  if (opened) {
    m.rescan();
  } else {
    m.open();
    opened = true;
  }
  return drain_in_order(m, false);
}

size_t distinct_keys(const std::vector<TRow>& rows) {
  std::set<std::optional<int32_t>> keys;
  for (const TRow& r : rows) keys.insert(r.key);
  return keys.size();
}

TEST(Memoize, NestLoopGivesTheRowsItGivesWithoutMemoize) {
  for (uint32_t seed = 1; seed <= 4; ++seed)
    for (uint64_t max_bytes : {kBig, uint64_t(3 * 1024)}) {
      std::mt19937 rng(seed);
      const auto outer = random_rows(rng, 300, 25), inner = random_rows(rng, 120, 25);
      for (JoinType type : {JoinType::kInner, JoinType::kLeft, JoinType::kSemi, JoinType::kAnti}) {
        SCOPED_TRACE("seed " + std::to_string(seed) + " type " + std::to_string(int(type)) +
                     " max_bytes " + std::to_string(max_bytes));
        const scans::JoinSpec spec = spec_for(type, n_le_filter());
        scans::ExecParams plain_params({TypeId::kInt4});
        scans::NestLoopNode plain(std::make_unique<RowsNode>(outer, 7),
                                  std::make_unique<ParamRowsNode>(inner, 4, plain_params), spec,
                                  &plain_params, {0});
        const auto expected = drain(plain);
        EXPECT_EQ(expected, brute_force(outer, inner, spec, true));

        scans::ExecParams params({TypeId::kInt4});
        auto rows = std::make_unique<ParamRowsNode>(inner, 4, params);
        const RowsNode* child = rows.get();
        auto memo = std::make_unique<MemoizeNode>(std::move(rows), &params, std::vector<size_t>{0},
                                                  "o.key", false, false, 16, max_bytes);
        const MemoizeNode* m = memo.get();
        scans::NestLoopNode nl(std::make_unique<RowsNode>(outer, 7), std::move(memo), spec, &params,
                               {0});
        EXPECT_EQ(drain(nl), expected);
        EXPECT_EQ(m->hits() + m->misses(), outer.size());
        EXPECT_EQ(m->instr.loops, outer.size());
        EXPECT_EQ(child->instr.loops, m->misses());  // a hit never touches the child
        EXPECT_LE(m->memory_used(), max_bytes);
        if (max_bytes == kBig) {
          EXPECT_EQ(m->evictions(), 0u);
          // Inner and left joins read every scan to its end: one miss per key, NULL too.
          if (type == JoinType::kInner || type == JoinType::kLeft) {
            EXPECT_EQ(m->misses(), distinct_keys(outer));
          }
        } else {
          EXPECT_GT(m->evictions(), 0u);
        }
      }
    }
}

// The rows whose key equals $0 (int4) and whose text equals $1: a scan with two
// parameters, both in the cache key.
class TwoParamRowsNode final : public RowsNode {
 public:
  TwoParamRowsNode(std::vector<TRow> rows, uint32_t batch, const scans::ExecParams& params)
      : RowsNode(std::move(rows), batch), params_(params) {}

 protected:
  bool wanted(const TRow& r) const override {
    if (params_.is_null(0) || params_.is_null(1) || !r.key || !r.t) return false;
    const std::string bytes = make_varlena(*r.t);
    return Datum(*r.key) == params_.value(0) &&
           compare_datums(TypeId::kText, pointer_datum(bytes.data()), params_.value(1)) == 0;
  }

 private:
  const scans::ExecParams& params_;
};

TEST(Memoize, AKeyOfTwoParametersIsOneEntryPerPairOfValues) {
  std::mt19937 rng(11);
  auto rows = [&](size_t n) {
    std::vector<TRow> out;
    for (size_t i = 0; i < n; ++i) {
      TRow r;
      if (rng() % 9 != 0) r.key = int32_t(rng() % 4);
      if (rng() % 9 != 0) r.t = "v" + std::to_string(rng() % 3);
      out.push_back(r);
    }
    return out;
  };
  const auto outer = rows(200), inner = rows(60);
  std::set<std::pair<std::optional<int32_t>, std::optional<std::string>>> pairs;
  for (const TRow& r : outer) pairs.insert({r.key, r.t});
  for (uint64_t max_bytes : {kBig, uint64_t(2 * 1024)})
    for (JoinType type : {JoinType::kInner, JoinType::kLeft}) {
      SCOPED_TRACE("type " + std::to_string(int(type)) + " max_bytes " + std::to_string(max_bytes));
      const scans::JoinSpec spec = spec_for(type, n_le_filter());
      scans::ExecParams plain_params({TypeId::kInt4, TypeId::kText});
      scans::NestLoopNode plain(std::make_unique<RowsNode>(outer, 7),
                                std::make_unique<TwoParamRowsNode>(inner, 4, plain_params), spec,
                                &plain_params, {0, 1});
      const auto expected = drain(plain);

      scans::ExecParams params({TypeId::kInt4, TypeId::kText});
      auto memo = std::make_unique<MemoizeNode>(
          std::make_unique<TwoParamRowsNode>(inner, 4, params), &params, std::vector<size_t>{0, 1},
          "o.key, o.t", false, false, 16, max_bytes);
      const MemoizeNode* m = memo.get();
      scans::NestLoopNode nl(std::make_unique<RowsNode>(outer, 7), std::move(memo), spec, &params,
                             {0, 1});
      EXPECT_EQ(drain(nl), expected);
      EXPECT_EQ(m->hits() + m->misses(), outer.size());
      if (max_bytes == kBig) {
        EXPECT_EQ(m->misses(), pairs.size());  // NULLs are keys too, equal to each other
      } else {
        EXPECT_GT(m->evictions(), 0u);
      }
    }
}

TEST(Memoize, NumericKeysAreOneEntryByValueInLogicalModeAndByImageInBinaryMode) {
  const std::vector<std::optional<std::string>> nums = {"1",    "1.0", "1.00",      "2.5",
                                                        "2.50", "-3",  std::nullopt};
  std::mt19937 rng(3);
  auto make = [&](size_t n) {
    std::vector<TRow> rows;
    for (size_t i = 0; i < n; ++i)
      rows.push_back({int32_t(i), "t" + std::to_string(i % 7), nums[rng() % nums.size()]});
    return rows;
  };
  const auto outer = make(150), inner = make(60);
  scans::JoinSpec spec = spec_for(JoinType::kInner, nullptr);
  spec.output = {0, 2, 3, 5};
  scans::ExecParams plain_params({TypeId::kNumeric});
  scans::NestLoopNode plain(std::make_unique<RowsNode>(outer, 9),
                            std::make_unique<SlotParamRowsNode>(inner, 4, plain_params, 2), spec,
                            &plain_params, {2});
  const auto expected = drain(plain);
  ASSERT_FALSE(expected.empty());
  for (bool binary : {false, true}) {
    SCOPED_TRACE(binary ? "binary" : "logical");
    scans::ExecParams params({TypeId::kNumeric});
    auto memo = std::make_unique<MemoizeNode>(
        std::make_unique<SlotParamRowsNode>(inner, 4, params, 2), &params, std::vector<size_t>{0},
        "o.n", binary, false, 0, kBig);
    const MemoizeNode* m = memo.get();
    scans::NestLoopNode nl(std::make_unique<RowsNode>(outer, 9), std::move(memo), spec, &params,
                           {2});
    EXPECT_EQ(drain(nl), expected);
    // By value: 1, 2.5, -3 and NULL; by image each spelling is its own key.
    EXPECT_EQ(m->misses(), binary ? 7u : 4u);
    EXPECT_EQ(m->cached_entries(), m->misses());
  }
}

TEST(Memoize, TextKeysKeepTheirBytesAfterTheParametersMoveOn) {
  // The Nested Loop's parameter arena is emptied at every outer row: an entry keyed by a
  // pointer into it would match whatever text came next.
  std::vector<TRow> outer, inner;
  for (int i = 0; i < 200; ++i)
    outer.push_back({i, "key " + std::string(size_t(i % 9) * 5, char('a' + i % 9)), "1"});
  for (int i = 0; i < 40; ++i)
    inner.push_back({i, "key " + std::string(size_t(i % 12) * 5, char('a' + i % 12)), "2"});
  scans::JoinSpec spec = spec_for(JoinType::kLeft, nullptr);
  spec.output = {0, 1, 3};
  scans::ExecParams plain_params({TypeId::kText});
  scans::NestLoopNode plain(std::make_unique<RowsNode>(outer, 7),
                            std::make_unique<SlotParamRowsNode>(inner, 3, plain_params, 1), spec,
                            &plain_params, {1});
  scans::ExecParams params({TypeId::kText});
  auto memo =
      std::make_unique<MemoizeNode>(std::make_unique<SlotParamRowsNode>(inner, 3, params, 1),
                                    &params, std::vector<size_t>{0}, "o.t", false, false, 4, kBig);
  const MemoizeNode* m = memo.get();
  scans::NestLoopNode nl(std::make_unique<RowsNode>(outer, 7), std::move(memo), spec, &params, {1});
  EXPECT_EQ(drain(nl), drain(plain));
  EXPECT_EQ(m->misses(), 9u);
  EXPECT_EQ(m->hits(), 191u);

  // The bytes a key was looked up with are overwritten before the same text comes again
  // from elsewhere: still a hit.
  scans::ExecParams p2({TypeId::kText});
  MemoizeNode direct(std::make_unique<SlotParamRowsNode>(inner, 3, p2, 1), &p2, {0}, "o.t", false,
                     false, 4, kBig);
  std::string first = make_varlena("key bbbbb"), again = make_varlena("key bbbbb");
  p2.set(0, pointer_datum(first.data()), false);
  direct.open();
  const auto rows = drain_in_order(direct, false);
  ASSERT_FALSE(rows.empty());
  std::fill(first.begin() + kVarlenaHeader, first.end(), 'z');
  p2.set(0, pointer_datum(again.data()), false);
  direct.rescan();
  EXPECT_EQ(drain_in_order(direct, false), rows);
  EXPECT_EQ(direct.hits(), 1u);
}

TEST(Memoize, EvictsTheLeastRecentlyUsedEntryAndOverflowsAnEntryTooBigAlone) {
  // Keys 1-3 have 3 rows each, key 4 has 300.
  const auto rows = int_rows({{1, 3}, {2, 3}, {3, 3}, {4, 300}});
  scans::ExecParams params({TypeId::kInt8});
  // The bytes of one 3-row entry, measured alone.
  uint64_t entry = 0;
  {
    MemoizeNode probe(std::make_unique<IntParamNode>(rows, 2, params), &params, {0}, "k", false,
                      false, 4, kBig);
    bool opened = false;
    scan_key(probe, params, 1, opened);
    entry = probe.memory_used();
  }
  ASSERT_GT(entry, 3u * 16u);
  auto child = std::make_unique<IntParamNode>(rows, 2, params);
  const IntParamNode* c = child.get();
  // Room for two such entries, not three.
  MemoizeNode m(std::move(child), &params, {0}, "k", false, false, 4, 2 * entry + entry / 2);
  bool opened = false;
  for (int64_t key : {1, 2, 1, 3, 1, 2}) {
    const auto got = scan_key(m, params, key, opened);
    ASSERT_EQ(got.size(), 3u) << "key " << key;
    EXPECT_EQ(got[0][1], std::to_string(key * 1000));
    EXPECT_EQ(got[2][1], std::to_string(key * 1000 + 2));
  }
  // 1 miss, 2 miss, 1 hit, 3 miss (evicts 2: 1 was used since), 1 hit, 2 miss (evicts 3).
  // FIFO would have evicted 1 for 3 and missed the second hit.
  EXPECT_EQ(m.hits(), 2u);
  EXPECT_EQ(m.misses(), 4u);
  EXPECT_EQ(m.evictions(), 2u);
  EXPECT_EQ(m.overflows(), 0u);
  EXPECT_EQ(c->instr.loops, 4u);
  EXPECT_EQ(m.cached_entries(), 2u);

  // Key 4 alone needs more than the cache may hold: everything else goes, then key 4's
  // entry itself; its rows still all come back, uncached, each time.
  for (int pass = 0; pass < 2; ++pass) {
    const auto got = scan_key(m, params, 4, opened);
    ASSERT_EQ(got.size(), 300u);
    for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i][1], std::to_string(4000 + i));
    EXPECT_LE(m.memory_used(), 2 * entry + entry / 2);
  }
  EXPECT_EQ(m.overflows(), 2u);
  EXPECT_EQ(m.evictions(), 2u + 2u + 1u + 1u);  // entries 1 and 2, and key 4's twice
  EXPECT_EQ(m.cached_entries(), 0u);
  EXPECT_EQ(m.misses(), 6u);
  // The cache fills again afterwards.
  scan_key(m, params, 1, opened);
  scan_key(m, params, 1, opened);
  EXPECT_EQ(m.hits(), 3u);
  EXPECT_EQ(c->instr.loops, m.misses());
  EXPECT_GE(m.peak_bytes(), 2 * entry);
}

TEST(Memoize, SinglerowEntriesAreCompleteAfterTheirFirstRow) {
  // Unique inner keys 0..29 (one row each); outer keys repeat, some without a match.
  std::vector<TRow> inner;
  for (int32_t k = 0; k < 30; ++k) inner.push_back({k, "i" + std::to_string(k), "5"});
  std::mt19937 rng(17);
  std::vector<TRow> outer;
  for (int i = 0; i < 400; ++i) {
    TRow r{int32_t(rng() % 40), "o", "1"};
    if (i % 25 == 0) r.key.reset();
    outer.push_back(r);
  }
  scans::JoinSpec spec = spec_for(JoinType::kInner, nullptr);
  spec.inner_unique = true;
  const auto expected = brute_force(outer, inner, spec, false);
  for (bool singlerow : {false, true}) {
    SCOPED_TRACE(singlerow ? "singlerow" : "not singlerow");
    scans::ExecParams params({TypeId::kInt4});
    auto rows = std::make_unique<ParamRowsNode>(inner, 8, params);
    const RowsNode* child = rows.get();
    auto memo = std::make_unique<MemoizeNode>(std::move(rows), &params, std::vector<size_t>{0},
                                              "o.key", false, singlerow, 64, kBig);
    const MemoizeNode* m = memo.get();
    scans::NestLoopNode nl(std::make_unique<RowsNode>(outer, 16), std::move(memo), spec, &params,
                           {0});
    EXPECT_EQ(drain(nl), expected);
    EXPECT_EQ(child->instr.loops, m->misses());
    // The unique join stops at its match, so only keys without one ran to the end; with
    // singlerow a match completes its entry too.
    size_t lookups_of_matched = 0;
    std::set<std::optional<int32_t>> unmatched, matched;
    for (const TRow& r : outer) {
      const bool hit = r.key && *r.key < 30;
      lookups_of_matched += hit;
      (hit ? matched : unmatched).insert(r.key);
    }
    const size_t expected_misses =
        singlerow ? matched.size() + unmatched.size() : lookups_of_matched + unmatched.size();
    EXPECT_EQ(m->misses(), expected_misses);
  }
}

TEST(Memoize, SinglerowRefusesASecondRowForOneKey) {
  scans::ExecParams params({TypeId::kInt8});
  // Key 1's two rows in one child batch, then in two.
  for (uint32_t batch : {4u, 1u}) {
    MemoizeNode m(std::make_unique<IntParamNode>(int_rows({{1, 2}}), batch, params), &params, {0},
                  "k", false, true, 4, kBig);
    params.set(0, 1, false);
    m.open();
    const scans::RowBatch* b = m.next();
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(b->count, 1u);
    EXPECT_THROW(m.next(), Error);
  }
}

TEST(Memoize, AScanCutShortIsRebuiltInFullAtTheNextLookup) {
  scans::ExecParams params({TypeId::kInt8});
  auto child = std::make_unique<IntParamNode>(int_rows({{7, 10}, {8, 2}}), 3, params);
  const IntParamNode* c = child.get();
  MemoizeNode m(std::move(child), &params, {0}, "k", false, false, 4, kBig);
  // A semi join's first match: one batch read, then the next outer row.
  params.set(0, 7, false);
  m.open();
  ASSERT_NE(m.next(), nullptr);
  bool opened = true;
  EXPECT_EQ(scan_key(m, params, 8, opened).size(), 2u);
  // Key 7 again: its entry was never completed, so this is a miss that reads it all.
  const auto all = scan_key(m, params, 7, opened);
  ASSERT_EQ(all.size(), 10u);
  for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i][1], std::to_string(7000 + i));
  EXPECT_EQ(m.hits(), 0u);
  EXPECT_EQ(m.misses(), 3u);
  // Now it is complete: a hit with the same rows, the child untouched.
  EXPECT_EQ(scan_key(m, params, 7, opened), all);
  EXPECT_EQ(m.hits(), 1u);
  EXPECT_EQ(c->instr.loops, 3u);

  // Through a Nested Loop semi join: every outer row of key 7 stops at the first inner
  // row (the filter passes all), so no lookup of key 7 is ever a hit.
  std::vector<TRow> inner(10, TRow{7, "x", "1"});
  std::vector<TRow> outer(5, TRow{7, "y", "1"});
  scans::ExecParams p2({TypeId::kInt4});
  auto memo = std::make_unique<MemoizeNode>(std::make_unique<ParamRowsNode>(inner, 3, p2), &p2,
                                            std::vector<size_t>{0}, "o.key", false, false, 4, kBig);
  const MemoizeNode* mm = memo.get();
  const scans::JoinSpec spec = spec_for(JoinType::kSemi, n_le_filter());
  scans::NestLoopNode nl(std::make_unique<RowsNode>(outer, 2), std::move(memo), spec, &p2, {0});
  EXPECT_EQ(drain(nl), brute_force(outer, inner, spec, true));
  EXPECT_EQ(mm->hits(), 0u);
  EXPECT_EQ(mm->misses(), 5u);
}

TEST(Memoize, AChangedParameterOfAnEnclosingLoopEmptiesTheCache) {
  scans::ExecParams params({TypeId::kInt8});
  scans::ExecParams upper({TypeId::kInt4});
  MemoizeNode m(std::make_unique<IntParamNode>(int_rows({{1, 2}, {2, 2}}), 4, params), &params, {0},
                "k", false, false, 4, kBig, {&upper});
  bool opened = false;
  scan_key(m, params, 1, opened);
  scan_key(m, params, 2, opened);
  scan_key(m, params, 1, opened);
  EXPECT_EQ(m.hits(), 1u);
  upper.set(0, 5, false);
  EXPECT_EQ(scan_key(m, params, 1, opened).size(), 2u);
  EXPECT_EQ(m.hits(), 1u);
  EXPECT_EQ(m.misses(), 3u);
  EXPECT_EQ(m.evictions(), 2u);  // both entries dropped, as PostgreSQL's cache_purge_all counts
  scan_key(m, params, 1, opened);
  EXPECT_EQ(m.hits(), 2u);
}

TEST(Memoize, ExplainLines) {
  scans::ExecParams params({TypeId::kInt8, TypeId::kInt8});
  auto rows = int_rows({{1, 3}, {2, 1}});
  MemoizeNode m(std::make_unique<IntParamNode>(rows, 2, params), &params, {0, 1}, "t1.a, t1.b",
                false, false, 4, kBig);
  EXPECT_EQ(m.explain_name(), "Memoize");
  ASSERT_EQ(m.children().size(), 1u);
  EXPECT_EQ(m.children()[0]->explain_name(), "Rows");
  const std::vector<std::string> plain = {"Cache Key: t1.a, t1.b", "Cache Mode: logical"};
  std::vector<std::string> lines;
  m.explain_details(lines, false);
  EXPECT_EQ(lines, plain);
  // Never executed: no counts line, as PostgreSQL prints it only after a lookup.
  lines.clear();
  m.explain_details(lines, true);
  EXPECT_EQ(lines, plain);

  bool opened = false;
  for (int64_t key : {1, 1, 2, 1}) scan_key(m, params, key, opened);
  lines.clear();
  m.explain_details(lines, true);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2], "Hits: 2  Misses: 2  Evictions: 0  Overflows: 0  Memory Usage: " +
                          std::to_string((m.peak_bytes() + 1023) / 1024) + "kB");
  EXPECT_EQ(lines[2], "Hits: 2  Misses: 2  Evictions: 0  Overflows: 0  Memory Usage: 1kB");
  lines.clear();
  m.explain_details(lines, false);
  EXPECT_EQ(lines, plain);

  MemoizeNode b(std::make_unique<IntParamNode>(rows, 2, params), &params, {0}, "t1.a", true, true,
                4, kBig);
  lines.clear();
  b.explain_details(lines, false);
  EXPECT_EQ(lines, (std::vector<std::string>{"Cache Key: t1.a", "Cache Mode: binary"}));
}

TEST(Memoize, HitsComeBackInBatchesWithinTheLimitHint) {
  scans::ExecParams params({TypeId::kInt8});
  MemoizeNode m(std::make_unique<IntParamNode>(int_rows({{3, 2500}}), 700, params), &params, {0},
                "k", false, false, 4, kBig);
  bool opened = false;
  const auto first = scan_key(m, params, 3, opened);
  ASSERT_EQ(first.size(), 2500u);
  params.set(0, 3, false);
  m.rescan();
  std::vector<uint32_t> sizes;
  m.row_limit_hint = 5;
  const scans::RowBatch* b = m.next();
  ASSERT_NE(b, nullptr);
  sizes.push_back(b->count);
  m.row_limit_hint = UINT64_MAX;
  while ((b = m.next()) != nullptr) sizes.push_back(b->count);
  EXPECT_EQ(sizes, (std::vector<uint32_t>{5, 1024, 1024, 447}));
  EXPECT_EQ(m.hits(), 1u);
}

}  // namespace
}  // namespace tp
