// `prefetch-suite`: the index-prefetching patch's benchmark (PostgreSQL patch 4351's
// regular and adversarial query families) over an orders-like table and its customers,
// every query cold and warm, prefetching off against `index_prefetch = on` under each
// policy and against rescan_aware with nested-loop batching. A query more than 6%
// slower than prefetching off (10% for an adversarial one) is flagged as a regression;
// the cold speed-ups are set beside what the device's queue depth allows.
//
//   ps_orders     --rows rows, fillfactor 10; id in heap order (a correlated index),
//                 cust = 10 orders per customer scattered over the heap (index on
//                 (cust, amt)); VACUUMed, so index-only scans need no heap page
//   ps_customers  --rows / 10 rows; cid, region (100 regions; indexes on both)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <random>
#include <sstream>

#include "bufmgr/prefetch_policy.h"
#include "engine/core/error.h"
#include "tools/experiments/experiment.h"
#include "tools/experiments/explain.h"
#include "tools/experiments/plot.h"

namespace tp::experiments {

namespace {

constexpr double kRegularBound = 1.06;      // the patch's own bar
constexpr double kAdversarialBound = 1.10;  // issue 34's bar for the adversarial family
const char* const kTemperatures[] = {"cold", "warm"};
const char* const kControl = "off, again";

struct Query {
  std::string name;
  bool adversarial = false;
  bool random_heap = false;  // its cold heap reads are scattered (the device curve applies)
  std::string top;           // EXPLAIN ANALYZE's top node, checked
  std::string sql;
  bool merge = false;  // planned as a merge join (nested loops off, merge joins on)
};

std::vector<Query> suite(uint64_t rows) {
  const uint64_t customers = std::max<uint64_t>(rows / 10, 100);
  const std::string limit =
      std::to_string(std::min<uint64_t>(50000, std::max<uint64_t>(rows / 20, 10)));
  const std::string half = std::to_string(customers / 2);
  const std::string width = std::to_string(std::max<uint64_t>(customers / 100, 1));
  const std::string note = std::to_string(rows * 9 / 10);
  // 20 customers spread over the key range; one customer for the tiny result.
  std::string in_list;
  for (uint64_t k = 1; k <= 20; ++k)
    in_list += (k > 1 ? ", " : "") + std::to_string(k * customers / 21);
  const std::string one = std::to_string(customers / 3);
  return {
      {"range scan, LIMIT " + limit, false, true, "Limit",
       "SELECT * FROM ps_orders WHERE cust > " + half + " ORDER BY cust LIMIT " + limit},
      {"join", false, true, "Aggregate",
       "SELECT count(*), sum(o.note) FROM ps_customers c JOIN ps_orders o ON o.cust = c.cid "
       "WHERE c.region = 7"},
      {"IN-list aggregate", false, true, "Aggregate",
       "SELECT sum(note) FROM ps_orders WHERE cust IN (" + in_list + ")"},
      {"backward scan", false, true, "Index Scan Backward",
       "SELECT * FROM ps_orders WHERE cust BETWEEN " + half + " AND " + half + " + " + width +
           " ORDER BY cust DESC"},
      {"correlated subquery (nested loop)", false, true, "Aggregate",
       "SELECT count(*) FROM ps_customers c WHERE c.region = 3 AND (SELECT max(o.note) FROM "
       "ps_orders o WHERE o.cust = c.cid) > " +
           note},
      {"OFFSET 1000 LIMIT 100", false, true, "Limit",
       "SELECT * FROM ps_orders WHERE cust > " + half + " ORDER BY cust OFFSET 1000 LIMIT 100"},
      {"EXISTS semi-join", false, true, "Aggregate",
       "SELECT count(*) FROM ps_customers c WHERE c.region = 5 AND EXISTS (SELECT 1 FROM "
       "ps_orders o WHERE o.cust = c.cid AND o.note > " +
           note + ")"},
      {"LATERAL top-3", false, true, "Nested Loop",
       "SELECT c.cid, l.note FROM ps_customers c, LATERAL (SELECT o.note FROM ps_orders o WHERE "
       "o.cust = c.cid ORDER BY o.amt DESC LIMIT 3) l WHERE c.region = 9"},
      {"sequential heap", true, false, "Aggregate",
       "SELECT sum(note) FROM ps_orders WHERE id BETWEEN 1 AND " + std::to_string(rows / 10)},
      {"tiny result", true, false, "Index Scan", "SELECT * FROM ps_orders WHERE cust = " + one},
      {"LIMIT 10", true, false, "Limit",
       "SELECT * FROM ps_orders WHERE cust > " + half + " ORDER BY cust LIMIT 10"},
      {"one TID per block", true, false, "Aggregate",
       "SELECT sum(o.note) FROM ps_customers c JOIN ps_orders o ON o.id = c.cid * 22 WHERE "
       "c.region < 2"},
      {"nested-loop inner LIMIT 1", true, false, "Nested Loop",
       "SELECT c.cid, l.note FROM ps_customers c, LATERAL (SELECT o.note FROM ps_orders o WHERE "
       "o.cust = c.cid ORDER BY o.amt LIMIT 1) l WHERE c.region = 11"},
      {"index-only anti-join", true, false, "Aggregate",
       "SELECT count(*) FROM ps_customers c WHERE c.region = 13 AND NOT EXISTS (SELECT 1 FROM "
       "ps_orders o WHERE o.cust = c.cid AND o.amt = c.region)"},
      {"merge anti-join", true, false, "Aggregate",
       "SELECT count(*) FROM ps_customers c WHERE NOT EXISTS (SELECT 1 FROM ps_orders o WHERE "
       "o.cust = c.cid)",
       true},
  };
}

// `count` queries drawn from the families with random keys, limits, regions and list
// lengths (seeded: the same seed, the same queries). A query whose result is a few rows
// (LIMIT 10 or less, a list of two customers or fewer), and the heap-ordered range, count
// as adversarial.
std::vector<Query> generated(uint64_t rows, int count, uint64_t seed) {
  const uint64_t customers = std::max<uint64_t>(rows / 10, 100);
  std::mt19937_64 rng(seed);
  auto pick = [&](uint64_t lo, uint64_t hi) {
    return std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
  };
  const uint64_t limits[] = {1, 5, 10, 50, 100, 1000, 10000};
  std::vector<Query> out;
  for (int i = 0; i < count; ++i) {
    const std::string tag = "random " + std::to_string(i + 1) + ": ";
    const std::string key = std::to_string(pick(1, customers - customers / 10));
    const std::string region = std::to_string(pick(0, 99));
    const uint64_t n = limits[pick(0, std::size(limits) - 1)];
    const std::string limit = std::to_string(n);
    switch (pick(0, 6)) {
      case 0:
        out.push_back(
            {tag + "range LIMIT " + limit, n <= 10, true, "Limit",
             "SELECT * FROM ps_orders WHERE cust > " + key + " ORDER BY cust LIMIT " + limit});
        break;
      case 1:
        out.push_back(
            {tag + "backward LIMIT " + limit, n <= 10, true, "Limit",
             "SELECT * FROM ps_orders WHERE cust < " + key + " ORDER BY cust DESC LIMIT " + limit});
        break;
      case 2:
        out.push_back({tag + "join, region " + region, false, true, "Aggregate",
                       "SELECT count(*), sum(o.note) FROM ps_customers c JOIN ps_orders o ON "
                       "o.cust = c.cid WHERE c.region = " +
                           region + " AND o.amt < " + std::to_string(pick(100, 1000))});
        break;
      case 3: {
        const uint64_t m = pick(1, 50);
        std::string list;
        for (uint64_t k = 0; k < m; ++k)
          list += (k ? ", " : "") + std::to_string(pick(1, customers));
        out.push_back({tag + "IN-list of " + std::to_string(m), m <= 2, true, "Aggregate",
                       "SELECT sum(note) FROM ps_orders WHERE cust IN (" + list + ")"});
        break;
      }
      case 4:
        out.push_back({tag + "EXISTS, region " + region, false, true, "Aggregate",
                       "SELECT count(*) FROM ps_customers c WHERE c.region = " + region +
                           " AND EXISTS (SELECT 1 FROM ps_orders o WHERE o.cust = c.cid AND "
                           "o.note > " +
                           std::to_string(pick(rows / 2, rows)) + ")"});
        break;
      case 5: {
        const std::string top = std::to_string(pick(1, 5));
        out.push_back({tag + "LATERAL top-" + top + ", region " + region, top == "1", true,
                       "Nested Loop",
                       "SELECT c.cid, l.note FROM ps_customers c, LATERAL (SELECT o.note FROM "
                       "ps_orders o WHERE o.cust = c.cid ORDER BY o.amt DESC LIMIT " +
                           top + ") l WHERE c.region = " + region});
        break;
      }
      default: {
        const uint64_t from = pick(1, rows - rows / 20);
        out.push_back({tag + "heap-ordered range", true, false, "Aggregate",
                       "SELECT sum(note) FROM ps_orders WHERE id BETWEEN " + std::to_string(from) +
                           " AND " + std::to_string(from + pick(10, rows / 20))});
        break;
      }
    }
  }
  return out;
}

TableSpec orders_table(uint64_t rows) {
  const std::string n = std::to_string(rows);
  const std::string customers = std::to_string(std::max<uint64_t>(rows / 10, 100));
  return TableSpec{
      "ps_orders",
      rows,
      {"CREATE TABLE ps_orders (id int, cust int, amt int, note int) WITH (fillfactor=10)",
       "INSERT INTO ps_orders SELECT i, ((i::bigint * 7919) % " + customers +
           " + 1)::int, (i * 31) % 1000, i " + "FROM generate_series(1, " + n + ") s(i)",
       "CREATE INDEX ps_orders_id ON ps_orders (id)",
       "CREATE INDEX ps_orders_cust ON ps_orders (cust, amt)", "VACUUM ps_orders",
       "ANALYZE ps_orders"},
      {"ps_orders_id", "ps_orders_cust"}};
}

TableSpec customers_table(uint64_t rows) {
  const uint64_t customers = std::max<uint64_t>(rows / 10, 100);
  const std::string n = std::to_string(customers);
  return TableSpec{
      "ps_customers",
      customers,
      {"CREATE TABLE ps_customers (cid int, region int)",
       "INSERT INTO ps_customers SELECT i, i % 100 FROM generate_series(1, " + n + ") s(i)",
       "CREATE INDEX ps_customers_cid ON ps_customers (cid)",
       "CREATE INDEX ps_customers_region ON ps_customers (region)", "ANALYZE ps_customers"},
      {"ps_customers_cid", "ps_customers_region"}};
}

// One prefetch configuration.
struct Config {
  std::string label;
  std::string index_prefetch;
  std::string policy;
  bool nestloop = false;
};

std::vector<Config> configs() {
  // "off, again" measures off against itself: what noise alone makes of a ratio.
  std::vector<Config> c = {{"off", "off", bufmgr::kDefaultPrefetchPolicy},
                           {kControl, "off", bufmgr::kDefaultPrefetchPolicy}};
  for (const std::string& p : bufmgr::prefetch_policy_names()) c.push_back({p, "on", p});
  c.push_back({"rescan_aware + nestloop batching", "on", "rescan_aware", true});
  return c;
}

std::vector<Query> all_queries(uint64_t rows, const LabOptions& options) {
  std::vector<Query> q = suite(rows);
  std::vector<Query> g = generated(rows, options.suite_random, options.suite_seed);
  q.insert(q.end(), g.begin(), g.end());
  return q;
}

class PrefetchSuite : public Experiment {
 public:
  explicit PrefetchSuite(const Lab& lab)
      : Experiment("prefetch-suite"),
        rows_(std::max<uint64_t>(lab.options().rows, 20000)),
        queries_(all_queries(rows_, lab.options())),
        configs_(configs()),
        ms_(2, std::vector<std::vector<std::vector<double>>>(
                   queries_.size(), std::vector<std::vector<double>>(configs_.size()))) {}

