#include "engine/session/settings.h"

#include <gtest/gtest.h>

#include "engine/core/error.h"

namespace tp {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return std::string(e.what()) + (e.hint().empty() ? "" : " | " + e.hint());
  }
  return "";
}

TEST(Settings, EveryDefinitionHasADescriptionAndAValidDefault) {
  Settings s;
  for (const SettingDef& d : Settings::definitions()) {
    EXPECT_FALSE(d.description.empty()) << d.name;
    EXPECT_NO_THROW(s.show(d.name)) << d.name;
  }
}

TEST(Settings, RandomSeedRangeAndReset) {
  Settings s;
  EXPECT_EQ(s.show("random_seed"), "0");
  s.set("random_seed", "42");
  EXPECT_EQ(s.get_int("random_seed"), 42);
  EXPECT_EQ(error_of([&] { s.set("random_seed", "-1"); }),
            "-1 is outside the valid range for parameter \"random_seed\" (0 .. 2147483647)");
  EXPECT_EQ(s.get_int("random_seed"), 42);  // unchanged after the error
  EXPECT_EQ(error_of([&] { s.set("random_seed", "abc"); }),
            "invalid value for parameter \"random_seed\": \"abc\" | Enter an integer value.");
  s.reset("random_seed");
  EXPECT_EQ(s.get_int("random_seed"), 0);
}

// tidepool has no Parallel Hash: enable_parallel_hash is off and `on` is refused by name,
// the value left as it was.
TEST(Settings, ParallelHashOnIsRefused) {
  Settings s;
  EXPECT_EQ(s.show("enable_parallel_hash"), "off");
  EXPECT_EQ(error_of([&] { s.set("enable_parallel_hash", "on"); }),
            "enable_parallel_hash = on is not supported: tidepool has no Parallel Hash");
  EXPECT_FALSE(s.get_bool("enable_parallel_hash"));
  s.set("enable_parallel_hash", "off");
  EXPECT_EQ(s.show("enable_parallel_hash"), "off");
}

TEST(Settings, HugeIntegerValueIsRefusedNotOverflowed) {
  Settings s;
  // These overflowed int64_t while formatting the range error (UBSan: signed
  // integer overflow in format_with_unit) and printed a wrapped value.
  EXPECT_EQ(error_of([&] { s.set("shared_buffers", "9223372036854775807kB"); }),
            "invalid value for parameter \"shared_buffers\": \"9223372036854775807kB\" | Value "
            "exceeds integer range.");
  EXPECT_EQ(error_of([&] { s.set("work_mem", "1e300"); }),
            "invalid value for parameter \"work_mem\": \"1e300\" | Value exceeds integer range.");
  EXPECT_EQ(error_of([&] { s.set("io_combine_limit", "1000000000000000000000GB"); }),
            "invalid value for parameter \"io_combine_limit\": \"1000000000000000000000GB\" | "
            "Value exceeds integer range.");
  EXPECT_EQ(
      error_of([&] { s.set("random_seed", "-1e20"); }),
      "invalid value for parameter \"random_seed\": \"-1e20\" | Value exceeds integer range.");
  // Still an ordinary range error below 2^53.
  EXPECT_EQ(error_of([&] { s.set("shared_buffers", "99TB"); }),
            "99TB is outside the valid range for parameter \"shared_buffers\" (128kB .. 32GB)");
  EXPECT_EQ(s.show("shared_buffers"), "128MB");
}

// Issue 29: a value strtod reports out of a double's range, tiny or huge, is refused
// as PostgreSQL's parse_real and parse_int refuse it (no hint), not taken as 0 or inf.
TEST(Settings, NumbersPastADoublesRangeAreRefused) {
  Settings s;
  for (const char* text : {"1e-400", "-1e-400", "1e400"}) {
    EXPECT_EQ(error_of([&] { s.set("seq_page_cost", text); }),
              std::string("invalid value for parameter \"seq_page_cost\": \"") + text + "\"");
    EXPECT_EQ(error_of([&] { s.set("work_mem", text); }),
              std::string("invalid value for parameter \"work_mem\": \"") + text + "\"");
  }
  EXPECT_EQ(s.show("seq_page_cost"), "1");
  s.set("seq_page_cost", "1e-300");  // small but a double: PostgreSQL takes it too
  EXPECT_EQ(error_of([&] { s.set("seq_page_cost", "1e-300"); }), "");
}

// Issue 29 asked for shared_buffers = '127kB' to be refused; PostgreSQL 15 takes it
// (`postgres -c shared_buffers=127kB -C shared_buffers` prints 16: 127 kB rounds to the
// nearest 8 kB block), and refuses 120kB (15 blocks, below its 16). tidepool does the same.
TEST(Settings, MemoryRoundsToTheNearestBlockAsPostgresqlDoes) {
  Settings s;
  s.set("shared_buffers", "127kB");
  EXPECT_EQ(s.show("shared_buffers"), "128kB");
  s.set("shared_buffers", "135kB");
  EXPECT_EQ(s.show("shared_buffers"), "136kB");
  EXPECT_NE(error_of([&] { s.set("shared_buffers", "120kB"); }), "");
  EXPECT_EQ(s.show("shared_buffers"), "136kB");
}

