#include "engine/storage/cancel_points.h"

#include "engine/core/interrupts.h"

namespace tp {

namespace {

std::function<void(CancelPoint)>& cancel_point_observer() {
  static std::function<void(CancelPoint)> observer;
  return observer;
}

}  // namespace

void check_cancel_at(CancelPoint point) {
  if (cancel_point_observer()) cancel_point_observer()(point);
  check_for_interrupts();
}

void set_cancel_point_observer(std::function<void(CancelPoint)> observer) {
  cancel_point_observer() = std::move(observer);
}

void check_build_cancel(btree::BuildProgress::Phase phase) {
  check_cancel_at(phase == btree::BuildProgress::Phase::kSorting ? CancelPoint::kIndexSort
                                                                 : CancelPoint::kIndexLoad);
}

}  // namespace tp