  int steps(const Lab& lab) const override {
    return int(2 * queries_.size() * configs_.size()) * lab.options().suite_rounds + 2;
  }

  void set_up(Lab& lab, Context&, Progress& progress) override {
    lab.reset_settings();
    lab.default_setting("io_direct", "on");  // the device, not the page cache
    progress.step("table ps_orders: " + grouped(rows_) + " rows");
    lab.ensure_table(orders_table(rows_));
    progress.step("table ps_customers: " + grouped(std::max<uint64_t>(rows_ / 10, 100)) + " rows");
    lab.ensure_table(customers_table(rows_));
  }

  // Rounds of every configuration in turn, so that the device's drift from minute to
  // minute falls on all of them alike; a query whose pages do not stay in the pool
  // has no warm figure (its "warm" runs would read as the cold ones do).
  void measure(Lab& lab, Context&, Progress& progress, Recorder& record) override {
    for (size_t q = 0; q < queries_.size(); ++q) {
      int rounds = lab.options().suite_rounds;
      for (int round = 0; round < rounds; ++round) {
        for (size_t c = 0; c < configs_.size(); ++c) {
          step(lab, progress, 0, q, c, round);
          const Timed r = run_checked(lab, q, /*cold=*/true);
          ms_[0][q][c].push_back(r.execution_ms);
          add(record, 0, q, c, size_t(round), r);
        }
        // --max-repeat-seconds: a query whose first run took that long gets one round.
        const double cap_ms = lab.options().max_repeat_seconds * 1000;
        if (round == 0 && cap_ms > 0 && ms_[0][q][0][0] > cap_ms) rounds = 1;
      }
    }
    for (size_t q = 0; q < queries_.size(); ++q)
      for (int round = 0; round < lab.options().suite_rounds && !uncached_.count(q); ++round)
        measure_warm_round(lab, progress, record, q, round);
    lab.reset_settings();
  }

