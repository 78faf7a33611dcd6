// The AVX2 operations of the SHA-256 lane kernel (sha256_lanes.h), for sha256_avx2.cpp (hash_many)
// and the XMSS chain kernel (sha256_xmss_lanes.h, sha256_xmss_chains_avx2.cpp). Include only from
// files built with -mavx2; in an anonymous namespace, as sha256_avx512_ops.h and for the same reason.
// AVX2 has no rotation and no three-input logic: a rotation is two shifts and an OR, Σ0 and Σ1 are 11
// instructions each and a round about 35 for 8 messages, twice AVX-512's per message.
#pragma once

#include <immintrin.h>

#include "hashes/sha2/sha256_lanes.h"

namespace klms::hashes::sha256::lanes {
namespace {  // one internal copy per including file, on purpose (see above)

struct Avx2 {
  using V = __m256i;
  static constexpr std::size_t kLanes = kAvx2Lanes;
  // A padded group of 8 costs what 9 to 14 SHA-NI messages do on this Xeon: the tail, at most 7,
  // always goes to SHA-NI.
  static constexpr std::size_t kPadFromShaNiFastPath = kLanes;
  static constexpr std::size_t kPadFromOneBlock = kLanes;
  static constexpr std::size_t kPadFromMultiBlock = kLanes;

  static V add(V a, V b) noexcept { return _mm256_add_epi32(a, b); }
  static V bit_or(V a, V b) noexcept { return _mm256_or_si256(a, b); }
  static V bit_xor(V a, V b) noexcept { return _mm256_xor_si256(a, b); }
  static V bit_and(V a, V b) noexcept { return _mm256_and_si256(a, b); }
  static V set1(std::uint32_t x) noexcept { return _mm256_set1_epi32(static_cast<int>(x)); }
  template <int N>
  static V shl(V x) noexcept { return _mm256_slli_epi32(x, N); }
  template <int N>
  static V shr(V x) noexcept { return _mm256_srli_epi32(x, N); }
  template <int N>
  static V rotr(V x) noexcept { return bit_or(shr<N>(x), shl<32 - N>(x)); }
  static V xor3(V a, V b, V c) noexcept { return bit_xor(bit_xor(a, b), c); }
  static V big_sigma0(V x) noexcept { return xor3(rotr<2>(x), rotr<13>(x), rotr<22>(x)); }
  static V big_sigma1(V x) noexcept { return xor3(rotr<6>(x), rotr<11>(x), rotr<25>(x)); }
  static V small_sigma0(V x) noexcept { return xor3(rotr<7>(x), rotr<18>(x), shr<3>(x)); }
  static V small_sigma1(V x) noexcept { return xor3(rotr<17>(x), rotr<19>(x), shr<10>(x)); }
  static V choose(V e, V f, V g) noexcept { return bit_xor(g, bit_and(e, bit_xor(f, g))); }
  // (a ^ b) of one round is (b ^ c) of the next: the compiler shares it once the rounds are unrolled.
  static V majority(V a, V b, V c) noexcept { return bit_xor(bit_and(bit_xor(a, b), bit_xor(b, c)), b); }

  static V byte_swap(V x) noexcept {
    const V within_words = _mm256_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9,
                                           10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
    return _mm256_shuffle_epi8(x, within_words);
  }

  static __m128i load16(const std::uint8_t* p) noexcept { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }

  // w[i] = big-endian word i of p[l] + offset, lane l: lanes q and q + 4 in one ymm, then a 4x4
  // transpose inside each 128-bit half.
  static void load_words(const std::uint8_t* const* p, std::size_t offset, V* w) noexcept {
    V a[4];
    for (std::size_t q = 0; q < 4; ++q) {
      a[q] = _mm256_inserti128_si256(_mm256_castsi128_si256(load16(p[q] + offset)), load16(p[q + 4] + offset), 1);
    }
    const V t0 = _mm256_unpacklo_epi32(a[0], a[1]), t1 = _mm256_unpackhi_epi32(a[0], a[1]);
    const V t2 = _mm256_unpacklo_epi32(a[2], a[3]), t3 = _mm256_unpackhi_epi32(a[2], a[3]);
    w[0] = byte_swap(_mm256_unpacklo_epi64(t0, t2));
    w[1] = byte_swap(_mm256_unpackhi_epi64(t0, t2));
    w[2] = byte_swap(_mm256_unpacklo_epi64(t1, t3));
    w[3] = byte_swap(_mm256_unpackhi_epi64(t1, t3));
  }

  // The inverse: half c of r[i] holds a..d of lane 4c + i and r[4 + i] its e..h.
  static void store_digests(const V (&h)[8], std::uint8_t* const* outs) noexcept {
    V r[8];
    for (std::size_t half = 0; half < 8; half += 4) {
      const V s0 = byte_swap(h[half]), s1 = byte_swap(h[half + 1]);
      const V s2 = byte_swap(h[half + 2]), s3 = byte_swap(h[half + 3]);
      const V t0 = _mm256_unpacklo_epi32(s0, s1), t1 = _mm256_unpackhi_epi32(s0, s1);
      const V t2 = _mm256_unpacklo_epi32(s2, s3), t3 = _mm256_unpackhi_epi32(s2, s3);
      r[half] = _mm256_unpacklo_epi64(t0, t2);
      r[half + 1] = _mm256_unpackhi_epi64(t0, t2);
      r[half + 2] = _mm256_unpacklo_epi64(t1, t3);
      r[half + 3] = _mm256_unpackhi_epi64(t1, t3);
    }
    for (std::size_t i = 0; i < 4; ++i) {
      store32(outs[i], _mm256_permute2x128_si256(r[i], r[4 + i], 0x20));
      store32(outs[4 + i], _mm256_permute2x128_si256(r[i], r[4 + i], 0x31));
    }
  }

  static void store32(std::uint8_t* p, V x) noexcept { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), x); }

  // For the XMSS chains (sha256_xmss_lanes.h): per-lane values, and which lanes are still running
  // (a mask of whole lanes; the values compared are below 2^31, so the signed compare is right).
  using Mask = V;
  static V load_lanes(const std::uint32_t* p) noexcept { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static Mask below(V a, V b) noexcept { return _mm256_cmpgt_epi32(b, a); }
  static V select(Mask m, V a, V b) noexcept { return _mm256_blendv_epi8(b, a, m); }
};

}  // namespace
}  // namespace klms::hashes::sha256::lanes
