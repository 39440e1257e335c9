// `tidepool check`: opens a data directory as an ordinary session does (which
// restores it to its committed state and nothing more) and checks, relation by
// relation:
//   1. the file: present and as long as the catalog says (DataDir's damage);
//   2. every block read straight from the file: page header bounds and checksum;
//   3. heap pages: every line pointer inside the page's tuple space, every tuple
//      of the table's width with a sane header; the live rows add up to the
//      catalog's row count;
//   4. a table's visibility map (base/<relnumber>_vm): pages sound, no bit set
//      past the table's end;
//   5. indexes whose pages all passed 2: the B-tree verifier (tp_verify), with
//      the heap cross-check when the table passed too.
// Each problem is one line: `relation "t" block 3: ...`; a summary line ends.
#include "tools/check/check.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "engine/core/error.h"
#include "engine/core/heap_tuple.h"
#include "engine/core/interrupts.h"
#include "engine/core/tuple_format.h"
#include "engine/session/session.h"
#include "engine/storage/index_build.h"
#include "engine/storage/index_verify.h"
#include "engine/storage/pool_page_store.h"
#include "engine/storage/visibility_map.h"

namespace tp {
namespace {

const char* kUsage =
    "Usage: tidepool check [-D DIR]\n"
    "Checks every relation of data directory DIR (default $TIDEPOOL_DATA, else\n"
    "./tidepool-data): files against the catalog, page checksums and headers, heap\n"
    "line pointers and tuples, and every index with the B-tree verifier. Prints one\n"
    "line per problem and a summary. Exit code: 0 no problems, 1 damage found (or the\n"
    "directory could not be opened, or Ctrl-C stopped the check), 2 usage error.\n";

std::string hex16(unsigned v) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%04x", v);
  return buf;
}

class Checker {
 public:
  Checker(Session& s, std::ostream& out) : s_(s), out_(out) {}

  // Throws "canceling statement due to user request" at a Ctrl-C (main()
  // installs the shell's handler for every command, so SIGINT only sets the
  // flag): polled per block and per relation.
  void run() {
    for (const RelationEntry& r : s_.catalog().relations) {
      check_for_interrupts();
      if (r.is_table()) check_table(r);
    }
    for (const RelationEntry& r : s_.catalog().relations) {
      check_for_interrupts();
      if (!r.is_table()) check_index(r);
    }
    check_for_interrupts();
  }
  uint64_t problems() const { return problems_; }
  uint64_t blocks() const { return blocks_; }

 private:
  // One line per problem, up to kListedPerRelation for each relation: one fault
  // (a wrong column type in the catalog, say) can make every tuple unreadable,
  // and thousands of lines would bury the other relations. The summary counts all.
  static constexpr uint64_t kListedPerRelation = 100;
  void report(const RelationEntry& r, std::optional<BlockNumber> block, const std::string& what) {
    ++problems_;
    const uint64_t n = ++per_relation_[r.oid];
    if (n > kListedPerRelation) return;
    out_ << "relation \"" << r.name << "\"";
    if (n == kListedPerRelation) {
      out_ << ": more problems, not listed (the summary counts them)\n";
      return;
    }
    if (block) out_ << " block " << *block;
    out_ << ": " << what << "\n";
  }

  // Reports the file's damage (missing, short) if DataDir found any.
  bool file_is_sound(const RelationEntry& r) {
    std::optional<std::string> why = s_.data_dir().damage(r.relnumber);
    if (!why) return true;
    out_ << *why << "\n";
    ++problems_;
    return false;
  }

  // Reads every committed block straight from the file and calls `each(block,
  // page)` for those whose header and checksum are sound. False if any block
  // was damaged.
  template <typename F>
  bool scan_blocks(const RelationEntry& r, uint32_t special_size, F&& each) {
    std::string path = s_.data_dir().relation_path(r.relnumber);
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      report(r, std::nullopt, "could not open file base/" + std::to_string(r.relnumber));
      return false;
    }
    bool sound = true;
    alignas(8) char page[kBlockSize];
    for (BlockNumber b = 0; b < r.pages; ++b) {
      if (cancel_requested().load(std::memory_order_relaxed)) break;  // run() reports it
      ++blocks_;
      ssize_t n = pread(fd, page, kBlockSize, off_t(b) * kBlockSize);
      if (n != ssize_t(kBlockSize)) {
        report(r, b, n < 0 ? "could not be read" : "is cut short");
        sound = false;
        continue;
      }
      if (page_is_new(page)) continue;
      const PageHeader* h = page_header(page);
      if (h->lower < kPageHeaderSize || h->lower > h->upper || h->upper > h->special ||
          h->special != kBlockSize - special_size) {
        report(r, b,
               "page header is invalid (lower " + std::to_string(h->lower) + ", upper " +
                   std::to_string(h->upper) + ", special " + std::to_string(h->special) + ")");
        sound = false;
        continue;
      }
      uint16_t want = page_compute_checksum(page, b);
      if (h->checksum != want) {
        report(r, b,
               "checksum mismatch (page has " + hex16(h->checksum) + ", contents give " +
                   hex16(want) + ")");
        sound = false;
        continue;
      }
      if (!each(b, page)) sound = false;
    }
    ::close(fd);
    return sound;
  }

