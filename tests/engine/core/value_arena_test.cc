// ValueArena: values keep their bytes until clear(), across chunk boundaries and past
// the chunk size; clear() keeps a bounded amount of memory; a moved-from arena is empty.
#include "engine/core/value_arena.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tp {
namespace {

std::string fill(size_t n, char c) {
  return std::string(n, c);
}

TEST(ValueArena, ValuesKeepTheirBytesAcrossChunks) {
  ValueArena a;
  std::vector<std::pair<Datum, std::string>> made;
  // Sizes that cross 32 kB chunk boundaries, one larger than a chunk, and empty values.
  for (size_t i = 0; i < 3000; ++i) {
    const size_t n = i == 1500 ? 100000 : (i * 37) % 200;
    const std::string v = fill(n, char('a' + i % 26));
    made.emplace_back(a.copy(v.data(), v.size()), v);
  }
  for (const auto& [d, v] : made) {
    ASSERT_NE(datum_pointer(d), nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(datum_pointer(d)) % 8, 0u) << "8-aligned";
    EXPECT_EQ(std::string(datum_pointer(d), v.size()), v);
  }
  EXPECT_GE(a.bytes_held(), 100000u + 3000u * 100u);
}

TEST(ValueArena, ClearKeepsAtMostAQuarterMegabyte) {
  ValueArena a;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 40000; ++i) a.allocate(32);  // 1.28 MB: forty chunks
    EXPECT_GE(a.bytes_held(), size_t(40000) * 32);
    a.clear();
    EXPECT_LE(a.bytes_held(), size_t(256) * 1024);
    EXPECT_GT(a.bytes_held(), 0u);
  }
  // A value after clear() reuses the kept chunks and is intact.
  const std::string v = fill(50, 'z');
  const Datum d = a.copy(v.data(), v.size());
  EXPECT_EQ(std::string(datum_pointer(d), v.size()), v);
}

TEST(ValueArena, AMovedFromArenaIsEmptyAndUsable) {
  ValueArena a;
  const std::string v = fill(100, 'q');
  const Datum d = a.copy(v.data(), v.size());
  ValueArena b = std::move(a);
  EXPECT_EQ(std::string(datum_pointer(d), v.size()), v) << "the chunk moved, not its bytes";
  EXPECT_EQ(a.bytes_held(), 0u);  // NOLINT(bugprone-use-after-move): the state tested
  const Datum e = a.copy(v.data(), v.size());
  const Datum f = b.copy(v.data(), v.size());
  EXPECT_NE(datum_pointer(e), datum_pointer(f));
  EXPECT_EQ(std::string(datum_pointer(e), v.size()), v);
  EXPECT_EQ(std::string(datum_pointer(d), v.size()), v) << "a new value never overwrites";
}

}  // namespace
}  // namespace tp
