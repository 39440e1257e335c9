// Small helpers shared by the pool's source files (not part of the API).
#pragma once

#include <chrono>
#include <cstdint>

namespace tp::bufmgr::internal {

inline uint64_t now_us() {
  return uint64_t(std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

}  // namespace tp::bufmgr::internal
