// The nodes above a scan: Sort (in memory), Limit and a plain Aggregate
// (no GROUP BY). Each pulls batches from one child.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/interrupts.h"
#include "engine/core/session_memory.h"
#include "engine/core/value_arena.h"
#include "scans/exec_node.h"

namespace tp::scans {

// Counts a sort's comparisons and checks for a cancel every 65,536 of them: a sort of
// millions of rows compares for seconds after its last input batch (where the
// executor's per-batch check is), so a cancel waits for at most a few milliseconds.
class SortCancelCheck {
 public:
  void tick() {
    if ((++comparisons_ & 0xffff) == 0) check_for_interrupts();
  }

 private:
  uint32_t comparisons_ = 0;
};

// Sort: reads every row of its child, then returns them ordered by the keys
// (ties keep input order). With a bound (a LIMIT above), only the best
// `bound` rows are kept, PostgreSQL's top-N heapsort: the rows are sorted down to the
// best `bound` whenever twice as many are held, and from then on a row that does not
// sort before the last of those is dropped with one comparison, uncopied (as
// PostgreSQL's bounded heap drops a row worse than its top). Throws tp::Error when
// the rows it must hold exceed `max_bytes` (documented in scans/README.md).
class SortNode final : public ExecNode {
 public:
  SortNode(std::unique_ptr<ExecNode> child, std::vector<SortKey> keys, std::string key_text,
           int64_t bound, uint64_t max_bytes);

  std::string explain_name() const override { return "Sort"; }
  void explain_details(std::vector<std::string>& lines, bool analyze) const override;
  std::vector<const ExecNode*> children() const override { return {child_.get()}; }

 protected:
  void do_open() override;
  const RowBatch* do_next() override;

 private:
  bool less(uint32_t a, uint32_t b) const;  // rows_[a] before rows_[b]
  void keep_best();                         // bounded sort: drop all but the best `bound_` rows
  void read_input();                        // every child row into rows_ (the best, if bounded)
  void note_rows_held();                    // peak, session figure, the in-memory limit

  std::unique_ptr<ExecNode> child_;
  std::vector<SortKey> keys_;
  std::string key_text_;
  int64_t bound_;
  uint64_t max_bytes_;
  std::shared_ptr<const RowShape> shape_;  // the input's slot types
  RowBatch rows_;                          // all rows read
  std::vector<uint32_t> order_;
  size_t emitted_ = 0;
  bool sorted_ = false;
  bool used_bound_ = false;
  uint64_t peak_bytes_ = 0;
  TrackedMemory memory_{MemoryPart::kExecutor};  // rows_ and order_, for the session's figure
  RowBatch batch_;
};

// Limit: skips the first `offset` rows of its child, then returns the next `count`
// (count < 0: all the rest); stops pulling once it has them.
class LimitNode final : public ExecNode {
 public:
  LimitNode(std::unique_ptr<ExecNode> child, int64_t count, int64_t offset = 0);

  std::string explain_name() const override { return "Limit"; }
  void explain_details(std::vector<std::string>&, bool) const override {}
  std::vector<const ExecNode*> children() const override { return {child_.get()}; }

 protected:
  void do_open() override;
  const RowBatch* do_next() override;

 private:
  std::unique_ptr<ExecNode> child_;
  int64_t count_;
  int64_t offset_;
  int64_t skipped_ = 0;
  int64_t returned_ = 0;
  RowBatch batch_;
};

enum class AggKind : uint8_t { kCountStar, kCount, kSum, kMin, kMax, kAvg };

struct AggSpec {
  AggKind kind = AggKind::kCountStar;
  uint32_t slot = 0;      // input slot (unused for count(*))
  bool distinct = false;  // over the distinct input values (count(DISTINCT a)); kSimple only
  // The input's type; `typed` for any but int4 and int8, whose values the integer
  // states below take (scans/typed_agg.h keeps the others').
  TypeId type = TypeId::kInt8;
  bool typed = false;
};

// One aggregate's state and result. sum is 128-bit: sum(int8) is numeric in
// PostgreSQL and must not overflow where PostgreSQL would not.
struct AggState {
  int64_t count = 0;  // rows aggregated (non-null inputs)
  __int128 sum = 0;   // also sum / avg of smallint
  int64_t min = 0;
  int64_t max = 0;
  // Typed inputs: min / max of any type (a by-reference value's bytes in `bytes`), the
  // numeric sum of sum / avg(numeric) in `bytes` (a numeric varlena) once settled (while
  // rows come in, the values that fit add up in `sum` as units of 10^-scale), the float
  // sum of sum / avg(real, double precision) in `fsum`.
  Datum extreme = 0;
  std::string bytes;
  double fsum = 0;
  int scale = 0;
};

// How an Aggregate splits its work, as PostgreSQL's AggSplit for parallel plans:
//   kSimple    input rows in, the results out (results())
//   kPartial   input rows in, one row of states out: kPartialSlots slots per
//              aggregate (count, sum's low and high 64 bits, min, max), for a
//              Finalize Aggregate above a Gather
//   kFinalize  rows of states in (each aggregate's at slot kPartialSlots * i),
//              combined; the results out (results())
enum class AggMode : uint8_t { kSimple, kPartial, kFinalize };
inline constexpr uint32_t kPartialSlots = 5;

// An integer state as a Partial Aggregate's five slots (count, sum's low and high 64
// bits, min, max), and a Finalize's combination of them (PostgreSQL's serialize and
// combine functions).
void int_put_state(const AggState& st, int64_t* out);
void int_combine(AggState& st, const int64_t* in);

// A node whose one row is aggregate results, which the engine formats by each
// aggregate's SQL type: an Aggregate, or the Result over min/max InitPlans.
class AggregateResults {
 public:
  virtual ~AggregateResults() = default;
  // Valid after next() returned the row.
  virtual const std::vector<AggState>& results() const = 0;
};

// Aggregate (plain, one output row): count(*), count, sum, min, max, avg over
// all input rows. The engine formats results() by each aggregate's SQL type.
class AggregateNode final : public ExecNode, public AggregateResults {
 public:
  AggregateNode(std::unique_ptr<ExecNode> child, std::vector<AggSpec> aggs,
                AggMode mode = AggMode::kSimple);

  std::string explain_name() const override;
  void explain_details(std::vector<std::string>&, bool) const override {}
  std::vector<const ExecNode*> children() const override { return {child_.get()}; }
  const std::vector<AggState>& results() const override { return states_; }

 protected:
  void do_open() override;
  const RowBatch* do_next() override;

 private:
  void collect_distinct(size_t a, const RowBatch& b);
  void finish_distinct(size_t a);

  std::unique_ptr<ExecNode> child_;
  std::vector<AggSpec> aggs_;
  AggMode mode_;
  std::vector<AggState> states_;
  // A DISTINCT aggregate's input values, deduplicated when the input ends (empty for
  // the others): PostgreSQL sorts them too.
  // A DISTINCT aggregate's input values, sorted and made unique at the end; a
  // by-reference value's bytes are copied into its arena.
  std::vector<std::vector<Datum>> distinct_values_;
  std::vector<std::unique_ptr<ValueArena>> distinct_bytes_;
  TrackedMemory memory_{MemoryPart::kExecutor};  // distinct_values_, for the session's figure
  bool done_ = false;
  std::shared_ptr<const RowShape> partial_shape_;  // kPartial with typed states
  RowBatch batch_;
};

}  // namespace tp::scans
