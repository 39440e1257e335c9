// `limit`: the prefetching patch's LIMIT benchmark (PostgreSQL patch 4351's thread: a
// 10 M-row, fillfactor 10 table, `pgbench -M prepared` running
// `SELECT * FROM t WHERE sk > $1 ORDER BY sk LIMIT n`). Here the rpc table's shuffled
// column `a` is `sk`; each point is a prepared statement executed in a loop with random
// keys, in process (what the server's extended protocol runs, without the wire), for
// LIMIT 1 to 1024, with index_prefetch off, on under every policy, and immediate:
//
//   cold    the pool emptied first and direct I/O; keys anywhere in the table, and a
//           point stops after reading a quarter of the table's pages, so it stays cold
//   cached  keys in the first rows only, whose heap pages were read into the pool first
//
// Per point: queries per second and heap blocks read per query (read-ahead that the
// LIMIT never used included). The report gives the crossover (the smallest LIMIT at
// which starting the stream at once beats the patch's delayed start) beside the
// published one, and flags any configuration more than 6% slower than prefetching off.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

#include "bufmgr/prefetch_policy.h"
#include "engine/core/error.h"
#include "tools/experiments/experiment.h"
#include "tools/experiments/plot.h"
#include "tools/experiments/served.h"

namespace tp::experiments {

namespace {

const int kLimits[] = {1, 4, 16, 64, 256, 1024};
constexpr size_t kNumLimits = std::size(kLimits);
constexpr int kMaxLimit = 1024;
const char* const kTemperatures[] = {"cold", "cached"};
// Slower than prefetching off by more than this is a regression (the patch's own bar).
constexpr double kRegression = 0.94;

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  if (!out) throw Error("limit: could not write " + path);
}

// One prefetch configuration: SET index_prefetch and SET prefetch_policy.
struct Config {
  std::string label;
  std::string mode;
  std::string policy;
};

std::vector<Config> configs() {
  std::vector<Config> c = {{"off", "off", bufmgr::kDefaultPrefetchPolicy}};
  for (const std::string& p : bufmgr::prefetch_policy_names()) c.push_back({"on, " + p, "on", p});
  c.push_back({"immediate", "immediate", bufmgr::kDefaultPrefetchPolicy});
  return c;
}

// One point's rounds: each a burst of queries from a fresh start (cold: an empty pool).
struct Point {
  std::vector<double> qps;
  std::vector<double> reads_per_query;
  uint64_t queries = 0;  // over all rounds
  double median_qps() const { return qps.empty() ? NAN : median(qps); }
  double median_reads() const { return reads_per_query.empty() ? NAN : median(reads_per_query); }
};

class PreparedLimit : public Experiment {
 public:
  explicit PreparedLimit(const Lab& lab)
      : Experiment("limit"),
        rows_(std::max<uint64_t>(lab.options().rows, 2 * kMaxLimit)),
        configs_(configs()),
        rounds_(std::max(1, lab.options().repeat)),
        seconds_(lab.options().limit_round_seconds),
        max_queries_(2000),
        points_(2,
                std::vector<std::vector<Point>>(kNumLimits, std::vector<Point>(configs_.size()))),
        served_(points_) {}

  int steps(const Lab&) const override {
    return int(2 * kNumLimits * (configs_.size() * rounds_ + 4)) + 1;
  }

  void set_up(Lab& lab, Context&, Progress& progress) override {
    lab.reset_settings();
    lab.default_setting("io_direct", "on");  // as the rpc article: the device, not the page cache
    progress.step("table t: " + grouped(rows_) + " rows like the rpc table");
    lab.ensure_table(rpc_table(rows_, "t"));
    Session& s = lab.session();
    table_pages_ = s.storage().file(*s.catalog().find("t")).size_blocks();
    pool_buffers_ = uint64_t(lab.session().storage().pool().shared_buffers());
  }

