#include "bufmgr/mapping_table.h"

#include <bit>

#include "engine/core/error.h"

namespace tp::bufmgr {

MappingTable::MappingTable(int buffers) : partitions_(kMappingPartitions) {
  // Twice the fair share per partition keeps chains short even when hashing is uneven;
  // a partition that gets more than that still works, with longer chains.
  size_t per_partition = std::bit_ceil(size_t(std::max(8, 2 * buffers / kMappingPartitions)));
  for (Partition& p : partitions_) {
    p.buckets.resize(per_partition);
    p.set = std::make_unique<Set>(Set::bucket_traits(p.buckets.data(), p.buckets.size()));
  }
}

MappingTable::~MappingTable() {
  // Unlink every node so the descriptors (owned elsewhere) carry no dangling links.
  for (Partition& p : partitions_) p.set->clear();
}

BufferDesc* MappingTable::find(const BufferTag& tag, uint64_t hash) {
  Set& set = *partitions_[partition_of(hash)].set;
  auto it = set.find(tag, TagHash(), std::equal_to<BufferTag>());
  return it == set.end() ? nullptr : &*it;
}

void MappingTable::insert(BufferDesc* desc, uint64_t hash) {
  auto [it, inserted] = partitions_[partition_of(hash)].set->insert(*desc);
  (void)it;
  TP_ASSERT(inserted);
}

void MappingTable::erase(BufferDesc* desc, uint64_t hash) {
  Set& set = *partitions_[partition_of(hash)].set;
  set.erase(set.iterator_to(*desc));
}

size_t MappingTable::size() {
  size_t n = 0;
  for (Partition& p : partitions_) {
    p.latch.lock_shared();
    n += p.set->size();
    p.latch.unlock_shared();
  }
  return n;
}

}  // namespace tp::bufmgr
