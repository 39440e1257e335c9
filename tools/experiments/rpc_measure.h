// What the rpc experiment and its sweep share: fitting the pool to the table
// (the article's method needs a table at least 4x the pool), the cold seq and
// full index scans of one table, and the two estimates of random_page_cost:
//
//   article's   (index time / rows)        / (seq time / seq pages read)
//   per read    (index time / heap reads)  / (seq time / seq pages read)
//
// A cold full index scan of a table the pool holds a good part of finds many of
// its pages already cached by the scan itself: rows then outnumber reads and the
// article's figure undercounts what one random read costs. The per-read figure
// divides by the reads the scan really did (its Buffers line, shared read).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/experiments/experiment.h"

namespace tp::experiments {

// The pool during the runs against the table.
struct PoolFit {
  uint64_t table_pages = 0;
  int64_t pool_blocks = 0;     // shared_buffers (8 kB blocks) during the runs
  int64_t default_blocks = 0;  // shared_buffers before the experiment changed it
  bool shrunk = false;         // the experiment lowered shared_buffers for its runs
  bool user_chose = false;     // --set shared_buffers: kept as given
  double table_over_pool() const { return double(table_pages) / double(pool_blocks); }
  // The article's method needs the table at least 4x the pool.
  bool undercounts() const { return table_pages < 4 * uint64_t(pool_blocks); }
};

// Lowers shared_buffers to a quarter of `table`'s pages (not below
// floor_blocks, not above its current value) unless the user chose
// shared_buffers with --set. RESET ALL (Lab::reset_settings) restores it.
PoolFit fit_pool(Lab& lab, const std::string& table, int64_t floor_blocks);
// One sentence on the pool: its size, the table's, and what the experiment did.
std::string pool_sentence(const PoolFit& fit);
// The warning a section prints when the table is not 4x the pool (empty otherwise).
std::string undercount_warning(const PoolFit& fit);

// The runs of one configuration of one table: cold seq scans and cold full index scans.
struct RpcRuns {
  std::string eic;  // effective_io_concurrency as SET takes it
  bool prefetch = false;
  std::vector<Timed> seq, index;
  bool written = false;  // its CSV rows are out
};

// Cold `SELECT * FROM <table>` (Seq Scan of `rows` rows), repeated into `runs`.
void measure_seq(Lab& lab, Progress& progress, const std::string& table, uint64_t rows,
                 const std::string& label, std::vector<Timed>& runs);
// Cold `SELECT * FROM <table> ORDER BY a` with enable_seqscan off (an Index Scan of `rows`
// rows) at r.prefetch, repeated into r.index.
void measure_index(Lab& lab, Progress& progress, const std::string& table, uint64_t rows,
                   const std::string& label, RpcRuns& r);

// Per-run figures (NaN when a side is missing or read nothing).
double seq_read_us(const Timed& seq);                     // seq time / pages read
double random_row_us(const Timed& index, uint64_t rows);  // index time / rows
double random_read_us(const Timed& index);                // index time / pages read
double article_ratio(const Timed& seq, const Timed& index, uint64_t rows);
double per_read_ratio(const Timed& seq, const Timed& index);
// The ratios of the runs measured both ways (run i with run i).
std::vector<double> article_ratios(const RpcRuns& r, uint64_t rows);
std::vector<double> per_read_ratios(const RpcRuns& r);

// The CSV columns of run i of r: seq side, index side, both ratios, the pool.
Record rpc_record(const RpcRuns& r, size_t i, uint64_t rows, const PoolFit& fit);

// A ratio for a table cell: below 1 it carries a "*" and sets *below_one, so the
// section explains it (ratio_footnote).
std::string ratio_cell(double ratio, bool* below_one);
// What a ratio below 1 means, and why it happens here.
std::string ratio_footnote(const PoolFit& fit);

}  // namespace tp::experiments