  std::string report(Lab& lab, Context& ctx, const Outcome& outcome) override;

 private:
  void step(Lab& lab, Progress& progress, size_t t, size_t q, size_t c, int round) {
    apply(lab, queries_[q], configs_[c]);
    progress.step(std::string(kTemperatures[t]) + ", " + queries_[q].name + ", " +
                  configs_[c].label + " (round " + std::to_string(round + 1) + ")");
  }
  static void apply(Lab& lab, const Query& q, const Config& c) {
    apply_config(lab, c);
    // The nested-loop families as nested loops, the merge one as a merge join, no
    // bitmap scans: each family keeps its plan shape under every configuration.
    lab.sql("SET enable_bitmapscan = off");
    lab.sql("SET enable_seqscan = off");
    lab.sql("SET enable_hashjoin = off");
    lab.sql(std::string("SET enable_mergejoin = ") + (q.merge ? "on" : "off"));
    lab.sql(std::string("SET enable_nestloop = ") + (q.merge ? "off" : "on"));
  }
  static void apply_config(Lab& lab, const Config& c) {
    lab.sql("SET index_prefetch = " + c.index_prefetch);
    lab.sql("SET prefetch_policy = " + c.policy);
    lab.sql(std::string("SET nestloop_prefetch = ") + (c.nestloop ? "on" : "off"));
  }

