// Both SIMD widths of SHAKE256's hash_many against hash_one and OpenSSL, whichever one the backend
// table picked on this CPU (the backend's own hash_many: test/unit/hashes/backend_conformance_test.cpp).
#include "hashes/cpu_features.h"
#include "hashes/keccak/shake256.h"
#include "test/unit/hashes/keccak/shake256_test_helpers.h"

namespace klms::test::keccak {
namespace {

Digest reference(const Bytes& message) { return openssl_shake256(message); }

TEST(Shake256Lanes, Avx2FourStatesAgree) {
  if (!hashes::cpu_features().avx2) GTEST_SKIP() << "no AVX2 on this CPU";
  std::mt19937_64 rng(23);
  check_many(shake256(), hashes::shake256::hash_many_x4_avx2, reference, rng, false);
  check_many(shake256(), hashes::shake256::hash_many_x4_avx2, reference, rng, true);
}

TEST(Shake256Lanes, Avx512EightStatesAgree) {
  if (!hashes::cpu_features().avx512f || !hashes::cpu_features().avx512vl) GTEST_SKIP() << "no AVX-512 on this CPU";
  std::mt19937_64 rng(24);
  check_many(shake256(), hashes::shake256::hash_many_x8_avx512, reference, rng, false);
  check_many(shake256(), hashes::shake256::hash_many_x8_avx512, reference, rng, true);
}

}  // namespace
}  // namespace klms::test::keccak
