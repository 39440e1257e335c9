// Heap tuples of every stored type byte for byte as PostgreSQL 15 writes them: the
// rows of pg15/tuple_format.out (captured with pageinspect) formed from their values
// must equal PostgreSQL's t_data, t_hoff, null bitmap and layout bits, and PostgreSQL's
// bytes must read back as the same values; the rows fill as many pages as PostgreSQL's
// table. Damaged tuples are refused, never read past.
#include "engine/core/tuple_format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/core/error.h"
#include "engine/core/heap_tuple.h"
#include "engine/core/page.h"
#include "tests/support/paths.h"
#include "tests/support/pg15_fixture.h"

namespace tp {
namespace {

const std::vector<TypeId> kTypes = {
    TypeId::kInt4,   TypeId::kBool,      TypeId::kInt2,    TypeId::kInt4,    TypeId::kInt8,
    TypeId::kFloat4, TypeId::kFloat8,    TypeId::kText,    TypeId::kVarchar, TypeId::kBpchar,
    TypeId::kDate,   TypeId::kTimestamp, TypeId::kInterval};

struct PgRow {
  std::vector<std::string> fields;  // the 13 values as printed, "\N" for NULL
  uint16_t infomask = 0;
  uint32_t hoff = 0;
  std::string bits;  // '1' per present attribute; "-" without a bitmap
  std::string data;  // t_data's bytes
};

std::string unhex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(char(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

struct Fixture {
  std::vector<PgRow> rows;
  int pages = 0;
};

Fixture load() {
  Fixture f;
  std::ifstream in(testing::source_dir() + "/tests/engine/core/pg15/tuple_format.out");
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> parts = testing::split_fields(line);
    if (parts.size() == 2 && parts[0] == "pages") {
      f.pages = std::stoi(parts[1]);
      continue;
    }
    if (parts.size() != 17) continue;
    PgRow r;
    r.fields.assign(parts.begin(), parts.begin() + 13);
    r.infomask = uint16_t(std::stoi(parts[13]));
    r.hoff = uint32_t(std::stoi(parts[14]));
    r.bits = parts[15];
    r.data = unhex(parts[16]);
    f.rows.push_back(std::move(r));
  }
  return f;
}

// The row's values as Datums; by-reference ones kept alive in `store`.
struct Values {
  std::vector<Datum> datums = std::vector<Datum>(13);
  bool isnull[13] = {};
  std::vector<std::string> store = std::vector<std::string>(13);
};

Values build(const PgRow& r) {
  Values v;
  for (size_t i = 0; i < 13; ++i) {
    const std::string& f = r.fields[i];
    v.isnull[i] = f == "\\N";
    if (v.isnull[i]) continue;
    switch (kTypes[i]) {
      case TypeId::kFloat4:
        v.datums[i] = float4_datum(std::strtof(f.c_str(), nullptr));
        break;
      case TypeId::kFloat8:
        v.datums[i] = float8_datum(std::strtod(f.c_str(), nullptr));
        break;
      case TypeId::kText:
      case TypeId::kVarchar:
      case TypeId::kBpchar:
        v.store[i] = make_varlena(f);
        v.datums[i] = pointer_datum(v.store[i].data());
        break;
      case TypeId::kInterval: {
        // months,days,microseconds -> PostgreSQL's struct: int64 time, int32 day, int32 month
        std::vector<int64_t> parts;
        std::stringstream ss(f);
        std::string p;
        while (std::getline(ss, p, ',')) parts.push_back(std::stoll(p));
        v.store[i].resize(16);
        auto days = int32_t(parts[1]), months = int32_t(parts[0]);
        std::memcpy(v.store[i].data(), &parts[2], 8);
        std::memcpy(v.store[i].data() + 8, &days, 4);
        std::memcpy(v.store[i].data() + 12, &months, 4);
        v.datums[i] = pointer_datum(v.store[i].data());
        break;
      }
      default:
        v.datums[i] = std::stoll(f);
    }
  }
  return v;
}

class TupleFormatTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { fixture_ = new Fixture(load()); }
  static void TearDownTestSuite() { delete fixture_; }
  static Fixture* fixture_;
  TupleFormat format_ = TupleFormat::of_types(kTypes);
};
Fixture* TupleFormatTest::fixture_ = nullptr;

TEST_F(TupleFormatTest, FixtureHoldsEveryCase) {
  ASSERT_EQ(fixture_->rows.size(), 62u);
  ASSERT_GT(fixture_->pages, 1);
  bool all_null = false, packed_limit = false, long_header = false;
  for (const PgRow& r : fixture_->rows) {
    all_null = all_null || (r.fields[7] == "\\N" && r.fields[1] == "\\N" && r.fields[12] == "\\N");
    packed_limit = packed_limit || r.fields[7].size() == 126;
    long_header = long_header || r.fields[7].size() == 127;
  }
  EXPECT_TRUE(all_null && packed_limit && long_header);
}

TEST_F(TupleFormatTest, FormedTuplesEqualPostgresBytes) {
  for (const PgRow& r : fixture_->rows) {
    Values v = build(r);
    const uint32_t len = format_.tuple_size(v.datums.data(), v.isnull);
    ASSERT_EQ(len, r.hoff + r.data.size()) << "row " << r.fields[0];
    std::string tuple(len, '\x7f');
    format_.form(v.datums.data(), v.isnull, Tid{3, 7}, tuple.data(), len);
    EXPECT_EQ(uint8_t(tuple[22]), r.hoff) << "row " << r.fields[0];
    EXPECT_EQ(tuple.substr(r.hoff), r.data) << "row " << r.fields[0];
    uint16_t infomask;
    std::memcpy(&infomask, tuple.data() + 20, 2);
    EXPECT_EQ(infomask & (kHeapHasNull | kHeapHasVarWidth),
              r.infomask & (kHeapHasNull | kHeapHasVarWidth))
        << "row " << r.fields[0];
    std::string bits = "-";
    if (infomask & kHeapHasNull) {
      bits.clear();
      // pageinspect prints the bitmap's whole bytes, bit 0 first
      for (size_t i = 0; i < 16; ++i)
        bits.push_back((tuple[23 + i / 8] >> (i % 8)) & 1 ? '1' : '0');
    }
    EXPECT_EQ(bits, r.bits) << "row " << r.fields[0];
  }
}

TEST_F(TupleFormatTest, PostgresBytesReadBackAsTheValues) {
  for (const PgRow& r : fixture_->rows) {
    Values v = build(r);
    // PostgreSQL's data behind a header of ours (with its infomask and t_hoff).
    const uint32_t len = format_.tuple_size(v.datums.data(), v.isnull);
    std::string tuple(len, '\0');
    format_.form(v.datums.data(), v.isnull, Tid{0, 1}, tuple.data(), len);
    tuple = tuple.substr(0, r.hoff) + r.data;
    Datum got[13];
    bool isnull[13];
    format_.deform(tuple.data(), uint32_t(tuple.size()), got, isnull);
    for (size_t i = 0; i < 13; ++i) {
      ASSERT_EQ(isnull[i], v.isnull[i]) << "row " << r.fields[0] << " attribute " << i + 1;
      if (isnull[i]) continue;
      if (format_.attr(i).len == -1)
        EXPECT_EQ(varlena_payload(datum_pointer(got[i])),
                  varlena_payload(datum_pointer(v.datums[i])))
            << "row " << r.fields[0] << " attribute " << i + 1;
      else if (!format_.attr(i).byval)
        EXPECT_EQ(std::memcmp(datum_pointer(got[i]), datum_pointer(v.datums[i]), 16), 0);
      else
        EXPECT_EQ(got[i], v.datums[i]) << "row " << r.fields[0] << " attribute " << i + 1;
    }
  }
}

// Rows of growing width go into pages as PostgreSQL's heap_insert places them: the
// same number of pages as PostgreSQL's table.
TEST_F(TupleFormatTest, RowsFillAsManyPagesAsPostgres) {
  std::vector<char> page(kBlockSize);
  page_init(page.data(), 0);
  int pages = 1;
  for (const PgRow& r : fixture_->rows) {
    Values v = build(r);
    const uint32_t len = format_.tuple_size(v.datums.data(), v.isnull);
    std::string tuple(len, '\0');
    format_.form(v.datums.data(), v.isnull, Tid{0, 1}, tuple.data(), len);
    if (!heap_page_accepts(page.data(), maxalign(len), 100)) {
      page_init(page.data(), 0);
      ++pages;
    }
    ASSERT_NE(page_add_item(page.data(), tuple.data(), len), 0);
  }
  EXPECT_EQ(pages, fixture_->pages);
}

// The int4/int8 fast path writes what the general format writes.
TEST_F(TupleFormatTest, FixedLayoutWritesTheSameTuple) {
  std::vector<Column> cols = {
      {"a", ColumnType::kInt4}, {"b", ColumnType::kInt8}, {"c", ColumnType::kInt4}};
  HeapTupleLayout layout(cols);
  const int64_t values[3] = {-5, int64_t(1) << 40, 77};
  std::string fast(layout.tuple_size(), '\0');
  layout.form(values, Tid{9, 4}, fast.data());
  TupleFormat f = TupleFormat::of_types({TypeId::kInt4, TypeId::kInt8, TypeId::kInt4});
  const bool isnull[3] = {};
  ASSERT_EQ(f.tuple_size(values, isnull), layout.tuple_size());
  std::string general(layout.tuple_size(), '\0');
  f.form(values, isnull, Tid{9, 4}, general.data(), uint32_t(general.size()));
  EXPECT_EQ(fast, general);
}

void expect_damaged(const TupleFormat& f, const std::string& tuple) {
  Datum values[13];
  bool isnull[13];
  try {
    f.deform(tuple.data(), uint32_t(tuple.size()), values, isnull);
    ADD_FAILURE() << "a damaged tuple was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.sqlstate(), sqlstate::kDataCorrupted) << e.what();
  }
}

TEST_F(TupleFormatTest, DamagedTuplesAreRefused) {
  const PgRow* wide = nullptr;  // a row with a long text value (4-byte header)
  for (const PgRow& r : fixture_->rows)
    if (r.fields[7].size() == 1000) wide = &r;
  ASSERT_NE(wide, nullptr);
  Values v = build(*wide);
  const uint32_t len = format_.tuple_size(v.datums.data(), v.isnull);
  std::string tuple(len, '\0');
  format_.form(v.datums.data(), v.isnull, Tid{0, 1}, tuple.data(), len);
  // cut anywhere past the header: never read beyond the length given
  for (uint32_t cut : {len - 1, len - 500, uint32_t(wide->hoff + 9), uint32_t(wide->hoff)})
    expect_damaged(format_, tuple.substr(0, cut));
  expect_damaged(format_, tuple.substr(0, 10));
  std::string bad_hoff = tuple;
  bad_hoff[22] = char(200);
  expect_damaged(format_, bad_hoff.substr(0, 150));
  // the text value's length word marked compressed
  std::string compressed = tuple;
  size_t at = compressed.find(std::string(16, wide->fields[7][0]));
  ASSERT_NE(at, std::string::npos);
  compressed[at - 4] = char(compressed[at - 4] | 0x02);
  expect_damaged(format_, compressed);
}

TEST(Types, EveryTypeHasPostgresStorageAndName) {
  EXPECT_EQ(format_type(TypeId::kVarchar, length_typmod(10)), "character varying(10)");
  EXPECT_EQ(format_type(TypeId::kVarchar, kNoTypmod), "character varying");
  EXPECT_EQ(format_type(TypeId::kBpchar, length_typmod(1)), "character(1)");
  EXPECT_EQ(format_type(TypeId::kBpchar, kNoTypmod), "bpchar");
  EXPECT_EQ(format_type(TypeId::kNumeric, numeric_typmod(15, 2)), "numeric(15,2)");
  EXPECT_EQ(format_type(TypeId::kNumeric, numeric_typmod(5, -3)), "numeric(5,-3)");
  EXPECT_EQ(numeric_typmod(15, 2), 983046);  // PostgreSQL's atttypmod for numeric(15,2)
  EXPECT_EQ(format_type(TypeId::kTimestamp, kNoTypmod), "timestamp without time zone");
  for (uint32_t oid :
       {16u, 20u, 21u, 23u, 25u, 700u, 701u, 1042u, 1043u, 1082u, 1114u, 1186u, 1700u}) {
    ASSERT_TRUE(type_of_oid(oid).has_value()) << oid;
    EXPECT_EQ(uint32_t(type_info(*type_of_oid(oid)).id), oid);
  }
  EXPECT_FALSE(type_of_oid(26).has_value());  // oid: not stored by tidepool
  EXPECT_EQ(type_info(TypeId::kInterval).len, 16);
  EXPECT_EQ(type_info(TypeId::kInterval).align, 8);
  EXPECT_EQ(type_info(TypeId::kInt2).align, 2);
}

}  // namespace
}  // namespace tp