  // One round of the warm figures. Each configuration's EXPLAIN ANALYZE (its pages
  // read already, so it must read none, and its rows checked), then executions of the
  // configurations in turn, one each, until each has had LabOptions::suite_warm_ms (100 ms): every
  // configuration sees the same moments of the machine (on this VM a cached query's time moves by
  // 2x from one 100 ms to the next), and its round's figure is its executions' median.
  void measure_warm_round(Lab& lab, Progress& progress, Recorder& record, size_t q, int round) {
    std::vector<Timed> explained;
    for (size_t c = 0; c < configs_.size(); ++c) {
      step(lab, progress, 1, q, c, round);
      if (round == 0 && c == 0) lab.sql(queries_[q].sql);  // its pages into the pool
      explained.push_back(run_checked(lab, q, /*cold=*/false));
      // A configuration that reads ahead may touch a page the others never did: once.
      if (explained.back().shared_read > 0) explained.back() = run_checked(lab, q, false);
      if (explained.back().shared_read > 0) {
        uncached_[q] = explained.back().shared_read;
        return;
      }
    }
    std::vector<std::vector<double>> each(configs_.size());
    double spent = 0;
    while (each[0].size() < 3 || spent < lab.options().suite_warm_ms * double(configs_.size())) {
      for (size_t c = 0; c < configs_.size(); ++c) {
        apply_config(lab, configs_[c]);
        const auto start = std::chrono::steady_clock::now();
        lab.sql(queries_[q].sql);
        const double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        each[c].push_back(ms);
        spent += ms;
      }
    }
    for (size_t c = 0; c < configs_.size(); ++c) {
      explained[c].execution_ms = median(each[c]);
      ms_[1][q][c].push_back(explained[c].execution_ms);
      apply_config(lab, configs_[c]);  // the row carries its configuration's settings
      add(record, 1, q, c, size_t(round), explained[c]);
    }
  }

