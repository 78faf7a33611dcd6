// Lane operations for AVX-512F/VL: 16 x 32-bit lanes in a zmm register, and 8 lanes in a ymm
// register with the AVX-512VL rotate. Rotations are one instruction (vprold) instead of three.
// Only included from *_avx512.cpp files.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "hashes/tdm/tdm_simd_avx2.h"

namespace klms::hashes::tdm::simd {

struct Avx512Ops {
  using Vec = __m512i;
  static constexpr std::size_t kLanes = 16;

  static Vec set1(std::uint32_t v) noexcept { return _mm512_set1_epi32(static_cast<int>(v)); }
  static Vec add(Vec a, Vec b) noexcept { return _mm512_add_epi32(a, b); }
  static Vec bxor(Vec a, Vec b) noexcept { return _mm512_xor_si512(a, b); }
  template <int N>
  static Vec rotl(Vec x) noexcept {
    return _mm512_rol_epi32(x, N);
  }

  static void transpose(Vec& a, Vec& b, Vec& c, Vec& d) noexcept {
    const Vec t0 = _mm512_unpacklo_epi32(a, b), t1 = _mm512_unpackhi_epi32(a, b);
    const Vec t2 = _mm512_unpacklo_epi32(c, d), t3 = _mm512_unpackhi_epi32(c, d);
    a = _mm512_unpacklo_epi64(t0, t2);
    b = _mm512_unpackhi_epi64(t0, t2);
    c = _mm512_unpacklo_epi64(t1, t3);
    d = _mm512_unpackhi_epi64(t1, t3);
  }

  static __m128i load128(const std::uint8_t* p) noexcept { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }

  // Register k holds the blocks of lanes k, k+4, k+8, k+12 in its four 128-bit quarters.
  static void load_block_words(const std::uint8_t* const* block, Vec m[4]) noexcept {
    for (int k = 0; k < 4; ++k) {
      Vec v = _mm512_zextsi128_si512(load128(block[k]));
      v = _mm512_inserti32x4(v, load128(block[k + 4]), 1);
      v = _mm512_inserti32x4(v, load128(block[k + 8]), 2);
      m[k] = _mm512_inserti32x4(v, load128(block[k + 12]), 3);
    }
    transpose(m[0], m[1], m[2], m[3]);
  }

  static void store_block_words(const Vec w[4], std::uint8_t* const* out, std::size_t offset) noexcept {
    Vec r[4] = {w[0], w[1], w[2], w[3]};
    transpose(r[0], r[1], r[2], r[3]);
    for (int k = 0; k < 4; ++k) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out[k] + offset), _mm512_extracti32x4_epi32(r[k], 0));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out[k + 4] + offset), _mm512_extracti32x4_epi32(r[k], 1));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out[k + 8] + offset), _mm512_extracti32x4_epi32(r[k], 2));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out[k + 12] + offset), _mm512_extracti32x4_epi32(r[k], 3));
    }
  }
};

// Eight lanes in ymm registers with the one-instruction rotate, for groups too small for zmm.
struct Avx512VlOps : Avx2Ops {
  template <int N>
  static Vec rotl(Vec x) noexcept {
    return _mm256_rol_epi32(x, N);
  }
};

}  // namespace klms::hashes::tdm::simd
