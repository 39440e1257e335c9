// Materialize beyond its memory bound with a temporary file space (scans/materialize.h):
// rows of long and short texts, numerics and NULLs replayed identically, in order, on
// every rescan (also after a first pass cut short); the spill file exists while the node
// runs and is gone when the node goes, after an error or a cancel thrown through it,
// after a full disk and after a changed-parameter rescan; a Nested Loop over a spilling
// Materialize matches the brute-force join.
#include <gmock/gmock.h>

#include <filesystem>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "aio/temp_file.h"
#include "engine/core/error.h"
#include "engine/core/interrupts.h"
#include "scans/materialize.h"
#include "scans/nest_loop.h"
#include "tests/scans/join_test_rows.h"

namespace tp {
namespace {

using namespace join_test;  // NOLINT(google-build-using-namespace): the shared helpers
namespace stdfs = std::filesystem;

constexpr uint64_t kTiny = 2 * 1024;  // a few dozen rows

class MaterializeSpill : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tp_materialize_spill.XXXXXX";
    root_ = ::mkdtemp(tmpl);
    space_ = std::make_unique<aio::TempFileSpace>(root_ + "/pgsql_tmp");
  }
  void TearDown() override {
    space_.reset();
    stdfs::remove_all(root_);
  }
  size_t files() const {
    const std::string dir = space_->directory();
    if (!stdfs::exists(dir)) return 0;
    return size_t(std::distance(stdfs::directory_iterator(dir), stdfs::directory_iterator()));
  }

  std::string root_;
  std::unique_ptr<aio::TempFileSpace> space_;
};

// Rows with NULLs, short texts and texts past 126 bytes (4-byte varlena headers).
std::vector<TRow> spill_rows(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  auto rows = random_rows(rng, n, 50);
  for (size_t i = 0; i < rows.size(); i += 7)
    if (rows[i].t) *rows[i].t += std::string(130 + i % 300, char('A' + i % 26));
  return rows;
}

// A child whose `throw_at`th batch throws a cancel (as a node below it would).
class CancellingRowsNode final : public RowsNode {
 public:
  CancellingRowsNode(std::vector<TRow> rows, uint32_t batch, int throw_at)
      : RowsNode(std::move(rows), batch), throw_at_(throw_at) {}

 protected:
  const scans::RowBatch* do_next() override {
    if (++calls_ == throw_at_) throw QueryCanceled();
    return RowsNode::do_next();
  }

 private:
  int throw_at_;
  int calls_ = 0;
};

TEST_F(MaterializeSpill, ReplaysIdenticalRowsOnEveryRescan) {
  const auto rows = spill_rows(3000, 1);
  scans::MaterializeNode reference(std::make_unique<RowsNode>(rows, 7), kBig);
  const auto expected = drain_in_order(reference);
  ASSERT_EQ(expected.size(), rows.size());

  auto child = std::make_unique<RowsNode>(rows, 7);
  RowsNode* c = child.get();
  scans::MaterializeNode mat(std::move(child), kTiny, nullptr, space_.get());
  EXPECT_EQ(drain_in_order(mat), expected);
  ASSERT_NE(mat.spill_file(), nullptr);
  EXPECT_TRUE(stdfs::exists(mat.spill_file()->path()));
  EXPECT_EQ(files(), 1u);
  EXPECT_GT(mat.spilled_rows(), 2500u);            // all but a tail
  EXPECT_LE(mat.peak_bytes(), kTiny + 64 * 1024);  // memory stays near the bound
  EXPECT_GT(space_->bytes_held(), 100u * 1024);
  for (int loop = 0; loop < 4; ++loop) {
    mat.rescan();
    EXPECT_EQ(drain_in_order(mat, false), expected) << "rescan " << loop;
  }
  EXPECT_EQ(c->opens, 1);  // replays never reread the child
  EXPECT_EQ(mat.instr.rows, 5u * rows.size());
}

TEST_F(MaterializeSpill, AFirstPassCutShortReplaysThenReadsOnFromTheChild) {
  const auto rows = spill_rows(2000, 2);
  scans::MaterializeNode reference(std::make_unique<RowsNode>(rows, 5), kBig);
  const auto expected = drain_in_order(reference);
  auto child = std::make_unique<RowsNode>(rows, 5);
  RowsNode* c = child.get();
  scans::MaterializeNode mat(std::move(child), kTiny, nullptr, space_.get());
  mat.open();
  for (int i = 0; i < 100; ++i) ASSERT_NE(mat.next(), nullptr);  // 500 rows: spilled
  ASSERT_NE(mat.spill_file(), nullptr);
  mat.rescan();
  mat.row_limit_hint = 3;  // a Limit above: small replayed batches
  for (int i = 0; i < 10; ++i) ASSERT_LE(mat.next()->count, 3u);
  mat.row_limit_hint = UINT64_MAX;
  mat.rescan();
  EXPECT_EQ(drain_in_order(mat, false), expected);
  mat.rescan();
  EXPECT_EQ(drain_in_order(mat, false), expected);
  EXPECT_EQ(c->opens, 1);
}

