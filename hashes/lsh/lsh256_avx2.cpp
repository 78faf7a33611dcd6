// LSH-256 with AVX2: one message on VEX-encoded 128-bit registers (256-bit message expansion),
// hash_many on 8 lanes of 256-bit registers. Called only when cpu_features().avx2.
#include "hashes/lsh/lsh256_simd_lanes.h"
#include "hashes/lsh/lsh256_simd_one.h"
#include "hashes/lsh/lsh_internal.h"

namespace klms::hashes {
namespace {

// Leftovers: with the lane code scheduled for register pressure (hashes/CMakeLists.txt), a padded
// 8-lane batch costs about three one-shots between batches (hash_many of 67 messages: 58 ns per
// message padding from 5, 46 ns from 3, on Zen 4).
constexpr std::size_t kPadFrom = 3;

void hash_many(const std::uint8_t* prefix, const std::uint8_t* const* rests, std::size_t rest_len,
               std::uint8_t* const* outs, std::size_t count) noexcept {
  using lsh256_simd::Avx8Lanes;
  lsh256_simd::hash_many_lanes<Avx8Lanes, Avx8Lanes, kPadFrom, kPadFrom>(
      prefix, rests, rest_len, outs, count,
      [](const std::uint8_t* p, const std::uint8_t* rest, std::size_t n, std::uint8_t* out) noexcept {
        lsh256_simd::digest_prefixed(p, rest, n, out);
      });
}

}  // namespace

namespace lsh_detail {
constexpr Lsh256Implementation kLsh256Avx2 = lsh256_simd::implementation(LshIsa::kAvx2, "avx2", 8, &hash_many);
}  // namespace lsh_detail

const Lsh256Implementation& lsh256_avx2() noexcept { return lsh_detail::kLsh256Avx2; }

void lsh256_256_digest_avx2(const std::uint8_t* in, std::size_t len, std::uint8_t* out) noexcept {
  lsh256_simd::digest_256(in, len, out);
}

}  // namespace klms::hashes
