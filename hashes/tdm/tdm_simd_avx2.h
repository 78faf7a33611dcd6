// Lane operations on 8 x 32-bit AVX2 registers for tdm_simd_driver.h and the lane ciphers.
// Only included from *_avx2.cpp files (compiled with -mavx2).
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

namespace klms::hashes::tdm::simd {

struct Avx2Ops {
  using Vec = __m256i;
  static constexpr std::size_t kLanes = 8;

  static Vec set1(std::uint32_t v) noexcept { return _mm256_set1_epi32(static_cast<int>(v)); }
  static Vec add(Vec a, Vec b) noexcept { return _mm256_add_epi32(a, b); }
  static Vec bxor(Vec a, Vec b) noexcept { return _mm256_xor_si256(a, b); }

  template <int N>
  static Vec rotl(Vec x) noexcept {
    static_assert(N > 0 && N < 32);
    if constexpr (N == 8) {
      // Byte rotation: one shuffle instead of two shifts and an or.
      const Vec order = _mm256_setr_epi8(3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14,
                                         3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14);
      return _mm256_shuffle_epi8(x, order);
    } else {
      return _mm256_or_si256(_mm256_slli_epi32(x, N), _mm256_srli_epi32(x, 32 - N));
    }
  }

  // 4x4 transpose of 32-bit words inside each 128-bit half.
  static void transpose(Vec& a, Vec& b, Vec& c, Vec& d) noexcept {
    const Vec t0 = _mm256_unpacklo_epi32(a, b), t1 = _mm256_unpackhi_epi32(a, b);
    const Vec t2 = _mm256_unpacklo_epi32(c, d), t3 = _mm256_unpackhi_epi32(c, d);
    a = _mm256_unpacklo_epi64(t0, t2);
    b = _mm256_unpackhi_epi64(t0, t2);
    c = _mm256_unpacklo_epi64(t1, t3);
    d = _mm256_unpackhi_epi64(t1, t3);
  }

  static Vec load_pair(const std::uint8_t* low, const std::uint8_t* high) noexcept {
    const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(low));
    const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(high));
    return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
  }

  // m[j] = little-endian word j of the 16-byte block at block[lane].
  static void load_block_words(const std::uint8_t* const* block, Vec m[4]) noexcept {
    for (int k = 0; k < 4; ++k) m[k] = load_pair(block[k], block[k + 4]);
    transpose(m[0], m[1], m[2], m[3]);
  }

  // Words w[0..3] of each lane as 16 little-endian bytes at out[lane] + offset.
  static void store_block_words(const Vec w[4], std::uint8_t* const* out, std::size_t offset) noexcept {
    Vec r[4] = {w[0], w[1], w[2], w[3]};
    transpose(r[0], r[1], r[2], r[3]);
    for (int k = 0; k < 4; ++k) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out[k] + offset), _mm256_castsi256_si128(r[k]));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out[k + 4] + offset), _mm256_extracti128_si256(r[k], 1));
    }
  }
};

}  // namespace klms::hashes::tdm::simd
