// Internal to lsh256_msg_avx2.cpp: LSH-256 of several equal-length messages at once, one message
// per 128-bit lane ("message lanes"), S independent register streams interleaved.
//
// This is the one-message design of lsh256_simd_one.h (state in four quarters A, B, C, D; σ and γ
// folded into one pshufb per Y quarter; X quarters never shuffled; message words and step constants
// laid out in each step's slot order) with every 128-bit register widened to a 256-bit one that
// carries the same quarter of two messages, one per 128-bit lane. Every operation the step uses —
// 32-bit add, xor, shifts or vprold, pshufd, pshufb — works inside each 128-bit lane, so the two
// messages never mix and no word transpose is needed on the way in or out. One stream is latency-
// bound like the one-message code; S streams (2S messages) fill the vector pipes.
//
// Against the word-sliced lanes (lsh256_simd_lanes.h, one 32-bit word of 8 messages per register):
// the state is 4 registers per stream (8 for two streams) instead of 16 registers for 8 messages
// next to the message words, and nothing is transposed; the price is the shuffles σ and τ cost here
// (one pshufb per Y quarter, one or two pshufd per message quarter) where the word-sliced code only
// renames registers. About as many instructions per message either way (~540 word-sliced, ~570
// here with AVX2); measured, the message lanes are faster and far less hurt by a busy machine
// (docs/performance.md "Which code path runs, per CPU").
//
// Anonymous namespace: each SIMD file compiles its own copy with its own -m flags.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#include "hashes/lsh/lsh256_simd_one.h"
#include "hashes/lsh/lsh256_ymm_words.h"
#include "hashes/lsh/lsh_params.h"
#include "hashes/lsh/lsh_simd_chunks.h"

namespace klms::hashes::lsh256_simd {
namespace {

// Tables of lsh256_simd_one.h repeated in every 128-bit lane of an N-lane vector: each step constant
// and pshufb control is then one aligned load operand.
template <std::size_t N>
struct alignas(64) WideStepConstants {
  std::uint32_t words[kSteps][2][4 * N];  // [step][X half A|B][lane-repeated slot-ordered quarter]
};

template <std::size_t N>
constexpr WideStepConstants<N> make_wide_step_constants() {
  WideStepConstants<N> t{};
  for (int j = 0; j < kSteps; ++j) {
    for (int h = 0; h < 2; ++h) {
      for (std::size_t i = 0; i < 4 * N; ++i) t.words[j][h][i] = kStepConstantTable.words[j][4 * h + i % 4];
    }
  }
  return t;
}

template <std::size_t N>
struct alignas(64) WideYShuffles {
  std::uint8_t bytes[kSteps][2][16 * N];  // [step][0 = from C to new D, 1 = from D to new B]
};

template <std::size_t N>
constexpr WideYShuffles<N> make_wide_y_shuffles() {
  WideYShuffles<N> t{};
  for (int j = 0; j < kSteps; ++j) {
    for (int h = 0; h < 2; ++h) {
      const Control16 c = y_shuffle(j, h);
      for (std::size_t i = 0; i < 16 * N; ++i) t.bytes[j][h][i] = c.bytes[i % 16];
    }
  }
  return t;
}

template <std::size_t N>
inline constexpr WideStepConstants<N> kWideStepConstants = make_wide_step_constants<N>();
template <std::size_t N>
inline constexpr WideYShuffles<N> kWideYShuffles = make_wide_y_shuffles<N>();

// τ inside a quarter, as pshufd immediates: (3,2,0,1) on quarters 0 and 2, (3,0,1,2) on 1 and 3.
constexpr int kTauQuarter[2] = {3 | 2 << 2 | 0 << 4 | 1 << 6, 3 | 0 << 2 | 1 << 4 | 2 << 6};

#if defined(__AVX2__)
// Two messages per 256-bit register.
struct Ymm2Messages : YmmWords {
  static constexpr std::size_t kMessages = 2;
  template <int kImm>
  static V shuffle_words(V x) noexcept {
    return _mm256_shuffle_epi32(x, kImm);
  }
  static V shuffle_bytes(V x, const std::uint8_t* control) noexcept { return _mm256_shuffle_epi8(x, load(control)); }
  static V load(const void* p) noexcept { return _mm256_load_si256(static_cast<const __m256i*>(p)); }
  static void store(void* p, V x) noexcept { _mm256_store_si256(static_cast<__m256i*>(p), x); }
  static V zero() noexcept { return _mm256_setzero_si256(); }
  static V repeat(__m128i c) noexcept { return _mm256_broadcastsi128_si256(c); }
  static V combine(const __m128i (&c)[kMessages]) noexcept { return _mm256_set_m128i(c[1], c[0]); }
  static __m128i lane(V x, std::size_t i) noexcept {
    return i == 0 ? _mm256_castsi256_si128(x) : _mm256_extracti128_si256(x, 1);
  }
};
#endif

template <class T, std::size_t S>
struct MessageLaneHasher {
  using V = typename T::V;
  static constexpr std::size_t kPerVector = T::kMessages;
  static constexpr std::size_t kMessages = kPerVector * S;

