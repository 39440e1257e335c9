// Fault injection: a short rule list behind a mutex, skipped with one relaxed load when
// empty (the common case outside tests).
#include "aio/faults.h"

#include <atomic>
#include <cerrno>
#include <mutex>
#include <vector>

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

}  // namespace

int inject_fault(const FaultRule& rule) {
  std::lock_guard lock(rules_mutex);
  rules.push_back({next_id, rule});
  rule_count.store(int(rules.size()), std::memory_order_relaxed);
  return next_id++;
}

void remove_fault(int id) {
  std::lock_guard lock(rules_mutex);
  std::erase_if(rules, [id](const Rule& r) { return r.id == id; });
  rule_count.store(int(rules.size()), std::memory_order_relaxed);
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

void apply_injected_faults(const IoCompletionInfo& info, uint32_t relnumber,
                           IoResult& result) noexcept {
  if (rule_count.load(std::memory_order_relaxed) == 0) return;
  std::lock_guard lock(rules_mutex);
  for (auto it = rules.begin(); it != rules.end();) {
    const FaultRule& rule = it->rule;
    bool covered = rule.relnumber == relnumber && rule.block >= info.first_block &&
                   uint64_t(rule.block) < uint64_t(info.first_block) + uint64_t(info.nblocks);
    uint32_t block_offset = covered ? (rule.block - info.first_block) * kBlockSize : 0;
    // Only blocks the read actually reached can fail.
    if (!covered || (result.status != IoStatus::kOk && result.bytes_done <= block_offset)) {
      ++it;
      continue;
    }
    switch (rule.kind) {
      case FaultKind::kEio:
        result.status = IoStatus::kError;
        result.error_number = EIO;
        result.bytes_done = block_offset;
        break;
      case FaultKind::kShortRead:
        result.status = IoStatus::kPartial;
        result.error_number = 0;
        result.bytes_done = block_offset + kBlockSize / 2;
        break;
      case FaultKind::kCorrupt: {
        // Flip bytes in the page body and in its header's checksum field.
        auto* page = static_cast<unsigned char*>(info.iov[rule.block - info.first_block].iov_base);
        for (uint32_t i = 8; i < kBlockSize; i += 997) page[i] ^= 0x5a;
        break;
      }
    }
    hits.fetch_add(1, std::memory_order_relaxed);
    if (rule.once)
      it = rules.erase(it);
    else
      ++it;
  }
  rule_count.store(int(rules.size()), std::memory_order_relaxed);
}

}  // namespace tp::aio
