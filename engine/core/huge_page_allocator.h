// HugePageAllocator: a std::allocator for the large arrays a sort fills once (an index
// build's records). Allocations of 2 MB or more are mapped whole and marked
// MADV_HUGEPAGE, so filling 300 MB takes a few hundred page faults instead of 75,000
// (each a zeroed 4 kB page, and in a VM an exit as well); smaller ones come from new.
//
//   std::vector<Record, HugePageAllocator<Record>> records;
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <new>

namespace tp {

inline constexpr size_t kHugePageBytes = size_t(2) << 20;

template <typename T>
struct HugePageAllocator {
  using value_type = T;

  HugePageAllocator() = default;
  template <typename U>
  explicit HugePageAllocator(const HugePageAllocator<U>&) {}

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kHugePageBytes) return static_cast<T*>(::operator new(bytes));
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    madvise(p, bytes, MADV_HUGEPAGE);  // a hint: without THP the mapping still works
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kHugePageBytes) {
      ::operator delete(p);
      return;
    }
    munmap(p, bytes);
  }
  template <typename U>
  bool operator==(const HugePageAllocator<U>&) const {
    return true;
  }
};

}  // namespace tp