  // What every row of one table must look like, and room to deform one.
  struct HeapRows {
    explicit HeapRows(const std::vector<Column>& columns)
        : natts(columns.size()),
          fixed_rows(HeapTupleLayout(columns).all_integers()),
          tuple_len(HeapTupleLayout(columns).tuple_size()),
          format(TupleFormat::of_types(types_of(columns))),
          values(columns.size()),
          isnull(std::make_unique<bool[]>(columns.size())) {}
    static std::vector<TypeId> types_of(const std::vector<Column>& columns) {
      std::vector<TypeId> types;
      for (const Column& c : columns) types.push_back(c.type);
      return types;
    }
    size_t natts;
    // Rows of integer columns without NULLs all have one length and header; the others
    // are deformed.
    bool fixed_rows;
    uint32_t tuple_len;
    TupleFormat format;
    std::vector<Datum> values;
    std::unique_ptr<bool[]> isnull;
  };

  // What is wrong with the normal line pointer `id`'s tuple ("" when nothing).
  static std::string heap_tuple_problem(HeapRows& rows, const char* page, const ItemId* id) {
    const PageHeader* h = page_header(page);
    if (id->off < h->upper || id->off + id->len > h->special || id->off % kMaxAlign != 0)
      return "tuple at offset " + std::to_string(id->off) + " length " + std::to_string(id->len) +
             " lies outside the tuple space " + std::to_string(h->upper) + ".." +
             std::to_string(h->special);
    if (id->len < kHeapTupleDataOffset)
      return "tuple length " + std::to_string(id->len) + " is shorter than a tuple header";
    const auto* tuple = reinterpret_cast<const unsigned char*>(page + id->off);
    // A row with a NULL has a null bitmap and fewer values: it is deformed.
    const bool fixed = rows.fixed_rows && (tuple[20] & kHeapHasNull) == 0;
    if (fixed && id->len != rows.tuple_len)
      return "tuple length " + std::to_string(id->len) + ", the table's rows are " +
             std::to_string(rows.tuple_len);
    const unsigned natts = (tuple[18] | (tuple[19] << 8)) & 0x07FF;
    const bool hoff_ok = fixed ? tuple[22] == kHeapTupleDataOffset
                               : tuple[22] >= kHeapTupleDataOffset && tuple[22] % kMaxAlign == 0 &&
                                     tuple[22] <= id->len;
    if (!hoff_ok || natts != rows.natts)
      return "tuple header is invalid (t_hoff " + std::to_string(tuple[22]) + ", " +
             std::to_string(natts) + " attributes)";
    if (!fixed) {
      // Rows with a varlena or a NULL differ in length: read every value, as a scan would.
      try {
        rows.format.deform(page + id->off, id->len, rows.values.data(), rows.isnull.get());
      } catch (const Error& e) {
        return e.what();
      }
    }
    return "";
  }

