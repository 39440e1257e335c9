// Errors a user can cause (bad SQL, bad settings, I/O errors, corrupt pages).
// They end the statement; the shell prints them the way psql does:
//   ERROR:  relation "x" does not exist
// Broken invariants are not Errors: they abort (see TP_ASSERT).
#pragma once

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace tp {

// PostgreSQL's SQLSTATE codes (its appendix "PostgreSQL Error Codes") for the
// errors tidepool raises, named as PostgreSQL's condition names. Throw sites use
// these names, never literals: `throw Error(...).with_sqlstate(sqlstate::kUndefinedTable)`.
namespace sqlstate {
// Class 0A: feature not supported.
inline constexpr const char* kFeatureNotSupported = "0A000";
// Class 22: data exception.
inline constexpr const char* kDataException = "22000";
inline constexpr const char* kStringDataRightTruncation = "22001";
inline constexpr const char* kNumericValueOutOfRange = "22003";
inline constexpr const char* kInvalidDatetimeFormat = "22007";
// Also PostgreSQL's datetime_value_out_of_range, which has the same code.
inline constexpr const char* kDatetimeFieldOverflow = "22008";
inline constexpr const char* kInvalidTimeZoneDisplacementValue = "22009";
inline constexpr const char* kSubstringError = "22011";
inline constexpr const char* kDivisionByZero = "22012";
inline constexpr const char* kIntervalFieldOverflow = "22015";
inline constexpr const char* kCharacterNotInRepertoire = "22021";
inline constexpr const char* kInvalidParameterValue = "22023";
inline constexpr const char* kInvalidEscapeSequence = "22025";
inline constexpr const char* kInvalidRowCountInLimitClause = "2201W";
inline constexpr const char* kInvalidRowCountInResultOffsetClause = "2201X";
inline constexpr const char* kInvalidTextRepresentation = "22P02";
inline constexpr const char* kInvalidBinaryRepresentation = "22P03";
inline constexpr const char* kBadCopyFileFormat = "22P04";
// Class 23: integrity constraint violation.
inline constexpr const char* kCardinalityViolation = "21000";
inline constexpr const char* kNotNullViolation = "23502";
inline constexpr const char* kUniqueViolation = "23505";
// Class 25: invalid transaction state.
inline constexpr const char* kActiveSqlTransaction = "25001";
inline constexpr const char* kInFailedSqlTransaction = "25P02";
inline constexpr const char* kReadOnlySqlTransaction = "25006";
// Class 2B: dependent objects still exist.
inline constexpr const char* kDependentObjectsStillExist = "2BP01";
// Class 42: syntax error or access rule violation.
inline constexpr const char* kInsufficientPrivilege = "42501";
inline constexpr const char* kSyntaxError = "42601";
inline constexpr const char* kDuplicateColumn = "42701";
inline constexpr const char* kAmbiguousColumn = "42702";
inline constexpr const char* kUndefinedColumn = "42703";
inline constexpr const char* kUndefinedObject = "42704";
inline constexpr const char* kDuplicateObject = "42710";
inline constexpr const char* kDuplicateAlias = "42712";
inline constexpr const char* kGroupingError = "42803";
inline constexpr const char* kDatatypeMismatch = "42804";
inline constexpr const char* kWrongObjectType = "42809";
inline constexpr const char* kCannotCoerce = "42846";
inline constexpr const char* kUndefinedFunction = "42883";
inline constexpr const char* kAmbiguousFunction = "42725";
inline constexpr const char* kUndefinedTable = "42P01";
inline constexpr const char* kUndefinedParameter = "42P02";
inline constexpr const char* kDuplicateCursor = "42P03";
inline constexpr const char* kDuplicatePreparedStatement = "42P05";
inline constexpr const char* kIndeterminateDatatype = "42P18";
inline constexpr const char* kDuplicateTable = "42P07";
inline constexpr const char* kInvalidColumnReference = "42P10";
inline constexpr const char* kInvalidTableDefinition = "42P16";
// Class 53: insufficient resources.
inline constexpr const char* kInsufficientResources = "53000";
inline constexpr const char* kDiskFull = "53100";
inline constexpr const char* kOutOfMemory = "53200";
inline constexpr const char* kTooManyConnections = "53300";
// Class 54: program limit exceeded.
inline constexpr const char* kProgramLimitExceeded = "54000";
inline constexpr const char* kStatementTooComplex = "54001";
inline constexpr const char* kTooManyColumns = "54011";
// Class 55: object not in prerequisite state.
inline constexpr const char* kObjectNotInPrerequisiteState = "55000";
inline constexpr const char* kObjectInUse = "55006";
inline constexpr const char* kCantChangeRuntimeParam = "55P02";
inline constexpr const char* kLockNotAvailable = "55P03";
// Class 57: operator intervention.
inline constexpr const char* kQueryCanceled = "57014";
inline constexpr const char* kAdminShutdown = "57P01";
// Class 58: system error (errors external to tidepool).
inline constexpr const char* kIoError = "58030";
inline constexpr const char* kUndefinedFile = "58P01";
// Class 08: connection exception.
inline constexpr const char* kProtocolViolation = "08P01";
// Class 26: invalid SQL statement name; class 34: invalid cursor name.
inline constexpr const char* kInvalidSqlStatementName = "26000";
inline constexpr const char* kInvalidCursorName = "34000";
// Class F0: configuration file error.
inline constexpr const char* kConfigFileError = "F0000";
// Class XX: internal error.
inline constexpr const char* kInternalError = "XX000";
inline constexpr const char* kDataCorrupted = "XX001";
inline constexpr const char* kIndexCorrupted = "XX002";

// The code of a failed system call, as PostgreSQL's errcode_for_file_access:
// a full disk, a missing file, no permission, anything else an I/O error.
inline const char* for_errno(int err) {
  switch (err) {
    case ENOSPC:
    case EDQUOT:
      return kDiskFull;
    case ENOENT:
      return kUndefinedFile;
    case EACCES:
    case EPERM:
      return kInsufficientPrivilege;
    case ENOMEM:
      return kOutOfMemory;
    default:
      return kIoError;
  }
}
}  // namespace sqlstate

class Error : public std::runtime_error {
 public:
  explicit Error(std::string message, std::string detail = {}, std::string hint = {})
      : std::runtime_error(std::move(message)),
        detail_(std::move(detail)),
        hint_(std::move(hint)) {}

  const std::string& detail() const { return detail_; }
  const std::string& hint() const { return hint_; }
  // 1-based character position in the statement text (syntax errors), 0 = none.
  int position() const { return position_; }
  Error& at_position(int pos) {
    position_ = pos;
    return *this;
  }
  // PostgreSQL's five-character SQLSTATE ("42P01", "23505", ...), which the
  // server sends to clients; empty when the throw site gave none (the server
  // then sends XX000, PostgreSQL's internal_error).
  const std::string& sqlstate() const { return sqlstate_; }
  Error& with_sqlstate(std::string code) {
    sqlstate_ = std::move(code);
    return *this;
  }
  // Where it happened (PostgreSQL's CONTEXT, the protocol's 'W' field): "COPY t, line
  // 3, column b: \"x\"".
  const std::string& context() const { return context_; }
  Error& with_context(std::string context) {
    context_ = std::move(context);
    return *this;
  }

 private:
  std::string detail_;
  std::string hint_;
  std::string context_;
  int position_ = 0;
  std::string sqlstate_;
};

[[noreturn]] inline void assert_fail(const char* expr, const char* file, int line) {
  std::fprintf(stderr, "tidepool: internal invariant broken: %s (%s:%d)\n", expr, file, line);
  std::abort();
}

}  // namespace tp

// Checked in every build: an invariant that must hold or the process is unsafe to continue.
#define TP_ASSERT(expr) ((expr) ? (void)0 : ::tp::assert_fail(#expr, __FILE__, __LINE__))
