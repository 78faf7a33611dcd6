// digest_many (sha256_midstate.h: whole messages, many at once, for XMSS's n = 24 sets) on every
// path this CPU runs, against OpenSSL: every length 0..200 (one to four blocks, the padding in the
// first or a second block), counts 1..33 (whole groups of 16 and 4 and every tail), outputs over
// their inputs.
#include <algorithm>
#include <random>

#include "hashes/cpu_features.h"
#include "hashes/sha2/sha256_midstate.h"
#include "hashes/sha2/sha256_shani.h"
#include "test/unit/hashes/sha2/sha256_test_helpers.h"

namespace klms::test::sha {
namespace {

void check(hashes::sha256::DigestMany many, std::uint32_t seed) {
  std::mt19937 rng(seed);
  unsigned checked = 0;
  for (std::size_t len = 0; len <= 200; ++len) {
    const std::size_t count = 1 + (len * 7) % 33;
    std::vector<Bytes> messages(count, Bytes(std::max<std::size_t>(len, 32)));
    for (Bytes& m : messages) {
      for (auto& b : m) b = static_cast<std::uint8_t>(rng());
    }
    std::vector<Bytes> in_place = messages;
    std::vector<const std::uint8_t*> ins;
    std::vector<std::uint8_t*> outs;
    for (Bytes& m : in_place) {
      ins.push_back(m.data());
      outs.push_back(m.data());
    }
    many(ins.data(), len, outs.data(), count);
    for (std::size_t k = 0; k < count; ++k) {
      const Digest expected = openssl_sha256(Bytes(messages[k].begin(), messages[k].begin() + static_cast<std::ptrdiff_t>(len)));
      EXPECT_EQ(Bytes(in_place[k].begin(), in_place[k].begin() + 32), Bytes(expected.begin(), expected.end()))
          << "length " << len << " message " << k << " of " << count;
      ++checked;
    }
  }
  EXPECT_GT(checked, 3000u);
}

TEST(Sha256DigestMany, Avx512LanesAgreeWithOpenSsl) {
  const auto& f = hashes::cpu_features();
  if (!(f.avx512f && f.avx512vl && f.avx2)) GTEST_SKIP() << "no AVX-512 F+VL on this CPU";
  check(hashes::sha256::lanes::digest_many_avx512, 41);
}

TEST(Sha256DigestMany, ShaNiAgreesWithOpenSsl) {
  if (!hashes::cpu_features().sha_ni) GTEST_SKIP() << "no SHA-NI on this CPU";
  check(hashes::sha256::shani::digest_many, 42);
}

TEST(Sha256DigestMany, TheChosenOneIsSha256HwsPath) {
  const auto chosen = hashes::sha256::digest_many();
  if (!hashes::cpu_features().sha_ni) {
    EXPECT_EQ(chosen, nullptr);
    return;
  }
  ASSERT_NE(chosen, nullptr);
  check(chosen, 43);
}

}  // namespace
}  // namespace klms::test::sha
