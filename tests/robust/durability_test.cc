// What a statement commits must be on disk when it commits: the kill -9 loop
// found TRUNCATE committing a catalog that named its new, empty indexes while
// their metapages were still only in the buffer pool. These tests read the
// files directly, while the session (and its pool) is still open.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "engine/core/page.h"
#include "tests/support/test_util.h"

namespace tp {
namespace {

using testing::options_for;
using testing::TempDir;

// The bytes of `relation`'s file as a crash right now would leave them.
std::string on_disk(Session& s, const std::string& relation) {
  const RelationEntry* rel = s.catalog().find(relation);
  EXPECT_NE(rel, nullptr) << relation;
  if (!rel) return "";
  std::ifstream in(s.data_dir().relation_path(rel->relnumber), std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void expect_committed_pages_on_disk(Session& s, const std::string& relation) {
  SCOPED_TRACE(relation);
  const std::string bytes = on_disk(s, relation);
  const RelationEntry* rel = s.catalog().find(relation);
  ASSERT_GE(bytes.size(), rel->pages * kBlockSize);
  for (BlockNumber b = 0; b < rel->pages; ++b) {
    const char* page = bytes.data() + size_t(b) * kBlockSize;
    EXPECT_FALSE(page_is_new(page)) << "block " << b << " is still all zeros on disk";
    EXPECT_TRUE(page_verify(page, b)) << "block " << b;
  }
}

TEST(Durability, TruncatedTablesIndexesAreOnDiskAtCommit) {
  TempDir dir;
  Session s(options_for(dir.data()));
  s.execute("CREATE TABLE t (a int PRIMARY KEY, b bigint)");
  s.execute("CREATE INDEX t_b ON t (b)");
  s.execute("INSERT INTO t SELECT g, g FROM generate_series(1, 3000) g");
  s.execute("TRUNCATE t");
  for (const char* rel : {"t_pkey", "t_b"}) {
    EXPECT_EQ(s.catalog().find(rel)->pages, 1u);  // the metapage of an empty index
    expect_committed_pages_on_disk(s, rel);
  }
}

TEST(Durability, CreatedIndexIsOnDiskAtCommit) {
  TempDir dir;
  Session s(options_for(dir.data()));
  s.execute("CREATE TABLE t (a int)");
  s.execute("INSERT INTO t SELECT g FROM generate_series(1, 3000) g");
  s.execute("CREATE INDEX t_a ON t (a)");
  s.execute("CREATE TABLE e (a int PRIMARY KEY)");
  expect_committed_pages_on_disk(s, "t_a");
  expect_committed_pages_on_disk(s, "e_pkey");
}

}  // namespace
}  // namespace tp
