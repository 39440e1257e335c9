// Keys of every type: index tuples laid out as index_form_tuple lays them out (packed
// varlenas, alignment, the NULL bitmap), text suffix truncation, the type's order in
// builds, inserts and scans, NULLs last, and no deduplication where PostgreSQL 15 has
// none (numeric, float, interval, char(n)).
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "engine/btree/btree.h"
#include "engine/btree/btree_build.h"
#include "engine/btree/btree_scan.h"
#include "engine/btree/btree_verify.h"
#include "engine/btree/mem_page_store.h"
#include "engine/core/datum_ops.h"
#include "engine/core/numeric.h"

namespace tp::btree {
namespace {

IndexDef def_of(std::vector<KeyType> types, bool unique = false) {
  IndexDef def{"typed_idx", {}, unique};
  for (size_t i = 0; i < types.size(); ++i)
    def.columns.push_back({std::string(1, char('a' + i)), types[i]});
  return def;
}

// Text values kept alive for the keys that point at them.
struct Texts {
  std::vector<std::string> bytes;
  Datum operator()(const std::string& s) {
    bytes.push_back(make_varlena(s));
    return pointer_datum(bytes.back().data());
  }
  Texts() { bytes.reserve(100000); }
};

std::string text_of(Datum d) {
  return std::string(varlena_payload(datum_pointer(d)));
}

TEST(BtreeTyped, TupleLayoutIsIndexFormTuples) {
  const TupleLayout layout = TupleLayout::from(def_of({KeyType::kInt2, KeyType::kText}));
  EXPECT_EQ(layout.fixed_cols, 1);
  EXPECT_FALSE(layout.integral);
  Texts text;
  alignas(8) char buf[kMaxTupleSize];
  // smallint at 8, then "abc" packed with a 1-byte header at 10: 14 bytes.
  KeyValues key{7, text("abc")};
  ASSERT_EQ(make_leaf_tuple(layout, key, Tid{3, 4}, buf), 14);
  EXPECT_EQ(load_u16(buf + 6), 14 | kInfoHasVarWidth);
  EXPECT_EQ(uint8_t(buf[10]), (4 << 1) | 1);
  EXPECT_EQ(std::string(buf + 11, 3), "abc");
  TupleView t{buf};
  EXPECT_EQ(t.value(layout, 0), 7);
  EXPECT_EQ(text_of(t.value(layout, 1)), "abc");
  // A value of 127 bytes or more keeps a 4-byte header, aligned to 4.
  const std::string long_text(200, 'x');
  KeyValues wide{7, text(long_text)};
  ASSERT_EQ(make_leaf_tuple(layout, wide, Tid{3, 4}, buf), 12 + 204);
  EXPECT_EQ(text_of(TupleView{buf}.value(layout, 1)), long_text);
  // A NULL: the bitmap after the header (bit set = present), values from 16.
  KeyValues with_null;
  with_null.push_null();
  with_null.push(text("z"));
  ASSERT_EQ(make_leaf_tuple(layout, with_null, Tid{3, 4}, buf), 18);
  EXPECT_EQ(load_u16(buf + 6), 18 | kInfoHasNulls | kInfoHasVarWidth);
  EXPECT_EQ(uint8_t(buf[8]), 0b10);
  EXPECT_TRUE(TupleView{buf}.is_null(0));
  EXPECT_EQ(text_of(TupleView{buf}.value(layout, 1)), "z");
  EXPECT_EQ(checked_key_end(layout, TupleView{buf}, 2, 18), std::optional<uint32_t>(18));
  EXPECT_EQ(checked_key_end(layout, TupleView{buf}, 2, 17), std::nullopt);
}

TEST(BtreeTyped, SeparatorsKeepWholeTextColumnsUpToTheFirstDifference) {
  const TupleLayout layout = TupleLayout::from(def_of({KeyType::kText, KeyType::kInt4}));
  Texts text;
  alignas(8) char left[kMaxTupleSize], right[kMaxTupleSize], sep[kMaxTupleSize];
  make_leaf_tuple(layout, KeyValues{text("apple"), 1}, Tid{1, 1}, left);
  make_leaf_tuple(layout, KeyValues{text("apricot"), 1}, Tid{1, 2}, right);
  // The first column differs: the pivot keeps "apricot" whole (nbtree truncates no
  // text) and drops the integer.
  const uint16_t size = make_separator(layout, TupleView{left}, TupleView{right}, sep);
  EXPECT_EQ(size, 8 + 1 + 7);
  EXPECT_EQ(separator_size(layout, TupleView{left}, TupleView{right}), size);
  EXPECT_EQ(TupleView{sep}.natts(layout), 1);
  EXPECT_EQ(text_of(TupleView{sep}.value(layout, 0)), "apricot");
  EXPECT_LT(compare_tuples(layout, TupleView{left}, TupleView{sep}), 0);
  EXPECT_LE(compare_tuples(layout, TupleView{sep}, TupleView{right}), 0);
}

// Builds an index over `keys` (TIDs in order) and returns the keys a full scan gives.
std::vector<KeyValues> build_and_scan(MemPageStore& store, const IndexDef& def,
                                      const std::vector<KeyValues>& keys,
                                      std::vector<ColumnCondition> conditions = {},
                                      ScanDirection dir = ScanDirection::kForward,
                                      std::vector<std::string>* texts = nullptr) {
  BTreeBuilder builder(store, def);
  for (size_t i = 0; i < keys.size(); ++i)
    builder.add(keys[i], Tid{BlockNumber(1 + i / 100), OffsetNumber(1 + i % 100)});
  builder.finish();
  BTree tree = BTree::open(store, def);
  EXPECT_TRUE(verify_btree(store, def).ok);
  IndexScan scan(tree, std::move(conditions), dir);
  IndexBatch batch;
  std::vector<KeyValues> out;
  while (scan.next_batch(batch))
    for (size_t i = 0; i < batch.size(); ++i) {
      out.push_back(batch.key(i));
      if (texts) texts->push_back(batch.is_null(i, 0) ? "NULL" : text_of(batch.datum(i, 0)));
    }
  return out;
}

TEST(BtreeTyped, TextKeysSortByteWiseWithNullsLast) {
  Texts text;
  std::vector<std::string> words;
  std::mt19937 rng(7);
  for (int i = 0; i < 20000; ++i)
    words.push_back("w" + std::to_string(rng() % 5000) + std::string(rng() % 40, 'k'));
  std::vector<KeyValues> keys;
  for (const std::string& w : words) keys.push_back(KeyValues{text(w)});
  for (int i = 0; i < 300; ++i) {
    KeyValues null_key;
    null_key.push_null();
    keys.push_back(null_key);
  }
  const IndexDef def = def_of({KeyType::kText});
  MemPageStore store("typed_idx");
  std::vector<std::string> scanned;
  build_and_scan(store, def, keys, {}, ScanDirection::kForward, &scanned);
  std::vector<std::string> want = words;
  std::sort(want.begin(), want.end());
  want.insert(want.end(), 300, "NULL");
  EXPECT_EQ(scanned, want);

  // A range of text bounds, and IS NULL / IS NOT NULL.
  BTree tree = BTree::open(store, def);
  auto count = [&](std::vector<ColumnCondition> c, ScanDirection dir) {
    IndexScan scan(tree, std::move(c), dir);
    IndexBatch batch;
    size_t n = 0;
    while (scan.next_batch(batch)) n += batch.size();
    return n;
  };
  const Datum lo = text("w2"), hi = text("w3");
  const size_t in_range = size_t(std::count_if(
      words.begin(), words.end(), [](const auto& w) { return w >= "w2" && w < "w3"; }));
  for (ScanDirection dir : {ScanDirection::kForward, ScanDirection::kBackward}) {
    EXPECT_EQ(count({ColumnCondition::ge(0, lo), ColumnCondition::lt(0, hi)}, dir), in_range);
    EXPECT_EQ(count({ColumnCondition::is_null(0)}, dir), 300u);
    EXPECT_EQ(count({ColumnCondition::not_null(0)}, dir), words.size());
    EXPECT_EQ(
        count({ColumnCondition::gt(0, lo)}, dir),  // NULLs never pass a comparison
        size_t(std::count_if(words.begin(), words.end(), [](const auto& w) { return w > "w2"; })));
    EXPECT_EQ(count({ColumnCondition::is_null(0), ColumnCondition::gt(0, lo)}, dir), 0u);
  }
}

TEST(BtreeTyped, InsertsSplitPagesOfLongTextKeysInOrder) {
  Texts text;
  const IndexDef def = def_of({KeyType::kVarchar, KeyType::kInt8}, /*unique=*/true);
  MemPageStore store("typed_idx");
  BTree tree = BTree::create(store, def);
  std::mt19937 rng(11);
  std::vector<std::string> want;
  for (int i = 0; i < 6000; ++i) {
    std::string w = std::to_string(rng() % 1000) + std::string(rng() % 300, 'p');
    if (i % 50 == 0) {
      KeyValues k;
      k.push_null();  // NULLs never violate uniqueness
      k.push(1);
      tree.insert(k, Tid{BlockNumber(1 + i), 1});
      continue;
    }
    want.push_back(w + "/" + std::to_string(i));
    tree.insert(KeyValues{text(w), i}, Tid{BlockNumber(1 + i), 1});
  }
  EXPECT_TRUE(verify_btree(store, def).ok);
  EXPECT_THROW(tree.insert(KeyValues{text(want[0].substr(0, want[0].find('/'))),
                                     std::stoll(want[0].substr(want[0].find('/') + 1))},
                           Tid{9999, 1}),
               Error);
  std::sort(want.begin(), want.end(), [](const std::string& a, const std::string& b) {
    const std::string ta = a.substr(0, a.find('/')), tb = b.substr(0, b.find('/'));
    if (ta != tb) return ta < tb;
    return std::stoll(a.substr(a.find('/') + 1)) < std::stoll(b.substr(b.find('/') + 1));
  });
  IndexScan scan(tree, {ColumnCondition::not_null(0)});
  IndexBatch batch;
  std::vector<std::string> got;
  while (scan.next_batch(batch))
    for (size_t i = 0; i < batch.size(); ++i)
      got.push_back(text_of(batch.datum(i, 0)) + "/" + std::to_string(batch.datum(i, 1)));
  EXPECT_EQ(got, want);
}

TEST(BtreeTyped, OversizedKeysAreRefusedAsPostgresRefusesThem) {
  Texts text;
  IndexDef def = def_of({KeyType::kText});
  def.table = "t";
  MemPageStore store("typed_idx");
  BTree tree = BTree::create(store, def);
  try {
    tree.insert(KeyValues{text(std::string(3000, 'y'))}, Tid{0, 4});
    ADD_FAILURE() << "a 3000-byte key was accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(
        e.what(),
        "index row size 3016 exceeds btree version 4 maximum 2704 for index \"typed_idx\"");
    EXPECT_EQ(e.detail(), "Index row references tuple (0,4) in relation \"t\".");
    EXPECT_EQ(e.sqlstate(), std::string(sqlstate::kProgramLimitExceeded));
  }
  // The largest that fits: 2704 bytes with its header.
  tree.insert(KeyValues{text(std::string(2704 - 8 - 4, 'y'))}, Tid{0, 5});
  EXPECT_TRUE(verify_btree(store, def).ok);
}

TEST(BtreeTyped, OnlyEqualImageTypesDeduplicate) {
  // 1.0 and 1.00 are equal numerics with different images: PostgreSQL keeps them in
  // separate items, and so does every index over numeric, float, interval or char(n).
  std::vector<std::string> numerics;
  numerics.reserve(4000);
  std::vector<KeyValues> keys;
  for (int i = 0; i < 4000; ++i) {
    numerics.push_back(numeric_in(i % 2 ? "1.0" : "1.00", kNoTypmod));
    keys.push_back(KeyValues{pointer_datum(numerics.back().data())});
  }
  MemPageStore numeric_store("n");
  build_and_scan(numeric_store, def_of({KeyType::kNumeric}), keys);
  Texts text;
  std::vector<KeyValues> text_keys;
  for (int i = 0; i < 4000; ++i) text_keys.push_back(KeyValues{text("same")});
  MemPageStore text_store("t");
  build_and_scan(text_store, def_of({KeyType::kText}), text_keys);
  // 4000 items of 16 bytes plus a line pointer each fill 10 leaves; posting lists of
  // ~130 TIDs (812 bytes, a build's limit) fill 4.
  EXPECT_GT(numeric_store.nblocks(), 10u);
  EXPECT_LT(text_store.nblocks(), 8u);
  EXPECT_EQ(bt_meta(numeric_store.read(kMetaBlock, PageLock::kShared).data())->deduplicate, 0u);
}

// The build sorts by an abbreviation of the first column (strings by their first 16
// bytes): strings that agree on those bytes, are prefixes of each other, hold bytes
// above 0x7F, or are char(n) values equal but for trailing blanks still come out in
// the type's order, equal keys by TID, NULLs last, in a two-column index with
// duplicates in both columns.
TEST(BtreeTyped, AbbreviatedBuildSortKeepsTheTypesOrderThenTids) {
  const std::string p16 = "abcdefghijklmnop";
  const std::vector<std::string> words = {"",
                                          "a",
                                          "a ",
                                          p16,
                                          p16 + "a",
                                          p16 + "b",
                                          p16 + "ab",
                                          "abcdefghijklmnoo",
                                          p16.substr(0, 15),
                                          "\xc3\xa9t\xc3\xa9",
                                          "zz",
                                          p16 + std::string(30, 'x') + "1",
                                          p16 + std::string(30, 'x') + "0"};
  for (KeyType type : {KeyType::kText, KeyType::kBpchar}) {
    Texts text;
    std::mt19937 rng(11);
    struct Entry {
      int word;  // -1: NULL
      int32_t n;
      Tid tid;
    };
    std::vector<Entry> entries;
    std::vector<KeyValues> keys;
    for (int i = 0; i < 6000; ++i) {
      const int w = rng() % 20 == 0 ? -1 : int(rng() % words.size());
      const auto n = int32_t(rng() % 3);
      KeyValues k;
      if (w < 0)
        k.push_null();
      else
        k.push(text(words[size_t(w)] + (type == KeyType::kBpchar && rng() % 2 ? "  " : "")));
      k.push(n);
      keys.push_back(k);
      entries.push_back({w, n, Tid{BlockNumber(1 + i / 100), OffsetNumber(1 + i % 100)}});
    }
    const IndexDef def = def_of({type, KeyType::kInt4});
    MemPageStore store("typed_idx");
    BTreeBuilder builder(store, def);
    for (size_t i = 0; i < keys.size(); ++i) builder.add(keys[i], entries[i].tid);
    builder.finish();
    ASSERT_TRUE(verify_btree(store, def).ok);

    auto word_of = [&](int w) {
      std::string v = words[size_t(w)];
      if (type == KeyType::kBpchar) v.erase(v.find_last_not_of(' ') + 1);
      return v;
    };
    std::stable_sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) {
      if ((a.word < 0) != (b.word < 0)) return b.word < 0;
      if (a.word >= 0 && word_of(a.word) != word_of(b.word))
        return word_of(a.word) < word_of(b.word);
      if (a.n != b.n) return a.n < b.n;
      return a.tid < b.tid;
    });
    BTree tree = BTree::open(store, def);
    IndexScan scan(tree, {}, ScanDirection::kForward);
    IndexBatch batch;
    std::vector<Tid> got;
    while (scan.next_batch(batch))
      for (size_t i = 0; i < batch.size(); ++i) got.push_back(batch.tids[i]);
    std::vector<Tid> want;
    for (const Entry& e : entries) want.push_back(e.tid);
    EXPECT_EQ(got, want) << (type == KeyType::kText ? "text" : "char(n)");
  }
}

}  // namespace
}  // namespace tp::btree