  // A run's EXPLAIN ANALYZE, cold (the pool emptied first) or warm; every
  // configuration must return the rows prefetching off returned.
  Timed run_checked(Lab& lab, size_t q, bool cold) {
    if (cold)
      lab.make_cold({"ps_orders", "ps_orders_id", "ps_orders_cust", "ps_customers",
                     "ps_customers_cid", "ps_customers_region"});
    Timed r = explain_analyze(lab, queries_[q].sql, {queries_[q].top, std::nullopt},
                              "prefetch-suite: " + queries_[q].name);
    uint64_t rows = 0;
    parse_top_actual_rows(r.result, &rows);
    auto [it, first] = returned_.emplace(q, rows);
    if (!first && it->second != rows)
      throw Error("prefetch-suite: " + queries_[q].name + " returned " + std::to_string(rows) +
                  " rows, " + std::to_string(it->second) + " without prefetching");
    return r;
  }

  void add(Recorder& record, size_t t, size_t q, size_t c, size_t i, const Timed& r) const {
    record.add({{"query", queries_[q].name},
                {"family", queries_[q].adversarial ? "adversarial" : "regular"},
                {"temperature", kTemperatures[t]},
                {"config", configs_[c].label},
                {"rows", std::to_string(rows_)},
                {"repeat", std::to_string(i)},
                {"ms", fixed(r.execution_ms, 3)},
                {"shared_read", std::to_string(r.shared_read)}});
  }

  // A configuration's figure: the median of its rounds.
  double figure(size_t t, size_t q, size_t c) const {
    const std::vector<double>& v = ms_[t][q][c];
    return v.empty() ? NAN : median(v);
  }
  // Time against prefetching off's (above 1: slower). Warm, the median of the rounds'
  // own ratios: a round's configurations shared its moments of the machine.
  double ratio(size_t t, size_t q, size_t c) const {
    const std::vector<double>& v = ms_[t][q][c];
    const std::vector<double>& off = ms_[t][q][0];
    if (t == 0 || v.size() != off.size() || v.empty()) return figure(t, q, c) / figure(t, q, 0);
    std::vector<double> each;
    for (size_t i = 0; i < v.size(); ++i) each.push_back(v[i] / off[i]);
    return median(each);
  }
  double bound(size_t q) const {
    return queries_[q].adversarial ? kAdversarialBound : kRegularBound;
  }
  std::string ratio_table(size_t t) const;
  std::string worst_table(const Context& ctx) const;
  std::string chart(const std::string& out_dir) const;

