// MappingTable: which buffer holds which page (BufferTag -> buffer id).
//
// 128 partitions, each a latch and an intrusive hash set whose nodes are the buffer
// descriptors themselves (BufferDesc::map_hook), so inserting never allocates and a
// buffer is in at most one partition at a time. The partition comes from the top 7 bits
// of the tag hash, the bucket from the low bits.
//
// Locking is the caller's job, because the caller must do things while holding the
// partition latch (pin before unlocking after a lookup; recheck refcount before a
// delete): partition(hash) gives the latch, and find / insert / erase require it
// (shared for find, exclusive for insert and erase).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <boost/intrusive/unordered_set.hpp>

#include "bufmgr/buffer_desc.h"

namespace tp::bufmgr {

inline constexpr int kMappingPartitions = 128;

class MappingTable {
 public:
  // `buffers` descriptors, each a potential node; sizes the bucket arrays for them.
  explicit MappingTable(int buffers);
  ~MappingTable();
  MappingTable(const MappingTable&) = delete;
  MappingTable& operator=(const MappingTable&) = delete;

  static int partition_of(uint64_t hash) { return int(hash >> 57); }
  RwLatch& latch(uint64_t hash) { return partitions_[partition_of(hash)].latch; }

  // The descriptor mapped to `tag`, or nullptr. Requires the partition latch (any mode).
  BufferDesc* find(const BufferTag& tag, uint64_t hash);
  // Maps desc->tag to desc. Requires the exclusive partition latch and that the tag is
  // not mapped yet (the caller just looked).
  void insert(BufferDesc* desc, uint64_t hash);
  // Unmaps desc (mapped under desc->tag). Requires the exclusive partition latch.
  void erase(BufferDesc* desc, uint64_t hash);

  // Entries across all partitions (takes every latch shared; for tests).
  size_t size();

 private:
  struct DescKey {
    using type = BufferTag;
    const BufferTag& operator()(const BufferDesc& d) const { return d.tag; }
  };
  struct TagHash {
    size_t operator()(const BufferTag& t) const { return buffer_tag_hash(t); }
  };
  using Set = boost::intrusive::unordered_set<
      BufferDesc, boost::intrusive::member_hook<BufferDesc, MapHook, &BufferDesc::map_hook>,
      boost::intrusive::key_of_value<DescKey>, boost::intrusive::hash<TagHash>,
      boost::intrusive::power_2_buckets<true>, boost::intrusive::constant_time_size<true>>;

  struct alignas(64) Partition {
    RwLatch latch;
    std::vector<Set::bucket_type> buckets;
    std::unique_ptr<Set> set;
  };
  std::vector<Partition> partitions_;
};

}  // namespace tp::bufmgr
