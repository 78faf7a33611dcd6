// LSH-256 with AVX-512F/VL: the AVX2 one-message code with single-instruction rotations (vprold),
// hash_many on 16 lanes of 512-bit registers (8-lane 256-bit batches for the rest). Called only
// when cpu_features() has AVX-512F and AVX-512VL.
//
// GCC 12's AVX-512 intrinsics read _mm512_undefined_*() and trip -Wuninitialized once inlined
// (GCC bug 105593); silence it for the intrinsic headers only, not for this code.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#include "hashes/lsh/lsh256_simd_lanes.h"
#include "hashes/lsh/lsh256_simd_one.h"
#include "hashes/lsh/lsh_internal.h"

namespace klms::hashes {
namespace {

// Leftovers (measured: a 16-lane batch costs ~5 one-shots, an 8-lane batch ~3.4): 10 or more take
// a padded 16-lane batch; otherwise an 8-lane batch, then a padded one for 4 or more.
constexpr std::size_t kPadWideFrom = 10;
constexpr std::size_t kPadNarrowFrom = 4;

void hash_many(const std::uint8_t* prefix, const std::uint8_t* const* rests, std::size_t rest_len,
               std::uint8_t* const* outs, std::size_t count) noexcept {
  using lsh256_simd::Avx512x16Lanes;
  using lsh256_simd::Avx8Lanes;
  lsh256_simd::hash_many_lanes<Avx512x16Lanes, Avx8Lanes, kPadWideFrom, kPadNarrowFrom>(
      prefix, rests, rest_len, outs, count,
      [](const std::uint8_t* p, const std::uint8_t* rest, std::size_t n, std::uint8_t* out) noexcept {
        lsh256_simd::digest_prefixed(p, rest, n, out);
      });
}

}  // namespace

namespace lsh_detail {
constexpr Lsh256Implementation kLsh256Avx512 = lsh256_simd::implementation(LshIsa::kAvx512, "avx512", 16, &hash_many);
}  // namespace lsh_detail

const Lsh256Implementation& lsh256_avx512() noexcept { return lsh_detail::kLsh256Avx512; }

void lsh256_256_digest_avx512(const std::uint8_t* in, std::size_t len, std::uint8_t* out) noexcept {
  lsh256_simd::digest_256(in, len, out);
}

}  // namespace klms::hashes
