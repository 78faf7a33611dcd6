// SHA-256 against OpenSSL's libcrypto on random inputs: every length 0..1000, random streaming
// splits, and one stream past the 32-bit counters.
#include <openssl/evp.h>

#include <algorithm>

#include "hashes/sha2/sha256_portable.h"
#include "hashes/sha2/sha256_shani.h"
#include "test/unit/hashes/sha2/sha256_test_helpers.h"

namespace klms::test::sha {
namespace {

using Sha256VsOpenSsl = Sha256BackendTest;

TEST_P(Sha256VsOpenSsl, DigestEveryLengthTo1000) {
  std::mt19937_64 rng(1);
  for (std::size_t len = 0; len <= 1000; ++len) {
    const Bytes in = random_bytes(rng, len);
    ASSERT_EQ(digest_of(backend(), in), openssl_sha256(in)) << "length " << len;
  }
}

// H(I || rest) equals SHA256 of the concatenation, for every rest length 0..1000.
TEST_P(Sha256VsOpenSsl, PrefixedEveryLengthTo1000) {
  std::mt19937_64 rng(2);
  for (std::size_t len = 0; len <= 1000; ++len) {
    const Bytes identifier = random_bytes(rng, 16);
    const Bytes rest = random_bytes(rng, len);
    hashes::PrefixState prefix;
    backend().init_prefix(prefix, identifier.data());
    const Digest expected = openssl_sha256(concat(identifier, rest));
    ASSERT_EQ(hash_one_of(backend(), prefix, rest), expected) << "rest length " << len;
    ASSERT_EQ(stream_of(backend(), prefix, rest, {rest.size()}), expected) << "rest length " << len;
  }
}

TEST_P(Sha256VsOpenSsl, RandomStreamingSplits) {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 300; ++trial) {
    const Bytes identifier = random_bytes(rng, 16);
    const Bytes data = random_bytes(rng, rng() % 3000);
    std::vector<std::size_t> pieces;
    for (std::size_t left = data.size(); left != 0;) {
      // Mostly short pieces, sometimes several blocks, sometimes empty updates.
      const std::size_t len = std::min<std::size_t>(left, rng() % 4 == 0 ? rng() % 700 : rng() % 70);
      pieces.push_back(len);
      left -= len;
    }
    hashes::PrefixState prefix;
    backend().init_prefix(prefix, identifier.data());
    ASSERT_EQ(stream_of(backend(), prefix, data, pieces), openssl_sha256(concat(identifier, data))) << "trial " << trial;
  }
}

// The stream of I || data over `total` bytes of a repeating pattern, fed in 1 MiB pieces, against
// OpenSSL's streaming SHA-256 of the same bytes.
void expect_long_stream_matches(const Backend& b, std::uint64_t total) {
  Bytes chunk(1 << 20);
  for (std::size_t i = 0; i < chunk.size(); ++i) chunk[i] = static_cast<std::uint8_t>(i * 131 + (i >> 11));
  hashes::PrefixState prefix;
  b.init_prefix(prefix, chunk.data());
  hashes::StreamState state;
  b.stream_init(state, prefix);
  EVP_MD_CTX* reference = EVP_MD_CTX_new();
  ASSERT_NE(reference, nullptr);
  ASSERT_EQ(EVP_DigestInit_ex(reference, EVP_sha256(), nullptr), 1);
  ASSERT_EQ(EVP_DigestUpdate(reference, chunk.data(), 16), 1);
  for (std::uint64_t left = total - 16; left != 0;) {
    const std::size_t len = static_cast<std::size_t>(std::min<std::uint64_t>(left, chunk.size() - 3));
    b.stream_update(state, chunk.data() + 3, len);
    ASSERT_EQ(EVP_DigestUpdate(reference, chunk.data() + 3, len), 1);
    left -= len;
  }
  Digest ours(32), theirs(32);
  b.stream_final(state, ours.data());
  ASSERT_EQ(EVP_DigestFinal_ex(reference, theirs.data(), nullptr), 1);
  EVP_MD_CTX_free(reference);
  EXPECT_EQ(ours, theirs);
}

// 2^32 bits is only 512 MiB: a 32-bit bit counter would wrap here.
TEST(Sha256LongStream, PortablePast512MiB) {
  expect_long_stream_matches(sha256_backend(Sha256Kind::kPortable), (std::uint64_t{1} << 29) + 77);
}

// Past 4 GiB, where a 32-bit byte counter or a size_t truncated to 32 bits would fail.
TEST(Sha256LongStream, ShaNiPast4GiB) {
  if (!hashes::sha256_hw_supported()) GTEST_SKIP() << "no SHA-NI on this CPU";
  expect_long_stream_matches(sha256_backend(Sha256Kind::kHw), (std::uint64_t{1} << 32) + 4099);
}

// The portable and SHA-NI compression functions agree block by block, from random chaining values.
TEST(Sha256Compression, PortableAndShaNiAgree) {
  if (!hashes::sha256_hw_supported()) GTEST_SKIP() << "no SHA-NI on this CPU";
  std::mt19937_64 rng(4);
  for (int trial = 0; trial < 1000; ++trial) {
    std::uint32_t a[8], b[8];
    for (auto& w : a) w = static_cast<std::uint32_t>(rng());
    std::copy(a, a + 8, b);
    const std::size_t count = rng() % 4;
    const Bytes blocks = random_bytes(rng, 64 * count);
    hashes::sha256::compress_blocks(a, blocks.data(), count);
    hashes::sha256::shani::compress_blocks(b, blocks.data(), count);
    ASSERT_TRUE(std::equal(a, a + 8, b)) << "trial " << trial;
  }
}

TEST(Sha256Backends, PortableAndShaNiAgreeOnEveryLengthTo1000) {
  if (!hashes::sha256_hw_supported()) GTEST_SKIP() << "no SHA-NI on this CPU";
  const Backend& portable = sha256_backend(Sha256Kind::kPortable);
  const Backend& hw = sha256_backend(Sha256Kind::kHw);
  std::mt19937_64 rng(5);
  for (std::size_t len = 0; len <= 1000; ++len) {
    const Bytes identifier = random_bytes(rng, 16);
    const Bytes rest = random_bytes(rng, len);
    hashes::PrefixState p1, p2;
    portable.init_prefix(p1, identifier.data());
    hw.init_prefix(p2, identifier.data());
    ASSERT_EQ(hash_one_of(portable, p1, rest), hash_one_of(hw, p2, rest)) << "rest length " << len;
    ASSERT_EQ(digest_of(portable, rest), digest_of(hw, rest)) << "length " << len;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, Sha256VsOpenSsl, ::testing::Values(Sha256Kind::kPortable, Sha256Kind::kHw),
                         kind_name);

}  // namespace
}  // namespace klms::test::sha
