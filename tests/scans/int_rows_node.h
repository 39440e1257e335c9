// A leaf node for the scans tests: integer rows given in the test, returned in batches
// of a chosen size (kNullSlot marks a NULL slot), as a scan below the node under test
// would return them.
//
//   auto rows = std::make_unique<test_rows::IntRowsNode>(rows, 7);   // 7 rows a batch
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "scans/exec_node.h"

namespace tp::test_rows {

inline constexpr int64_t kNullSlot = std::numeric_limits<int64_t>::min();

class IntRowsNode final : public scans::ExecNode {
 public:
  IntRowsNode(std::vector<std::vector<int64_t>> rows, uint32_t batch)
      : rows_(std::move(rows)), batch_rows_(batch) {}
  std::string explain_name() const override { return "Rows"; }
  void explain_details(std::vector<std::string>&, bool) const override {}

 protected:
  void do_open() override { at_ = 0; }
  const scans::RowBatch* do_next() override {
    if (at_ >= rows_.size()) return nullptr;
    const auto width = uint32_t(rows_[0].size());
    const auto n = uint32_t(std::min<size_t>(batch_rows_, rows_.size() - at_));
    batch_.reset(width, n);
    for (uint32_t i = 0; i < n; ++i)
      for (uint32_t s = 0; s < width; ++s) {
        const int64_t v = rows_[at_ + i][s];
        batch_.row(i)[s] = Datum(v == kNullSlot ? 0 : v);
        if (v == kNullSlot) batch_.set_null(i, s);
      }
    batch_.count = n;
    at_ += n;
    return &batch_;
  }

 private:
  std::vector<std::vector<int64_t>> rows_;
  uint32_t batch_rows_;
  size_t at_ = 0;
  scans::RowBatch batch_;
};

}  // namespace tp::test_rows
