// `selectivity`: `SELECT * FROM t WHERE a BETWEEN 1 AND K` on the rpc table for
// fractions 0.01%..10% of the rows, each plan forced in turn and run cold; the
// planner's cost of each plan at random_page_cost 4 and at the measured
// estimate; crossovers of index vs seq and bitmap vs seq (cost and time); the
// plan the planner picks and its regret (its time / the fastest plan's time).
#include <filesystem>
#include <map>
#include <sstream>

#include "engine/core/error.h"
#include "tools/experiments/experiments.h"
#include "tools/experiments/plot.h"

namespace tp::experiments {

namespace {

const double kFractionsPct[] = {0.01, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10};

struct PlanDef {
  std::string name;  // "seq", "index", "index+prefetch", "bitmap", "bitmap eic=0"
  std::string kind;  // "seq", "index", "bitmap": which cost it has
  std::string node;  // the top plan node it must produce
  std::vector<std::pair<std::string, std::string>> sets;
};

std::vector<std::pair<std::string, std::string>> forcing(const std::string& kind) {
  if (kind == "seq") return {{"enable_indexscan", "off"}, {"enable_bitmapscan", "off"}};
  if (kind == "index") return {{"enable_seqscan", "off"}, {"enable_bitmapscan", "off"}};
  return {{"enable_seqscan", "off"}, {"enable_indexscan", "off"}};
}

const std::vector<PlanDef>& plan_defs() {
  static const std::vector<PlanDef> defs = [] {
    std::vector<PlanDef> d;
    d.push_back({"seq", "seq", "Seq Scan", forcing("seq")});
    auto index = forcing("index");
    index.push_back({"index_prefetch", "off"});
    d.push_back({"index", "index", "Index Scan", index});
    index.back().second = "on";
    d.push_back({"index+prefetch", "index", "Index Scan", index});
    d.push_back({"bitmap", "bitmap", "Bitmap Heap Scan", forcing("bitmap")});
    auto bitmap0 = forcing("bitmap");
    bitmap0.push_back({"effective_io_concurrency", "0"});
    d.push_back({"bitmap eic=0", "bitmap", "Bitmap Heap Scan", bitmap0});
    return d;
  }();
  return defs;
}

void apply_settings(Lab& lab, const std::vector<std::pair<std::string, std::string>>& sets) {
  for (const auto& [name, value] : sets)
    set_if_known(lab, name, value, name == "index_prefetch" && value == "off");
}

void undo_settings(Lab& lab, const std::vector<std::pair<std::string, std::string>>& sets) {
  for (const auto& [name, value] : sets)
    if (lab.has_setting(name)) lab.sql("RESET " + name);
}

std::string query(uint64_t k) {
  return "SELECT * FROM t WHERE a BETWEEN 1 AND " + std::to_string(k);
}

// x where the sign of (a - b) changes between consecutive points, interpolated on
// log x; NaN when it never changes. The last change counts: a single slow run at a
// low selectivity should not hide where the curves really part.
double crossover(const std::vector<double>& x, const std::vector<double>& a,
                 const std::vector<double>& b) {
  if (x.size() < 2) return NAN;
  for (size_t i = x.size() - 1; i-- > 0;) {
    double d0 = a[i] - b[i], d1 = a[i + 1] - b[i + 1];
    if (std::isnan(d0) || std::isnan(d1)) continue;
    if ((d0 < 0) != (d1 < 0)) {
      double t = d0 / (d0 - d1);
      return std::exp(std::log(x[i]) + t * (std::log(x[i + 1]) - std::log(x[i])));
    }
  }
  return NAN;
}

std::string pct(double v) {
  return std::isnan(v) ? "none in range" : fixed(v, v < 0.1 ? 3 : 2) + "%";
}

double estimate_from_csv(const std::string& out_dir) {
  const std::string path = out_dir + "/rpc.csv";
  if (!std::filesystem::exists(path)) return NAN;
  auto rows = read_csv(path);
  if (rows.size() < 2) return NAN;
  std::map<std::string, size_t> col;
  for (size_t i = 0; i < rows[0].size(); ++i) col[rows[0][i]] = i;
  if (!col.count("ratio") || !col.count("index_prefetch") || !col.count("eic")) return NAN;
  std::vector<double> ratios;
  std::string first_eic;
  for (size_t r = 1; r < rows.size(); ++r) {
    const auto& f = rows[r];
    if (f.size() < rows[0].size()) continue;
    if (first_eic.empty()) first_eic = f[col["eic"]];  // the default eic runs come first
    if (f[col["eic"]] != first_eic || f[col["index_prefetch"]] != "off") continue;
    char* end = nullptr;
    double v = std::strtod(f[col["ratio"]].c_str(), &end);
    if (end != f[col["ratio"]].c_str() && std::isfinite(v)) ratios.push_back(v);
  }
  return ratios.empty() ? NAN : median(ratios);
}

}  // namespace

Outcome run_selectivity(Lab& lab, Context& ctx) {
  Outcome outcome("selectivity");
  const LabOptions& opt = lab.options();
  const uint64_t n = opt.rows;
  const auto& plans = plan_defs();
  const size_t nf = std::size(kFractionsPct);
  CsvFile csv(opt.out_dir + "/selectivity.csv");
  // Per fraction, per plan: runs; per fraction, per cost kind: costs.
  std::vector<std::vector<std::vector<Timed>>> runs(nf,
                                                    std::vector<std::vector<Timed>>(plans.size()));
  std::map<std::string, std::vector<double>> cost4, cost_est;
  for (const char* kind : {"seq", "index", "bitmap"}) {
    cost4[kind].assign(nf, NAN);
    cost_est[kind].assign(nf, NAN);
  }
  std::vector<std::string> chosen4(nf), chosen_est(nf);
  std::vector<double> x_pct(kFractionsPct, kFractionsPct + nf);
  Progress progress("selectivity", int(nf * plans.size() * size_t(std::max(1, opt.repeat)) + 1),
                    opt);
  measure(outcome, [&] {
    lab.reset_settings();
    lab.default_setting("io_direct", "on");  // as the rpc article
    progress.step("table t (shared with rpc)");
    lab.ensure_table(rpc_table(n));
    if (std::isnan(ctx.rpc_estimate)) ctx.rpc_estimate = estimate_from_csv(opt.out_dir);
    if (std::isnan(ctx.rpc_estimate)) {
      if (opt.progress)
        std::fprintf(stderr, "[selectivity] no measured random_page_cost yet: running rpc first\n");
      Outcome rpc = run_rpc(lab, ctx);
      lab.reset_settings();
      lab.default_setting("io_direct", "on");
      if (std::isnan(ctx.rpc_estimate))
        throw Error("selectivity needs the measured random_page_cost and rpc did not produce it: " +
                    rpc.error);
    }
    const std::string est = fixed(ctx.rpc_estimate, 2);
    for (size_t f = 0; f < nf; ++f) {
      const uint64_t k =
          std::max<uint64_t>(1, uint64_t(std::llround(kFractionsPct[f] / 100 * double(n))));
      // Costs and the planner's choice, at random_page_cost 4 and at the estimate.
      for (const std::string& rpc : {std::string("4"), est}) {
        lab.sql("SET random_page_cost = " + rpc);
        std::string node;
        double cost = 0;
        for (const char* kind : {"seq", "index", "bitmap"}) {
          apply_settings(lab, forcing(kind));
          ResultSet plan = lab.sql("EXPLAIN " + query(k));
          undo_settings(lab, forcing(kind));
          if (!parse_top_plan(plan, &node, &cost))
            throw Error("selectivity: could not read the cost from EXPLAIN " + query(k));
          (rpc == "4" ? cost4 : cost_est)[kind][f] = cost;
        }
        ResultSet plan = lab.sql("EXPLAIN " + query(k));
        if (!parse_top_plan(plan, &node, &cost))
          throw Error("selectivity: could not read the plan from EXPLAIN " + query(k));
        (rpc == "4" ? chosen4 : chosen_est)[f] = node;
      }
      lab.sql("RESET random_page_cost");
      for (size_t p = 0; p < plans.size(); ++p) {
        const PlanDef& plan = plans[p];
        apply_settings(lab, plan.sets);
        runs[f][p] = repeated(lab, progress, pct(kFractionsPct[f]) + " " + plan.name, [&] {
          lab.make_cold({"t", "t_a_idx"});
          Timed t = lab.timed("EXPLAIN (ANALYZE, BUFFERS) " + query(k));
          std::string node;
          double cost = 0;
          if (!parse_top_plan(t.result, &node, &cost) || node != plan.node)
            throw Error("selectivity: forcing " + plan.name + " gave plan \"" + node +
                        "\", expected \"" + plan.node + "\"");
          uint64_t got = 0;
          if (parse_top_actual_rows(t.result, &got) && got != k)
            throw Error("selectivity: " + plan.name + " returned " + std::to_string(got) +
                        " rows, expected " + std::to_string(k));
          return t;
        });
        for (size_t i = 0; i < runs[f][p].size(); ++i) {
          const Timed& t = runs[f][p][i];
          Record rec = {{"rows", std::to_string(n)},
                        {"fraction_pct", fixed(kFractionsPct[f], 2)},
                        {"k", std::to_string(k)},
                        {"plan", plan.name},
                        {"repeat", std::to_string(i)},
                        {"ms", fixed(t.execution_ms, 3)},
                        {"shared_hit", std::to_string(t.shared_hit)},
                        {"shared_read", std::to_string(t.shared_read)},
                        {"cost_rpc4", fixed(cost4[plan.kind][f], 2)},
                        {"cost_measured", fixed(cost_est[plan.kind][f], 2)},
                        {"rpc_estimate", est},
                        {"chosen_rpc4", chosen4[f]},
                        {"chosen_measured", chosen_est[f]}};
          add_run(csv, rec, lab, ctx, outcome);
        }
        undo_settings(lab, plan.sets);
      }
    }
  });

  // Medians per point and plan; the plan's time for a chosen node.
  std::vector<std::vector<double>> ms(plans.size(), std::vector<double>(nf, NAN));
  for (size_t f = 0; f < nf; ++f)
    for (size_t p = 0; p < plans.size(); ++p)
      if (!runs[f][p].empty()) ms[p][f] = median_of(runs[f][p], &Timed::execution_ms);
  auto time_of_node = [&](const std::string& node, size_t f) {
    for (size_t p = 0; p < plans.size(); ++p)
      if (plans[p].node == node) return ms[p][f];  // the first variant: default settings
    return double(NAN);
  };
  auto fastest = [&](size_t f) {
    double best = NAN;
    for (size_t p = 0; p < plans.size(); ++p)
      if (!std::isnan(ms[p][f]) && (std::isnan(best) || ms[p][f] < best)) best = ms[p][f];
    return best;
  };
  std::vector<std::vector<std::string>> table;
  for (size_t f = 0; f < nf; ++f) {
    if (std::isnan(ms[0][f]) && chosen4[f].empty()) continue;
    std::vector<std::string> row = {pct(kFractionsPct[f])};
    for (size_t p = 0; p < plans.size(); ++p) row.push_back(fixed(ms[p][f], 1));
    for (const char* kind : {"seq", "index", "bitmap"}) row.push_back(fixed(cost4[kind][f], 0));
    row.push_back(chosen4[f]);
    row.push_back(fixed(time_of_node(chosen4[f], f) / fastest(f), 2));
    row.push_back(chosen_est[f]);
    row.push_back(fixed(time_of_node(chosen_est[f], f) / fastest(f), 2));
    table.push_back(row);
  }
  const double cx_cost4 = crossover(x_pct, cost4["index"], cost4["seq"]);
  const double cx_cost_est = crossover(x_pct, cost_est["index"], cost_est["seq"]);
  const double cx_bitmap_cost4 = crossover(x_pct, cost4["bitmap"], cost4["seq"]);
  const double cx_time = crossover(x_pct, ms[1], ms[0]);
  const double cx_time_pf = crossover(x_pct, ms[2], ms[0]);
  const double cx_bitmap_time = crossover(x_pct, ms[3], ms[0]);

  std::ostringstream md;
  md << "## selectivity: seq vs index vs bitmap scans\n\n" << section_status(outcome);
  md << "`SELECT * FROM t WHERE a BETWEEN 1 AND K` on the rpc table (" << grouped(n)
     << " rows), each plan forced with enable_* settings and run cold as `EXPLAIN (ANALYZE, "
        "BUFFERS)`; times in ms (medians). Costs from `EXPLAIN` at random_page_cost 4 and at "
        "the measured estimate "
     << fixed(ctx.rpc_estimate, 1)
     << "; regret = the chosen plan's time / the fastest plan's time.\n\n";
  if (!table.empty())
    md << markdown_table(
              {"selectivity", "seq ms", "index ms", "index+prefetch ms", "bitmap ms",
               "bitmap eic=0 ms", "cost seq", "cost index", "cost bitmap", "chosen (rpc 4)",
               "regret", "chosen (measured)", "regret"},
              table,
              {true, true, true, true, true, true, true, true, true, false, true, false, true})
       << "\n";
  md << markdown_table({"crossover", "this machine", "published"},
                       {{"index = seq, cost at random_page_cost 4", pct(cx_cost4), "2.2%"},
                        {"index = seq, cost at the measured estimate", pct(cx_cost_est),
                         "aligns with time at ~30"},
                        {"index = seq, time (no prefetch)", pct(cx_time), "0.2%"},
                        {"index+prefetch = seq, time", pct(cx_time_pf), "-"},
                        {"bitmap = seq, cost at random_page_cost 4", pct(cx_bitmap_cost4), "-"},
                        {"bitmap = seq, time", pct(cx_bitmap_time), "-"}},
                       {false, true, true})
     << "\n";
  if (!std::isnan(cx_cost4) && !std::isnan(cx_time))
    md << "At random_page_cost 4 the planner switches from index to seq scan at " << pct(cx_cost4)
       << " while the timings cross at " << pct(cx_time)
       << (cx_cost4 > cx_time ? ": the planner keeps the index scan too long, as the article found."
                              : ": unlike the article, the cost crossover is not above the time "
                                "crossover here.")
       << "\n\n";

  // Charts.
  if (outcome.runs > 0 || !chosen4[0].empty()) {
    try {
      Chart cost;
      cost.title = "Planner cost vs selectivity (rows " + grouped(n) + ")";
      cost.xlabel = "selectivity (% of rows, log scale)";
      cost.ylabel = "estimated total cost (log scale)";
      cost.log_x = cost.log_y = true;
      cost.xtics = x_pct;
      cost.key_position = "below";
      for (const char* kind : {"seq", "index", "bitmap"}) {
        Series s4(std::string(kind) + " (random_page_cost 4)");
        Series se(std::string(kind) + " (random_page_cost " + fixed(ctx.rpc_estimate, 1) + ")",
                  false, true);
        for (size_t f = 0; f < nf; ++f) {
          s4.points.emplace_back(x_pct[f], cost4[kind][f]);
          se.points.emplace_back(x_pct[f], cost_est[kind][f]);
        }
        cost.series.push_back(s4);
        cost.series.push_back(se);
      }
      if (!std::isnan(cx_cost4))
        cost.marks.push_back({cx_cost4, "index = seq at 4: " + pct(cx_cost4)});
      if (!std::isnan(cx_cost_est))
        cost.marks.push_back({cx_cost_est, "index = seq at " + fixed(ctx.rpc_estimate, 1) + ": " +
                                               pct(cx_cost_est)});
      render_chart(cost, opt.out_dir + "/selectivity_cost.png");
      md << "![cost against selectivity](selectivity_cost.png)\n\n";

      Chart time;
      time.title = "Cold query time vs selectivity (rows " + grouped(n) + ")";
      time.xlabel = "selectivity (% of rows, log scale)";
      time.ylabel = "execution time (ms, log scale)";
      time.log_x = time.log_y = true;
      time.xtics = x_pct;
      time.key_position = "below";
      for (size_t p = 0; p < plans.size(); ++p) {
        Series s(plans[p].name, false, p == 2 || p == 4);
        for (size_t f = 0; f < nf; ++f) s.points.emplace_back(x_pct[f], ms[p][f]);
        time.series.push_back(s);
      }
      if (!std::isnan(cx_time)) time.marks.push_back({cx_time, "index = seq: " + pct(cx_time)});
      if (!std::isnan(cx_bitmap_time))
        time.marks.push_back({cx_bitmap_time, "bitmap = seq: " + pct(cx_bitmap_time)});
      render_chart(time, opt.out_dir + "/selectivity_time.png");
      md << "![time against selectivity](selectivity_time.png)\n\n";
    } catch (const Error& e) {
      md << "> Chart not drawn: " << e.what() << "\n\n";
    }
  }
  write_section(opt, "selectivity", md.str());
  return outcome;
}

}  // namespace tp::experiments