  void check_table(const RelationEntry& t) {
    if (!file_is_sound(t)) {
      unsound_.insert(t.oid);
      return;
    }
    HeapRows rows(t.columns);
    uint64_t live = 0;
    bool sound = scan_blocks(t, 0, [&](BlockNumber b, const char* page) {
      OffsetNumber max = page_max_offset(page);
      if (max > kMaxHeapTuplesPerPage) {
        report(t, b,
               std::to_string(max) + " line pointers (a heap page holds at most " +
                   std::to_string(kMaxHeapTuplesPerPage) + ")");
        return false;
      }
      bool ok = true;
      for (OffsetNumber o = 1; o <= max; ++o) {
        const ItemId* id = page_item_id(page, o);
        if (id->state == uint32_t(ItemState::kUnused) || id->state == uint32_t(ItemState::kDead))
          continue;
        const std::string why = id->state == uint32_t(ItemState::kRedirect)
                                    ? "is a redirect, which heap pages of tidepool never hold"
                                    : heap_tuple_problem(rows, page, id);
        if (!why.empty()) {
          report(t, b, "line pointer " + std::to_string(o) + ": " + why);
          ok = false;
          continue;
        }
        ++live;
      }
      return ok;
    });
    if (sound && live != t.rows)
      report(t, std::nullopt,
             "the pages hold " + std::to_string(live) + " rows but the catalog says " +
                 std::to_string(t.rows));
    for (const std::string& why :
         verify_visibility_map(s_.data_dir().vm_path(t.relnumber), BlockNumber(t.pages)))
      report(t, std::nullopt, why);
    if (!sound) unsound_.insert(t.oid);
  }

  void check_index(const RelationEntry& idx) {
    if (!file_is_sound(idx)) return;
    if (!scan_blocks(idx, uint32_t(sizeof(btree::BtSpecial)),
                     [](BlockNumber, const char*) { return true; }))
      return;  // the verifier would only stop at the first damaged page again
    const RelationEntry* table = s_.catalog().find_oid(idx.table_oid);
    btree::VerifyReport report_;
    try {
      if (unsound_.count(table->oid)) {
        // The heap cannot be trusted: check the index's own structure only.
        PoolPageStore store(s_.storage().pool(), s_.storage().file(idx), nullptr, 0);
        report_ = btree::verify_btree(store, index_def(*table, idx));
      } else {
        report_ = verify_index(s_.storage(), *table, idx);
      }
    } catch (const QueryCanceled&) {
      throw;  // Ctrl-C inside the verifier stops the whole check
    } catch (const Error& e) {
      report(idx, std::nullopt, e.what());
      return;
    }
    if (report_.ok) return;
    // The verifier's message names the index, block and offset itself.
    if (report_.message.rfind("index \"" + idx.name + "\"", 0) == 0) {
      out_ << report_.message << "\n";
      ++problems_;
      return;
    }
    std::optional<BlockNumber> block;
    if (report_.block != kInvalidBlock) block = report_.block;
    report(idx, block, report_.message);
  }

  Session& s_;
  std::ostream& out_;
  uint64_t problems_ = 0;
  uint64_t blocks_ = 0;
  std::set<uint32_t> unsound_;                 // tables whose heap failed a check
  std::map<uint32_t, uint64_t> per_relation_;  // problems found, by relation oid
};

}  // namespace

int run_check_command(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  SessionOptions so;
  so.create_data_dir = false;
  const char* env = std::getenv("TIDEPOOL_DATA");
  so.data_dir = env && *env ? env : "./tidepool-data";
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if ((a == "-D" || a == "--data") && i + 1 < args.size()) {
      so.data_dir = args[++i];
    } else if (a == "-h" || a == "--help") {
      out << kUsage;
      return 0;
    } else {
      err << "tidepool check: "
          << (a == "-D" || a == "--data" ? "option -D needs a value"
                                         : "unknown option \"" + a + "\"")
          << "\n"
          << kUsage;
      return 2;
    }
  }
  struct stat st;
  if (stat(so.data_dir.c_str(), &st) != 0) {
    err << "tidepool check: data directory \"" << so.data_dir << "\" does not exist\n";
    return 2;
  }
  std::unique_ptr<Session> session;
  try {
    session = std::make_unique<Session>(so);
  } catch (const Error& e) {
    err << "tidepool check: ERROR:  " << e.what() << "\n";
    if (!e.hint().empty()) err << "HINT:  " << e.hint() << "\n";
    return 1;
  }
  Checker checker(*session, out);
  try {
    checker.run();
  } catch (const Error& e) {  // Ctrl-C: nothing was changed, nothing is claimed clean
    err << "tidepool check: ERROR:  " << e.what() << "\n";
    return 1;
  }
  size_t relations = session->catalog().relations.size();
  out << "tidepool check: " << relations << (relations == 1 ? " relation, " : " relations, ")
      << checker.blocks() << (checker.blocks() == 1 ? " block" : " blocks") << " checked, ";
  if (checker.problems() == 0)
    out << "no problems found\n";
  else
    out << checker.problems() << (checker.problems() == 1 ? " problem" : " problems") << " found\n";
  return checker.problems() == 0 ? 0 : 1;
}

}  // namespace tp
