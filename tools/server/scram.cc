#include "tools/server/scram.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <cctype>
#include <charconv>
#include <cstring>
#include <vector>

namespace tp::server {
namespace {

constexpr size_t kKeyBytes = 32;          // SHA-256
constexpr size_t kServerNonceBytes = 18;  // PostgreSQL's SCRAM_RAW_NONCE_LEN

std::string sha256(std::string_view data) {
  unsigned char out[kKeyBytes];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), out, &len, EVP_sha256(), nullptr);
  return std::string(reinterpret_cast<char*>(out), len);
}

std::string hmac_sha256(std::string_view key, std::string_view data) {
  unsigned char out[kKeyBytes];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), int(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &len);
  return std::string(reinterpret_cast<char*>(out), len);
}

// Hi() of RFC 5802: PBKDF2 with HMAC-SHA-256.
std::string salted_password(std::string_view password, std::string_view salt, int iterations) {
  std::string out(kKeyBytes, '\0');
  PKCS5_PBKDF2_HMAC(password.data(), int(password.size()),
                    reinterpret_cast<const unsigned char*>(salt.data()), int(salt.size()),
                    iterations, EVP_sha256(), int(out.size()),
                    reinterpret_cast<unsigned char*>(out.data()));
  return out;
}

std::string random_bytes(size_t n) {
  std::string out(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), int(n)) != 1)
    throw std::runtime_error("could not generate random bytes");
  return out;
}

std::string xor_bytes(std::string_view a, std::string_view b) {
  std::string out(a);
  for (size_t i = 0; i < out.size() && i < b.size(); ++i) out[i] = char(out[i] ^ b[i]);
  return out;
}

// Reads "x=value" attributes separated by commas, as SCRAM's messages are made.
class AttributeReader {
 public:
  explicit AttributeReader(std::string_view text) : text_(text) {}

  // The value of the next attribute, which must be `name`.
  std::string_view expect(char name) {
    if (pos_ >= text_.size() || text_[pos_] != name || pos_ + 1 >= text_.size() ||
        text_[pos_ + 1] != '=') {
      std::string found = pos_ < text_.size() ? std::string(1, text_[pos_]) : "end of message";
      throw ScramMalformed("Expected attribute \"" + std::string(1, name) + "\" but found \"" +
                           found + "\".");
    }
    return value_after(pos_ + 2);
  }
  // The next attribute's name, or 0 at the end.
  char peek() const { return pos_ < text_.size() ? text_[pos_] : 0; }
  // Skips an attribute of any name (SCRAM's optional extensions).
  void skip() { value_after(pos_); }
  size_t position() const { return pos_; }
  bool at_end() const { return pos_ >= text_.size(); }

 private:
  std::string_view value_after(size_t start) {
    size_t end = text_.find(',', start);
    if (end == std::string_view::npos) end = text_.size();
    std::string_view v = text_.substr(start, end - start);
    pos_ = end < text_.size() ? end + 1 : end;
    return v;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

// A nonce is printable ASCII without commas (RFC 5802's "printable").
bool printable(std::string_view s) {
  for (char c : s)
    if (c < 0x21 || c > 0x7e || c == ',') return false;
  return !s.empty();
}

}  // namespace

std::string base64_encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(bytes.data()), int(bytes.size()));
  out.resize(size_t(n));
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  for (char c : text)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/' || c == '='))
      return std::nullopt;
  std::string out(3 * (text.size() / 4), '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(text.data()), int(text.size()));
  if (n < 0) return std::nullopt;
  size_t pad = 0;
  if (!text.empty() && text.back() == '=') ++pad;
  if (text.size() > 1 && text[text.size() - 2] == '=') ++pad;
  out.resize(size_t(n) - pad);  // EVP_DecodeBlock counts the padding as zero bytes
  if (base64_encode(out) != text) return std::nullopt;  // '=' inside, or non-zero spare bits
  return out;
}

ScramVerifier scram_verifier_with_salt(std::string_view password, std::string salt,
                                       int iterations) {
  ScramVerifier v;
  v.iterations = iterations;
  v.salt = std::move(salt);
  std::string salted = salted_password(password, v.salt, iterations);
  v.stored_key = sha256(hmac_sha256(salted, "Client Key"));
  v.server_key = hmac_sha256(salted, "Server Key");
  OPENSSL_cleanse(salted.data(), salted.size());
  return v;
}

ScramVerifier make_scram_verifier(std::string_view password, int iterations) {
  return scram_verifier_with_salt(password, random_bytes(kScramSaltBytes), iterations);
}

std::string format_scram_verifier(const ScramVerifier& v) {
  return "SCRAM-SHA-256$" + std::to_string(v.iterations) + ":" + base64_encode(v.salt) + "$" +
         base64_encode(v.stored_key) + ":" + base64_encode(v.server_key);
}

