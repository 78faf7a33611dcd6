// 16 SHA-256 messages in the 32-bit lanes of zmm registers (the kernel is in sha256_lanes.h).
// AVX-512F has what the round wants: vprord for the rotations and vpternlogd for Ch, Maj and the
// three-way XORs of Σ and σ, so a round is 6 rotations, 4 logic and 7 additions for 16 messages.
// Built with -mavx512f -mavx512vl -mavx2 only: no byte shuffle on zmm (that is AVX512BW), so the
// byte order is swapped with two rotations and a bit select.
#include <immintrin.h>

#include "hashes/sha2/sha256_lanes.h"

namespace klms::hashes::sha256::lanes {
namespace {

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

  static void store32(std::uint8_t* p, __m256i x) noexcept { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), x); }
};

using Avx512Kernel = detail::Kernel<Avx512>;

// A 17th chain on SHA-NI beside the 16 lanes (n = 32): its 15 four-round groups are spread over the
// lane rounds (one after every fourth), so the out-of-order core can run sha256rnds2 next to the
// vector work. Message words in SHA-NI order (W[t] in element t % 4).
struct ShaNiChain {
  const Prefix* p;
  std::uint8_t* buf;
  __m128i head;      // {q, i << 16, 0, 0}
  __m128i d_lo, d_hi;  // the digest words D0..D3, D4..D7 (the chain's tmp)
  __m128i abef, cdgh;
  __m128i w[4];

  static __m128i swap_words(__m128i x) noexcept {
    return _mm_shuffle_epi8(x, _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL));
  }

  ShaNiChain(const Prefix& prefix, std::uint8_t* b) noexcept : p(&prefix), buf(b) {
    const __m128i first = swap_words(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b)));  // q, i||j||tmp0, ..
    head = _mm_and_si128(first, _mm_set_epi32(0, 0, static_cast<int>(0xFFFF0000u), -1));
    d_lo = swap_words(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 7)));
    d_hi = swap_words(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 23)));
  }

  void begin_step(unsigned t) noexcept {
    const __m128i x = _mm_slli_epi32(d_lo, 8), pp = _mm_srli_epi32(d_lo, 24);
    const __m128i y = _mm_slli_epi32(d_hi, 8), q = _mm_srli_epi32(d_hi, 24);
    const __m128i j = _mm_set_epi32(0, 0, static_cast<int>((t & 0xFFu) << 8), 0);
    w[0] = _mm_load_si128(reinterpret_cast<const __m128i*>(p->first_words));
    w[1] = _mm_or_si128(_mm_or_si128(head, j), _mm_or_si128(_mm_slli_si128(pp, 4), _mm_slli_si128(x, 8)));
    w[2] = _mm_or_si128(_mm_alignr_epi8(y, x, 8), _mm_alignr_epi8(q, pp, 12));
    w[3] = _mm_or_si128(_mm_or_si128(_mm_srli_si128(y, 8), _mm_srli_si128(q, 12)),
                        _mm_set_epi32(static_cast<int>((kIdentifierBytes + 39) * 8), 0, 0x80, 0));
    abef = _mm_load_si128(reinterpret_cast<const __m128i*>(p->abef));
    cdgh = _mm_load_si128(reinterpret_cast<const __m128i*>(p->cdgh));
  }

  template <std::size_t G>
  [[gnu::always_inline]] void group() noexcept {
    const __m128i k = _mm_load_si128(reinterpret_cast<const __m128i*>(kRoundConstants + 4 * G));
    if constexpr (G >= 4) {
      __m128i x = _mm_sha256msg1_epu32(w[G % 4], w[(G + 1) % 4]);
      x = _mm_add_epi32(x, _mm_alignr_epi8(w[(G + 3) % 4], w[(G + 2) % 4], 4));
      w[G % 4] = _mm_sha256msg2_epu32(x, w[(G + 3) % 4]);
    }
    __m128i wk = _mm_add_epi32(w[G % 4], k);
    cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
    wk = _mm_shuffle_epi32(wk, 0x0E);
    abef = _mm_sha256rnds2_epu32(abef, cdgh, wk);
  }

  template <std::size_t T>
  [[gnu::always_inline]] void after_round() noexcept {
    if constexpr ((T - 5) % 4 == 3) group<(T - 5) / 4 + 1>();  // T = 8, 12, .., 60: groups 1..14
  }

  void end_step() noexcept {
    group<15>();
    abef = _mm_add_epi32(abef, _mm_set_epi32(static_cast<int>(kInitialState[0]), static_cast<int>(kInitialState[1]),
                                             static_cast<int>(kInitialState[4]), static_cast<int>(kInitialState[5])));
    cdgh = _mm_add_epi32(cdgh, _mm_set_epi32(static_cast<int>(kInitialState[2]), static_cast<int>(kInitialState[3]),
                                             static_cast<int>(kInitialState[6]), static_cast<int>(kInitialState[7])));
    d_lo = _mm_shuffle_epi32(_mm_unpackhi_epi64(cdgh, abef), 0x1B);  // a, b, c, d
    d_hi = _mm_shuffle_epi32(_mm_unpacklo_epi64(cdgh, abef), 0x1B);  // e, f, g, h
  }

  void finish(unsigned to) noexcept {
    buf[6] = static_cast<std::uint8_t>(to - 1);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(buf + 7), swap_words(d_lo));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(buf + 23), swap_words(d_hi));
  }
};

}  // namespace

void chain_steps_avx512_shani(const PrefixState& prefix, std::uint8_t* chains, std::size_t stride, std::size_t count,
                              std::size_t rest_len, unsigned from, unsigned to) noexcept {
  if (from >= to || count == 0) return;
  std::size_t k = 0;
  if (rest_len == 39) {
    const Prefix& p = *std::launder(reinterpret_cast<const Prefix*>(prefix.bytes));
    for (; count - k >= kAvx512Lanes + 1; k += kAvx512Lanes + 1) {
      std::uint8_t* bufs[kAvx512Lanes];
      for (std::size_t l = 0; l < kAvx512Lanes; ++l) bufs[l] = chains + (k + l) * stride;
      Avx512Kernel::chain_group<8>(p, bufs, from, to, ShaNiChain(p, chains + (k + kAvx512Lanes) * stride));
    }
  }
  Avx512Kernel::chain_steps(prefix, chains + k * stride, stride, count - k, rest_len, from, to);
}

void hash_many_avx512_with(Tail tail, const PrefixState& prefix, const std::uint8_t* const* rests,
                           std::size_t rest_len, std::uint8_t* const* outs, std::size_t count) noexcept {
  Avx512Kernel::hash_many(tail, prefix, rests, rest_len, outs, count);
}

void chain_steps_avx512(const PrefixState& prefix, std::uint8_t* chains, std::size_t stride, std::size_t count,
                        std::size_t rest_len, unsigned from, unsigned to) noexcept {
  Avx512Kernel::chain_steps(prefix, chains, stride, count, rest_len, from, to);
}

void hash_many_avx512(const PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                      std::uint8_t* const* outs, std::size_t count) noexcept {
  Avx512Kernel::hash_many(Tail::kAuto, prefix, rests, rest_len, outs, count);
}

}  // namespace klms::hashes::sha256::lanes
