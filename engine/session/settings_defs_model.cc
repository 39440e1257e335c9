#include "engine/session/settings_defs_model.h"

namespace tp {

namespace {

constexpr const char* kGroup = "Query Tuning / Prefetch-Aware Cost Model";

SettingDef curve(const std::string& method, bool direct, const char* default_value) {
  const std::string mode = direct ? "direct" : "buffered";
  return {device_curve_setting(method, direct),
          SettingType::kText,
          SettingUnit::kNone,
          0,
          0,
          default_value,
          {},
          "Microseconds per 8 kB page read with io_method = " + method + ", " +
              (direct ? "io_direct = on" : "io_direct = off") +
              ": seq=US for a sequential scan's reads, dN=US per random read with N in flight "
              "(cost_model = prefetch_aware; tidepool calibrate measures it).",
          kGroup};
}

SettingDef micros(const char* name, const char* default_value, const char* what) {
  return {name,
          SettingType::kReal,
          SettingUnit::kNone,
          0,
          1e6,
          default_value,
          {},
          std::string("Microseconds of CPU ") + what +
              " (cost_model = prefetch_aware; tidepool calibrate measures it).",
          kGroup};
}

}  // namespace

std::string device_curve_setting(const std::string& io_method, bool direct) {
  return "device_" + io_method + (direct ? "_direct" : "_buffered");
}

// The defaults are the figures of the project's 2-core VM (bench/RESULTS.md's device
// table, 2026-11-29): a planner that has not been calibrated still sees a real device.
std::vector<SettingDef> cost_model_setting_defs() {
  return {
      {"cost_model",
       SettingType::kEnum,
       SettingUnit::kNone,
       0,
       0,
       "pg15",
       {"pg15", "prefetch_aware"},
       "Which cost model prices plans: pg15 (PostgreSQL 15's formulas and cost constants) or "
       "prefetch_aware (page fetches priced from the measured device curve at the look-ahead "
       "each plan will have, CPU from measured figures, cached pages as hits).",
       "Query Tuning / Planner Cost Constants"},
      curve("sync", true, "seq=14.2 d1=70.9 d4=65.8 d16=65.8 d32=65.8 d64=65.8"),
      curve("sync", false, "seq=17.7 d1=75.2 d4=70.4 d16=70.4 d32=55.2 d64=55.2"),
      curve("worker", true, "seq=7.37 d1=89.3 d4=46.3 d16=35.5 d32=31.4 d64=31.4"),
      curve("worker", false, "seq=16.4 d1=110 d4=36.8 d16=30.6 d32=25.8 d64=25.8"),
      curve("io_uring", true, "seq=6.53 d1=123 d4=37.5 d16=25.4 d32=23.4 d64=21"),
      curve("io_uring", false, "seq=11.3 d1=61.3 d4=24.9 d16=22.7 d32=22.7 d64=22.7"),
      micros("cpu_tuple_us", "0.05", "per heap tuple a scan returns or examines"),
      micros("cpu_index_tuple_us", "0.03", "per index entry an index scan reads"),
      micros("cpu_operator_us", "0.01", "per operator or function a qual evaluates"),
      micros("page_hit_us", "0.15",
             "per page a scan visits in the buffer pool (lookup, pin, lock, page header)"),
      micros("random_page_hit_us", "1.2",
             "per page visited in the pool out of block order (an index scan's heap fetch, a "
             "bitmap heap scan's page): the CPU caches missed"),
      micros("stream_block_us", "0.3",
             "per block a prefetching read stream hands out beyond a plain read (its callback "
             "and queue; what index_prefetch costs on cached pages)"),
      micros("bitmap_page_us", "0.8",
             "per heap page a bitmap heap scan visits in the pool (the TID bitmap's iteration, "
             "the stream, the page's visit)"),
      micros("page_read_cpu_us", "0.5",
             "per page read from storage on top of the I/O (checksum, completion, mapping)"),
      micros("os_cache_page_us", "2",
             "per page a buffered read finds in the kernel's page cache (io_direct = off)"),
  };
}

}  // namespace tp
