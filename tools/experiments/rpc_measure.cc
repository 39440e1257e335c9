// The rpc measurements shared by `rpc` and `rpc --sweep` (rpc_measure.h).
#include "tools/experiments/rpc_measure.h"

#include <sstream>

#include "engine/core/error.h"

namespace tp::experiments {

namespace {

std::string megabytes(uint64_t blocks) {
  return fixed(double(blocks) * 8192 / (1024.0 * 1024.0), 1) + " MB";
}

}  // namespace

PoolFit fit_pool(Lab& lab, const std::string& table, int64_t floor_blocks) {
  PoolFit fit;
  const RelationEntry* rel = lab.session().catalog().find(table);
  if (!rel) throw Error("rpc: table \"" + table + "\" is missing after its set-up");
  fit.table_pages = rel->pages;
  fit.default_blocks = lab.session().settings().get_int("shared_buffers");
  fit.pool_blocks = fit.default_blocks;
  fit.user_chose = lab.user_set("shared_buffers");
  if (fit.user_chose || !fit.undercounts()) return fit;
  // A quarter of the table, but not so small that the pin budget (a sixteenth of the
  // pool) throttles the prefetching runs.
  const int64_t target =
      std::max<int64_t>(std::max<int64_t>(16, floor_blocks), int64_t(fit.table_pages / 4));
  if (target >= fit.pool_blocks) return fit;
  lab.sql("SET shared_buffers = " + std::to_string(target));
  fit.pool_blocks = lab.session().settings().get_int("shared_buffers");
  fit.shrunk = fit.pool_blocks < fit.default_blocks;
  return fit;
}

std::string pool_sentence(const PoolFit& fit) {
  std::ostringstream s;
  s << "Table " << grouped(fit.table_pages) << " pages (" << megabytes(fit.table_pages)
    << "), pool " << grouped(uint64_t(fit.pool_blocks)) << " buffers ("
    << megabytes(uint64_t(fit.pool_blocks)) << "): the table is " << fixed(fit.table_over_pool(), 1)
    << "x the pool";
  if (fit.shrunk) {
    s << "; the experiment lowered shared_buffers from " << megabytes(uint64_t(fit.default_blocks))
      << " for these runs (SET shared_buffers, reset afterwards) so that the table is at least 4x "
         "the pool, as the article's method needs";
    if (fit.undercounts())
      s << ", but not below " << megabytes(uint64_t(fit.pool_blocks))
        << ": a smaller pool would throttle the prefetching runs (the pin budget is a sixteenth "
           "of the pool)";
  } else if (fit.user_chose) {
    s << " (shared_buffers as given with --set)";
  }
  return s.str() + ".";
}

std::string undercount_warning(const PoolFit& fit) {
  if (!fit.undercounts()) return "";
  return "> **Warning: the article's method undercounts here.** The table is only " +
         fixed(fit.table_over_pool(), 1) +
         "x the pool (it needs at least 4x). A cold full index scan visits each heap page "
         "about once per row on it, and the pool keeps the pages it has read: many of those "
         "visits find the page cached, so index time / rows is the cost of a mix of cached and "
         "random reads, not of a random read, and the article's ratio comes out too low (below "
         "1 when most of the table fits). The per-read columns divide by the reads the index "
         "scan really did (its Buffers line: shared read) and stay meaningful; for the "
         "article's figure use a larger --rows or a smaller --set shared_buffers.\n\n";
}

void measure_seq(Lab& lab, Progress& progress, const std::string& table, uint64_t rows,
                 const std::string& label, std::vector<Timed>& runs) {
  repeat_into(runs, lab, progress, label, [&] {
    lab.make_cold({table});
    return explain_analyze(lab, "SELECT * FROM " + table, {"Seq Scan", rows}, "rpc: seq scan");
  });
}

void measure_index(Lab& lab, Progress& progress, const std::string& table, uint64_t rows,
                   const std::string& label, RpcRuns& r) {
  lab.sql(std::string("SET index_prefetch = ") + (r.prefetch ? "on" : "off"));
  repeat_into(r.index, lab, progress, label, [&] {
    lab.make_cold({table, table + "_a_idx"});
    lab.sql("SET enable_seqscan = off");
    Timed t;
    try {
      t = explain_analyze(lab, "SELECT * FROM " + table + " ORDER BY a", {"Index Scan", rows},
                          "rpc: full index scan (enable_seqscan = off)");
    } catch (const Error&) {
      lab.session().execute("RESET enable_seqscan");  // rows written next show it
      throw;
    }
    lab.sql("RESET enable_seqscan");
    return t;
  });
}

double seq_read_us(const Timed& seq) {
  return seq.shared_read ? seq.execution_ms * 1000 / double(seq.shared_read) : NAN;
}

double random_row_us(const Timed& index, uint64_t rows) {
  return rows ? index.execution_ms * 1000 / double(rows) : NAN;
}

double random_read_us(const Timed& index) {
  return index.shared_read ? index.execution_ms * 1000 / double(index.shared_read) : NAN;
}

double article_ratio(const Timed& seq, const Timed& index, uint64_t rows) {
  return random_row_us(index, rows) / seq_read_us(seq);
}

double per_read_ratio(const Timed& seq, const Timed& index) {
  return random_read_us(index) / seq_read_us(seq);
}

std::vector<double> article_ratios(const RpcRuns& r, uint64_t rows) {
  std::vector<double> out;
  for (size_t i = 0; i < r.index.size() && i < r.seq.size(); ++i)
    out.push_back(article_ratio(r.seq[i], r.index[i], rows));
  return out;
}

std::vector<double> per_read_ratios(const RpcRuns& r) {
  std::vector<double> out;
  for (size_t i = 0; i < r.index.size() && i < r.seq.size(); ++i)
    out.push_back(per_read_ratio(r.seq[i], r.index[i]));
  return out;
}

Record rpc_record(const RpcRuns& r, size_t i, uint64_t rows, const PoolFit& fit) {
  Record rec = {{"rows", std::to_string(rows)},
                {"eic", r.eic},
                {"index_prefetch", r.prefetch ? "on" : "off"},
                {"repeat", std::to_string(i)}};
  const Timed* seq = i < r.seq.size() ? &r.seq[i] : nullptr;
  const Timed* index = i < r.index.size() ? &r.index[i] : nullptr;
  if (seq) {
    const uint64_t pages = seq->shared_read + seq->shared_hit;
    rec.insert(rec.end(), {{"seq_pages", std::to_string(pages)},
                           {"seq_pages_read", std::to_string(seq->shared_read)},
                           {"seq_ms", fixed(seq->execution_ms, 3)}});
  }
  if (index)
    rec.insert(rec.end(), {{"index_rows", std::to_string(rows)},
                           {"index_ms", fixed(index->execution_ms, 3)},
                           {"index_shared_hit", std::to_string(index->shared_hit)},
                           {"index_shared_read", std::to_string(index->shared_read)}});
  const double nan = NAN;
  const double seq_us = seq ? seq_read_us(*seq) : nan;
  const double row_us = index ? random_row_us(*index, rows) : nan;
  const double read_us = index ? random_read_us(*index) : nan;
  rec.insert(rec.end(), {{"seq_page_us", fixed(seq_us, 4)},
                         {"random_page_us", fixed(row_us, 4)},
                         {"ratio", fixed(row_us / seq_us, 3)},
                         {"random_read_us", fixed(read_us, 4)},
                         {"ratio_per_read", fixed(read_us / seq_us, 3)},
                         {"table_pages", std::to_string(fit.table_pages)},
                         {"pool_blocks", std::to_string(fit.pool_blocks)},
                         {"pool_shrunk", fit.shrunk ? "1" : "0"},
                         {"undercount", fit.undercounts() ? "1" : "0"}});
  return rec;
}

std::string ratio_cell(double ratio, bool* below_one) {
  if (std::isnan(ratio)) return "-";
  if (ratio < 1) {
    *below_one = true;
    return fixed(ratio, 2) + " *";
  }
  return fixed(ratio, 1);
}

std::string ratio_footnote(const PoolFit& fit) {
  std::string s =
      "\\* Below 1: a random page looked cheaper than a sequential one, which no disk justifies. ";
  if (fit.undercounts())
    return s + "Here the table is only " + fixed(fit.table_over_pool(), 1) +
           "x the pool: see the warning above.\n\n";
  return s +
         "The table is large enough for the method, so the index scan was bound by its per-row "
         "work rather than its reads (a debug or sanitizer build, a busy CPU, or a device whose "
         "random reads cost little more than sequential ones); the figure does not estimate "
         "random_page_cost.\n\n";
}

}  // namespace tp::experiments
