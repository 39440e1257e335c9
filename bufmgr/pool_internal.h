// Small helpers shared by the pool's source files (not part of the API).
#pragma once

#include <chrono>
#include <cstdint>

#include "aio/aio.h"
#include "bufmgr/private_pins.h"

namespace tp::bufmgr::internal {

inline aio::IoContextTag aio_context(IoContext c) {
  switch (c) {
    case IoContext::kNormal:
      return aio::IoContextTag::kNormal;
    case IoContext::kBulkRead:
      return aio::IoContextTag::kBulkRead;
    case IoContext::kBulkWrite:
      return aio::IoContextTag::kBulkWrite;
  }
  return aio::IoContextTag::kNormal;
}

inline uint64_t now_us() {
  return uint64_t(std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

}  // namespace tp::bufmgr::internal
