// ANALYZE's first stage after PostgreSQL 15's analyze.c (acquire_sample_rows) and
// sampling.c (BlockSampler, reservoir sampling), with PostgreSQL's PRNG so the
// algorithms draw alike.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine/core/error.h"
#include "engine/plan/statistics.h"

namespace tp {

namespace {

// ---- random numbers: pg_prng (xoroshiro128**, seeded through splitmix64) ----

class PgPrng {
 public:
  explicit PgPrng(uint64_t seed) {
    s0_ = splitmix64(&seed);
    s1_ = splitmix64(&seed);
    if (s0_ == 0 && s1_ == 0) {  // xoroshiro must not start all-zero
      s0_ = 1;
      s1_ = 1;
    }
  }

  // A double in [0, 1) with 52 random bits.
  double next_double() { return std::ldexp(static_cast<double>(next() >> 12), -52); }

  // sampler_random_fract: (0, 1); zero is rejected because callers take logs.
  double random_fract() {
    double r;
    do {
      r = next_double();
    } while (r == 0.0);
    return r;
  }

 private:
  static uint64_t rotl(uint64_t x, int bits) { return (x << bits) | (x >> (64 - bits)); }
  static uint64_t splitmix64(uint64_t* state) {
    uint64_t v = (*state += 0x9E3779B97F4A7C15ull);
    v = (v ^ (v >> 30)) * 0xBF58476D1CE4E5B9ull;
    v = (v ^ (v >> 27)) * 0x94D049BB133111EBull;
    return v ^ (v >> 31);
  }
  uint64_t next() {
    const uint64_t s0 = s0_;
    const uint64_t sx = s1_ ^ s0;
    const uint64_t val = rotl(s0 * 5, 7) * 9;
    s0_ = rotl(s0, 24) ^ sx ^ (sx << 16);
    s1_ = rotl(sx, 37);
    return val;
  }
  uint64_t s0_;
  uint64_t s1_;
};

// ---- stage one: Knuth's Algorithm S over block numbers ----

class BlockSampler {
 public:
  BlockSampler(BlockNumber total_blocks, int sample_size, uint32_t seed)
      : N_(total_blocks), n_(sample_size), rng_(seed) {}
  bool has_more() const { return t_ < N_ && m_ < static_cast<BlockNumber>(n_); }
  BlockNumber blocks_selected() const { return m_; }

  // Selects each remaining block with probability k/K (k still to pick, K
  // still to see), drawing one random number per selected block: while the
  // draw says "skip", the same draw is rescaled against the next block.
  BlockNumber next() {
    BlockNumber K = N_ - t_;
    const int k = n_ - static_cast<int>(m_);
    if (static_cast<BlockNumber>(k) >= K) {
      ++m_;
      return t_++;
    }
    const double V = rng_.random_fract();
    double p = 1.0 - static_cast<double>(k) / static_cast<double>(K);
    while (V < p) {
      ++t_;
      --K;
      p *= 1.0 - static_cast<double>(k) / static_cast<double>(K);
    }
    ++m_;
    return t_++;
  }

 private:
  BlockNumber N_;
  int n_;
  BlockNumber t_ = 0;  // blocks seen
  BlockNumber m_ = 0;  // blocks selected
  PgPrng rng_;
};

// ---- stage two: Vitter's reservoir sampling (Algorithm X, then Z) ----

class Reservoir {
 public:
  Reservoir(int n, uint32_t seed) : rng_(seed), n_(n) {
    W_ = std::exp(-std::log(rng_.random_fract()) / n_);
  }
  PgPrng& rng() { return rng_; }

  // How many records to skip before the next one replaces a reservoir slot,
  // `t` records having been seen so far.
  double next_skip(double t) {
    const double n = n_;
    double S;
    if (t <= 22.0 * n) {
      // Algorithm X: walk the skip distribution until it exceeds one draw.
      const double V = rng_.random_fract();
      S = 0;
      t += 1;
      double quot = (t - n) / t;
      while (quot > V) {
        S += 1;
        t += 1;
        quot *= (t - n) / t;
      }
      return S;
    }
    // Algorithm Z: rejection sampling against a continuous envelope.
    double W = W_;
    const double term = t - n + 1;
    for (;;) {
      const double U = rng_.random_fract();
      const double X = t * (W - 1.0);
      S = std::floor(X);
      double tmp = (t + 1) / term;
      const double lhs = std::exp(std::log(((U * tmp * tmp) * (term + S)) / (t + X)) / n);
      const double rhs = (((t + X) / (term + S)) * term) / t;
      if (lhs <= rhs) {
        W = rhs / lhs;
        break;
      }
      double y = (((U * (t + 1)) / term) * (t + S + 1)) / (t + X);
      double denom, numer_lim;
      if (n < S) {
        denom = t;
        numer_lim = term + S;
      } else {
        denom = t - n + S;
        numer_lim = t + 1;
      }
      for (double numer = t + S; numer >= numer_lim; numer -= 1) {
        y *= numer / denom;
        denom -= 1;
      }
      W = std::exp(-std::log(rng_.random_fract()) / n);
      if (std::exp(std::log(y) / n) <= (t + X) / t) break;
    }
    W_ = W;
    return S;
  }

