// Reads a relation file directly (no pool), for tests that check what is on disk.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "engine/core/heap_tuple.h"
#include "engine/core/page.h"

namespace tp::testing {

struct HeapFileContents {
  uint64_t pages = 0;
  std::vector<std::vector<int64_t>> rows;  // in physical order
  std::vector<uint32_t> rows_per_page;
  bool checksums_ok = true;
};

inline HeapFileContents read_heap_file(const std::string& path, const std::vector<Column>& cols) {
  HeapFileContents out;
  HeapTupleLayout layout(cols);
  int fd = ::open(path.c_str(), O_RDONLY);
  EXPECT_GE(fd, 0) << path;
  if (fd < 0) return out;
  alignas(8) char page[kBlockSize];
  for (BlockNumber b = 0;; ++b) {
    ssize_t n = pread(fd, page, kBlockSize, off_t(b) * kBlockSize);
    if (n == 0) break;
    EXPECT_EQ(n, ssize_t(kBlockSize));
    if (n != ssize_t(kBlockSize)) break;
    ++out.pages;
    if (!page_verify(page, b)) out.checksums_ok = false;
    OffsetNumber max = page_max_offset(page);
    out.rows_per_page.push_back(max);
    for (OffsetNumber o = 1; o <= max; ++o) {
      const char* t = page_item(page, o);
      std::vector<int64_t> row;
      for (size_t c = 0; c < cols.size(); ++c) row.push_back(layout.get(t, c));
      out.rows.push_back(std::move(row));
    }
  }
  ::close(fd);
  return out;
}

}  // namespace tp::testing
