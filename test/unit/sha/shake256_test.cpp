// SHAKE256 (32-byte output): FIPS 202 known answers and OpenSSL's EVP SHAKE256 on random inputs.
#include "test/unit/sha/sha_test_helpers.h"

namespace klms::test::sha {
namespace {

Bytes ascii(const std::string& s) { return Bytes(s.begin(), s.end()); }

// Published answers: the NIST SHA-3 examples (SHAKE256 of the empty string, of "abc", and of 200 bytes
// of 0xA3, the 1600-bit example message), first 32 bytes.
TEST(Shake256, KnownAnswers) {
  const Backend& b = shake256();
  EXPECT_EQ(hex(digest_of(b, {})), "46b9dd2b0ba88d13233b3feb743eeb243fcd52ea62b81b82b50c27646ed5762f");
  EXPECT_EQ(hex(digest_of(b, ascii("abc"))), "483366601360a8771c6863080cc4114d8db44530f8f1e1ee4f94ea37e78b5739");
  EXPECT_EQ(hex(digest_of(b, Bytes(200, 0xA3))), "cd8a920ed141aa0407a22d59288652e9d9f1a7ee0c1e7c1ca699424da84a904d");
}

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

TEST(Shake256, StreamingAtEverySplitPoint) {
  std::mt19937_64 rng(32);
  for (std::size_t len : {0u, 1u, 31u, 39u, 119u, 120u, 121u, 136u, 255u, 256u, 257u, 500u}) {
    const Bytes identifier = random_bytes(rng, 16);
    const Bytes rest = random_bytes(rng, len);
    hashes::PrefixState prefix;
    shake256().init_prefix(prefix, identifier.data());
    const Digest expected = openssl_shake256(concat(identifier, rest));
    ASSERT_EQ(hash_one_of(shake256(), prefix, rest), expected) << len;
    for (std::size_t split = 0; split <= len; ++split) {
      ASSERT_EQ(stream_of(shake256(), prefix, rest, {split, len - split}), expected) << len << " at " << split;
    }
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

TEST(Shake256, NullPointerWithZeroLength) {
  std::mt19937_64 rng(35);
  const Bytes identifier = random_bytes(rng, 16), data = random_bytes(rng, 10);
  hashes::PrefixState prefix;
  shake256().init_prefix(prefix, identifier.data());
  hashes::StreamState state;
  shake256().stream_init(state, prefix);
  shake256().stream_update(state, nullptr, 0);
  shake256().stream_update(state, data.data(), data.size());
  shake256().stream_update(state, nullptr, 0);
  Digest out(32);
  shake256().stream_final(state, out.data());
  EXPECT_EQ(out, openssl_shake256(concat(identifier, data)));
  shake256().digest(nullptr, 0, out.data());
  EXPECT_EQ(out, openssl_shake256({}));
  shake256().hash_one(prefix, nullptr, 0, out.data());
  EXPECT_EQ(out, openssl_shake256(identifier));
}

TEST(Shake256, TableEntry) {
  EXPECT_EQ(shake256().id, hashes::BackendId::kShake256);
  EXPECT_EQ(shake256().family, hashes::HashFamily::kShake256);
  EXPECT_EQ(shake256().name, "shake256");
  EXPECT_GE(shake256().lanes, 1u);
}

}  // namespace
}  // namespace klms::test::sha
