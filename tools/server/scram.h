// SCRAM-SHA-256 (RFC 5802, RFC 7677) as PostgreSQL speaks it: the verifier a
// password file holds, and the server's side of one exchange. The hashing is
// OpenSSL's libcrypto (SHA-256, HMAC, PBKDF2, a secure random source).
//
// A verifier is what the server keeps instead of a password, in PostgreSQL's
// text form (pg_authid.rolpassword):
//   SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>     (base64 fields)
// From it the server can check a client's proof and prove itself to the client,
// but cannot log in as the user.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tp::server {

// PostgreSQL's default (scram_iterations) and its salt length.
constexpr int kScramIterations = 4096;
constexpr size_t kScramSaltBytes = 16;

struct ScramVerifier {
  int iterations = kScramIterations;
  std::string salt;        // raw bytes
  std::string stored_key;  // H(ClientKey), 32 raw bytes
  std::string server_key;  // HMAC(SaltedPassword, "Server Key"), 32 raw bytes
};

// A new verifier for `password` with a random salt. The password is used as its
// bytes: libpq applies SASLprep first, which changes only passwords that are not
// in Unicode NFKC form or hold unusual spaces and invisible characters.
ScramVerifier make_scram_verifier(std::string_view password, int iterations = kScramIterations);
// The verifier with a given salt (tests; the unknown user's mock exchange).
ScramVerifier scram_verifier_with_salt(std::string_view password, std::string salt, int iterations);
std::string format_scram_verifier(const ScramVerifier& v);
// nullopt when `text` is not a SCRAM-SHA-256 verifier.
std::optional<ScramVerifier> parse_scram_verifier(std::string_view text);

// A client message that breaks SCRAM's grammar: FATAL 08P01 "malformed SCRAM
// message" with what() as the detail, as PostgreSQL reports it.
class ScramMalformed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The server's side of one exchange:
//   client-first-message  --first()-->  server-first-message
//   client-final-message  --final()-->  server-final-message, or nullopt (wrong password)
// Without a verifier (the user is unknown or has none) the exchange still runs to
// the end with a salt made up from the user name and `mock_secret`, and fails there,
// so a client cannot tell an unknown user from a wrong password.
class ScramExchange {
 public:
  ScramExchange(std::optional<ScramVerifier> verifier, std::string_view user,
                std::string_view mock_secret);

  std::string first(std::string_view client_first);  // throws ScramMalformed
  std::optional<std::string> final(std::string_view client_final);

  // The server's part of the nonce, in place of 18 random bytes (RFC 7677's test vector).
  void use_server_nonce(std::string nonce) { server_nonce_ = std::move(nonce); }

 private:
  std::optional<ScramVerifier> verifier_;
  ScramVerifier mock_;
  std::string gs2_header_;         // "n,," or "y,,"
  std::string client_first_bare_;  // "n=...,r=..."
  std::string server_first_;       // "r=...,s=...,i=..."
  std::string nonce_;              // the client's nonce followed by the server's
  std::string server_nonce_;       // empty: random
};

// base64 (RFC 4648, with padding) as SCRAM uses it.
std::string base64_encode(std::string_view bytes);
// nullopt when `text` is not canonical base64.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace tp::server
