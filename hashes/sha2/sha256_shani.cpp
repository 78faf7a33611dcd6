// SHA-256 compression with the SHA extensions, one message or several interleaved (the rounds are in
// sha256_shani_rounds.h): hash_many's speed comes from the interleaving.
#include "hashes/sha2/sha256_shani.h"

#include <immintrin.h>

#include <cstring>
#include <utility>

#include "hashes/sha2/sha256_common.h"
#include "hashes/sha2/sha256_prefix.h"
#include "hashes/sha2/sha256_shani_rounds.h"

namespace klms::hashes::sha256::shani {
namespace {

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

// H(ins[l]) of N whole messages of len bytes, from the initial value (digest_many). Every input is
// read before any output is written.
template <std::size_t N>
void digest_n(const std::uint8_t* const* ins, std::size_t len, std::uint8_t* const* outs) noexcept {
  const __m128i initial_abef = load(kInitialAbef), initial_cdgh = load(kInitialCdgh);
  Lane s[N];
  for (std::size_t l = 0; l < N; ++l) s[l] = Lane{initial_abef, initial_cdgh};
  const std::uint8_t* blocks[N];
  std::size_t offset = 0;
  for (; len - offset >= kBlockBytes; offset += kBlockBytes) {
    for (std::size_t l = 0; l < N; ++l) blocks[l] = ins[l] + offset;
    compress_block<N>(s, blocks);
  }
  alignas(16) std::uint8_t last[N][2 * kBlockBytes];
  const std::size_t tail = len - offset;
  std::size_t count = 0;
  for (std::size_t l = 0; l < N; ++l) {
    if (tail != 0) std::memcpy(last[l], ins[l] + offset, tail);
    count = pad_final_blocks(last[l], tail, len);
  }
  for (std::size_t b = 0; b < count; ++b) {
    for (std::size_t l = 0; l < N; ++l) blocks[l] = last[l] + b * kBlockBytes;
    compress_block<N>(s, blocks);
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

void digest_many(const std::uint8_t* const* ins, std::size_t len, std::uint8_t* const* outs,
                 std::size_t count) noexcept {
  std::size_t k = 0;
  for (; count - k >= kInterleave; k += kInterleave) digest_n<kInterleave>(ins + k, len, outs + k);
  switch (count - k) {
    case 3: return digest_n<3>(ins + k, len, outs + k);
    case 2: return digest_n<2>(ins + k, len, outs + k);
    case 1: return digest_n<1>(ins + k, len, outs + k);
    default: return;
  }
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
