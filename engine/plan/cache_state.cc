#include "engine/plan/cache_state.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

namespace tp {

namespace {

// The share of `fd`'s pages resident in the page cache; 0 if the kernel cannot tell.
double os_resident_fraction(int fd) {
  struct stat st {};
  if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0) return 0;
  const size_t length = size_t(st.st_size);
  void* map = mmap(nullptr, length, PROT_READ, MAP_SHARED, fd, 0);
  if (map == MAP_FAILED) return 0;
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> resident((length + page - 1) / page);
  double fraction = 0;
  if (mincore(map, length, resident.data()) == 0) {
    const auto n = std::count_if(resident.begin(), resident.end(),
                                 [](unsigned char r) { return (r & 1) != 0; });
    fraction = double(n) / double(resident.size());
  }
  munmap(map, length);
  return fraction;
}

}  // namespace

CacheState relation_cache_state(Storage& storage, const RelationEntry& rel, double pages,
                                bool buffered) {
  CacheState c;
  aio::IoFile& file = storage.file(rel);
  if (pages >= 1) c.pool = std::min(1.0, storage.pool().cached_blocks(file) / pages);
  if (buffered) c.os = os_resident_fraction(file.buffered_fd());
  return c;
}

}  // namespace tp
