// The AVX-512 operations of the SHA-256 lane kernel (sha256_lanes.h), for the two files that
// instantiate it: sha256_avx512.cpp (hash_many) and sha256_chains_avx512.cpp (chain_steps, compiled
// with other scheduling flags, hashes/CMakeLists.txt), and for the XMSS chain kernel
// (sha256_xmss_lanes.h) sha256_xmss_chains_avx512.cpp. Include only from files built with
// -mavx512f -mavx512vl -mavx2. In an anonymous namespace, like the kernel's instantiations: each file
// has its own internal copy, and none can be picked by the linker for a caller on another CPU.
// AVX-512F has what the round wants: vprord for the rotations and vpternlogd for Ch, Maj and the
// three-way XORs of Σ and σ, so a round is 6 rotations, 4 logic and 7 additions for 16 messages.
// Built with -mavx512f -mavx512vl -mavx2 only: no byte shuffle on zmm (that is AVX512BW), so the
// byte order is swapped with two rotations and a bit select.
#pragma once

#include <immintrin.h>

#include "hashes/sha2/sha256_lanes.h"

namespace klms::hashes::sha256::lanes {
namespace {  // one internal copy per including file, on purpose (see above)

struct Avx512 {
  using V = __m512i;
  static constexpr std::size_t kLanes = kAvx512Lanes;
  // From this many messages left over a padded group beats SHA-NI on them. A group costs what 9.2
  // SHA-NI messages of 55 or 47 bytes cost on this Xeon, 6.6 of other one-block lengths (54 B: SHA-NI
  // copies those), 8.8-9.0 multi-block ones (86 B, 2166 B); sha256_lanes_bench.cpp, count:1..15.
  static constexpr std::size_t kPadFromShaNiFastPath = 10;
  static constexpr std::size_t kPadFromOneBlock = 7;
  static constexpr std::size_t kPadFromMultiBlock = 9;

  static V add(V a, V b) noexcept { return _mm512_add_epi32(a, b); }
  static V bit_or(V a, V b) noexcept { return _mm512_or_si512(a, b); }
  static V bit_and(V a, V b) noexcept { return _mm512_and_si512(a, b); }
  static V bit_xor(V a, V b) noexcept { return _mm512_xor_si512(a, b); }
  static V zero() noexcept { return _mm512_setzero_si512(); }
  static V set1(std::uint32_t x) noexcept { return _mm512_set1_epi32(static_cast<int>(x)); }
  // The masked forms with every lane selected are the plain instructions; GCC 12 warns (falsely)
  // about the unmasked intrinsics' undefined pass-through.
  static constexpr __mmask16 kAll = 0xFFFF;
  template <int N>
  static V shl(V x) noexcept { return _mm512_mask_slli_epi32(x, kAll, x, N); }
  template <int N>
  static V shr(V x) noexcept { return _mm512_mask_srli_epi32(x, kAll, x, N); }
  template <int N>
  static V rotr(V x) noexcept { return _mm512_mask_ror_epi32(x, kAll, x, N); }
  static V unpacklo32(V a, V b) noexcept { return _mm512_mask_unpacklo_epi32(a, kAll, a, b); }
  static V unpackhi32(V a, V b) noexcept { return _mm512_mask_unpackhi_epi32(a, kAll, a, b); }
  static V unpacklo64(V a, V b) noexcept { return _mm512_mask_unpacklo_epi64(a, 0xFF, a, b); }
  static V unpackhi64(V a, V b) noexcept { return _mm512_mask_unpackhi_epi64(a, 0xFF, a, b); }
  template <int Half>
  static __m256i half(V x) noexcept { return _mm512_maskz_extracti64x4_epi64(0xFF, x, Half); }
  static V xor3(V a, V b, V c) noexcept { return _mm512_ternarylogic_epi32(a, b, c, 0x96); }
  static V big_sigma0(V x) noexcept { return xor3(rotr<2>(x), rotr<13>(x), rotr<22>(x)); }
  static V big_sigma1(V x) noexcept { return xor3(rotr<6>(x), rotr<11>(x), rotr<25>(x)); }
  static V small_sigma0(V x) noexcept { return xor3(rotr<7>(x), rotr<18>(x), shr<3>(x)); }
  static V small_sigma1(V x) noexcept { return xor3(rotr<17>(x), rotr<19>(x), shr<10>(x)); }
  static V choose(V e, V f, V g) noexcept { return _mm512_ternarylogic_epi32(e, f, g, 0xCA); }    // e ? f : g
  static V majority(V a, V b, V c) noexcept { return _mm512_ternarylogic_epi32(a, b, c, 0xE8); }  // 2 of 3

