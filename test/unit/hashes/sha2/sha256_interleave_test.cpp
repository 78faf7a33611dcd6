// Every SHA-NI interleave width the benchmark measures against hash_one and OpenSSL: many counts and
// lengths, separately allocated inputs (so ASan sees any over-read), and in-place outputs. The
// backends' own hash_many: test/unit/hashes/backend_conformance_test.cpp.
#include "hashes/sha2/sha256_shani.h"
#include "test/unit/hashes/sha2/sha256_test_helpers.h"

namespace klms::test::sha {
namespace {

template <std::size_t Width>
void interleaved(const hashes::PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                 std::uint8_t* const* outs, std::size_t count) {
  hashes::sha256::shani::hash_many_interleaved(Width, prefix, rests, rest_len, outs, count);
}

TEST(Sha256Interleave, EveryWidthAgrees) {
  if (!hashes::sha256_hw_supported()) GTEST_SKIP() << "no SHA-NI on this CPU";
  std::mt19937_64 rng(22);
  const Backend& hw = sha256_backend(Sha256Kind::kHw);
  for (ManyFunction f : {&interleaved<1>, &interleaved<2>, &interleaved<3>, &interleaved<4>, &interleaved<8>}) {
    check_many(hw, f, openssl_sha256, rng, false);
    check_many(hw, f, openssl_sha256, rng, true);
  }
}

}  // namespace
}  // namespace klms::test::sha