TEST(Settings, ParallelQuerySettingsAsPostgres) {
  Settings s;
  EXPECT_EQ(s.show("max_parallel_workers_per_gather"), "2");
  EXPECT_EQ(s.show("max_parallel_workers"), "8");
  EXPECT_EQ(s.show("parallel_setup_cost"), "1000");
  EXPECT_EQ(s.show("parallel_tuple_cost"), "0.1");
  EXPECT_EQ(s.show("min_parallel_table_scan_size"), "8MB");
  EXPECT_EQ(s.get_int("min_parallel_table_scan_size"), 1024);  // 8 kB blocks
  EXPECT_EQ(s.show("parallel_leader_participation"), "on");
  s.set("min_parallel_table_scan_size", "2048");
  EXPECT_EQ(s.show("min_parallel_table_scan_size"), "16MB");
  s.set("min_parallel_table_scan_size", "13336kB");
  EXPECT_EQ(s.get_int("min_parallel_table_scan_size"), 1667);
  EXPECT_EQ(error_of([&] { s.set("max_parallel_workers_per_gather", "1025"); }),
            "1025 is outside the valid range for parameter \"max_parallel_workers_per_gather\" "
            "(0 .. 1024)");
  EXPECT_EQ(error_of([&] { s.set("max_parallel_workers", "-1"); }),
            "-1 is outside the valid range for parameter \"max_parallel_workers\" (0 .. 1024)");
  EXPECT_EQ(error_of([&] { s.set("parallel_setup_cost", "-1"); }),
            "-1 is outside the valid range for parameter \"parallel_setup_cost\" "
            "(0 .. 1.79769e+308)");
  EXPECT_NE(error_of([&] {
              s.set("parallel_tuple_cost", "x");
            }).find("invalid value for parameter \"parallel_tuple_cost\": \"x\""),
            std::string::npos);
  EXPECT_EQ(
      error_of([&] { s.set("parallel_leader_participation", "maybe"); }),
      "parameter \"parallel_leader_participation\" requires a Boolean value | Use on or off.");
  s.set("max_parallel_workers_per_gather", "0");
  s.set("parallel_leader_participation", "off");
  s.reset("all");
  EXPECT_EQ(s.show("max_parallel_workers_per_gather"), "2");
  EXPECT_EQ(s.show("parallel_leader_participation"), "on");
  EXPECT_EQ(s.show("min_parallel_table_scan_size"), "8MB");
}

TEST(Settings, TextSettingsClientsSend) {
  Settings s;
  EXPECT_EQ(s.show("application_name"), "");
  s.set("application_name", "my app");
  EXPECT_EQ(s.show("application_name"), "my app");
  s.set("client_encoding", "utf-8");  // any case and punctuation, shown as written
  EXPECT_EQ(s.show("client_encoding"), "UTF8");
  s.set("DateStyle", "iso");  // one word of the choice is enough
  EXPECT_EQ(s.show("datestyle"), "ISO, MDY");
  EXPECT_EQ(
      error_of([&] { s.set("client_encoding", "LATIN1"); }),
      "invalid value for parameter \"client_encoding\": \"LATIN1\" | Available values: UTF8.");
  try {
    s.set("datestyle", "German");
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.sqlstate(), "22023");
  }
  EXPECT_EQ(s.show("datestyle"), "ISO, MDY");
}

TEST(Settings, UnknownNameIsNamed) {
  Settings s;
  EXPECT_EQ(error_of([&] { s.set("no_such_thing", "1"); }),
            "unrecognized configuration parameter \"no_such_thing\"");
  EXPECT_EQ(error_of([&] { s.show("no_such_thing"); }),
            "unrecognized configuration parameter \"no_such_thing\"");
}

TEST(Settings, ResetReturnsToCommandLineValue) {
  Settings s;
  s.set_from_assignment("random_seed=7");
  s.set("random_seed", "9");
  s.reset("random_seed");
  EXPECT_EQ(s.get_int("random_seed"), 7);
  s.set("random_seed", "9");
  s.reset("all");
  EXPECT_EQ(s.get_int("random_seed"), 7);
}

TEST(Settings, ApplyHookFailureKeepsOldValue) {
  Settings s;
  s.on_apply("random_seed", [&](const std::string&) {
    if (s.get_int("random_seed") == 13) throw Error("unlucky");
  });
  s.set("random_seed", "12");
  EXPECT_EQ(error_of([&] { s.set("random_seed", "13"); }), "unlucky");
  EXPECT_EQ(s.get_int("random_seed"), 12);
}

TEST(Settings, MemoryFormatting) {
  EXPECT_EQ(format_memory_kb(8), "8kB");
  EXPECT_EQ(format_memory_kb(128 * 1024), "128MB");
  EXPECT_EQ(format_memory_kb(4 * 1024 * 1024), "4GB");
  EXPECT_EQ(format_memory_kb(1536), "1536kB");
}

}  // namespace
}  // namespace tp
