// Ctrl-C during the maintenance commands: CREATE INDEX (heap scan, sort and
// load phases), an INSERT whose indexes are rebuilt by a sorted build, and
// ANALYZE stop at their next cancel point with PostgreSQL's message and leave
// the directory as it was (no index in the catalog, no file left in base/).
#include <gtest/gtest.h>

#include <filesystem>

#include "engine/btree/btree_build.h"
#include "engine/btree/mem_page_store.h"
#include "engine/core/interrupts.h"
#include "engine/storage/cancel_points.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::error_of;
using testing::options_for;
using testing::scalar;
using testing::TempDir;

constexpr const char* kCancelMessage = "canceling statement due to user request";

size_t files_in(const std::string& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

// Sets cancel_requested() at the `nth` poll of `point` (1-based) and counts polls.
class CancelAt {
 public:
  CancelAt(CancelPoint point, int nth) {
    set_cancel_point_observer([this, point, nth](CancelPoint p) {
      if (p != point) return;
      if (++seen_ == nth) cancel_requested().store(true);
    });
  }
  ~CancelAt() { set_cancel_point_observer({}); }
  int seen() const { return seen_; }

 private:
  int seen_ = 0;
};

class CancelTest : public ::testing::Test {
 protected:
  // 70,000 rows: more than one btree::kInterruptInterval of sort comparisons and
  // of loaded tuples, so each phase polls inside its loop, not only at its start.
  void SetUp() override {
    s_ = std::make_unique<Session>(options_for(dir_.data()));
    s_->execute("CREATE TABLE t (a int, b int)");
    s_->execute("INSERT INTO t SELECT g, 70001 - g FROM generate_series(1, 70000) g");
    files_before_ = files_in(dir_.data() + "/base");
  }

  // The cancelled statement left nothing: same files, no index, rows intact;
  // and the same statement then succeeds and verifies.
  void expect_rolled_back() {
    EXPECT_FALSE(cancel_requested().load());  // one request, one error
    EXPECT_EQ(s_->catalog().find("t_a"), nullptr);
    EXPECT_EQ(files_in(dir_.data() + "/base"), files_before_);
    EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM t"), "70000");
    s_.reset();  // reopen: the committed state is what the next process sees
    s_ = std::make_unique<Session>(options_for(dir_.data()));
    EXPECT_EQ(s_->catalog().find("t_a"), nullptr);
    EXPECT_EQ(files_in(dir_.data() + "/base"), files_before_);
    s_->execute("CREATE INDEX t_a ON t (a)");
    EXPECT_EQ(scalar(*s_, "SELECT tp_verify('t_a')").rfind("index \"t_a\" is valid", 0), 0u);
  }

  TempDir dir_;
  std::unique_ptr<Session> s_;
  size_t files_before_ = 0;
};

TEST_F(CancelTest, CreateIndexDuringHeapScan) {
  CancelAt at(CancelPoint::kIndexScan, 3);
  EXPECT_EQ(error_of(*s_, "CREATE INDEX t_a ON t (a)"), kCancelMessage);
  EXPECT_EQ(at.seen(), 3);  // stopped at the page it was asked to
  expect_rolled_back();
}

TEST_F(CancelTest, CreateIndexInsideTheSort) {
  // The first poll is at the start of the sort; the second is inside std::sort.
  CancelAt at(CancelPoint::kIndexSort, 2);
  EXPECT_EQ(error_of(*s_, "CREATE INDEX t_a ON t (a)"), kCancelMessage);
  EXPECT_EQ(at.seen(), 2);
  expect_rolled_back();
}

TEST_F(CancelTest, CreateIndexInsideTheLoad) {
  CancelAt at(CancelPoint::kIndexLoad, 1);  // after 65,536 tuples, leaf pages already written
  EXPECT_EQ(error_of(*s_, "CREATE INDEX t_a ON t (a)"), kCancelMessage);
  EXPECT_EQ(at.seen(), 1);
  expect_rolled_back();
}

TEST_F(CancelTest, UniqueIndexBuild) {
  CancelAt at(CancelPoint::kIndexLoad, 1);
  EXPECT_EQ(error_of(*s_, "CREATE UNIQUE INDEX t_a ON t (a)"), kCancelMessage);
  expect_rolled_back();
}

// INSERT into a table whose index is empty rebuilds the index by a sorted
// build at the end: cancelling that build rolls back the rows too.
TEST_F(CancelTest, InsertWhoseIndexIsRebuiltBySortedBuild) {
  s_->execute("CREATE TABLE u (a int)");
  s_->execute("CREATE INDEX u_a ON u (a)");
  size_t files = files_in(dir_.data() + "/base");
  CancelAt at(CancelPoint::kIndexSort, 2);
  EXPECT_EQ(error_of(*s_, "INSERT INTO u SELECT g FROM generate_series(1, 70000) g"),
            kCancelMessage);
  EXPECT_EQ(scalar(*s_, "SELECT count(*) FROM u"), "0");
  EXPECT_EQ(files_in(dir_.data() + "/base"), files);
  EXPECT_EQ(s_->catalog().find("u_a")->rows, 0u);
  EXPECT_EQ(scalar(*s_, "SELECT tp_verify('u_a')").rfind("index \"u_a\" is valid", 0), 0u);
}

TEST_F(CancelTest, AnalyzeKeepsTheOldStatistics) {
  CancelAt at(CancelPoint::kAnalyzeBlock, 5);
  EXPECT_EQ(error_of(*s_, "ANALYZE t"), kCancelMessage);
  EXPECT_EQ(at.seen(), 5);
  EXPECT_TRUE(s_->catalog().find("t")->stats.empty());
  EXPECT_FALSE(cancel_requested().load());
  s_->execute("ANALYZE t");
  EXPECT_FALSE(s_->catalog().find("t")->stats.empty());
}

// The polls cost a relaxed load and cancel nothing when no Ctrl-C came.
TEST_F(CancelTest, PollsCancelNothingWithoutARequest) {
  CancelAt at(CancelPoint::kIndexLoad, 1000);
  s_->execute("CREATE INDEX t_a ON t (a)");
  EXPECT_EQ(at.seen(), 1);  // 70,000 tuples: one poll inside the load
  EXPECT_NE(s_->catalog().find("t_a"), nullptr);
}

// The builder itself: an interrupt that throws inside the sort or the load
// leaves it Failed, and the exception reaches the caller unchanged.
TEST(BuilderInterrupt, ThrowFromSortOrLoadFailsTheBuild) {
  for (auto phase :
       {btree::BuildProgress::Phase::kSorting, btree::BuildProgress::Phase::kLoading}) {
    SCOPED_TRACE(btree::build_phase_name(phase));
    btree::MemPageStore store("i");
    btree::IndexDef def{"i", {{"a", btree::KeyType::kInt4}}, false};
    btree::BTreeBuilder builder(store, def);
    for (int i = 0; i < 100000; ++i) {
      btree::KeyValues key;
      key.push((i * 7919) % 100000);
      builder.add(key, Tid{BlockNumber(i / 100), OffsetNumber(i % 100 + 1)});
    }
    // The sort's first poll is at its start, the second inside std::sort; the
    // load's first is after kInterruptInterval tuples.
    const int nth = phase == btree::BuildProgress::Phase::kSorting ? 2 : 1;
    int calls = 0;
    auto interrupt = [&](btree::BuildProgress::Phase p) {
      if (p == phase && ++calls == nth) throw Error(kCancelMessage);
    };
    try {
      builder.finish({}, interrupt);
      ADD_FAILURE() << "the build was not interrupted";
    } catch (const Error& e) {
      EXPECT_STREQ(e.what(), kCancelMessage);
    }
    EXPECT_EQ(calls, nth);
    EXPECT_EQ(builder.state(), btree::BuilderState::kFailed);
    if (phase == btree::BuildProgress::Phase::kSorting) {
      EXPECT_EQ(store.nblocks(), 0u);  // nothing written before the sort ends
    }
  }
}

}  // namespace
}  // namespace tp