  const uint64_t rows_;
  const std::vector<Query> queries_;
  const std::vector<Config> configs_;
  std::vector<std::vector<std::vector<std::vector<double>>>> ms_;  // [temp][query][config]
  std::map<size_t, uint64_t> returned_;  // per query, the rows its first run returned
  std::map<size_t, uint64_t> uncached_;  // per query, the pages its second run still read
};

// Per query: prefetching off's median ms, then each configuration's time against it;
// a regression (beyond the query's bound) in bold with a "!".
std::string PrefetchSuite::ratio_table(size_t t) const {
  std::vector<std::string> header = {"query", "family", "off ms"};
  std::vector<bool> right = {false, false, true};
  for (size_t c = 1; c < configs_.size(); ++c)
    header.push_back(configs_[c].label), right.push_back(true);
  std::vector<std::vector<std::string>> rows;
  for (size_t q = 0; q < queries_.size(); ++q) {
    if (ms_[t][q].back().empty()) continue;
    std::vector<std::string> row = {queries_[q].name,
                                    queries_[q].adversarial ? "adversarial" : "regular",
                                    fixed(figure(t, q, 0), 1)};
    for (size_t c = 1; c < configs_.size(); ++c) {
      const double r = ratio(t, q, c);
      const std::string cell = fixed(r, 2) + "x";
      row.push_back(r > bound(q) ? "**" + cell + " !**" : cell);
    }
    rows.push_back(row);
  }
  return rows.empty() ? "" : markdown_table(header, rows, right);
}

// Per configuration: its worst regular and adversarial slowdowns, cold and warm, the
// regressions counted, and its best cold speed-up on a scattered heap against what the
// device's queue depth allows (same run).
std::string PrefetchSuite::worst_table(const Context& ctx) const {
  const double allows =
      ctx.device.random_direct_iops_deep("worker") / ctx.device.random_direct_iops("worker", 1);
  std::vector<std::vector<std::string>> rows;
  for (size_t c = 1; c < configs_.size(); ++c) {
    double worst_regular = 0, worst_adversarial = 0, best_speedup = 0;
    int regressions = 0;
    for (size_t t = 0; t < 2; ++t)
      for (size_t q = 0; q < queries_.size(); ++q) {
        const double r = ratio(t, q, c);
        if (std::isnan(r)) continue;
        double& worst = queries_[q].adversarial ? worst_adversarial : worst_regular;
        worst = std::max(worst, r);
        if (r > bound(q)) ++regressions;
        if (t == 0 && queries_[q].random_heap) best_speedup = std::max(best_speedup, 1 / r);
      }
    if (worst_regular == 0 && worst_adversarial == 0) continue;
    rows.push_back({configs_[c].label, fixed(worst_regular, 2) + "x",
                    fixed(worst_adversarial, 2) + "x", std::to_string(regressions),
                    fixed(best_speedup, 2) + "x",
                    std::isnan(allows) ? "-" : fixed(100 * best_speedup / allows, 0) + "%"});
  }
  if (rows.empty()) return "";
  std::string md = markdown_table({"configuration", "worst regular", "worst adversarial",
                                   "regressions", "best cold speed-up", "of the device's"},
                                  rows, {false, true, true, true, true, true});
  md += "\n*worst*: the largest time against prefetching off, cold or warm (bounds: " +
        fixed(kRegularBound, 2) + "x regular, " + fixed(kAdversarialBound, 2) +
        "x adversarial); *best cold speed-up*: on the queries whose heap reads are scattered; "
        "*of the device's*: that speed-up as a share of what the raw device gains from depth 1 "
        "to its deepest queue (random 8 kB direct reads, worker" +
        (std::isnan(allows) ? std::string(": not measured in this run")
                            : ": " + fixed(allows, 1) + "x") +
        ").\n\n";
  return md;
}

std::string PrefetchSuite::chart(const std::string& out_dir) const {
  if (ms_[0].back().back().empty()) return "";
  Chart chart;
  chart.title = "prefetch-suite, cold: time against prefetching off";
  chart.xlabel = "query";
  chart.ylabel = "time / prefetching off's (log scale)";
  chart.log_y = true;
  chart.key_position = "below";
  for (const Query& q : queries_) chart.xtic_labels.push_back(q.name);
  for (size_t c = 1; c < configs_.size(); ++c) {
    Series s(configs_[c].label);
    for (size_t q = 0; q < queries_.size(); ++q) s.points.emplace_back(double(q), ratio(0, q, c));
    chart.series.push_back(s);
  }
  return chart_markdown(chart, out_dir, "prefetch_suite.png", "prefetch-suite ratios, cold");
}

std::string PrefetchSuite::report(Lab& lab, Context& ctx, const Outcome& outcome) {
  std::ostringstream md;
  md << "## prefetch-suite: the prefetching patch's benchmark, regular and adversarial\n\n"
     << section_status(outcome);
  md << "`ps_orders` (" << grouped(rows_)
     << " rows, fillfactor 10, `id` in heap order, `cust` 10 orders per customer scattered, "
        "index on `(cust, amt)`, VACUUMed) and `ps_customers` ("
     << grouped(std::max<uint64_t>(rows_ / 10, 100))
     << " rows, 100 regions). Each query cold (`io_direct = on`, the pool emptied) and warm "
        "(run once before), in "
     << lab.options().suite_rounds
     << " rounds (`--suite-rounds`) that each run every configuration once: prefetching off, "
        "off again (a control: what noise alone makes of a ratio), `index_prefetch = on` "
        "under each policy, and `rescan_aware` with `nestloop_prefetch = on`. Cold: EXPLAIN "
        "ANALYZE's Execution Time, the median of the rounds; warm: in each round the "
        "configurations' executions in turn, one each, until each has had "
     << fixed(lab.options().suite_warm_ms, 0)
     << " ms (so all see the same moments of the machine), a round's figure the median of "
        "its executions and the ratio the median of the rounds' ratios. Bitmap scans, seq scans "
        "and "
        "hash joins are off so that every family keeps "
        "its plan (the merge anti-join with nested loops off). Cells: time against "
        "prefetching off's; in bold with `!` a query more than 6% slower (10% for an "
        "adversarial one). The warm columns are the patch's \"fully cached table\" case "
        "for every family whose pages stay in the pool.\n\n";
  const std::string worst = worst_table(ctx);
  if (!worst.empty()) md << "<!-- excerpt -->\n" << worst << "<!-- /excerpt -->\n";
  for (size_t t = 0; t < 2; ++t) {
    const std::string table = ratio_table(t);
    if (!table.empty()) md << "**" << kTemperatures[t] << "**\n\n" << table << "\n";
  }
  for (const auto& [q, read] : uncached_)
    md << "- No warm figure for " << queries_[q].name
       << ": run again after it had read its pages it still read " << grouped(read)
       << " pages, so it has no fully cached case here.\n";
  if (!uncached_.empty()) md << "\n";
  md << "Queries (`random N`: generated from the families with `--suite-seed` "
     << lab.options().suite_seed << "):\n\n";
  for (const Query& q : queries_) md << "- " << q.name << ": `" << q.sql << "`\n";
  md << "\n" << device_sentence(ctx.device) << "\n\n" << chart(lab.options().out_dir);
  return md.str();
}

}  // namespace

Outcome run_prefetch_suite(Lab& lab, Context& ctx) {
  PrefetchSuite experiment(lab);
  return run_experiment(experiment, lab, ctx);
}

}  // namespace tp::experiments
