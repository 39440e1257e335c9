// Fault injection: a short rule list behind a mutex, skipped with one relaxed load when
// empty (the common case outside tests).
#include "aio/faults.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "aio/file.h"
#include "aio/internal.h"

namespace tp::aio {

namespace {

struct Rule {
  int id;
  FaultRule rule;
};

std::mutex rules_mutex;
std::vector<Rule> rules;
std::atomic<int> rule_count{0};
std::atomic<uint64_t> hits{0};
int next_id = 1;
// set_transfer_delay: relnumber in the high 32 bits, microseconds in the low 32; 0 = off.
std::atomic<uint64_t> transfer_delay{0};

void delay_transfer(IoHandle& h) {
  const uint64_t d = transfer_delay.load(std::memory_order_relaxed);
  if (d != 0 && uint32_t(d >> 32) == HandleOps::file(h)->relnumber())
    std::this_thread::sleep_for(std::chrono::microseconds(d & 0xffffffffu));
}

// Rules lock held.
void fire(std::vector<Rule>::iterator it) {
  hits.fetch_add(1, std::memory_order_relaxed);
  if (it->rule.once) {
    rules.erase(it);
    rule_count.store(int(rules.size()), std::memory_order_relaxed);
  }
}

bool applies_to(const FaultRule& rule, IoOp op) {
  switch (rule.kind) {
    case FaultKind::kShortRead:
    case FaultKind::kCorrupt:
      return op == IoOp::kRead;
    case FaultKind::kNoSpace:
    case FaultKind::kShortWrite:
      return op == IoOp::kWrite;
    default:
      return op == IoOp::kRead || op == IoOp::kWrite;
  }
}

bool covers(const FaultRule& rule, uint32_t relnumber, IoOp op, BlockNumber first, int nblocks) {
  return rule.relnumber == relnumber && rule.op == op && rule.block >= first &&
         uint64_t(rule.block) < uint64_t(first) + uint64_t(nblocks);
}

// Where a transfer fault sits (bytes from the I/O's start) and what the attempt starting
// there gets: -errno, 0 (no progress / end of file), or kPasses (nothing: the retry of a
// short transfer goes on).
constexpr int64_t kPasses = 1;
struct FaultPoint {
  uint32_t offset;
  int64_t outcome;
};
bool transfer_fault_point(const FaultRule& rule, uint32_t block_offset, FaultPoint* point) {
  switch (rule.kind) {
    case FaultKind::kEio:
      *point = {block_offset, -EIO};
      return true;
    case FaultKind::kNoSpace:
      *point = {block_offset, -ENOSPC};
      return true;
    case FaultKind::kAgain:
      *point = {block_offset, -EAGAIN};
      return true;
    case FaultKind::kShortRead:
    case FaultKind::kShortWrite:
      *point = {block_offset + kBlockSize / 2, 0};
      return true;
    case FaultKind::kShortTransfer:
      *point = {block_offset + kBlockSize / 2, kPasses};
      return true;
    case FaultKind::kCorrupt:
    case FaultKind::kRingBusy:
      return false;
  }
  return false;
}

}  // namespace

int inject_fault(const FaultRule& rule) {
  if (!applies_to(rule, rule.op))
    throw Error(std::string("fault kind does not apply to ") + io_op_name(rule.op) + "s")
        .with_sqlstate(sqlstate::kInvalidParameterValue);
  if (rule.kind == FaultKind::kAgain && !rule.once)
    throw Error("an EAGAIN fault must fire once: the retry would meet it again forever")
        .with_sqlstate(sqlstate::kInvalidParameterValue);
  std::lock_guard lock(rules_mutex);
  rules.push_back({next_id, rule});
  rule_count.store(int(rules.size()), std::memory_order_relaxed);
  return next_id++;
}

void clear_faults() {
  std::lock_guard lock(rules_mutex);
  rules.clear();
  rule_count.store(0, std::memory_order_relaxed);
  hits.store(0, std::memory_order_relaxed);
}

uint64_t fault_hits() {
  return hits.load(std::memory_order_relaxed);
}

void set_transfer_delay(uint32_t relnumber, std::chrono::microseconds delay) {
  const auto us = uint64_t(std::clamp<int64_t>(delay.count(), 0, UINT32_MAX));
  transfer_delay.store(us == 0 ? 0 : uint64_t(relnumber) << 32 | us, std::memory_order_relaxed);
}

int64_t apply_transfer_faults(IoHandle& h, uint32_t done, int64_t moved) noexcept {
  delay_transfer(h);
  if (rule_count.load(std::memory_order_relaxed) == 0) return moved;
  const uint32_t relnumber = HandleOps::file(h)->relnumber();
  const IoOp op = HandleOps::op(h);
  const BlockNumber first = HandleOps::first_block(h);
  std::lock_guard lock(rules_mutex);
  // The nearest fault this attempt reaches decides: the attempt starting at it gets its
  // outcome; one running past it is cut there (the next attempt then starts at it).
  auto nearest = rules.end();
  FaultPoint nearest_point{};
  for (auto it = rules.begin(); it != rules.end(); ++it) {
    FaultPoint point;
    if (!covers(it->rule, relnumber, op, first, HandleOps::nblocks(h)) ||
        !transfer_fault_point(it->rule, (it->rule.block - first) * kBlockSize, &point))
      continue;
    bool at_start = point.offset == done && point.outcome != kPasses;
    bool crossed =
        point.offset > done && moved > 0 && uint64_t(done) + uint64_t(moved) > point.offset;
    if ((at_start || crossed) && (nearest == rules.end() || point.offset < nearest_point.offset)) {
      nearest = it;
      nearest_point = point;
    }
  }
  if (nearest == rules.end()) return moved;
  if (nearest_point.offset == done) {
    fire(nearest);
    return nearest_point.outcome;
  }
  // A short transfer: only kShortTransfer fires here; the others fire on the next attempt.
  if (nearest_point.outcome == kPasses) fire(nearest);
  return int64_t(nearest_point.offset - done);
}

void apply_corruption_faults(const IoCompletionInfo& info, uint32_t relnumber,
                             const IoResult& result) noexcept {
  if (rule_count.load(std::memory_order_relaxed) == 0) return;
  std::lock_guard lock(rules_mutex);
  for (auto it = rules.begin(); it != rules.end();) {
    const FaultRule& rule = it->rule;
    // Only blocks the read transferred in full can be corrupted.
    if (rule.kind != FaultKind::kCorrupt ||
        !covers(rule, relnumber, IoOp::kRead, info.first_block, info.nblocks) ||
        result.bytes_done < (rule.block - info.first_block + 1) * kBlockSize) {
      ++it;
      continue;
    }
    // Flip bytes in the page body and in its header's checksum field.
    auto* page = static_cast<unsigned char*>(info.iov[rule.block - info.first_block].iov_base);
    for (uint32_t i = 8; i < kBlockSize; i += 997) page[i] ^= 0x5a;
    bool erase = rule.once;
    hits.fetch_add(1, std::memory_order_relaxed);
    it = erase ? rules.erase(it) : it + 1;
  }
  rule_count.store(int(rules.size()), std::memory_order_relaxed);
}

int ring_busy_fault_for(std::span<IoHandle* const> ios) noexcept {
  if (rule_count.load(std::memory_order_relaxed) == 0) return 0;
  std::lock_guard lock(rules_mutex);
  for (const Rule& r : rules) {
    if (r.rule.kind != FaultKind::kRingBusy) continue;
    for (IoHandle* h : ios)
      if (covers(r.rule, HandleOps::file(*h)->relnumber(), HandleOps::op(*h),
                 HandleOps::first_block(*h), HandleOps::nblocks(*h)))
        return r.id;
  }
  return 0;
}

void fault_fired(int id) noexcept {
  std::lock_guard lock(rules_mutex);
  for (auto it = rules.begin(); it != rules.end(); ++it)
    if (it->id == id) return fire(it);
}

}  // namespace tp::aio
