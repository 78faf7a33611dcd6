// SHA-256 compression with the SHA extensions, one message or several interleaved.
//
// sha256rnds2 does two rounds but each depends on the previous one, so one message leaves the unit
// idle most of the time. Compressing N independent messages group by group (four rounds of message
// 0, then of message 1, ...) keeps it busy: hash_many's speed comes from that interleaving.
//
// Register layout (Intel SDM, SHA256RNDS2): the state lives in two vectors, {F, E, B, A} and
// {H, G, D, C} (element 0 first); message words are big-endian in memory, W[t] in element t % 4.
#include "hashes/sha2/sha256_shani.h"

#include <immintrin.h>

#include <cstring>
#include <utility>

#include "hashes/sha2/sha256_common.h"
#include "hashes/sha2/sha256_prefix.h"

namespace klms::hashes::sha256::shani {
namespace {

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
// the round and schedule chains instead, and there the single sha256msg1 is 7 % faster.
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
template <std::size_t N, std::size_t G>
KLMS_SHANI_INLINE void round_group(Lane (&s)[N], Words (&w)[N]) noexcept {
  const __m128i k = load(kRoundConstants + 4 * G);
#pragma GCC unroll 8
  for (std::size_t l = 0; l < N; ++l) {
    if constexpr (G >= 4) {
      w[l][G % 4] = next_words<kSigma0InSoftware<N>>(w[l][G % 4], w[l][(G + 1) % 4], w[l][(G + 2) % 4], w[l][(G + 3) % 4]);
    }
    __m128i wk = _mm_add_epi32(w[l][G % 4], k);
    s[l].cdgh = _mm_sha256rnds2_epu32(s[l].cdgh, s[l].abef, wk);  // now holds the new ABEF
    wk = _mm_shuffle_epi32(wk, 0x0E);                              // the next two words
    s[l].abef = _mm_sha256rnds2_epu32(s[l].abef, s[l].cdgh, wk);
  }
}

template <std::size_t N, std::size_t First, std::size_t... G>
KLMS_SHANI_INLINE void round_groups(Lane (&s)[N], Words (&w)[N], std::index_sequence<G...>) noexcept {
  (round_group<N, First + G>(s, w), ...);
}

// Rounds 4*First .. 63 of N messages, interleaved.
template <std::size_t N, std::size_t First>
KLMS_SHANI_INLINE void rounds(Lane (&s)[N], Words (&w)[N]) noexcept {
  round_groups<N, First>(s, w, std::make_index_sequence<16 - First>{});
}

// Block 0 of I || rest: starts from the state after rounds 0-3 that init_prefix stored. The
// caller has put message words 4..15 into w[l][1..3].
template <std::size_t N>
KLMS_SHANI_INLINE void compress_first_block(const Prefix& p, Lane (&s)[N], Words (&w)[N]) noexcept {
  const __m128i abef = load(p.abef), cdgh = load(p.cdgh), first_words = load(p.first_words);
  for (std::size_t l = 0; l < N; ++l) {
    s[l] = Lane{abef, cdgh};
    w[l][0] = first_words;
  }
  rounds<N, 1>(s, w);
  const __m128i initial_abef = load(kInitialAbef), initial_cdgh = load(kInitialCdgh);
  for (std::size_t l = 0; l < N; ++l) {
    s[l].abef = _mm_add_epi32(s[l].abef, initial_abef);
    s[l].cdgh = _mm_add_epi32(s[l].cdgh, initial_cdgh);
  }
}

// One block per lane, its words already in w.
template <std::size_t N>
KLMS_SHANI_INLINE void compress_words(Lane (&s)[N], Words (&w)[N]) noexcept {
  Lane saved[N];
  for (std::size_t l = 0; l < N; ++l) saved[l] = s[l];
  rounds<N, 0>(s, w);
  for (std::size_t l = 0; l < N; ++l) {
    s[l].abef = _mm_add_epi32(s[l].abef, saved[l].abef);
    s[l].cdgh = _mm_add_epi32(s[l].cdgh, saved[l].cdgh);
  }
}

template <std::size_t N>
[[gnu::noinline]] void compress_first_block_out_of_line(const Prefix& p, Lane (&s)[N], Words (&w)[N]) noexcept {
  compress_first_block<N>(p, s, w);
}

// One 64-byte block per lane. Not inlined: the any-length path calls it in loops, and a copy of
// 64 interleaved rounds at every call site would only crowd the instruction cache.
template <std::size_t N>
[[gnu::noinline]] void compress_block(Lane (&s)[N], const std::uint8_t* const (&blocks)[N]) noexcept {
  Words w[N];
  for (std::size_t l = 0; l < N; ++l) {
    for (std::size_t i = 0; i < 4; ++i) w[l][i] = load_words(blocks[l] + 16 * i);
  }
  compress_words<N>(s, w);
}

KLMS_SHANI_INLINE void store_digest(const Lane& s, std::uint8_t* out) noexcept {
  // Reversing all 16 bytes turns {F, E, B, A} into A, B, E, F as big-endian words.
  const __m128i reverse = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m128i abef = _mm_shuffle_epi8(s.abef, reverse);
  const __m128i cdgh = _mm_shuffle_epi8(s.cdgh, reverse);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm_unpacklo_epi64(abef, cdgh));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 16), _mm_unpackhi_epi64(abef, cdgh));
}

