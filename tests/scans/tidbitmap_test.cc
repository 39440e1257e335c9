#include "scans/tidbitmap.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <vector>

namespace tp {
namespace {

constexpr int64_t kWorkMem4MB = int64_t{4} << 20;
constexpr int64_t kHugeBudget = int64_t{1} << 40;  // never lossifies in these tests

// What the bitmap hands out, page by page.
struct PageView {
  bool lossy = false;
  bool recheck = false;
  std::set<OffsetNumber> offsets;
  friend bool operator==(const PageView&, const PageView&) = default;
};
using Model = std::map<BlockNumber, PageView>;

Model drain(TidBitmap& bm, int64_t* exact = nullptr, int64_t* lossy = nullptr) {
  Model out;
  TidBitmapIterator it = bm.begin_iterate();
  TbmPage page;
  BlockNumber previous = 0;
  bool first = true;
  while (it.next(&page)) {
    EXPECT_TRUE(first || page.block > previous) << "blocks must ascend";
    first = false;
    previous = page.block;
    PageView v;
    v.lossy = page.lossy;
    v.recheck = page.recheck;
    OffsetNumber last = 0;
    for (OffsetNumber o : page.offsets) {
      EXPECT_GT(o, last) << "offsets must ascend";
      last = o;
      v.offsets.insert(o);
    }
    out[page.block] = v;
  }
  if (exact) *exact = it.exact_pages_returned();
  if (lossy) *lossy = it.lossy_pages_returned();
  return out;
}

TEST(TidBitmapBudget, MatchesPostgresEntryFormula) {
  EXPECT_EQ(tbm_max_entries(4.0 * 1024 * 1024), 65536);  // work_mem = 4MB
  EXPECT_EQ(tbm_max_entries(64.0 * 1024), 1024);
  EXPECT_EQ(tbm_max_entries(100), 16);  // sanity floor
  EXPECT_EQ(tbm_max_entries(1e30), INT_MAX - 1);
}

TEST(TidBitmap, ExactBelowTheLimit) {
  TidBitmap bm(kWorkMem4MB);
  // Added out of order and with duplicates: the set semantics and the order
  // of iteration must not depend on insertion order.
  bm.add_tid({7, 3});
  bm.add_tid({2, 291});
  bm.add_tid({7, 1});
  bm.add_tid({2, 1});
  bm.add_tid({7, 3});
  bm.add_tid({100000, 42});
  EXPECT_EQ(bm.entries(), 3);
  EXPECT_EQ(bm.exact_page_count(), 3);
  EXPECT_EQ(bm.lossy_chunk_count(), 0);
  EXPECT_EQ(bm.exact_tuple_count(), 5);
  EXPECT_TRUE(bm.contains({7, 3}));
  EXPECT_FALSE(bm.contains({7, 2}));

  int64_t exact = 0, lossy = 0;
  Model got = drain(bm, &exact, &lossy);
  Model want;
  want[2] = {false, false, {1, 291}};
  want[7] = {false, false, {1, 3}};
  want[100000] = {false, false, {42}};
  EXPECT_EQ(got, want);
  EXPECT_EQ(exact, 3);
  EXPECT_EQ(lossy, 0);
}

TEST(TidBitmap, BlocksBeyondOneSegmentIterateInOrder) {
  // Blocks 2^23 and above live in a second Roaring segment.
  TidBitmap bm(kWorkMem4MB);
  bm.add_tid({(1u << 23) + 5, 9});
  bm.add_tid({(1u << 23) - 1, 291});
  bm.add_tid({0xFFFFFFFEu, 1});
  Model got = drain(bm);
  ASSERT_EQ(got.size(), 3u);
  auto it = got.begin();
  EXPECT_EQ(it->first, (1u << 23) - 1);
  EXPECT_EQ(it->second.offsets, std::set<OffsetNumber>{291});
  ++it;
  EXPECT_EQ(it->first, (1u << 23) + 5);
  EXPECT_EQ(it->second.offsets, std::set<OffsetNumber>{9});
  ++it;
  EXPECT_EQ(it->first, 0xFFFFFFFEu);
}

// One tuple on each of pages 0..65536 with work_mem 4 MB: the 65,537th entry
// exceeds 65,536 and triggers one lossify pass that must bring the entries
// down to 65,536 / 2 = 32,768. Walking pages in ascending order:
//  - chunk k (pages 256k..256k+255) loses 255 entries when it is fully lossy:
//    the first converted page removes itself and turns page 256k (exact) into
//    the chunk entry, each further page removes itself; 255 pages removed net.
//  - 128 full chunks: 65,537 - 128*255 = 32,897 entries; need 129 more, so in
//    chunk 128 the pages 32,769..32,897 go lossy (the chunk head 32,768 too).
//  lossy pages = 128*256 + 1 + 129 = 32,898; exact = 65,537 - 32,898 = 32,639;
//  chunks = 129; entries = 32,639 + 129 = 32,768.
TEST(TidBitmap, LossifiesInChunksToHalfTheBudget) {
  TidBitmap bm(kWorkMem4MB);
  ASSERT_EQ(bm.max_entries(), 65536);
  for (BlockNumber b = 0; b < 65536; ++b) bm.add_tid({b, 1});
  EXPECT_EQ(bm.entries(), 65536);
  EXPECT_EQ(bm.lossy_page_count(), 0);
  bm.add_tid({65536, 1});
  EXPECT_EQ(bm.entries(), 32768);
  EXPECT_EQ(bm.lossy_chunk_count(), 129);
  EXPECT_EQ(bm.lossy_page_count(), 32898);
  EXPECT_EQ(bm.exact_page_count(), 32639);
  EXPECT_FALSE(bm.over_budget());
  EXPECT_TRUE(bm.page_is_lossy(0));
  EXPECT_TRUE(bm.page_is_lossy(32897));
  EXPECT_FALSE(bm.page_is_lossy(32898));
  EXPECT_TRUE(bm.page_is_exact(32898));

  // A tuple on a lossy page is already covered.
  bm.add_tid({5, 7});
  EXPECT_EQ(bm.entries(), 32768);
  EXPECT_FALSE(bm.contains({5, 7}));

  int64_t exact = 0, lossy = 0;
  Model got = drain(bm, &exact, &lossy);
  EXPECT_EQ(exact, 32639);
  EXPECT_EQ(lossy, 32898);
  EXPECT_EQ(got.size(), 65537u);
  EXPECT_TRUE(got[100].lossy);
  EXPECT_TRUE(got[100].recheck);
  EXPECT_TRUE(got[100].offsets.empty());
  EXPECT_FALSE(got[40000].lossy);
  EXPECT_EQ(got[40000].offsets, std::set<OffsetNumber>{1});
}

TEST(TidBitmap, NextLossifyPassContinuesWhereThePreviousStopped) {
  // Budget of 16 entries (the floor): each pass brings entries down to 8.
  TidBitmap bm(0);
  ASSERT_EQ(bm.max_entries(), 16);
  for (BlockNumber b = 0; b < 17; ++b) bm.add_tid({b * 256 + 1, 1});  // one page per chunk
  // Pages in distinct chunks cannot be merged: converting one trades a page
  // for a chunk, so the pass cannot get below 16 and the budget is doubled.
  EXPECT_EQ(bm.entries(), 17);
  EXPECT_TRUE(bm.over_budget());
  EXPECT_EQ(bm.max_entries(), 34);
  EXPECT_EQ(bm.lossy_page_count(), 17);
}

TEST(TidBitmap, EveryAddedTupleStaysCoveredUnderPressure) {
  std::mt19937 rng(12345);
  std::uniform_int_distribution<uint32_t> block_dist(0, 20000);
  std::uniform_int_distribution<uint32_t> off_dist(1, kMaxHeapTuplesPerPage);
  TidBitmap bm(64 * 300);  // 300 entries
  std::set<Tid> added;
  for (int i = 0; i < 20000; ++i) {
    Tid t{block_dist(rng), static_cast<OffsetNumber>(off_dist(rng))};
    bm.add_tid(t);
    added.insert(t);
    ASSERT_LE(bm.entries(), bm.max_entries());
  }
  EXPECT_GT(bm.lossy_page_count(), 0);
  Model got = drain(bm);
  for (const Tid& t : added) {
    auto it = got.find(t.block);
    ASSERT_NE(it, got.end()) << t.block;
    if (!it->second.lossy) {
      EXPECT_TRUE(it->second.offsets.count(t.offset)) << t.block;
    }
  }
  // Exact pages hold nothing that was not added.
  for (const auto& [block, view] : got) {
    for (OffsetNumber o : view.offsets) EXPECT_TRUE(added.count(Tid{block, o}));
  }
}

TEST(TidBitmap, ChunkHeadPageCannotStayExact) {
  TidBitmap bm(kHugeBudget);
  bm.add_tid({512, 4});  // first page of chunk 2
  bm.add_lossy_page(513);
  // The chunk took page 512's slot: page 512 is now lossy, one entry in all.
  EXPECT_TRUE(bm.page_is_lossy(512));
  EXPECT_EQ(bm.entries(), 1);
  bm.add_tid({768, 1});  // head of chunk 3 (no chunk yet): exact
  bm.add_lossy_page(1000);
  EXPECT_TRUE(bm.page_is_lossy(768));
  bm.add_lossy_page(1100);
  bm.add_tid({1024, 2});  // head of chunk 4 whose chunk exists: lossy at once
  EXPECT_TRUE(bm.page_is_lossy(1024));
  EXPECT_EQ(bm.exact_page_count(), 0);
  EXPECT_EQ(bm.lossy_chunk_count(), 3);
}

// ---- union / intersection against a model --------------------------------

// Builds the same content into a bitmap and a model. The model applies the
// chunk-head rule: a chunk's first page is lossy whenever its chunk has a
// lossy page and the first page is present.
void normalise(Model* m) {
  std::set<BlockNumber> chunks_with_lossy;
  for (const auto& [b, v] : *m) {
    if (v.lossy) chunks_with_lossy.insert(b / kTbmPagesPerChunk);
  }
  for (auto& [b, v] : *m) {
    if (b % kTbmPagesPerChunk == 0 && chunks_with_lossy.count(b / kTbmPagesPerChunk)) {
      v = PageView{true, true, {}};
    }
  }
}

void build_random(std::mt19937& rng, TidBitmap* bm, Model* m) {
  std::uniform_int_distribution<uint32_t> block_dist(0, 1200);
  std::uniform_int_distribution<uint32_t> off_dist(1, 12);
  std::uniform_int_distribution<int> kind(0, 19);
  for (int i = 0; i < 600; ++i) {
    BlockNumber b = block_dist(rng);
    if (kind(rng) == 0) {
      bm->add_lossy_page(b);
      (*m)[b] = PageView{true, true, {}};
    } else {
      OffsetNumber o = static_cast<OffsetNumber>(off_dist(rng));
      bm->add_tid({b, o});
      PageView& v = (*m)[b];
      if (!v.lossy) v.offsets.insert(o);
    }
  }
  normalise(m);
}

Model model_union(const Model& a, const Model& b) {
  Model r = a;
  for (const auto& [blk, bv] : b) {
    auto it = r.find(blk);
    if (it == r.end()) {
      r[blk] = bv;
    } else if (it->second.lossy || bv.lossy) {
      it->second = PageView{true, true, {}};
    } else {
      it->second.offsets.insert(bv.offsets.begin(), bv.offsets.end());
      it->second.recheck = it->second.recheck || bv.recheck;
    }
  }
  normalise(&r);
  return r;
}

Model model_intersect(const Model& a, const Model& b) {
  Model r;
  for (const auto& [blk, av] : a) {
    auto it = b.find(blk);
    if (it == b.end()) continue;
    const PageView& bv = it->second;
    if (av.lossy) {
      r[blk] = av;  // lossy & anything present stays lossy
    } else if (bv.lossy) {
      r[blk] = PageView{false, true, av.offsets};
    } else {
      PageView v{false, av.recheck || bv.recheck, {}};
      for (OffsetNumber o : av.offsets) {
        if (bv.offsets.count(o)) v.offsets.insert(o);
      }
      if (!v.offsets.empty()) r[blk] = v;
    }
  }
  return r;
}

int64_t model_chunks(const Model& m) {
  std::set<BlockNumber> chunks;
  for (const auto& [b, v] : m) {
    if (v.lossy) chunks.insert(b / kTbmPagesPerChunk);
  }
  return static_cast<int64_t>(chunks.size());
}

TEST(TidBitmap, UnionMatchesModel) {
  std::mt19937 rng(7);
  for (int round = 0; round < 30; ++round) {
    TidBitmap a(kHugeBudget), b(kHugeBudget);
    Model ma, mb;
    build_random(rng, &a, &ma);
    build_random(rng, &b, &mb);
    a.union_with(b);
    Model want = model_union(ma, mb);
    EXPECT_EQ(a.lossy_chunk_count(), model_chunks(want));
    EXPECT_EQ(drain(a), want) << "round " << round;
  }
}

TEST(TidBitmap, IntersectionMatchesModel) {
  std::mt19937 rng(11);
  for (int round = 0; round < 30; ++round) {
    TidBitmap a(kHugeBudget), b(kHugeBudget);
    Model ma, mb;
    build_random(rng, &a, &ma);
    build_random(rng, &b, &mb);
    a.intersect_with(b);
    Model want = model_intersect(ma, mb);
    EXPECT_EQ(a.lossy_chunk_count(), model_chunks(want));
    EXPECT_EQ(drain(a), want) << "round " << round;
  }
}

TEST(TidBitmap, ExactOnlyTruthTablesAgainstStdSet) {
  std::mt19937 rng(99);
  std::uniform_int_distribution<uint32_t> block_dist(0, 300);
  std::uniform_int_distribution<uint32_t> off_dist(1, kMaxHeapTuplesPerPage);
  for (int round = 0; round < 20; ++round) {
    std::set<Tid> sa, sb;
    TidBitmap a1(kWorkMem4MB), b1(kWorkMem4MB), a2(kWorkMem4MB), b2(kWorkMem4MB);
    for (int i = 0; i < 2000; ++i) {
      Tid t{block_dist(rng), static_cast<OffsetNumber>(off_dist(rng))};
      (i % 2 ? sa : sb).insert(t);
      (i % 2 ? a1 : b1).add_tid(t);
      (i % 2 ? a2 : b2).add_tid(t);
    }
    a1.union_with(b1);
    a2.intersect_with(b2);
    std::set<Tid> want_or = sa, want_and;
    want_or.insert(sb.begin(), sb.end());
    for (const Tid& t : sa) {
      if (sb.count(t)) want_and.insert(t);
    }
    auto flatten = [](TidBitmap& bm) {
      std::set<Tid> s;
      for (const auto& [b, v] : drain(bm)) {
        EXPECT_FALSE(v.lossy);
        EXPECT_FALSE(v.recheck);
        for (OffsetNumber o : v.offsets) s.insert(Tid{b, o});
      }
      return s;
    };
    EXPECT_EQ(flatten(a1), want_or);
    EXPECT_EQ(flatten(a2), want_and);
  }
}

TEST(TidBitmap, UnionOverBudgetLossifies) {
  TidBitmap a(64 * 100), b(64 * 100);  // 100 entries each
  for (BlockNumber blk = 0; blk < 90; ++blk) a.add_tid({blk, 1});
  for (BlockNumber blk = 1000; blk < 1090; ++blk) b.add_tid({blk, 2});
  a.union_with(b);
  EXPECT_LE(a.entries(), 100);
  EXPECT_GT(a.lossy_page_count(), 0);
  // Nothing was lost: every page still comes back, exact or lossy.
  Model got = drain(a);
  EXPECT_EQ(got.size(), 180u);
}

TEST(TidBitmapDeathTest, AddAfterIterationStartsAborts) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  TidBitmap bm(kWorkMem4MB);
  bm.add_tid({1, 1});
  (void)bm.begin_iterate();
  EXPECT_DEATH(bm.add_tid({2, 1}), "add_tid on a bitmap that is iterating");
}

}  // namespace
}  // namespace tp
