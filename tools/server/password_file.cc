#include "tools/server/password_file.h"

#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>

#include "engine/core/error.h"
#include "engine/storage/datadir.h"

namespace tp::server {
namespace {

constexpr std::string_view kSeparator = ":SCRAM-SHA-256$";

const char* kPasswdUsage =
    "Usage: tidepool passwd FILE USER [--delete]\n"
    "Sets USER's password in FILE, the password file of `tidepool serve --password-file FILE`\n"
    "(created with mode 0600 when missing). The password is read twice from the terminal\n"
    "without echo, or as one line of standard input. The file keeps SCRAM-SHA-256\n"
    "verifiers only, never a password.\n"
    "  --delete   remove USER from FILE\n";

bool is_comment(const std::string& line) {
  size_t first = line.find_first_not_of(" \t");
  return first == std::string::npos || line[first] == '#';
}

// A user name a line can hold: not empty, no colon, no line break.
bool valid_user(const std::string& user) {
  return !user.empty() && user.find_first_of(":\n\r") == std::string::npos;
}

std::string read_secret(std::istream& in, std::ostream& out, const std::string& prompt) {
  const bool terminal = &in == &std::cin && ::isatty(STDIN_FILENO);
  termios saved{};
  if (terminal) {
    out << prompt << std::flush;
    ::tcgetattr(STDIN_FILENO, &saved);
    termios quiet = saved;
    quiet.c_lflag &= ~tcflag_t(ECHO);
    ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
  }
  std::string line;
  const bool got = bool(std::getline(in, line));
  if (terminal) {
    ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
    out << "\n";
  }
  if (!got) throw Error("no password given on standard input");
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

}  // namespace

PasswordFile read_password_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    throw Error("could not open password file \"" + path + "\": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw Error("password file \"" + path + "\" is not a regular file");
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    throw Error("password file \"" + path + "\" can be written by other users", "",
                "chmod 600 it: whoever can write it can add a user.");
  std::ifstream f(path);
  if (!f) throw Error("could not open password file \"" + path + "\": " + std::strerror(errno));
  PasswordFile out;
  std::string line;
  for (int number = 1; std::getline(f, line); ++number) {
    out.lines.push_back(line);
    if (is_comment(line)) continue;
    size_t sep = line.find(kSeparator);
    std::optional<ScramVerifier> v;
    if (sep != std::string::npos && sep > 0) v = parse_scram_verifier(line.substr(sep + 1));
    if (!v)
      throw Error("line " + std::to_string(number) + " of password file \"" + path +
                      "\" is not \"user:SCRAM-SHA-256$...\"",
                  "", "Write its lines with tidepool passwd.");
    out.users[line.substr(0, sep)] = *v;
  }
  return out;
}

int run_passwd_command(const std::vector<std::string>& args, std::istream& in, std::ostream& out,
                       std::ostream& err) {
  std::vector<std::string> words;
  bool remove = false;
  for (const std::string& a : args) {
    if (a == "-h" || a == "--help") {
      out << kPasswdUsage;
      return 0;
    }
    if (a == "--delete")
      remove = true;
    else
      words.push_back(a);
  }
  if (words.size() != 2) {
    err << kPasswdUsage;
    return 2;
  }
  const std::string& path = words[0];
  const std::string& user = words[1];
  if (!valid_user(user)) {
    err << "tidepool passwd: a user name must not be empty or hold ':' or a line break\n";
    return 2;
  }
  try {
    PasswordFile file;
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0) file = read_password_file(path);
    std::string text;
    bool found = false;
    std::string verifier;
    if (!remove) {
      std::string password = read_secret(in, out, "Enter password for " + user + ": ");
      if (password.empty()) throw Error("empty password: a user without a password cannot log in");
      if (&in == &std::cin && ::isatty(STDIN_FILENO) &&
          read_secret(in, out, "Enter it again: ") != password)
        throw Error("passwords do not match");
      verifier = format_scram_verifier(make_scram_verifier(password));
    }
    for (const std::string& line : file.lines) {
      if (!is_comment(line) && line.compare(0, user.size() + 1, user + ":") == 0 &&
          line.find(kSeparator) == user.size()) {
        found = true;
        if (!remove) text += user + ":" + verifier + "\n";
        continue;
      }
      text += line + "\n";
    }
    if (remove && !found) throw Error("user \"" + user + "\" is not in \"" + path + "\"");
    if (!remove && !found) text += user + ":" + verifier + "\n";
    write_file_atomically(path, text);  // a crash leaves the old file or the new one
    out << "tidepool passwd: "
        << (remove  ? "removed "
            : found ? "changed "
                    : "added ")
        << user << " in " << path << "\n";
  } catch (const Error& e) {
    err << "tidepool passwd: " << e.what() << "\n";
    if (!e.hint().empty()) err << "HINT:  " << e.hint() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace tp::server
