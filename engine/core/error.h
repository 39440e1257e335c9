// Errors a user can cause (bad SQL, bad settings, I/O errors, corrupt pages).
// They end the statement; the shell prints them the way psql does:
//   ERROR:  relation "x" does not exist
// Broken invariants are not Errors: they abort (see TP_ASSERT).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace tp {

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

 private:
  std::string detail_;
  std::string hint_;
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