TEST_F(MaterializeSpill, TheFileGoesWithTheNode) {
  std::string path;
  {
    scans::MaterializeNode mat(std::make_unique<RowsNode>(spill_rows(1000, 3), 8), kTiny, nullptr,
                               space_.get());
    drain_in_order(mat);
    ASSERT_NE(mat.spill_file(), nullptr);
    path = mat.spill_file()->path();
    EXPECT_TRUE(stdfs::exists(path));
  }
  EXPECT_FALSE(stdfs::exists(path));
  EXPECT_EQ(files(), 0u);
  EXPECT_EQ(space_->bytes_held(), 0u);
}

TEST_F(MaterializeSpill, ACancelRemovesTheFile) {
  // Thrown by a node below, through the Materialize: the file goes at once.
  scans::MaterializeNode mat(std::make_unique<CancellingRowsNode>(spill_rows(1000, 4), 8, 60),
                             kTiny, nullptr, space_.get());
  mat.open();
  bool spilled = false;
  EXPECT_THROW(
      {
        while (mat.next()) spilled = spilled || mat.spill_file() != nullptr;
      },
      QueryCanceled);
  EXPECT_TRUE(spilled);
  EXPECT_EQ(mat.spill_file(), nullptr);
  EXPECT_EQ(files(), 0u);
  // Ctrl-C seen by the Materialize's own poll: the statement's end destroys the plan.
  std::atomic<bool> cancel{false};
  StatementCancelScope scope(cancel);
  {
    auto child = std::make_unique<RowsNode>(spill_rows(1000, 5), 8);
    child->cancel_at_end = &cancel;
    scans::MaterializeNode m2(std::move(child), kTiny, nullptr, space_.get());
    EXPECT_THROW(drain_in_order(m2), QueryCanceled);
    EXPECT_EQ(files(), 1u);
  }
  EXPECT_EQ(files(), 0u);
}

TEST_F(MaterializeSpill, AFullDiskIsDiskFullAndLeavesNoFile) {
  space_->fail_writes_for_testing(ENOSPC, 20 * 1024);
  scans::MaterializeNode mat(std::make_unique<RowsNode>(spill_rows(1000, 6), 8), kTiny, nullptr,
                             space_.get());
  try {
    drain_in_order(mat);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.sqlstate(), sqlstate::kDiskFull);
    EXPECT_THAT(e.what(), ::testing::HasSubstr("No space left on device"));
  }
  EXPECT_EQ(files(), 0u);
  EXPECT_EQ(space_->bytes_held(), 0u);
}

TEST_F(MaterializeSpill, ChangedParametersDropTheFile) {
  const auto rows = spill_rows(1500, 7);
  scans::ExecParams params({TypeId::kInt4});
  params.set(0, Datum(3), false);
  scans::MaterializeNode mat(std::make_unique<RowsNode>(rows, 8), kTiny, &params, space_.get());
  const auto first = drain_in_order(mat);
  ASSERT_NE(mat.spill_file(), nullptr);
  const std::string path = mat.spill_file()->path();
  params.set(0, Datum(4), false);
  mat.rescan();
  EXPECT_FALSE(stdfs::exists(path));  // the rows are read again, into a new file
  EXPECT_EQ(drain_in_order(mat, false), first);
  EXPECT_EQ(files(), 1u);
}

TEST_F(MaterializeSpill, NestLoopOverASpillingMaterializeMatchesBruteForce) {
  for (uint32_t seed = 1; seed <= 3; ++seed) {
    std::mt19937 rng(seed);
    const auto outer = random_rows(rng, 60, 15), inner = random_rows(rng, 400, 15);
    for (JoinType type : {JoinType::kInner, JoinType::kLeft, JoinType::kSemi, JoinType::kAnti}) {
      SCOPED_TRACE("seed " + std::to_string(seed) + " type " + std::to_string(int(type)));
      const scans::JoinSpec spec = spec_for(type, key_and_n_filter());
      auto mat = std::make_unique<scans::MaterializeNode>(std::make_unique<RowsNode>(inner, 5),
                                                          kTiny, nullptr, space_.get());
      const scans::MaterializeNode* m = mat.get();
      scans::NestLoopNode nl(std::make_unique<RowsNode>(outer, 7), std::move(mat), spec);
      EXPECT_EQ(drain(nl), brute_force(outer, inner, spec, true));
      EXPECT_GT(m->spilled_rows(), 0u);
      EXPECT_GT(m->instr.loops, 1u);
    }
    EXPECT_EQ(files(), 0u);
  }
}

TEST_F(MaterializeSpill, WithoutASpaceTheBoundStaysAnError) {
  scans::MaterializeNode mat(std::make_unique<RowsNode>(spill_rows(500, 8), 8), kTiny);
  EXPECT_THROW(drain_in_order(mat), Error);
  EXPECT_EQ(files(), 0u);
}

}  // namespace
}  // namespace tp
