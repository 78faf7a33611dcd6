// digest_many (shake256.h: whole messages, many at once, for XMSS's n = 24 sets) on both SIMD widths
// this CPU runs, against OpenSSL: every length 0..200 (one or two blocks of 136 bytes, the padding
// in either), counts 1..33 (whole groups of 8 and 4 and every tail), outputs over their inputs.
#include <algorithm>
#include <random>

#include "hashes/cpu_features.h"
#include "hashes/keccak/shake256.h"
#include "test/unit/hashes/keccak/shake256_test_helpers.h"

namespace klms::test::keccak {
namespace {

void check(hashes::shake256::DigestMany many, std::uint32_t seed) {
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
      const Digest expected = openssl_shake256(Bytes(messages[k].begin(), messages[k].begin() + static_cast<std::ptrdiff_t>(len)));
      EXPECT_EQ(Bytes(in_place[k].begin(), in_place[k].begin() + 32), Bytes(expected.begin(), expected.end()))
          << "length " << len << " message " << k << " of " << count;
      ++checked;
    }
  }
  EXPECT_GT(checked, 3000u);
}

TEST(Shake256DigestMany, Avx512EightStatesAgreeWithOpenSsl) {
  const auto& f = hashes::cpu_features();
  if (!(f.avx512f && f.avx512vl)) GTEST_SKIP() << "no AVX-512 on this CPU";
  check(hashes::shake256::digest_many_x8_avx512, 51);
}

TEST(Shake256DigestMany, Avx2FourStatesAgreeWithOpenSsl) {
  if (!hashes::cpu_features().avx2) GTEST_SKIP() << "no AVX2 on this CPU";
  check(hashes::shake256::digest_many_x4_avx2, 52);
}

TEST(Shake256DigestMany, TheChosenOneIsTheBackendsLanes) {
  const auto chosen = hashes::shake256::digest_many();
  if (chosen == nullptr) GTEST_SKIP() << "shake256's hash_many is the portable loop on this CPU";
  check(chosen, 53);
}

}  // namespace
}  // namespace klms::test::keccak