// --- The one-block LMS inputs, read straight into registers ---------------------------------------
//
// The chain and PRF inputs are I || 7 header bytes || a 32- or 24-byte value (u32 q, u16 i, u8 j, tmp;
// or u32 q, u16 j, 0xFF, SEED): rest_len 39 or 31, one block with its padding. The loads follow
// that layout: the header field by field and the value from rest + 7 in 16-byte (and, for 24
// bytes, 8-byte) pieces. A chain step writes its output to exactly those
// places (rest + 7, rest + 23), so each load is served from the store buffer; a 16-byte load from
// rest + 0 would straddle two recent stores and wait for them to reach the cache. The loads never
// read past rest[rest_len - 1]. pshufb then picks each message word's bytes (doing the big-endian
// swap too), and the 0x80 byte and the bit length are OR-ed in from a constant.

inline constexpr std::size_t kHeaderBytes = 7;
inline constexpr std::size_t kValueOffset = kHeaderBytes;
inline constexpr std::size_t kSecondValuePiece = kValueOffset + 16;  // rest + 23

struct ChainInputPlan {
  // For message vectors 1..3 (words 4-15), which bytes come from the header, from the 16 value
  // bytes at rest + 7, from the rest at rest + 23 (-128 = none: pshufb writes zero), and the padding.
  alignas(16) std::int8_t from_header[3][16];
  alignas(16) std::int8_t from_first[3][16];
  alignas(16) std::int8_t from_second[3][16];
  alignas(16) std::uint8_t padding[3][16];
  bool uses_header[3], uses_first[3], uses_second[3], uses_padding[3];
};

constexpr ChainInputPlan make_chain_input_plan(std::size_t rest_len) {
  ChainInputPlan plan{};
  const std::size_t message_len = kIdentifierBytes + rest_len;
  const std::uint64_t bits = std::uint64_t{message_len} * 8;
  for (std::size_t j = 0; j < 3; ++j) {
    for (std::size_t r = 0; r < 16; ++r) {
      const std::size_t k = 4 * (r / 4) + 3 - r % 4;  // register byte r holds the vector's byte k
      const std::size_t in_rest = 16 * j + k;
      const std::size_t in_block = kIdentifierBytes + in_rest;
      plan.from_header[j][r] = plan.from_first[j][r] = plan.from_second[j][r] = -128;
      if (in_rest < kValueOffset) {
        plan.from_header[j][r] = static_cast<std::int8_t>(in_rest);
        plan.uses_header[j] = true;
      } else if (in_rest < kSecondValuePiece) {
        plan.from_first[j][r] = static_cast<std::int8_t>(in_rest - kValueOffset);
        plan.uses_first[j] = true;
      } else if (in_rest < rest_len) {
        plan.from_second[j][r] = static_cast<std::int8_t>(in_rest - kSecondValuePiece);
        plan.uses_second[j] = true;
      }
      plan.padding[j][r] = in_block == message_len                             ? 0x80
                           : in_block >= kBlockBytes - kLengthFieldBytes ? static_cast<std::uint8_t>(bits >> (8 * (kBlockBytes - 1 - in_block)))
                                                                          : 0;
      plan.uses_padding[j] = plan.uses_padding[j] || plan.padding[j][r] != 0;
    }
  }
  return plan;
}

template <std::size_t RestLen>
inline constexpr ChainInputPlan kChainInputPlan = make_chain_input_plan(RestLen);