  void measure(Lab& lab, Context&, Progress& progress, Recorder& record) override {
    lab.sql("SET enable_seqscan = off");
    lab.sql("SET enable_bitmapscan = off");
    // Round after round of every configuration, so that a drift of the device or the
    // machine spreads over all of them instead of favouring the ones measured first.
    for (size_t t = 0; t < 2; ++t)
      for (size_t l = 0; l < kNumLimits; ++l)
        for (int round = 0; round < rounds_; ++round)
          for (size_t c = 0; c < configs_.size(); ++c) {
            progress.step(std::string(kTemperatures[t]) + ", LIMIT " + std::to_string(kLimits[l]) +
                          ", " + configs_[c].label);
            measure_round(lab, t, l, configs_[c], points_[t][l][c]);
            add(record, t, l, c, round);
          }
    lab.sql("RESET index_prefetch");
    lab.sql("RESET prefetch_policy");
    const std::string tidepool = tidepool_executable(lab.options().tidepool_binary);
    if (pgbench_available() && !tidepool.empty()) measure_pgbench(lab, progress, record, tidepool);
  }

  std::string report(Lab& lab, Context& ctx, const Outcome& outcome) override;

 private:
  // Keys of the cached points: rows 1..cached_keys_ + LIMIT sit on at most half the pool.
  uint64_t cached_keys() const {
    const uint64_t room = std::min(rows_, pool_buffers_ / 2);
    return room > 2 * kMaxLimit ? room - kMaxLimit : kMaxLimit;
  }