  struct Quarters {
    V a, b, c, d;
  };
  // M_j of one stream: natural word order (what the expansion reads) and each quarter in step j's
  // slot order (what step j reads). Local to one compression and never escaping, so the compiler
  // keeps most of it in registers.
  struct Expanded {
    Quarters natural[kSteps + 1];
    V slotted[kSteps + 1][4];
  };

  // Written out quarter by quarter (no loops over arrays): GCC 12 keeps such loops rolled and the
  // arrays in memory, which costs a store/reload per quarter and step.
  template <int J>
  KLMS_LSH_INLINE static void put_message(Expanded& e, const Quarters& m) noexcept {
    e.natural[J] = m;
    if constexpr (J % 3 == 0) {
      e.slotted[J][0] = m.a;
      e.slotted[J][1] = m.b;
      e.slotted[J][2] = m.c;
      e.slotted[J][3] = m.d;
    } else {
      constexpr int kImm = reorder_imm(0, J % 3);
      e.slotted[J][0] = T::template shuffle_words<kImm>(m.a);
      e.slotted[J][1] = T::template shuffle_words<kImm>(m.b);
      e.slotted[J][2] = T::template shuffle_words<kImm>(m.c);
      e.slotted[J][3] = T::template shuffle_words<kImm>(m.d);
    }
  }

  // M_J = M_{J-1} + τ(M_{J-2}), quarter by quarter (τ maps each quarter into itself); nothing past M_26.
  template <int J>
  KLMS_LSH_INLINE static void expand_one(Expanded& e) noexcept {
    if constexpr (J >= 2 && J <= kSteps) {
      const Quarters& m2 = e.natural[J - 2];
      const Quarters& m1 = e.natural[J - 1];
      put_message<J>(e, Quarters{T::add(m1.a, T::template shuffle_words<kTauQuarter[0]>(m2.a)),
                                 T::add(m1.b, T::template shuffle_words<kTauQuarter[1]>(m2.b)),
                                 T::add(m1.c, T::template shuffle_words<kTauQuarter[0]>(m2.c)),
                                 T::add(m1.d, T::template shuffle_words<kTauQuarter[1]>(m2.d))});
    }
  }

  template <int J>
  KLMS_LSH_INLINE static Quarters step(Quarters s, const V (&m)[4]) noexcept {
    constexpr int kAlpha = lsh::alpha<std::uint32_t>(J);
    constexpr int kBeta = lsh::beta<std::uint32_t>(J);
    constexpr std::size_t kN = kPerVector;
    V a = T::xor_(s.a, m[0]);
    V b = T::xor_(s.b, m[1]);
    V c = T::xor_(s.c, m[2]);
    V d = T::xor_(s.d, m[3]);
    a = T::add(a, c);
    b = T::add(b, d);
    a = T::template rotl<kAlpha>(a);
    b = T::template rotl<kAlpha>(b);
    a = T::xor_(a, T::load(kWideStepConstants<kN>.words[J][0]));
    b = T::xor_(b, T::load(kWideStepConstants<kN>.words[J][1]));
    c = T::add(c, a);
    d = T::add(d, b);
    c = T::template rotl<kBeta>(c);
    d = T::template rotl<kBeta>(d);
    a = T::add(a, c);
    b = T::add(b, d);
    const V new_b = T::shuffle_bytes(d, kWideYShuffles<kN>.bytes[J][1]);
    const V new_d = T::shuffle_bytes(c, kWideYShuffles<kN>.bytes[J][0]);
    return Quarters{b, new_b, a, new_d};
  }

  // Step J on every stream, the expansion of M_{J+kLead} woven in. The streams are independent, so
  // the core overlaps them; expanding just ahead (instead of all 27 words first, as the one-message
  // code does) lets the expansion fill the gaps of the latency-bound steps: 48 -> 42 ns per message
  // on Zen 4 (AVX2, 2 streams; a lead of 0..4 measured alike, 8 and beyond slower).
  static constexpr int kLead = 3;
  template <int J, std::size_t... I>
  KLMS_LSH_INLINE static void step_all(Quarters (&s)[S], Expanded (&e)[S], std::index_sequence<I...>) noexcept {
    (expand_one<J + kLead>(e[I]), ...);
    ((s[I] = step<J>(s[I], e[I].slotted[J])), ...);
  }

  template <int... J>
  KLMS_LSH_INLINE static void run_steps(Quarters (&s)[S], Expanded (&e)[S], std::integer_sequence<int, J...>) noexcept {
    (step_all<J>(s, e, std::make_index_sequence<S>{}), ...);
  }

  template <int J, std::size_t... I>
  KLMS_LSH_INLINE static void expand_all(Expanded (&e)[S], std::index_sequence<I...>) noexcept {
    (expand_one<J>(e[I]), ...);
  }
  template <int... J>
  KLMS_LSH_INLINE static void expand_lead(Expanded (&e)[S], std::integer_sequence<int, J...>) noexcept {
    (expand_all<J + 2>(e, std::make_index_sequence<S>{}), ...);
  }

