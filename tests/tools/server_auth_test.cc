// Passwords (issue 29): SCRAM-SHA-256 checked against RFC 7677's own exchange, the
// password file `tidepool passwd` writes, and the whole login over a socket with a
// client whose proof is computed here with libcrypto, independently of scram.cc.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/core/error.h"
#include "engine/session/database.h"
#include "tests/support/pg_wire_client.h"
#include "tests/support/test_server.h"
#include "tests/support/test_util.h"
#include "tools/server/password_file.h"
#include "tools/server/scram.h"
#include "tools/server/server.h"

namespace tp {
namespace {

using server::ScramExchange;
using testing::PgWireClient;

// RFC 7677, section 3: user "user", password "pencil".
constexpr const char* kRfcClientFirst = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
constexpr const char* kRfcSalt = "W22ZaJ0SNY7soEsUEjb6gQ==";
constexpr const char* kRfcServerNonce = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
constexpr const char* kRfcClientFinal =
    "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
    "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
constexpr const char* kRfcServerFinal = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";

server::ScramVerifier rfc_verifier(const char* password = "pencil") {
  return server::scram_verifier_with_salt(password, *server::base64_decode(kRfcSalt), 4096);
}

TEST(Scram, RunsRfc7677sExchange) {
  ScramExchange s(rfc_verifier(), "user", "secret");
  s.use_server_nonce(kRfcServerNonce);
  EXPECT_EQ(s.first(kRfcClientFirst),
            "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,"
            "i=4096");
  EXPECT_EQ(s.final(kRfcClientFinal), std::optional<std::string>(kRfcServerFinal));
}

TEST(Scram, AWrongPasswordFailsAtTheEnd) {
  ScramExchange s(rfc_verifier("pencils"), "user", "secret");
  s.use_server_nonce(kRfcServerNonce);
  s.first(kRfcClientFirst);
  EXPECT_EQ(s.final(kRfcClientFinal), std::nullopt);
}

TEST(Scram, AnUnknownUserGetsTheSameSaltEveryTimeAndFails) {
  ScramExchange a(std::nullopt, "nobody", "secret");
  ScramExchange b(std::nullopt, "nobody", "secret");
  ScramExchange c(std::nullopt, "somebody", "secret");
  auto salt = [](ScramExchange& s) {
    std::string first = s.first(kRfcClientFirst);
    return first.substr(first.find(",s="), first.find(",i=") - first.find(",s="));
  };
  EXPECT_EQ(salt(a), salt(b));
  EXPECT_NE(salt(a), salt(c));
  a.use_server_nonce(kRfcServerNonce);
  a.first(kRfcClientFirst);
  EXPECT_EQ(a.final(kRfcClientFinal), std::nullopt);
}

TEST(Scram, MalformedMessagesAreRefusedWithPostgresqlsDetail) {
  auto first_error = [](const std::string& msg) {
    ScramExchange s(rfc_verifier(), "user", "x");
    try {
      s.first(msg);
    } catch (const server::ScramMalformed& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(first_error(""), "Unexpected end of input.");
  EXPECT_EQ(first_error("q,,n=,r=abc"), "Unexpected channel-binding flag \"q\".");
  EXPECT_NE(first_error("p=tls-server-end-point,,n=,r=abc"), "accepted");
  EXPECT_EQ(first_error("n,a=someone,n=,r=abc"),
            "client uses authorization identity, but it is not supported");
  EXPECT_EQ(first_error("n,,r=abc"), "Expected attribute \"n\" but found \"r\".");
  EXPECT_EQ(first_error("n,,n=,r="), "Could not parse the client nonce.");
  EXPECT_EQ(first_error("n,,m=ext,n=,r=abc"), "client requires an unsupported SCRAM extension");
  EXPECT_EQ(first_error("y,,n=,r=abc,x=ignored"), "accepted");

  auto final_error = [](const std::string& msg) {
    ScramExchange s(rfc_verifier(), "user", "x");
    s.use_server_nonce(kRfcServerNonce);
    s.first(kRfcClientFirst);
    try {
      s.final(msg);
    } catch (const server::ScramMalformed& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  const std::string nonce = "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
  EXPECT_EQ(final_error("c=eSws," + nonce + ",p=AAAA"),
            "Unexpected SCRAM channel-binding attribute in client-final-message.");
  EXPECT_EQ(final_error("c=biws,r=other,p=AAAA"), "Nonce does not match.");
  EXPECT_EQ(final_error("c=biws," + nonce + ",p=AAAA"), "Malformed proof in client-final-message.");
  EXPECT_EQ(final_error("c=biws," + nonce),
            "Expected attribute \"p\" but found \"end of message\".");
  EXPECT_EQ(final_error(std::string(kRfcClientFinal) + ",z=1"),
            "Garbage found at the end of client-final-message.");
}

TEST(Scram, VerifiersRoundTripInPostgresqlsForm) {
  server::ScramVerifier v = rfc_verifier();
  std::string text = server::format_scram_verifier(v);
  EXPECT_EQ(text.rfind("SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$", 0), 0u) << text;
  auto back = server::parse_scram_verifier(text);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->stored_key, v.stored_key);
  EXPECT_EQ(back->server_key, v.server_key);
  for (const char* bad : {"", "md5abc", "SCRAM-SHA-256$x:AAAA$AAAA:AAAA",
                          "SCRAM-SHA-256$4096:AAAA$AAAA:AAAA", "SCRAM-SHA-256$4096:A$B:C"})
    EXPECT_FALSE(server::parse_scram_verifier(bad)) << bad;
  EXPECT_NE(server::make_scram_verifier("pencil").salt, server::make_scram_verifier("pencil").salt);
}

TEST(Scram, Base64IsStrict) {
  EXPECT_EQ(server::base64_encode("pencil"), "cGVuY2ls");
  EXPECT_EQ(server::base64_decode("biws"), std::optional<std::string>("n,,"));
  EXPECT_EQ(server::base64_decode("eQ=="), std::optional<std::string>("y"));
  for (const char* bad : {"eQ=", "e===", "eR==", "ab?d", "=abc"})
    EXPECT_FALSE(server::base64_decode(bad)) << bad;
}

// `tidepool passwd` with its password on standard input.
int passwd(const std::vector<std::string>& args, const std::string& input,
           std::string* err = nullptr) {
  std::istringstream in(input);
  std::ostringstream out, errs;
  int rc = server::run_passwd_command(args, in, out, errs);
  if (err) *err = errs.str();
  return rc;
}

TEST(PasswordFile, PasswdAddsChangesAndDeletesUsersKeepingComments) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/passwords";
  ASSERT_EQ(passwd({path, "alice"}, "pencil\n"), 0);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  { std::ofstream(path, std::ios::app) << "# the second user\n"; }
  ASSERT_EQ(passwd({path, "bob"}, "secret\n"), 0);
  server::PasswordFile f = server::read_password_file(path);
  ASSERT_EQ(f.users.size(), 2u);
  const std::string alice_before = server::format_scram_verifier(f.users.at("alice"));
  ASSERT_EQ(passwd({path, "alice"}, "other\n"), 0);
  f = server::read_password_file(path);
  EXPECT_NE(server::format_scram_verifier(f.users.at("alice")), alice_before);
  EXPECT_EQ(f.lines.at(1), "# the second user");
  ASSERT_EQ(passwd({path, "bob", "--delete"}, ""), 0);
  EXPECT_EQ(server::read_password_file(path).users.count("bob"), 0u);
  std::ifstream text(path);
  std::string all((std::istreambuf_iterator<char>(text)), std::istreambuf_iterator<char>());
  EXPECT_EQ(all.find("pencil"), std::string::npos);
  EXPECT_EQ(all.find("other"), std::string::npos);  // verifiers only, never a password
}

TEST(PasswordFile, PasswdNeverRewritesAFileThatIsNotAPasswordFile) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/notes.txt";
  { std::ofstream(path) << "my notes\n"; }
  ::chmod(path.c_str(), 0600);
  std::string err;
  EXPECT_EQ(passwd({path, "alice"}, "pencil\n", &err), 1);
  EXPECT_NE(err.find("line 1 of password file"), std::string::npos) << err;
  std::ifstream f(path);
  std::string line;
  std::getline(f, line);
  EXPECT_EQ(line, "my notes");
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()),
                          std::filesystem::directory_iterator()),
            1);
  EXPECT_EQ(passwd({path, "a:b"}, "pencil\n", &err), 2);
  EXPECT_EQ(passwd({dir.path() + "/p", "alice"}, "\n", &err), 1);
  EXPECT_NE(err.find("empty password"), std::string::npos) << err;
}

