#include "engine/sql/params.h"

namespace tp::sql {

namespace {

StatementParams*& current() {
  thread_local StatementParams* params = nullptr;
  return params;
}

}  // namespace

const ParamSlot* StatementParams::slot(int n) {
  if (n < 1 || n > kMaxParams) return nullptr;
  if (size_t(n) > slots_.size()) {
    if (!describing_) return nullptr;
    slots_.resize(size_t(n));
  }
  return &slots_[size_t(n) - 1];
}

void StatementParams::infer(int n, TypeId type) {
  if (n < 1 || size_t(n) > slots_.size()) return;
  ParamSlot& s = slots_[size_t(n) - 1];
  if (!s.type) s.type = type;
}

StatementParams* current_params() {
  return current();
}

void ScopedParams::set(StatementParams* params) {
  current() = params;
}

}  // namespace tp::sql
