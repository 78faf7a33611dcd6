// ARIA against OpenSSL's own ARIA (an independent implementation) on random keys and blocks.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "hashes/blockcipher/aria.h"
#include "test/support/test_data.h"

namespace klms::hashes {
namespace {

using test::Bytes;

Bytes openssl_ecb(const EVP_CIPHER* cipher, const Bytes& key, const Bytes& plaintext) {
  std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)> ctx(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
  Bytes out(plaintext.size() + 16);
  int len = 0;
  if (!ctx || EVP_EncryptInit_ex(ctx.get(), cipher, nullptr, key.data(), nullptr) != 1 ||
      EVP_CIPHER_CTX_set_padding(ctx.get(), 0) != 1 ||
      EVP_EncryptUpdate(ctx.get(), out.data(), &len, plaintext.data(), static_cast<int>(plaintext.size())) != 1) {
    ADD_FAILURE() << "OpenSSL ARIA failed";
    return {};
  }
  out.resize(static_cast<std::size_t>(len));
  return out;
}

Bytes ours_ecb(const Bytes& key, const Bytes& plaintext) {
  aria::RoundKeys keys{};
  if (key.size() == 16) aria::expand_key128(key.data(), keys);
  if (key.size() == 24) aria::expand_key192(key.data(), keys);
  if (key.size() == 32) aria::expand_key256(key.data(), keys);
  Bytes out(plaintext.size());
  for (std::size_t at = 0; at < plaintext.size(); at += 16) aria::encrypt(keys, plaintext.data() + at, out.data() + at);
  return out;
}

Bytes random_bytes(std::mt19937& rng, std::size_t n) {
  Bytes b(n);
  for (auto& v : b) v = static_cast<std::uint8_t>(rng());
  return b;
}

void cross_check(const EVP_CIPHER* cipher, std::size_t key_bytes) {
  ASSERT_NE(cipher, nullptr);
  std::mt19937 rng(static_cast<unsigned>(key_bytes));
  for (int trial = 0; trial < 500; ++trial) {
    const Bytes key = random_bytes(rng, key_bytes);
    const Bytes plaintext = random_bytes(rng, 64);
    ASSERT_EQ(test::to_hex(ours_ecb(key, plaintext)), test::to_hex(openssl_ecb(cipher, key, plaintext)))
        << "key " << test::to_hex(key);
  }
}

TEST(AriaOpenSsl, Aria128MatchesOnRandomInputs) { cross_check(EVP_aria_128_ecb(), 16); }
TEST(AriaOpenSsl, Aria192MatchesOnRandomInputs) { cross_check(EVP_aria_192_ecb(), 24); }
TEST(AriaOpenSsl, Aria256MatchesOnRandomInputs) { cross_check(EVP_aria_256_ecb(), 32); }

}  // namespace
}  // namespace klms::hashes
