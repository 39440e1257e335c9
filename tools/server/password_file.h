// The server's users and their SCRAM-SHA-256 verifiers, in a text file given to
// `tidepool serve --password-file FILE` and written by `tidepool passwd FILE USER`:
//
//   # comments and blank lines are kept
//   alice:SCRAM-SHA-256$4096:<salt>$<StoredKey>:<ServerKey>
//
// The file never holds a password, only what PostgreSQL keeps in pg_authid.
#pragma once

#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "tools/server/scram.h"

namespace tp::server {

struct PasswordFile {
  std::map<std::string, ScramVerifier> users;
  std::vector<std::string> lines;  // as read (comments kept when the file is rewritten)
};

// Throws tp::Error naming the line that is not "user:verifier", or when the file
// can be written by other users (anyone could add themselves).
PasswordFile read_password_file(const std::string& path);

// `tidepool passwd FILE USER [--delete]`: sets USER's password (read from the
// terminal twice without echo, or one line of standard input) or removes USER.
// The file is created with mode 0600, or rewritten whole through a new file and
// rename(); a file that is not a password file is never touched.
int run_passwd_command(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
                       std::ostream& err);

}  // namespace tp::server
