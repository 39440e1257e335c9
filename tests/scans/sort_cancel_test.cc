// Issue 29: a cancel reaches a sort while it sorts. The executor checks for a cancel
// once per batch, but a Sort compares for seconds after its last input batch; it now
// checks every 65,536 comparisons. Here the input's end sets the statement's cancel
// flag, so only a check inside the sort can stop it before it returns its first batch.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>

#include "engine/core/interrupts.h"
#include "scans/sort_limit_agg.h"

namespace tp {
namespace {

// 200,000 one-slot rows in descending order; at its end it cancels the statement.
class CancelAtEndNode final : public scans::ExecNode {
 public:
  explicit CancelAtEndNode(std::atomic<bool>& flag) : flag_(flag) {}
  std::string explain_name() const override { return "Rows"; }
  void explain_details(std::vector<std::string>&, bool) const override {}

 protected:
  void do_open() override { at_ = 0; }
  const scans::RowBatch* do_next() override {
    if (at_ >= kRows) {
      flag_.store(true);
      return nullptr;
    }
    const uint32_t n = uint32_t(std::min<int64_t>(1024, kRows - at_));
    batch_.reset(1, n);
    for (uint32_t i = 0; i < n; ++i) batch_.row(i)[0] = kRows - (at_ + i);
    batch_.count = n;
    at_ += n;
    return &batch_;
  }

 private:
  static constexpr int64_t kRows = 200000;
  std::atomic<bool>& flag_;
  int64_t at_ = 0;
  scans::RowBatch batch_;
};

TEST(SortCancel, ASortStopsOnACancelThatCameAfterItsLastInputBatch) {
  std::atomic<bool> cancel{false};
  StatementCancelScope scope(cancel);
  scans::SortNode sort(std::make_unique<CancelAtEndNode>(cancel), {{0, false}}, "a", 0,
                       uint64_t(1) << 30);
  sort.open();
  EXPECT_THROW(sort.next(), QueryCanceled);
}

TEST(SortCancel, WithoutACancelTheSameSortReturnsItsRowsInOrder) {
  std::atomic<bool> cancel{false};
  StatementCancelScope scope(cancel);
  std::atomic<bool> unused{false};
  scans::SortNode sort(std::make_unique<CancelAtEndNode>(unused), {{0, false}}, "a", 0,
                       uint64_t(1) << 30);
  sort.open();
  const scans::RowBatch* b = sort.next();
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->row(0)[0], 1);
  EXPECT_EQ(b->row(1)[0], 2);
}

}  // namespace
}  // namespace tp