TEST(PasswordFile, AFileOthersCanWriteIsRefused) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/passwords";
  ASSERT_EQ(passwd({path, "alice"}, "pencil\n"), 0);
  ::chmod(path.c_str(), 0666);
  EXPECT_THROW(server::read_password_file(path), Error);
}

// The client's side of SCRAM, from RFC 5802's formulas.
std::string hmac(const std::string& key, const std::string& data) {
  unsigned char out[32];
  unsigned int n = 0;
  HMAC(EVP_sha256(), key.data(), int(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &n);
  return std::string(reinterpret_cast<char*>(out), n);
}

std::string client_final(const std::string& password, const std::string& client_first_bare,
                         const std::string& server_first, std::string* server_signature) {
  auto field = [&](char name) {
    size_t at = server_first.find(std::string(1, name) + "=");
    size_t end = server_first.find(',', at);
    return server_first.substr(at + 2, end == std::string::npos ? end : end - at - 2);
  };
  std::string salt = *server::base64_decode(field('s'));
  std::string salted(32, '\0');
  PKCS5_PBKDF2_HMAC(password.data(), int(password.size()),
                    reinterpret_cast<const unsigned char*>(salt.data()), int(salt.size()),
                    std::stoi(field('i')), EVP_sha256(), 32,
                    reinterpret_cast<unsigned char*>(salted.data()));
  std::string client_key = hmac(salted, "Client Key");
  unsigned char stored[32];
  unsigned int n = 0;
  EVP_Digest(client_key.data(), client_key.size(), stored, &n, EVP_sha256(), nullptr);
  std::string without_proof = "c=biws,r=" + field('r');
  std::string auth = client_first_bare + "," + server_first + "," + without_proof;
  std::string signature = hmac(std::string(reinterpret_cast<char*>(stored), n), auth);
  std::string proof = client_key;
  for (size_t i = 0; i < proof.size(); ++i) proof[i] = char(proof[i] ^ signature[i]);
  *server_signature = "v=" + server::base64_encode(hmac(hmac(salted, "Server Key"), auth));
  return without_proof + ",p=" + server::base64_encode(proof);
}

class AuthServerTest : public ::testing::Test {
 protected:
  static server::ServerOptions with_passwords(const testing::TempDir& dir) {
    const std::string path = dir.path() + "/passwords";
    EXPECT_EQ(passwd({path, "alice"}, "pencil\n"), 0);
    server::ServerOptions so;
    so.startup_timeout_ms = 3000;
    so.passwords = std::make_shared<const server::PasswordFile>(server::read_password_file(path));
    return so;
  }

  testing::TempDir dir_;
  testing::TestServer server_{with_passwords(dir_)};

  // Logs in as `user` with `password`; returns the server's last message type
  // ('Z' ReadyForQuery when in, 'E' when refused) and records what it said.
  char login(PgWireClient& c, const std::string& user, const std::string& password) {
    c.send_raw(testing::startup_packet(196608, testing::startup_params({{"user", user}})));
    auto m = c.read_message();
    if (m.type != 'R' || testing::get_int32(m.body, 0) != 10) return m.type;
    EXPECT_EQ(m.body.substr(4), std::string("SCRAM-SHA-256\0\0", 15));
    const std::string bare = "n=,r=fyko+d2lbbFgONRv9qkxdawL";
    std::string first = "n,," + bare;
    std::string body = std::string("SCRAM-SHA-256") + '\0';
    testing::put_int32(body, int32_t(first.size()));
    c.send_message('p', body + first);
    m = c.read_message();
    if (m.type != 'R' || testing::get_int32(m.body, 0) != 11) return m.type;
    std::string server_first = m.body.substr(4);
    std::string expected_signature;
    c.send_message('p', client_final(password, bare, server_first, &expected_signature));
    for (;;) {
      m = c.read_message();
      if (m.type == 'R' && testing::get_int32(m.body, 0) == 12) {
        EXPECT_EQ(m.body.substr(4), expected_signature) << "the server proves it knows the key";
      }
      if (m.type == 'E') error_ = testing::parse_error_fields(m.body);
      if (m.type == 'Z' || m.type == 'E' || m.type == 0) return m.type;
    }
  }

  testing::PgError error_;
};

TEST_F(AuthServerTest, TheRightPasswordLogsIn) {
  PgWireClient c(server_.port());
  ASSERT_EQ(login(c, "alice", "pencil"), 'Z') << error_.message;
  EXPECT_EQ(c.query("SELECT 1").results.at(0).rows.at(0).at(0), "1");
}

TEST_F(AuthServerTest, AWrongPasswordAndAnUnknownUserAreRefusedAlike) {
  for (const auto& [user, password] : {std::pair{"alice", "pencils"}, std::pair{"mallory", "x"}}) {
    PgWireClient c(server_.port());
    EXPECT_EQ(login(c, user, password), 'E');
    EXPECT_EQ(error_.severity, "FATAL");
    EXPECT_EQ(error_.code, "28P01");
    EXPECT_EQ(error_.message,
              std::string("password authentication failed for user \"") + user + "\"");
  }
}

TEST_F(AuthServerTest, AClientThatSendsNoPasswordIsDroppedAtTheStartupDeadline) {
  PgWireClient c(server_.port());
  c.send_raw(testing::startup_packet(196608, testing::startup_params({{"user", "alice"}})));
  EXPECT_EQ(c.read_message().type, 'R');
  auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(c.closed_by_server());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST_F(AuthServerTest, AnotherMessageInPlaceOfThePasswordIsAProtocolViolation) {
  PgWireClient c(server_.port());
  c.send_raw(testing::startup_packet(196608, testing::startup_params({{"user", "alice"}})));
  EXPECT_EQ(c.read_message().type, 'R');
  c.send_message('Q', std::string("SELECT 1") + '\0');
  EXPECT_TRUE(c.closed_by_server());
  EXPECT_EQ(c.error().code, "08P01");
  EXPECT_EQ(c.error().message, "expected SASL response, got message type 81");
}

// One client may not change what every session shares, unless the server allows it.
TEST(ServerGlobalSettings, ASetOfADatabaseWideSettingIsRefusedUnlessAllowed) {
  for (bool allow : {false, true}) {
    server::ServerOptions so;
    so.allow_global_set = allow;
    testing::TestServer s(so);
    PgWireClient c(s.port());
    ASSERT_TRUE(c.start());
    testing::PgReply r = c.query("SET shared_buffers = '4MB'");
    if (allow) {
      EXPECT_FALSE(r.error);
      EXPECT_EQ(c.query("SHOW shared_buffers").results.at(0).rows.at(0).at(0), "4MB");
    } else {
      ASSERT_TRUE(r.error);
      EXPECT_EQ(r.error->code, "55P02");
      EXPECT_EQ(r.error->message, "parameter \"shared_buffers\" cannot be changed now");
      EXPECT_EQ(c.query("RESET io_method").error.value_or(testing::PgError{}).code, "55P02");
      EXPECT_FALSE(c.query("SET work_mem = '8MB'").error) << "per-session settings stay free";
      EXPECT_FALSE(c.query("RESET ALL").error);
      EXPECT_EQ(c.query("SHOW shared_buffers").results.at(0).rows.at(0).at(0), "2MB");
    }
  }
}

// Refused before any socket is bound (tests listen on loopback only, so the accepted
// case is not tried here).
TEST(ServerListen, BeyondLoopbackOnlyWithPasswords) {
  testing::TempDir dir;
  DatabaseOptions o;
  o.data_dir = dir.data();
  auto db = Database::open(o);
  server::ServerOptions so;
  so.listen = {"0.0.0.0"};
  so.port = 0;
  try {
    server::Server s(db, so);
    FAIL() << "listened on 0.0.0.0 without passwords";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "refusing to listen beyond loopback without passwords");
  }
}

}  // namespace
}  // namespace tp
