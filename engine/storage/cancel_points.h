// Where the maintenance commands (CREATE INDEX, ANALYZE, an INSERT's index builds)
// poll for Ctrl-C, with a hook for tests to act at a chosen point.
#pragma once

#include <functional>

#include "engine/btree/btree_build.h"

namespace tp {

// Where the maintenance commands poll for Ctrl-C (check_for_interrupts()):
// CREATE INDEX once per heap page it reads, every btree::kInterruptInterval
// comparisons of its sort and tuples of its load; ANALYZE once per sampled page.
// A cancel throws, and the statement's rollback removes the half-built file.
enum class CancelPoint { kIndexScan, kIndexSort, kIndexLoad, kAnalyzeBlock };
// Polls at `point`: the test observer first (if any), then check_for_interrupts().
void check_cancel_at(CancelPoint point);
// For tests: `observer` runs at every poll, before it, so a test can set
// cancel_requested() at a chosen point of a build. Set it between statements.
void set_cancel_point_observer(std::function<void(CancelPoint)> observer);

// The B-tree builder's interrupt callback: its sort and load phases poll here.
void check_build_cancel(btree::BuildProgress::Phase phase);

}  // namespace tp
