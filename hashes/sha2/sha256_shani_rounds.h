// The SHA-NI rounds shared by sha256_shani.cpp (the LMS hashes) and sha256_xmss_chains_shani.cpp (the
// XMSS chains): N messages interleaved. Include only from files built with -msha -msse4.1; in an
// anonymous namespace (one internal copy per file, none the linker could give another caller).
//
// sha256rnds2 does two rounds but each depends on the previous one, so one message leaves the unit
// idle most of the time. Compressing N independent messages group by group (four rounds of message
// 0, then of message 1, ...) keeps it busy.
//
// Register layout (Intel SDM, SHA256RNDS2): the state lives in two vectors, {F, E, B, A} and
// {H, G, D, C} (element 0 first); message words are big-endian in memory, W[t] in element t % 4.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#include "hashes/sha2/sha256_common.h"

namespace klms::hashes::sha256::shani {
namespace {  // one internal copy per including file, on purpose (see above)

#define KLMS_SHANI_INLINE [[gnu::always_inline]] inline

struct Lane {
  __m128i abef;
  __m128i cdgh;
};
using Words = __m128i[4];  // the 16 schedule words in use: W[t..t+15] in 4 vectors

alignas(16) constexpr std::uint32_t kInitialAbef[4] = {kInitialState[5], kInitialState[4], kInitialState[1],
                                                       kInitialState[0]};
alignas(16) constexpr std::uint32_t kInitialCdgh[4] = {kInitialState[7], kInitialState[6], kInitialState[3],
                                                       kInitialState[2]};

KLMS_SHANI_INLINE __m128i load(const void* p) noexcept {
  return _mm_load_si128(static_cast<const __m128i*>(p));
}
KLMS_SHANI_INLINE __m128i load_unaligned(const void* p) noexcept {
  return _mm_loadu_si128(static_cast<const __m128i*>(p));
}
// Four big-endian words from memory, W[t] in element 0.
KLMS_SHANI_INLINE __m128i load_words(const std::uint8_t* p) noexcept {
  const __m128i swap_within_words = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
  return _mm_shuffle_epi8(load_unaligned(p), swap_within_words);
}

// sha256msg1 measured slow here (about 5 cycles, not pipelined, and it slows sha256rnds2 when they
// overlap). With several messages interleaved, sha256rnds2's throughput is the limit, and computing
// σ0 with SSE2 shifts on other ports is 10 % faster; one message alone is bound by the latency of
// the round and schedule chains instead, and there the single sha256msg1 is 7 % faster. (Measured
// on the Intel Xeon of sha256_hw.cpp. On Zen 4 the XMSS chains of sha256_xmss_chains_shani.cpp
// measured the other way: sha256msg1 ~20 % faster interleaved; its callers may choose.)
template <std::size_t Lanes>
inline constexpr bool kSigma0InSoftware = Lanes > 1;

KLMS_SHANI_INLINE __m128i rotr_words(__m128i x, int n) noexcept {
  return _mm_or_si128(_mm_srli_epi32(x, n), _mm_slli_epi32(x, 32 - n));
}

// W[t-16] + σ0(W[t-15]) for four t: what sha256msg1 computes.
template <bool InSoftware>
KLMS_SHANI_INLINE __m128i plus_sigma0(__m128i w0, __m128i w1) noexcept {
  if constexpr (InSoftware) {
    const __m128i x = _mm_alignr_epi8(w1, w0, 4);  // W[t-15..t-12]
    const __m128i sigma0 = _mm_xor_si128(_mm_xor_si128(rotr_words(x, 7), rotr_words(x, 18)), _mm_srli_epi32(x, 3));
    return _mm_add_epi32(w0, sigma0);
  } else {
    return _mm_sha256msg1_epu32(w0, w1);
  }
}

// W[t..t+3] from W[t-16..t-1] (FIPS 180-4 §6.2.2 step 1).
template <bool Sigma0InSoftware>
KLMS_SHANI_INLINE __m128i next_words(__m128i w0, __m128i w1, __m128i w2, __m128i w3) noexcept {
  const __m128i sigma0_part = plus_sigma0<Sigma0InSoftware>(w0, w1);              // W[t-16] + σ0(W[t-15])
  const __m128i with_w7 = _mm_add_epi32(sigma0_part, _mm_alignr_epi8(w3, w2, 4));  // + W[t-7]
  return _mm_sha256msg2_epu32(with_w7, w3);                                       // + σ1(W[t-2])
}

// Rounds 4G .. 4G+3 of every lane; from group 4 on, each lane first extends its schedule.
template <std::size_t N, std::size_t G, bool Sigma0InSoftware = kSigma0InSoftware<N>>
KLMS_SHANI_INLINE void round_group(Lane (&s)[N], Words (&w)[N]) noexcept {
  const __m128i k = load(kRoundConstants + 4 * G);
#pragma GCC unroll 8
  for (std::size_t l = 0; l < N; ++l) {
    if constexpr (G >= 4) {
      w[l][G % 4] = next_words<Sigma0InSoftware>(w[l][G % 4], w[l][(G + 1) % 4], w[l][(G + 2) % 4], w[l][(G + 3) % 4]);
    }
    __m128i wk = _mm_add_epi32(w[l][G % 4], k);
    s[l].cdgh = _mm_sha256rnds2_epu32(s[l].cdgh, s[l].abef, wk);  // now holds the new ABEF
    wk = _mm_shuffle_epi32(wk, 0x0E);                              // the next two words
    s[l].abef = _mm_sha256rnds2_epu32(s[l].abef, s[l].cdgh, wk);
  }
}

template <std::size_t N, std::size_t First, bool Sigma0InSoftware, std::size_t... G>
KLMS_SHANI_INLINE void round_groups(Lane (&s)[N], Words (&w)[N], std::index_sequence<G...>) noexcept {
  (round_group<N, First + G, Sigma0InSoftware>(s, w), ...);
}

// Rounds 4*First .. 63 of N messages, interleaved.
template <std::size_t N, std::size_t First, bool Sigma0InSoftware = kSigma0InSoftware<N>>
KLMS_SHANI_INLINE void rounds(Lane (&s)[N], Words (&w)[N]) noexcept {
  round_groups<N, First, Sigma0InSoftware>(s, w, std::make_index_sequence<16 - First>{});
}

// One block per lane, its words already in w.
template <std::size_t N, bool Sigma0InSoftware = kSigma0InSoftware<N>>
KLMS_SHANI_INLINE void compress_words(Lane (&s)[N], Words (&w)[N]) noexcept {
  Lane saved[N];
  for (std::size_t l = 0; l < N; ++l) saved[l] = s[l];
  rounds<N, 0, Sigma0InSoftware>(s, w);
  for (std::size_t l = 0; l < N; ++l) {
    s[l].abef = _mm_add_epi32(s[l].abef, saved[l].abef);
    s[l].cdgh = _mm_add_epi32(s[l].cdgh, saved[l].cdgh);
  }
}

KLMS_SHANI_INLINE void store_digest(const Lane& s, std::uint8_t* out) noexcept {
  // Reversing all 16 bytes turns {F, E, B, A} into A, B, E, F as big-endian words.
  const __m128i reverse = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m128i abef = _mm_shuffle_epi8(s.abef, reverse);
  const __m128i cdgh = _mm_shuffle_epi8(s.cdgh, reverse);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_unpacklo_epi64(abef, cdgh));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 16), _mm_unpackhi_epi64(abef, cdgh));
}

}  // namespace
}  // namespace klms::hashes::sha256::shani
