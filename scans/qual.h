// Qual: a WHERE clause compiled for the per-row path. The planner turns the
// SQL expression into this small tree of comparisons of a column with a
// constant (plus IN lists, AND, OR, NOT and constants), with each column
// already resolved to its byte offset and width inside a heap tuple, so a
// test is a load and a compare. evaluate() on a tuple does no allocation.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

namespace tp::scans {

enum class QualOp : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };

struct QualTerm {
  enum class Kind : uint8_t { kCompare, kIn, kAnd, kOr, kNot, kConst };
  Kind kind = Kind::kConst;
  QualOp op = QualOp::kEq;
  bool negated = false;        // kIn: NOT IN
  bool is_int8 = false;        // the column's width: int8 (else int4)
  uint32_t offset = 0;         // the column's byte offset inside the tuple
  int column = -1;             // table column (for rows already decoded)
  int64_t value = 0;           // kCompare; kConst: 0 / 1
  std::vector<int64_t> list;   // kIn, sorted and deduplicated
  std::vector<QualTerm> args;  // kAnd / kOr / kNot

  int64_t load(const char* tuple) const {
    if (is_int8) {
      int64_t v;
      std::memcpy(&v, tuple + offset, 8);
      return v;
    }
    int32_t v;
    std::memcpy(&v, tuple + offset, 4);
    return v;
  }

  static bool compare(QualOp op, int64_t a, int64_t b) {
    switch (op) {
      case QualOp::kEq:
        return a == b;
      case QualOp::kNe:
        return a != b;
      case QualOp::kLt:
        return a < b;
      case QualOp::kLe:
        return a <= b;
      case QualOp::kGt:
        return a > b;
      case QualOp::kGe:
        return a >= b;
    }
    return false;
  }

  // True when the heap tuple passes.
  bool evaluate(const char* tuple) const {
    switch (kind) {
      case Kind::kCompare:
        return compare(op, load(tuple), value);
      case Kind::kIn:
        return std::binary_search(list.begin(), list.end(), load(tuple)) != negated;
      case Kind::kAnd:
        for (const QualTerm& t : args)
          if (!t.evaluate(tuple)) return false;
        return true;
      case Kind::kOr:
        for (const QualTerm& t : args)
          if (t.evaluate(tuple)) return true;
        return false;
      case Kind::kNot:
        return !args[0].evaluate(tuple);
      case Kind::kConst:
        return value != 0;
    }
    return false;
  }
};

// An implicitly ANDed list of terms (PostgreSQL's qual list); empty passes all.
struct Qual {
  std::vector<QualTerm> terms;

  bool empty() const { return terms.empty(); }
  bool evaluate(const char* tuple) const {
    for (const QualTerm& t : terms)
      if (!t.evaluate(tuple)) return false;
    return true;
  }
};

}  // namespace tp::scans
