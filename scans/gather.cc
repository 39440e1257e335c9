#include "scans/gather.h"

namespace tp::scans {

void GatherNode::do_open() {
  group_.start();
  leader_done_ = false;
  leader_runs_ = group_.leader_runs();
  if (leader_runs_) {
    try {
      group_.leader_copy().open();
    } catch (...) {
      group_.stop();
      throw;
    }
  }
}

const RowBatch* GatherNode::do_next() {
  for (;;) {
    if (group_.try_take_any(current_)) return &current_;
    group_.rethrow_error();
    if (leader_runs_ && !leader_done_) {
      const RowBatch* b = nullptr;
      try {
        b = group_.leader_copy().next();
      } catch (...) {
        group_.stop();
        throw;
      }
      if (b) return b;
      leader_done_ = true;
      continue;
    }
    if (!group_.wait_any()) {
      group_.stop();  // every worker has ended: join them and collect their figures
      return nullptr;
    }
  }
}

}  // namespace tp::scans