 private:
  PgPrng rng_;
  int n_;
  double W_;
};

struct PositionedRow {
  BlockNumber block;
  uint32_t index;  // position within the block
  StatsRow row;
  std::unique_ptr<char[]> bytes;  // the row's by-reference values
};

// Points `row`'s by-reference values at copies of their bytes, returned.
std::unique_ptr<char[]> own_values(StatsRow& row, std::span<const int16_t> ref_lens) {
  const auto size_of = [&](size_t c) -> size_t {
    const char* p = datum_pointer(*row[c]);
    return ref_lens[c] < 0 ? varlena_size(p) : size_t(ref_lens[c]);
  };
  size_t total = 0;
  for (size_t c = 0; c < ref_lens.size(); ++c)
    if (ref_lens[c] != 0 && row[c]) total += (size_of(c) + 7) & ~size_t(7);
  if (total == 0) return nullptr;
  auto bytes = std::make_unique<char[]>(total);
  size_t at = 0;
  for (size_t c = 0; c < ref_lens.size(); ++c) {
    if (ref_lens[c] == 0 || !row[c]) continue;
    const size_t n = size_of(c);
    std::memcpy(bytes.get() + at, datum_pointer(*row[c]), n);
    row[c] = pointer_datum(bytes.get() + at);
    at += (n + 7) & ~size_t(7);
  }
  return bytes;
}

uint32_t low32(uint64_t v) {
  return static_cast<uint32_t>(v);
}
uint32_t high32(uint64_t v) {
  return static_cast<uint32_t>(v >> 32);
}

}  // namespace

namespace {

uint32_t block_sampler_seed(uint64_t seed) {
  return low32(seed ^ 0x5deece66dull);
}

}  // namespace

std::vector<BlockNumber> sample_blocks(BlockNumber total_blocks, int target_rows, uint64_t seed) {
  TP_ASSERT(target_rows > 0);
  BlockSampler blocks(total_blocks, target_rows, block_sampler_seed(seed));
  std::vector<BlockNumber> out;
  out.reserve(std::min<size_t>(total_blocks, size_t(target_rows)));
  while (blocks.has_more()) out.push_back(blocks.next());
  return out;
}

RowSample acquire_sample_rows(BlockNumber total_blocks, int target_rows, uint64_t seed,
                              BlockRows& source, std::span<const int16_t> ref_lens) {
  TP_ASSERT(target_rows > 0);
  BlockSampler blocks(total_blocks, target_rows, block_sampler_seed(seed));
  Reservoir reservoir(target_rows, high32(seed * 0x9E3779B97F4A7C15ull) ^ low32(seed));
  std::vector<PositionedRow> sample;
  sample.reserve(static_cast<size_t>(std::min<double>(target_rows, 1e6)));
  double samplerows = 0;  // rows seen in sampled blocks (Vitter's t)
  double rowstoskip = -1;
  // The row `i` of `block` taken into the sample, its values its own.
  const auto take = [&](BlockNumber block, uint32_t i) {
    PositionedRow r{block, i, {}, nullptr};
    source.row(i, r.row);
    if (!ref_lens.empty()) r.bytes = own_values(r.row, ref_lens);
    return r;
  };

  while (blocks.has_more()) {
    const BlockNumber block = blocks.next();
    const size_t nrows = source.open(block);
    for (uint32_t i = 0; i < nrows; ++i) {
      if (static_cast<int>(sample.size()) < target_rows) {
        sample.push_back(take(block, i));
      } else {
        if (rowstoskip < 0) rowstoskip = reservoir.next_skip(samplerows);
        if (rowstoskip <= 0) {
          // Keep this row in place of a random one.
          const int k = static_cast<int>(target_rows * reservoir.rng().random_fract());
          TP_ASSERT(k >= 0 && k < target_rows);
          sample[k] = take(block, i);
        }
        rowstoskip -= 1;
      }
      samplerows += 1;
    }
  }
  if (static_cast<int>(sample.size()) == target_rows) {
    std::sort(sample.begin(), sample.end(), [](const PositionedRow& a, const PositionedRow& b) {
      return a.block != b.block ? a.block < b.block : a.index < b.index;
    });
  }

  RowSample out;
  out.sampled_blocks = blocks.blocks_selected();
  out.live_rows_seen = samplerows;
  // Extrapolate assuming unsampled blocks are as dense as sampled ones.
  out.total_rows = out.sampled_blocks > 0
                       ? std::floor((samplerows / out.sampled_blocks) * total_blocks + 0.5)
                       : 0.0;
  out.rows.reserve(sample.size());
  for (PositionedRow& r : sample) {
    out.rows.push_back(std::move(r.row));
    if (r.bytes) out.bytes.push_back(std::move(r.bytes));
  }
  return out;
}

RowSample acquire_sample_rows(BlockNumber total_blocks, int target_rows, uint64_t seed,
                              const BlockRowsFn& rows_of_block) {
  ListedBlockRows source(rows_of_block);
  return acquire_sample_rows(total_blocks, target_rows, seed, source);
}

}  // namespace tp
