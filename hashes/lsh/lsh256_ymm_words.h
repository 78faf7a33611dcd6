// The 32-bit word operations on a 256-bit register that both AVX2 layouts of LSH-256 use: the 8
// word-sliced lanes (lsh256_simd_lanes.h) and the two messages per register (lsh256_simd_msg_lanes.h).
// Included only by translation units compiled for AVX2 or AVX-512.
#pragma once

#include <immintrin.h>

namespace klms::hashes::lsh256_simd {
namespace {

struct YmmWords {
  using V = __m256i;
  static V add(V a, V b) noexcept { return _mm256_add_epi32(a, b); }
  static V xor_(V a, V b) noexcept { return _mm256_xor_si256(a, b); }
  template <int R>
  static V rotl(V x) noexcept {
#if defined(__AVX512VL__)
    return _mm256_rol_epi32(x, R);
#else
    if constexpr (R == 1) return _mm256_or_si256(_mm256_add_epi32(x, x), _mm256_srli_epi32(x, 31));
    return _mm256_or_si256(_mm256_slli_epi32(x, R), _mm256_srli_epi32(x, 32 - R));
#endif
  }
};

}  // namespace
}  // namespace klms::hashes::lsh256_simd