  // One compression of every stream; state in natural word order before and after. block[i][c] is
  // chunk c (16 bytes) of each message of stream i, one per 128-bit lane.
  KLMS_LSH_INLINE static void compress(Quarters (&s)[S], const V (&block)[S][8]) noexcept {
    Expanded e[S];
#pragma GCC unroll 16
    for (std::size_t i = 0; i < S; ++i) {
      put_message<0>(e[i], Quarters{block[i][0], block[i][1], block[i][2], block[i][3]});
      put_message<1>(e[i], Quarters{block[i][4], block[i][5], block[i][6], block[i][7]});
    }
    expand_lead(e, std::make_integer_sequence<int, kLead - 2>{});  // M_2 … M_{kLead-1}
    run_steps(s, e, std::make_integer_sequence<int, kSteps>{});
    constexpr int kToNatural = reorder_imm(kSteps % 3, 0);
#pragma GCC unroll 16
    for (std::size_t i = 0; i < S; ++i) {
      const V(&m)[4] = e[i].slotted[kSteps];
      s[i].a = T::template shuffle_words<kToNatural>(T::xor_(s[i].a, m[0]));
      s[i].b = T::template shuffle_words<kToNatural>(T::xor_(s[i].b, m[1]));
      s[i].c = T::template shuffle_words<kToNatural>(T::xor_(s[i].c, m[2]));
      s[i].d = T::template shuffle_words<kToNatural>(T::xor_(s[i].d, m[3]));
    }
  }

  // Chunks of block `pos` (byte offset) of every message; chunks that are the same for every message
  // (the prefix, the zeros after the padding) are made once.
  KLMS_LSH_INLINE static void load_block(const MessageShape& shape, const std::uint8_t* prefix,
                                         const std::uint8_t* const* rests, std::size_t pos, V (&block)[S][8]) noexcept {
#pragma GCC unroll 16
    for (std::size_t c = 0; c < 8; ++c) {
      const std::size_t at = pos + 16 * c;
      const ChunkKind kind = shape.kind(at);
      if (kind == ChunkKind::kZero || kind == ChunkKind::kPrefix) {
        const V same = kind == ChunkKind::kZero ? T::zero() : T::repeat(lsh_simd::loadu128(prefix));
#pragma GCC unroll 16
        for (std::size_t i = 0; i < S; ++i) block[i][c] = same;
        continue;
      }
#pragma GCC unroll 16
      for (std::size_t i = 0; i < S; ++i) {
        __m128i chunks[kPerVector];
#pragma GCC unroll 16
        for (std::size_t l = 0; l < kPerVector; ++l) {
          chunks[l] = lsh_simd::fetch_chunk(shape, kind, prefix, rests[kPerVector * i + l], at);
        }
        block[i][c] = T::combine(chunks);
      }
    }
  }

  // LSH-256-256(prefix || rests[k]) for k < used (used <= kMessages); spare lanes repeat message 0.
  static void hash_batch(const std::uint8_t* prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                         std::uint8_t* const* outs, std::size_t used) noexcept {
    const std::uint8_t* lane_rest[kMessages];
    for (std::size_t k = 0; k < kMessages; ++k) lane_rest[k] = rests[k < used ? k : 0];
    const MessageShape shape = lsh_simd::make_shape(kLsh256PrefixBytes, rest_len);
    const std::size_t last_block = shape.total & ~static_cast<std::size_t>(127);
    const __m128i* iv = reinterpret_cast<const __m128i*>(lsh::kIv256_256.data());
    Quarters s[S];
#pragma GCC unroll 16
    for (std::size_t i = 0; i < S; ++i) {
      s[i] = Quarters{T::repeat(_mm_loadu_si128(iv)), T::repeat(_mm_loadu_si128(iv + 1)),
                      T::repeat(_mm_loadu_si128(iv + 2)), T::repeat(_mm_loadu_si128(iv + 3))};
    }
    for (std::size_t pos = 0;; pos += 128) {
      V block[S][8];
      load_block(shape, prefix, lane_rest, pos, block);
      compress(s, block);
      if (pos == last_block) break;
    }
    // Every message was read in full above, so a digest may now overwrite its own message.
#pragma GCC unroll 16
    for (std::size_t i = 0; i < S; ++i) {
      const V lo = T::xor_(s[i].a, s[i].c);
      const V hi = T::xor_(s[i].b, s[i].d);
#pragma GCC unroll 16
      for (std::size_t l = 0; l < kPerVector; ++l) {
        const std::size_t k = kPerVector * i + l;
        if (k >= used) break;
        _mm_storeu_si128(reinterpret_cast<__m128i*>(outs[k]), T::lane(lo, l));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(outs[k] + 16), T::lane(hi, l));
      }
    }
  }
};

}  // namespace
}  // namespace klms::hashes::lsh256_simd