  // Bytes 0 and 2 of each word from the word rotated right by 8, bytes 1 and 3 from it rotated left.
  static V byte_swap(V x) noexcept {
    return _mm512_ternarylogic_epi32(set1(0xFF00FF00), rotr<8>(x), rotr<24>(x), 0xCA);
  }

  static __m128i load16(const std::uint8_t* p) noexcept { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); }

  // w[i] = big-endian word i of p[l] + offset, lane l. Each zmm first collects four lanes' 16 bytes
  // (lanes q, q + 4, q + 8, q + 12), then a 4x4 transpose inside each 128-bit chunk.
  static void load_words(const std::uint8_t* const* p, std::size_t offset, V* w) noexcept {
    V a[4];
    for (std::size_t q = 0; q < 4; ++q) {
      V x = _mm512_castsi128_si512(load16(p[q] + offset));
      x = _mm512_inserti32x4(x, load16(p[q + 4] + offset), 1);
      x = _mm512_inserti32x4(x, load16(p[q + 8] + offset), 2);
      a[q] = _mm512_inserti32x4(x, load16(p[q + 12] + offset), 3);
    }
    const V t0 = unpacklo32(a[0], a[1]), t1 = unpackhi32(a[0], a[1]);
    const V t2 = unpacklo32(a[2], a[3]), t3 = unpackhi32(a[2], a[3]);
    w[0] = byte_swap(unpacklo64(t0, t2));
    w[1] = byte_swap(unpackhi64(t0, t2));
    w[2] = byte_swap(unpacklo64(t1, t3));
    w[3] = byte_swap(unpackhi64(t1, t3));
  }

  // The inverse: after the 4x4 transposes chunk c of r[i] holds a..d of lane 4c + i and r[4 + i]
  // its e..h; vpermt2q pairs them into two lanes' 32-byte digests per 256-bit half.
  static void store_digests(const V (&h)[8], std::uint8_t* const* outs) noexcept {
    V r[8];
    for (std::size_t half = 0; half < 8; half += 4) {
      const V s0 = byte_swap(h[half]), s1 = byte_swap(h[half + 1]);
      const V s2 = byte_swap(h[half + 2]), s3 = byte_swap(h[half + 3]);
      const V t0 = unpacklo32(s0, s1), t1 = unpackhi32(s0, s1);
      const V t2 = unpacklo32(s2, s3), t3 = unpackhi32(s2, s3);
      r[half] = unpacklo64(t0, t2);
      r[half + 1] = unpackhi64(t0, t2);
      r[half + 2] = unpacklo64(t1, t3);
      r[half + 3] = unpackhi64(t1, t3);
    }
    const V chunks01 = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0);
    const V chunks23 = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
    for (std::size_t i = 0; i < 4; ++i) {
      const V lo = _mm512_permutex2var_epi64(r[i], chunks01, r[4 + i]);
      const V hi = _mm512_permutex2var_epi64(r[i], chunks23, r[4 + i]);
      store32(outs[i], half<0>(lo));
      store32(outs[4 + i], half<1>(lo));
      store32(outs[8 + i], half<0>(hi));
      store32(outs[12 + i], half<1>(hi));
    }
  }

  // For the XMSS chains (sha256_xmss_lanes.h): per-lane values, and which lanes are still running.
  using Mask = __mmask16;
  static V load_lanes(const std::uint32_t* p) noexcept { return _mm512_loadu_si512(p); }
  static Mask below(V a, V b) noexcept { return _mm512_cmplt_epu32_mask(a, b); }
  static V select(Mask m, V a, V b) noexcept { return _mm512_mask_mov_epi32(b, m, a); }

  static void store32(std::uint8_t* p, __m256i x) noexcept { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), x); }
};

}  // namespace
}  // namespace klms::hashes::sha256::lanes
