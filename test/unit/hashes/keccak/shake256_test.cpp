// SHAKE256 (32-byte output) against OpenSSL's EVP SHAKE256 on random inputs. The FIPS 202 known answers
// (test/data/keccak), streaming splits and null empty inputs: test/unit/hashes/backend_conformance_test.cpp.
#include "test/unit/hashes/keccak/shake256_test_helpers.h"

namespace klms::test::keccak {
namespace {

TEST(Shake256, DigestEveryLengthTo1000) {
  std::mt19937_64 rng(30);
  for (std::size_t len = 0; len <= 1000; ++len) {
    const Bytes in = random_bytes(rng, len);
    ASSERT_EQ(digest_of(shake256(), in), openssl_shake256(in)) << "length " << len;
  }
}

TEST(Shake256, PrefixedEveryLengthTo1000) {
  std::mt19937_64 rng(31);
  for (std::size_t len = 0; len <= 1000; ++len) {
    const Bytes identifier = random_bytes(rng, 16);
    const Bytes rest = random_bytes(rng, len);
    hashes::PrefixState prefix;
    shake256().init_prefix(prefix, identifier.data());
    const Digest expected = openssl_shake256(concat(identifier, rest));
    ASSERT_EQ(hash_one_of(shake256(), prefix, rest), expected) << "rest length " << len;
    ASSERT_EQ(stream_of(shake256(), prefix, rest, {rest.size()}), expected) << "rest length " << len;
  }
}

TEST(Shake256, RandomStreamingSplits) {
  std::mt19937_64 rng(33);
  for (int trial = 0; trial < 300; ++trial) {
    const Bytes identifier = random_bytes(rng, 16);
    const Bytes data = random_bytes(rng, rng() % 3000);
    std::vector<std::size_t> pieces;
    for (std::size_t left = data.size(); left != 0;) {
      const std::size_t len = std::min<std::size_t>(left, rng() % 4 == 0 ? rng() % 700 : rng() % 70);
      pieces.push_back(len);
      left -= len;
    }
    hashes::PrefixState prefix;
    shake256().init_prefix(prefix, identifier.data());
    ASSERT_EQ(stream_of(shake256(), prefix, data, pieces), openssl_shake256(concat(identifier, data))) << trial;
  }
}

// LMS_SHAKE_N24 uses SHAKE256 with a 24-byte output, which is a prefix of the 32-byte one (an XOF).
TEST(Shake256, TwentyFourByteOutputIsAPrefix) {
  std::mt19937_64 rng(34);
  const Bytes identifier = random_bytes(rng, 16);
  const Bytes rest = random_bytes(rng, 31);  // the n = 24 chain input is 47 bytes
  hashes::PrefixState prefix;
  shake256().init_prefix(prefix, identifier.data());
  const Digest full = hash_one_of(shake256(), prefix, rest);
  EXPECT_EQ(Digest(full.begin(), full.begin() + 24), openssl_shake256(concat(identifier, rest), 24));
}

TEST(Shake256, TableEntry) {
  EXPECT_EQ(shake256().id, hashes::BackendId::kShake256);
  EXPECT_EQ(shake256().family, hashes::HashFamily::kShake256);
  EXPECT_EQ(shake256().name, "shake256");
  EXPECT_GE(shake256().lanes, 1u);
  EXPECT_EQ(shake256().chain_steps, nullptr);  // the chains step through hash_many
}

}  // namespace
}  // namespace klms::test::keccak