template <std::size_t RestLen>
KLMS_SHANI_INLINE void load_chain_input(const std::uint8_t* rest, Words& w) noexcept {
  static_assert(RestLen == kValueOffset + 32 || RestLen == kValueOffset + 24);
  constexpr const ChainInputPlan& plan = kChainInputPlan<RestLen>;
  // The header field by field (q or u32, then u16, then u8), each load matching how a caller most
  // likely stored it: the chain step rewrites j, the last byte, before every hash.
  std::uint32_t field0;
  std::uint16_t field1;
  std::memcpy(&field0, rest, 4);
  std::memcpy(&field1, rest + 4, 2);
  const std::uint64_t head = field0 | std::uint64_t{field1} << 32 | std::uint64_t{rest[6]} << 48;
  const __m128i header = _mm_cvtsi64_si128(static_cast<long long>(head));
  const __m128i first = load_unaligned(rest + kValueOffset);
  const __m128i second = RestLen == kValueOffset + 32 ? load_unaligned(rest + kSecondValuePiece)
                                                      : _mm_loadl_epi64(reinterpret_cast<const __m128i*>(rest + kSecondValuePiece));
  for (std::size_t j = 0; j < 3; ++j) {
    __m128i v = _mm_setzero_si128();
    if (plan.uses_header[j]) v = _mm_or_si128(v, _mm_shuffle_epi8(header, load(plan.from_header[j])));
    if (plan.uses_first[j]) v = _mm_or_si128(v, _mm_shuffle_epi8(first, load(plan.from_first[j])));
    if (plan.uses_second[j]) v = _mm_or_si128(v, _mm_shuffle_epi8(second, load(plan.from_second[j])));
    if (plan.uses_padding[j]) v = _mm_or_si128(v, load(plan.padding[j]));
    w[1 + j] = v;
  }
}

template <std::size_t N, std::size_t RestLen>
KLMS_SHANI_INLINE void hash_one_block(const Prefix& p, const std::uint8_t* const* rests,
                                      std::uint8_t* const* outs) noexcept {
  Lane s[N];
  Words w[N];
  for (std::size_t l = 0; l < N; ++l) load_chain_input<RestLen>(rests[l], w[l]);
  compress_first_block<N>(p, s, w);
  for (std::size_t l = 0; l < N; ++l) store_digest(s[l], outs[l]);
}

// --- Any length -------------------------------------------------------------------------------------

// H(I || rests[l]) for N messages of rest_len bytes. Every input is read before any output is
// written, so outs[l] may alias rests[l].
template <std::size_t N>
void hash_any_length(const Prefix& p, const std::uint8_t* const* rests, std::size_t rest_len,
                     std::uint8_t* const* outs) noexcept {
  constexpr std::size_t kFirstRest = kBlockBytes - kIdentifierBytes;  // rest bytes in block 0
  const std::uint64_t total = kIdentifierBytes + rest_len;
  Lane s[N];
  Words w[N];
  alignas(16) std::uint8_t last[N][2 * kBlockBytes];
  const std::uint8_t* blocks[N];
  if (rest_len >= kFirstRest) {
    for (std::size_t l = 0; l < N; ++l) {
      for (std::size_t j = 0; j < 3; ++j) w[l][1 + j] = load_words(rests[l] + 16 * j);
    }
    compress_first_block_out_of_line<N>(p, s, w);
    std::size_t offset = kFirstRest;
    for (; rest_len - offset >= kBlockBytes; offset += kBlockBytes) {
      for (std::size_t l = 0; l < N; ++l) blocks[l] = rests[l] + offset;
      compress_block<N>(s, blocks);
    }
    const std::size_t tail = rest_len - offset;
    std::size_t count = 0;
    for (std::size_t l = 0; l < N; ++l) {
      if (tail != 0) std::memcpy(last[l], rests[l] + offset, tail);
      count = pad_final_blocks(last[l], tail, total);
    }
    for (std::size_t b = 0; b < count; ++b) {
      for (std::size_t l = 0; l < N; ++l) blocks[l] = last[l] + b * kBlockBytes;
      compress_block<N>(s, blocks);
    }
  } else {
    // The message ends in block 0; its padding may spill into block 1.
    const bool one_block = total <= kMaxOneBlockBytes;
    for (std::size_t l = 0; l < N; ++l) {
      if (rest_len != 0) std::memcpy(last[l], rests[l], rest_len);
      std::memset(last[l] + rest_len, 0, sizeof last[l] - rest_len);
      last[l][rest_len] = 0x80;
      if (one_block) store_be64(last[l] + kFirstRest - kLengthFieldBytes, total << 3);
      for (std::size_t j = 0; j < 3; ++j) w[l][1 + j] = load_words(last[l] + 16 * j);
    }
    compress_first_block_out_of_line<N>(p, s, w);
    if (!one_block) {
      for (std::size_t l = 0; l < N; ++l) {
        store_be64(last[l] + kFirstRest + kBlockBytes - kLengthFieldBytes, total << 3);
        blocks[l] = last[l] + kFirstRest;
      }
      compress_block<N>(s, blocks);
    }
  }
  for (std::size_t l = 0; l < N; ++l) store_digest(s[l], outs[l]);
}

