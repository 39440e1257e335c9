// The session's random number generator, xoshiro256** seeded through splitmix64:
// random() and ORDER BY random() draw from it; setseed() and SET random_seed reseed
// it, so one seed gives one table.
#pragma once

#include <cstdint>

namespace tp {

class Random {
 public:
  explicit Random(uint64_t seed = 0) { seed_with(seed); }
  void seed_with(uint64_t seed);
  uint64_t next_u64();
  double next_double() { return double(next_u64() >> 11) * 0x1.0p-53; }  // [0, 1)
  uint64_t below(uint64_t n);                                            // uniform in [0, n)

 private:
  uint64_t s_[4];
};

}  // namespace tp
