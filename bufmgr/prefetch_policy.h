// PrefetchPolicy: the decisions a read stream makes about reading ahead, behind one
// small interface, so that a prefetching idea is one class in one file.
//
// The stream owns the mechanics (pins, the pin budget, combining, reads in flight,
// pause); the policy owns the numbers: the look-ahead distance in buffers at the
// start, after each read is started, after each hit, after each read is consumed,
// and, for index scans, when the stream starts at all and where it restarts when the
// scan is run again for a new key (a Nested Loop's inner side). Every hook returns the new
// distance; the stream clamps it to [1, max_pinned], so a policy never needs to.
//
//   class MyPolicy final : public PrefetchPolicy {
//    public:
//     const char* name() const override { return "mine"; }
//     int on_read_consumed(int distance, bool waited) override {
//       return waited ? distance + 8 : distance;
//     }
//   };
//
// A policy instance belongs to one stream (and its thread), or to one index scan whose
// stream borrows it (ReadStreamConfig::policy_instance), so that what it learnt lasts
// through rescans; hooks are called on the stream's own path, once per block or read,
// so they must not allocate or block.
// The registry (bufmgr/policies/registry.cc) maps names to factories; the session's
// `prefetch_policy` setting picks one. bufmgr/README.md, "Try your own prefetch idea",
// walks through adding one.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tp::bufmgr {

// What the stream allows, known when it starts (and again at each reset).
struct PrefetchLimits {
  int max_pinned = 1;         // the distance is clamped to [1, max_pinned]
  int max_ios = 1;            // reads in flight at most (eic clamped to the thread's handles)
  int io_combine_limit = 16;  // most blocks per read
  bool synchronous = false;   // effective_io_concurrency 0: each read completes at once
};

// What an index scan knows when it asks whether to start its stream.
struct IndexStartInfo {
  int block_switches = 0;  // heap blocks it moved to so far (reads and hits)
  int heap_reads = 0;      // of those, blocks it had to read from the file
  uint64_t rescans = 0;    // times the scan was started again (0: its first run)
};

// What an index scan's last run did, told to the policy when the scan starts again for
// a new key (the inner side of a Nested Loop, once per outer row).
struct RescanInfo {
  uint64_t rescans = 0;    // this rescan's number (1 at the first)
  int block_switches = 0;  // heap blocks the last run moved to
  int heap_reads = 0;      // blocks it read from the file (streamed or not)
  int waits = 0;           // times its consumer waited for a streamed read
  int distance = 0;        // its stream's distance when it stopped (0: no stream)
  bool finished = false;   // it ran to the end (false: a LIMIT or a semi-join stopped it)
};

// Settings a policy may read (the session's values).
struct PolicySettings {
  int fixed_distance = 0;  // prefetch_fixed_distance: 0 = max_pinned
};

// Patch 4351's INDEX_PREFETCH_BLKSWITCH_THRESHOLD: a LIMIT 1 lookup that touches a few
// heap blocks reads exactly what it would without a stream.
inline constexpr int kDefaultStartSwitches = 4;

class PrefetchPolicy {
 public:
  virtual ~PrefetchPolicy() = default;
  virtual const char* name() const = 0;

  // The distance a new (or reset) stream starts at. Also the place to remember the
  // limits and to forget what an earlier run of the stream taught the policy.
  virtual int initial_distance(const PrefetchLimits& limits) {
    limits_ = limits;
    return 1;
  }
  // A read of `nblocks` blocks was started (the blocks were not in the pool).
  virtual int on_read_started(int distance, int /*nblocks*/) { return distance; }
  // A block was found in the pool: no read.
  virtual int on_hit(int distance) = 0;
  // The consumer reached the first buffer of a read; `waited`: it had to block for it
  // (a read run synchronously counts as a wait).
  virtual int on_read_consumed(int distance, bool waited) = 0;
  // Index scans (index_prefetch = on): start the stream now? Asked before the first
  // heap block and after each switch until it answers true.
  virtual bool should_start(const IndexStartInfo& info) const {
    return info.block_switches >= kDefaultStartSwitches;
  }
  // Index scans: the scan starts again for a new key. Its stream, kept from the runs
  // before, drops what it read ahead (the pins go back; blocks already read stay in the
  // pool) and restarts at the distance returned; 0 (the default) forgets the runs
  // before: initial_distance, as a new stream. Called whether the last run had a stream
  // or not (remember what should_start needs: it is asked again as the new run goes).
  virtual int on_rescan(const RescanInfo& /*last*/) { return 0; }
  // Index scans under a LIMIT (or any parent that says how many rows it still needs):
  // true, the stream reads ahead only the index entries those rows may take (the rows
  // still wanted, scaled by how many entries each row has cost so far: a Filter's
  // pass rate), so a LIMIT stops with nothing in flight for nothing. false (the
  // default, as PostgreSQL's patch): the look-ahead ignores the LIMIT.
  virtual bool bounded_by_limit() const { return false; }

 protected:
  PrefetchLimits limits_;
};

// The built-in heuristic (the default, `tidepool`): distance 1 at the start, doubled
// each time the consumer had to wait for a read, then held for max_pinned hits after
// a read is consumed before each further hit lowers it by one. Final and defined here
// so the stream's all-cached fast path calls it directly, not through the vtable.
class TidepoolPolicy final : public PrefetchPolicy {
 public:
  const char* name() const override { return "tidepool"; }
  int initial_distance(const PrefetchLimits& limits) override {
    limits_ = limits;
    holdoff_ = 0;
    return 1;
  }
  int on_hit(int distance) override {
    if (holdoff_ > 0) {
      --holdoff_;
      return distance;
    }
    return distance - 1;
  }
  int on_read_consumed(int distance, bool waited) override {
    holdoff_ = limits_.max_pinned;
    return waited ? distance * 2 : distance;
  }

 private:
  int holdoff_ = 0;
};

struct PrefetchPolicyDef {
  const char* name;
  const char* summary;  // one line, for SHOW's description and the experiment's report
  std::unique_ptr<PrefetchPolicy> (*make)(const PolicySettings& settings);
};

// The default policy's name ("tidepool").
inline constexpr const char* kDefaultPrefetchPolicy = "tidepool";

// Every registered policy, the default first.
const std::vector<PrefetchPolicyDef>& prefetch_policies();
// The policy called `name` (exact, lower case), or null.
const PrefetchPolicyDef* find_prefetch_policy(std::string_view name);
std::vector<std::string> prefetch_policy_names();

}  // namespace tp::bufmgr