std::optional<ScramVerifier> parse_scram_verifier(std::string_view text) {
  constexpr std::string_view kPrefix = "SCRAM-SHA-256$";
  if (text.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  text.remove_prefix(kPrefix.size());
  size_t colon1 = text.find(':');
  size_t dollar = text.find('$');
  if (colon1 == std::string_view::npos || dollar == std::string_view::npos || dollar < colon1)
    return std::nullopt;
  size_t colon2 = text.find(':', dollar);
  if (colon2 == std::string_view::npos) return std::nullopt;
  ScramVerifier v;
  std::string_view iterations = text.substr(0, colon1);
  auto [end, ec] =
      std::from_chars(iterations.data(), iterations.data() + iterations.size(), v.iterations);
  if (ec != std::errc() || end != iterations.data() + iterations.size() || v.iterations < 1)
    return std::nullopt;
  auto salt = base64_decode(text.substr(colon1 + 1, dollar - colon1 - 1));
  auto stored = base64_decode(text.substr(dollar + 1, colon2 - dollar - 1));
  auto server = base64_decode(text.substr(colon2 + 1));
  if (!salt || salt->empty() || !stored || stored->size() != kKeyBytes || !server ||
      server->size() != kKeyBytes)
    return std::nullopt;
  v.salt = *salt;
  v.stored_key = *stored;
  v.server_key = *server;
  return v;
}

ScramExchange::ScramExchange(std::optional<ScramVerifier> verifier, std::string_view user,
                             std::string_view mock_secret)
    : verifier_(std::move(verifier)) {
  if (!verifier_) {
    // The same made-up salt for the same user every time, as a real one would be.
    mock_.salt =
        sha256(std::string(user) + '\0' + std::string(mock_secret)).substr(0, kScramSaltBytes);
    mock_.stored_key = random_bytes(kKeyBytes);
    mock_.server_key = random_bytes(kKeyBytes);
  }
}

std::string ScramExchange::first(std::string_view client_first) {
  // gs2-header: "n" (the client cannot bind to a channel) or "y" (it could, but
  // thinks the server cannot); "p=..." asks for binding over TLS, which tidepool lacks.
  if (client_first.empty()) throw ScramMalformed("Unexpected end of input.");
  char flag = client_first[0];
  if (flag == 'p')
    throw ScramMalformed(
        "The client selected SCRAM-SHA-256-PLUS, but the SCRAM message does "
        "not include channel binding data.");
  if (flag != 'n' && flag != 'y')
    throw ScramMalformed("Unexpected channel-binding flag \"" + std::string(1, flag) + "\".");
  if (client_first.size() < 2 || client_first[1] != ',')
    throw ScramMalformed("Comma expected, but found character \"" +
                         std::string(client_first.substr(1, 1)) + "\".");
  if (client_first.size() >= 3 && client_first[2] == 'a')
    throw ScramMalformed("client uses authorization identity, but it is not supported");
  if (client_first.size() < 3 || client_first[2] != ',')
    throw ScramMalformed("Unexpected attribute \"" + std::string(client_first.substr(2, 1)) +
                         "\" in client-first-message.");
  gs2_header_ = std::string(client_first.substr(0, 3));
  client_first_bare_ = std::string(client_first.substr(3));

  AttributeReader r(client_first_bare_);
  if (r.peek() == 'm') throw ScramMalformed("client requires an unsupported SCRAM extension");
  r.expect('n');  // the user name: PostgreSQL uses the startup packet's, as here
  std::string_view client_nonce = r.expect('r');
  if (!printable(client_nonce)) throw ScramMalformed("Could not parse the client nonce.");
  while (!r.at_end()) r.skip();  // extensions: ignored, as RFC 5802 says

  if (server_nonce_.empty()) server_nonce_ = base64_encode(random_bytes(kServerNonceBytes));
  nonce_ = std::string(client_nonce) + server_nonce_;
  const ScramVerifier& v = verifier_ ? *verifier_ : mock_;
  server_first_ =
      "r=" + nonce_ + ",s=" + base64_encode(v.salt) + ",i=" + std::to_string(v.iterations);
  return server_first_;
}

std::optional<std::string> ScramExchange::final(std::string_view client_final) {
  AttributeReader r(client_final);
  std::optional<std::string> binding = base64_decode(r.expect('c'));
  if (!binding || *binding != gs2_header_)
    throw ScramMalformed("Unexpected SCRAM channel-binding attribute in client-final-message.");
  std::string_view nonce = r.expect('r');
  if (nonce != nonce_) throw ScramMalformed("Nonce does not match.");
  while (r.peek() != 'p' && !r.at_end()) r.skip();
  const size_t without_proof_end = r.position() == 0 ? 0 : r.position() - 1;
  std::optional<std::string> proof = base64_decode(r.expect('p'));
  if (!proof || proof->size() != kKeyBytes)
    throw ScramMalformed("Malformed proof in client-final-message.");
  if (!r.at_end()) throw ScramMalformed("Garbage found at the end of client-final-message.");

  if (!verifier_) return std::nullopt;  // the mock exchange: it fails here, as a wrong password
  const std::string auth_message = client_first_bare_ + "," + server_first_ + "," +
                                   std::string(client_final.substr(0, without_proof_end));
  std::string client_signature = hmac_sha256(verifier_->stored_key, auth_message);
  std::string client_key = xor_bytes(*proof, client_signature);
  std::string stored = sha256(client_key);
  if (CRYPTO_memcmp(stored.data(), verifier_->stored_key.data(), kKeyBytes) != 0)
    return std::nullopt;
  return "v=" + base64_encode(hmac_sha256(verifier_->server_key, auth_message));
}

}  // namespace tp::server