// N messages; the LMS chain and PRF inputs (55 bytes for n = 32, 47 for n = 24), nearly every hash
// LMS computes, skip the copies. (Leaves, 54 and 46 bytes, are one hash in a thousand: not worth
// another 9 KB of code each.)
template <std::size_t N>
void hash_n(const Prefix& p, const std::uint8_t* const* rests, std::size_t rest_len,
            std::uint8_t* const* outs) noexcept {
  switch (rest_len) {
    case 39: return hash_one_block<N, 39>(p, rests, outs);
    case 31: return hash_one_block<N, 31>(p, rests, outs);
    default: return hash_any_length<N>(p, rests, rest_len, outs);
  }
}

template <std::size_t Width>
void hash_in_groups(const Prefix& p, const std::uint8_t* const* rests, std::size_t rest_len,
                    std::uint8_t* const* outs, std::size_t count) noexcept {
  std::size_t k = 0;
  for (; count - k >= Width; k += Width) hash_n<Width>(p, rests + k, rest_len, outs + k);
  // The rest, still interleaved as widely as possible.
  std::size_t left = count - k;
  if constexpr (Width > 4) {
    if (left >= 4) {
      hash_n<4>(p, rests + k, rest_len, outs + k);
      k += 4;
      left -= 4;
    }
  }
  switch (left) {
    case 3: return hash_n<3>(p, rests + k, rest_len, outs + k);
    case 2: return hash_n<2>(p, rests + k, rest_len, outs + k);
    case 1: return hash_n<1>(p, rests + k, rest_len, outs + k);
    default: return;
  }
}

}  // namespace

void compress_blocks(std::uint32_t* h, const std::uint8_t* blocks, std::size_t count) noexcept {
  // a..h to {F, E, B, A} and {H, G, D, C}.
  const __m128i dcba = _mm_shuffle_epi32(load_unaligned(h), 0x1B);
  const __m128i hgfe = _mm_shuffle_epi32(load_unaligned(h + 4), 0x1B);
  Lane s[1] = {{_mm_unpackhi_epi64(hgfe, dcba), _mm_unpacklo_epi64(hgfe, dcba)}};
  for (; count != 0; --count, blocks += kBlockBytes) {
    Words w[1];
    for (std::size_t i = 0; i < 4; ++i) w[0][i] = load_words(blocks + 16 * i);
    compress_words<1>(s, w);
  }
  const __m128i abef = _mm_shuffle_epi32(s[0].abef, 0x1B);  // {A, B, E, F}
  const __m128i cdgh = _mm_shuffle_epi32(s[0].cdgh, 0x1B);  // {C, D, G, H}
  _mm_storeu_si128(reinterpret_cast<__m128i*>(h), _mm_unpacklo_epi64(abef, cdgh));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(h + 4), _mm_unpackhi_epi64(abef, cdgh));
}

void hash_one(const PrefixState& prefix, const std::uint8_t* rest, std::size_t rest_len,
              std::uint8_t* out) noexcept {
  hash_n<1>(prefix_of(prefix), &rest, rest_len, &out);
}

void hash_many(const PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
               std::uint8_t* const* outs, std::size_t count) noexcept {
  hash_in_groups<kInterleave>(prefix_of(prefix), rests, rest_len, outs, count);
}

void hash_many_interleaved(std::size_t width, const PrefixState& prefix, const std::uint8_t* const* rests,
                           std::size_t rest_len, std::uint8_t* const* outs, std::size_t count) noexcept {
  const Prefix& p = prefix_of(prefix);
  switch (width) {
    case 1: return hash_in_groups<1>(p, rests, rest_len, outs, count);
    case 2: return hash_in_groups<2>(p, rests, rest_len, outs, count);
    case 3: return hash_in_groups<3>(p, rests, rest_len, outs, count);
    case 8: return hash_in_groups<8>(p, rests, rest_len, outs, count);
    default: return hash_in_groups<kInterleave>(p, rests, rest_len, outs, count);
  }
}

}  // namespace klms::hashes::sha256::shani
