#include "engine/session/layer_settings.h"

#include <algorithm>

#include "engine/plan/device_curve.h"
#include "engine/session/settings_defs_model.h"
#include "scans/index_scan.h"

namespace tp {

aio::IoConfig io_config(const Settings& s) {
  aio::IoConfig c;
  c.method = aio::parse_io_method(s.get_enum("io_method"));
  c.io_workers = int(s.get_int("io_workers"));
  c.io_direct = s.get_bool("io_direct");
  c.handles_per_thread = int(s.get_int("io_max_concurrency"));
  return c;
}

StorageConfig storage_config(const Settings& s) {
  return StorageConfig{.io = io_config(s), .shared_buffers = int(s.get_int("shared_buffers"))};
}

bufmgr::ReadStreamConfig stream_config(const Settings& s) {
  bufmgr::ReadStreamConfig c;
  c.effective_io_concurrency = int(s.get_int("effective_io_concurrency"));
  c.io_combine_limit = int(s.get_int("io_combine_limit"));
  c.policy = bufmgr::find_prefetch_policy(s.get_enum("prefetch_policy"));
  c.policy_settings.fixed_distance = int(s.get_int("prefetch_fixed_distance"));
  return c;
}

namespace {

// cost_model = prefetch_aware: the device curve of the session's I/O method and mode,
// the look-ahead each scan kind will have, and the CPU constants in the model's unit.
void prefetch_aware_costs(const Settings& s, const PlannerSettings& p, CostSettings& cs) {
  PrefetchModel& m = cs.prefetch;
  m.enabled = true;
  const bool direct = s.get_bool("io_direct");
  const std::string curve = device_curve_setting(s.get_enum("io_method"), direct);
  m.device = parse_device_curve(s.get_text(curve), curve);
  m.device_setting = curve;
  m.buffered = !direct;
  m.page_hit_us = s.get_real("page_hit_us");
  m.random_page_hit_us = s.get_real("random_page_hit_us");
  m.stream_block_us = s.get_real("stream_block_us");
  m.bitmap_page_us = s.get_real("bitmap_page_us");
  m.page_read_cpu_us = s.get_real("page_read_cpu_us");
  m.os_cache_page_us = s.get_real("os_cache_page_us");
  // A stream keeps effective_io_concurrency reads in flight, no more than the thread's
  // I/O handles; effective_io_concurrency = 0 reads one at a time.
  const int eic = p.stream.effective_io_concurrency;
  const double depth = eic == 0 ? 1 : std::min<int64_t>(eic, s.get_int("io_max_concurrency"));
  m.seq_depth = m.bitmap_depth = depth;
  m.index_prefetch = p.index_prefetch != IndexPrefetch::kOff;
  m.index_depth = m.index_prefetch ? depth : 1;
  m.index_start_pages = p.index_prefetch == IndexPrefetch::kOn ? scans::kPrefetchStartSwitches : 0;
  m.leaf_depth = p.index_leaf_readahead ? depth : 1;
  m.io_combine_limit = p.stream.io_combine_limit;
  cs.seq_page_cost = 1;
  cs.random_page_cost = m.units(m.device.random_read_us(1));
  cs.cpu_tuple_cost = m.units(s.get_real("cpu_tuple_us"));
  cs.cpu_index_tuple_cost = m.units(s.get_real("cpu_index_tuple_us"));
  cs.cpu_operator_cost = m.units(s.get_real("cpu_operator_us"));
}

}  // namespace

PlannerSettings planner_settings(const Settings& s) {
  PlannerSettings p;
  CostSettings& cs = p.costs;
  cs.seq_page_cost = s.get_real("seq_page_cost");
  cs.random_page_cost = s.get_real("random_page_cost");
  cs.cpu_tuple_cost = s.get_real("cpu_tuple_cost");
  cs.cpu_index_tuple_cost = s.get_real("cpu_index_tuple_cost");
  cs.cpu_operator_cost = s.get_real("cpu_operator_cost");
  cs.effective_cache_size_pages = double(s.get_int("effective_cache_size"));
  cs.work_mem_kb = s.get_int("work_mem");
  cs.hash_mem_multiplier = s.get_real("hash_mem_multiplier");
  cs.parallel_setup_cost = s.get_real("parallel_setup_cost");
  cs.parallel_tuple_cost = s.get_real("parallel_tuple_cost");
  cs.validate();
  p.enable_seqscan = s.get_bool("enable_seqscan");
  p.enable_indexscan = s.get_bool("enable_indexscan");
  p.enable_indexonlyscan = s.get_bool("enable_indexonlyscan");
  p.enable_bitmapscan = s.get_bool("enable_bitmapscan");
  p.enable_sort = s.get_bool("enable_sort");
  p.enable_hashagg = s.get_bool("enable_hashagg");
  p.enable_gathermerge = s.get_bool("enable_gathermerge");
  p.enable_incremental_sort = s.get_bool("enable_incremental_sort");
  p.enable_nestloop = s.get_bool("enable_nestloop");
  p.enable_hashjoin = s.get_bool("enable_hashjoin");
  p.enable_mergejoin = s.get_bool("enable_mergejoin");
  p.enable_material = s.get_bool("enable_material");
  p.enable_memoize = s.get_bool("enable_memoize");
  p.enable_parallel_hash = s.get_bool("enable_parallel_hash");
  p.join_collapse_limit = s.get_int("join_collapse_limit");
  p.from_collapse_limit = s.get_int("from_collapse_limit");
  p.geqo = s.get_bool("geqo");
  p.geqo_threshold = s.get_int("geqo_threshold");
  const std::string& prefetch = s.get_enum("index_prefetch");
  p.index_prefetch = prefetch == "off"  ? IndexPrefetch::kOff
                     : prefetch == "on" ? IndexPrefetch::kOn
                                        : IndexPrefetch::kImmediate;
  p.index_leaf_readahead = s.get_bool("index_leaf_readahead");
  p.nestloop_prefetch_rows =
      s.get_bool("nestloop_prefetch") ? int(s.get_int("nestloop_prefetch_rows")) : 0;
  p.stream = stream_config(s);
  p.max_parallel_workers_per_gather = int(s.get_int("max_parallel_workers_per_gather"));
  p.max_parallel_workers = int(s.get_int("max_parallel_workers"));
  p.min_parallel_table_scan_size = double(s.get_int("min_parallel_table_scan_size"));
  p.min_parallel_index_scan_size = double(s.get_int("min_parallel_index_scan_size"));
  p.parallel_leader_participation = s.get_bool("parallel_leader_participation");
  if (s.get_enum("cost_model") == "prefetch_aware") prefetch_aware_costs(s, p, cs);
  return p;
}

}  // namespace tp