  void measure_round(Lab& lab, size_t t, size_t l, const Config& config, Point& point) {
    const int n = kLimits[l];
    lab.sql("SET index_prefetch = " + config.mode);
    lab.sql("SET prefetch_policy = " + config.policy);
    // A statement prepared under this point's settings: its plans are made with them.
    lab.sql("PREPARE lim(int) AS SELECT * FROM t WHERE a > $1 ORDER BY a LIMIT " +
            std::to_string(n));
    const bool cold = t == 0;
    const uint64_t keys = cold ? rows_ - uint64_t(n) : cached_keys();
    if (cold) {
      lab.make_cold({"t", "t_a_idx"});
    } else {
      lab.sql("SELECT count(b) FROM t WHERE a <= " + std::to_string(keys + uint64_t(n)));
    }
    // The same keys for every configuration of a point (and round).
    std::mt19937_64 rng(1000 * t + l + 100'000 * point.qps.size());
    std::uniform_int_distribution<uint64_t> key(0, keys - 1);
    // A cold point stops once it has read a quarter of the table: beyond that its own
    // reads would make it a cached one.
    const uint64_t cold_budget = std::max<uint64_t>(table_pages_ / 4, 1);
    bufmgr::BufferPool& pool = lab.session().storage().pool();
    const uint64_t reads_before = pool.counters_total().reads;
    const auto start = std::chrono::steady_clock::now();
    double elapsed = 0;
    uint64_t queries = 0;
    while (queries < max_queries_) {
      const ResultSet r = lab.sql("EXECUTE lim(" + std::to_string(key(rng)) + ")");
      if (r.rows.size() != size_t(n))
        throw Error("limit: LIMIT " + std::to_string(n) + " returned " +
                    std::to_string(r.rows.size()) + " rows");
      ++queries;
      elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (elapsed >= seconds_ && queries >= 3) break;
      if (cold && pool.counters_total().reads - reads_before >= cold_budget && queries >= 3) break;
    }
    point.queries += queries;
    point.qps.push_back(double(queries) / std::max(elapsed, 1e-9));
    point.reads_per_query.push_back(double(pool.counters_total().reads - reads_before) /
                                    double(queries));
    lab.sql("DEALLOCATE lim");
  }

  // The same points through `tidepool serve` and `pgbench -M prepared` (one client, one
  // run each): a server started per point (cold: its pool empty), the settings given
  // with --set, the keys drawn by pgbench's random().
  void measure_pgbench(Lab& lab, Progress& progress, Recorder& record,
                       const std::string& tidepool) {
    lab.close_session();  // the server opens the data directory
    const std::string& out = lab.options().out_dir;
    for (size_t t = 0; t < 2; ++t)
      for (size_t l = 0; l < kNumLimits; ++l) {
        const int n = kLimits[l];
        const bool cold = t == 0;
        const uint64_t keys = cold ? rows_ - uint64_t(n) : cached_keys();
        const std::string script = out + "/limit-pgbench.sql";
        write_text(script, "\\set k random(0, " + std::to_string(keys - 1) +
                               ")\nSELECT * FROM t WHERE a > :k ORDER BY a LIMIT " +
                               std::to_string(n) + ";\n");
        const std::string warm = out + "/limit-pgbench-warm.sql";
        write_text(warm, "SELECT count(b) FROM t WHERE a <= " + std::to_string(keys + uint64_t(n)) +
                             ";\n");
        // Cold: a quarter of the table's pages at most; cached: a few thousand rows.
        const uint64_t budget = cold ? table_pages_ / 4 : 20000;
        const int transactions = int(std::clamp<uint64_t>(budget / uint64_t(n), 3, max_queries_));
        for (size_t c = 0; c < configs_.size(); ++c) {
          if (!served(c)) continue;
          lab.check_stop();
          progress.step(std::string("pgbench, ") + kTemperatures[t] + ", LIMIT " +
                        std::to_string(n) + ", " + configs_[c].label);
          ServedDataDir server(
              tidepool, lab.options().data_dir,
              {"io_direct=on", "enable_seqscan=off", "enable_bitmapscan=off",
               "index_prefetch=" + configs_[c].mode, "prefetch_policy=" + configs_[c].policy},
              out + "/limit-serve.log");
          if (!cold) pgbench_tps(server.port(), warm, 1);
          Point& p = served_[t][l][c];
          p.qps.push_back(pgbench_tps(server.port(), script, transactions));
          p.queries += uint64_t(transactions);
          // The session stays closed while a server holds the directory: the row names
          // the server's settings itself.
          record.add_without_settings({{"temperature", kTemperatures[t]},
                                       {"limit", std::to_string(n)},
                                       {"config", configs_[c].label},
                                       {"mode", configs_[c].mode},
                                       {"policy", configs_[c].policy},
                                       {"rows", std::to_string(rows_)},
                                       {"repeat", "0"},
                                       {"qps", fixed(p.qps.back(), 1)},
                                       {"client", "pgbench -M prepared"},
                                       {"index_prefetch", configs_[c].mode},
                                       {"prefetch_policy", configs_[c].policy},
                                       {"io_direct", "on"}});
        }
      }
  }

  // The pgbench part's configurations: the published three (off, the patch's default,
  // always) and rescan_aware; every policy is in the in-process part.
  bool served(size_t c) const {
    return configs_[c].label == "off" || configs_[c].label == "immediate" ||
           configs_[c].label == std::string("on, ") + bufmgr::kDefaultPrefetchPolicy ||
           configs_[c].label == "on, rescan_aware";
  }

  void add(Recorder& record, size_t t, size_t l, size_t c, int round) const {
    const Point& p = points_[t][l][c];
    record.add({{"temperature", kTemperatures[t]},
                {"limit", std::to_string(kLimits[l])},
                {"config", configs_[c].label},
                {"mode", configs_[c].mode},
                {"policy", configs_[c].policy},
                {"rows", std::to_string(rows_)},
                {"repeat", std::to_string(round)},
                {"qps", fixed(p.qps.back(), 1)},
                {"reads_per_query", fixed(p.reads_per_query.back(), 2)},
                {"client", "in process"}});
  }

  size_t config_index(const std::string& label) const {
    for (size_t c = 0; c < configs_.size(); ++c)
      if (configs_[c].label == label) return c;
    return 0;
  }
  // The smallest LIMIT at which `a` runs at least as fast as `b` (0: none).
  int crossover(size_t t, size_t a, size_t b) const {
    for (size_t l = 0; l < kNumLimits; ++l)
      if (points_[t][l][a].median_qps() >= points_[t][l][b].median_qps()) return kLimits[l];
    return 0;
  }
  using Points = std::vector<std::vector<std::vector<Point>>>;
  std::string qps_table(size_t t, const Points& points) const;
  std::string regressions() const;
  std::string chart(const std::string& out_dir, size_t t) const;

  const uint64_t rows_;
  const std::vector<Config> configs_;
  const int rounds_;            // rounds per point (--repeat)
  const double seconds_;        // most seconds per round
  const uint64_t max_queries_;  // most queries per round
  uint64_t table_pages_ = 0;
  uint64_t pool_buffers_ = 0;
  std::vector<std::vector<std::vector<Point>>> points_;  // [temperature][limit][config]
  std::vector<std::vector<std::vector<Point>>> served_;  // the same through pgbench
};

// Per LIMIT: each configuration's queries per second (and reads per query), the best bold.
std::string PreparedLimit::qps_table(size_t t, const Points& points) const {
  if (points[t][0][0].queries == 0) return "";
  std::vector<std::string> header = {"LIMIT"};
  std::vector<bool> right = {true};
  std::vector<size_t> shown;
  for (size_t c = 0; c < configs_.size(); ++c)
    if (points[t][0][c].queries > 0) shown.push_back(c);
  for (size_t c : shown) header.push_back(configs_[c].label), right.push_back(true);
  std::vector<std::vector<std::string>> rows;
  for (size_t l = 0; l < kNumLimits; ++l) {
    if (points[t][l][shown.back()].queries == 0) break;
    size_t best = 0;
    for (size_t c : shown)
      if (points[t][l][c].median_qps() > points[t][l][best].median_qps()) best = c;
    std::vector<std::string> row = {std::to_string(kLimits[l])};
    for (size_t c : shown) {
      const Point& p = points[t][l][c];
      std::string cell = fixed(p.median_qps(), 0);
      if (!p.reads_per_query.empty()) cell += " (" + fixed(p.median_reads(), 1) + ")";
      row.push_back(c == best ? "**" + cell + "**" : cell);
    }
    rows.push_back(row);
  }
  return markdown_table(header, rows, right);
}

// Every configuration, point by point, below kRegression of prefetching off.
std::string PreparedLimit::regressions() const {
  std::ostringstream md;
  int flagged = 0;
  for (size_t t = 0; t < 2; ++t)
    for (size_t l = 0; l < kNumLimits; ++l)
      for (size_t c = 1; c < configs_.size(); ++c) {
        const Point& off = points_[t][l][0];
        const Point& p = points_[t][l][c];
        if (p.queries == 0 || off.queries == 0 ||
            !(p.median_qps() < kRegression * off.median_qps()))
          continue;
        // Within noise: its best round as fast as the worst round of prefetching off.
        const bool noise = *std::max_element(p.qps.begin(), p.qps.end()) >=
                           *std::min_element(off.qps.begin(), off.qps.end());
        md << (flagged++ ? "; " : "") << kTemperatures[t] << " LIMIT " << kLimits[l] << " "
           << configs_[c].label << " " << fixed(p.median_qps() / off.median_qps(), 2) << "x"
           << (noise ? " (noise)" : "");
      }
  if (flagged == 0) return "No configuration ran more than 6% slower than prefetching off.\n\n";
  return "**Regressions** (median more than 6% slower than prefetching off at the same point; "
         "*(noise)*: its best round was as fast as off's worst): " +
         md.str() + ".\n\n";
}

std::string PreparedLimit::chart(const std::string& out_dir, size_t t) const {
  if (points_[t][kNumLimits - 1][configs_.size() - 1].queries == 0) return "";
  Chart chart;
  chart.title = std::string("prepared LIMIT n, ") + kTemperatures[t];
  chart.xlabel = "LIMIT n (log scale)";
  chart.ylabel = "queries per second (log scale)";
  chart.log_x = chart.log_y = true;
  chart.key_position = "top right";
  for (int l : kLimits) chart.xtics.push_back(l);
  for (size_t c = 0; c < configs_.size(); ++c) {
    Series s("prefetch " + configs_[c].label, c == 0);
    for (size_t l = 0; l < kNumLimits; ++l)
      s.points.emplace_back(kLimits[l], points_[t][l][c].median_qps());
    chart.series.push_back(s);
  }
  const std::string file = std::string("limit_") + kTemperatures[t] + ".png";
  return chart_markdown(chart, out_dir, file,
                        std::string("LIMIT queries per second, ") + kTemperatures[t]);
}

std::string PreparedLimit::report(Lab& lab, Context& ctx, const Outcome& outcome) {
  std::ostringstream md;
  md << "## limit: prepared LIMIT queries (the prefetching patch's benchmark)\n\n"
     << section_status(outcome);
  md << "`PREPARE lim(int) AS SELECT * FROM t WHERE a > $1 ORDER BY a LIMIT n`, executed "
        "with random keys in a loop (one client, in process: the plan the server's extended "
        "protocol runs, without the wire) on the rpc table ("
     << grouped(rows_)
     << " rows, fillfactor 10, `a` shuffled), `io_direct = on`; each point is the median of "
     << rounds_ << " rounds of up to " << fixed(seconds_, 2) << " s or " << grouped(max_queries_)
     << " queries, every configuration's round before the next round, with the same keys. "
        "*Cold*: the pool emptied "
        "first, keys anywhere in the table, and a point stops after reading a quarter of the "
        "table's pages; *cached*: keys among the first "
     << grouped(cached_keys())
     << " rows, whose heap pages were read into the pool first. Cells: queries per second "
        "(heap and index blocks read per query, read-ahead the LIMIT never used included); the "
        "best of each row in bold. `on, P`: `index_prefetch = on` under policy P (when the "
        "stream starts is the policy's call); `immediate`: the stream starts before the first "
        "heap page.\n\n";
  for (size_t t = 0; t < 2; ++t) {
    const std::string table = qps_table(t, points_);
    if (table.empty()) continue;
    md << "**" << kTemperatures[t] << "**\n\n";
    if (t == 0) md << "<!-- excerpt -->\n";
    md << table << "\n";
    if (t == 0 && points_[0][kNumLimits - 1][configs_.size() - 1].queries > 0) {
      const size_t off = 0, on = config_index(std::string("on, ") + bufmgr::kDefaultPrefetchPolicy),
                   now = config_index("immediate");
      const int over_on = crossover(0, now, on), over_off = crossover(0, now, off);
      md << "Cold, LIMIT 1: delayed start (`on`) runs at "
         << fixed(points_[0][0][on].median_qps() / points_[0][0][off].median_qps(), 2)
         << "x prefetching off, `immediate` at "
         << fixed(points_[0][0][now].median_qps() / points_[0][0][off].median_qps(), 2)
         << "x (published: 0.95x and 0.25x). `immediate` catches up with `on` from LIMIT "
         << (over_on ? std::to_string(over_on) : std::string("(never, up to 1024)"))
         << " and with off from LIMIT "
         << (over_off ? std::to_string(over_off) : std::string("(never, up to 1024)"))
         << " (published: always prefetching wins from about LIMIT 16).\n";
      md << "<!-- /excerpt -->\n";
    }
    md << "\n";
  }
  md << regressions();
  if (served_[0][0][0].queries > 0) {
    md << "**Through `tidepool serve` and `pgbench -M prepared`**, the published "
          "configurations and rescan_aware (one client; a server "
          "started per point with the configuration's settings, cold: its pool empty; one run "
          "of up to "
       << grouped(max_queries_)
       << " transactions, cold ones stopped at a quarter of the table's pages; keys from "
          "pgbench's `random()`): transactions per second.\n\n";
    for (size_t t = 0; t < 2; ++t) {
      const std::string table = qps_table(t, served_);
      if (table.empty()) continue;
      md << "*" << kTemperatures[t] << "*\n\n" << table << "\n";
    }
    const size_t on = config_index(std::string("on, ") + bufmgr::kDefaultPrefetchPolicy),
                 now = config_index("immediate");
    int over = 0;
    for (size_t l = 0; l < kNumLimits && over == 0; ++l)
      if (served_[0][l][now].median_qps() >= served_[0][l][on].median_qps()) over = kLimits[l];
    md << "Cold through pgbench, `immediate` catches up with `on` from LIMIT "
       << (over ? std::to_string(over) : std::string("(never, up to 1024)"))
       << " (published: about 16).\n\n";
  } else {
    md << "The pgbench part did not run (no `pgbench` on the PATH, or no `tidepool` "
          "executable to serve the data directory with).\n\n";
  }
  md << "Published (patch 4351's thread, `pgbench -M prepared`, TPS with the patch's default / "
        "without prefetching / always prefetching): LIMIT 1 12074 / 12765 / 3146; LIMIT 4 "
        "2919 / 3047 / 1334; LIMIT 16 815 / 775 / 947; LIMIT 32 424 / 403 / 687.\n\n"
     << device_sentence(ctx.device) << "\n\n";
  for (size_t t = 0; t < 2; ++t) md << chart(lab.options().out_dir, t);
  return md.str();
}

}  // namespace

Outcome run_prepared_limit(Lab& lab, Context& ctx) {
  PreparedLimit experiment(lab);
  return run_experiment(experiment, lab, ctx);
}

}  // namespace tp::experiments
