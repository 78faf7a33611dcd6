// Internal to lsh256_sse2/avx2/avx512.cpp: LSH-256 of one message with 128-bit registers.
//
// Layout. The chaining value is four quarters A = X[0..3], B = X[4..7], C = Y[0..3], D = Y[4..7]
// (X = words 0..7, Y = words 8..15), one xmm register each. The step works column-wise (X[l] with
// Y[l]), so (A, C) and (B, D) are two independent chains that run side by side. The word
// permutation σ maps whole quarters: new A = B·p, new C = A·p, new B = D·q, new D = C·q, with p,
// q permutations inside a quarter. The X registers are never shuffled: instead all four registers
// keep their words in a common slot order that changes every step (period 3), and the Y registers,
// which get a pshufb for the γ rotation anyway, are reordered by the same pshufb. The message words
// and step constants are laid out in the step's slot order ahead of time. So σ and γ together cost
// one pshufb per Y register and nothing on the X path, which is the critical one.
//
// Anonymous namespace: each SIMD file compiles its own copy with its own -m flags.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

#include "hashes/lsh/lsh_internal.h"
#include "hashes/lsh/lsh_params.h"
#include "hashes/lsh/lsh_simd_chunks.h"

namespace klms::hashes::lsh256_simd {
namespace {

using lsh_simd::ChunkKind;
using lsh_simd::MessageShape;

constexpr int kSteps = lsh::Params<std::uint32_t>::kSteps;

// kOrder[o][s]: which word of its quarter slot s holds, in slot order o = step % 3.
constexpr int kOrder[3][4] = {{0, 1, 2, 3}, {1, 2, 0, 3}, {2, 0, 1, 3}};
constexpr int kQ[4] = {0, 3, 2, 1};  // new B[i] = D[q[i]], new D[i] = C[q[i]]

constexpr int slot_of(int order, int word) {
  for (int s = 0; s < 4; ++s) {
    if (kOrder[order][s] == word) return s;
  }
  return -1;
}

// pshufd immediate that takes a quarter from slot order `from` to slot order `to`.
constexpr int reorder_imm(int from, int to) {
  int imm = 0;
  for (int s = 0; s < 4; ++s) imm |= slot_of(from, kOrder[to][s]) << (2 * s);
  return imm;
}

struct alignas(16) Control16 {
  std::uint8_t bytes[16];
};

// The pshufb that turns Y quarter `half` (0 = C, 1 = D) after step j into new D (from C) or new B
// (from D) in step j+1's slot order, rotating each word by its γ on the way.
constexpr Control16 y_shuffle(int step, int half) {
  Control16 c{};
  const int now = step % 3;
  const int next = (step + 1) % 3;
  for (int s = 0; s < 4; ++s) {
    const int word = kQ[kOrder[next][s]];
    const int from = slot_of(now, word);
    const int rot_bytes = lsh::Params<std::uint32_t>::kGamma[4 * half + word] / 8;
    for (int k = 0; k < 4; ++k) c.bytes[4 * s + k] = static_cast<std::uint8_t>(4 * from + ((k - rot_bytes) & 3));
  }
  return c;
}

template <int J, int Half>
inline constexpr Control16 kYShuffle = y_shuffle(J, Half);

// Step constants, each half in its step's slot order.
struct alignas(16) StepConstantTable {
  std::uint32_t words[kSteps][8];
};

constexpr StepConstantTable make_step_constant_table() {
  StepConstantTable t{};
  for (int j = 0; j < kSteps; ++j) {
    for (int h = 0; h < 2; ++h) {
      for (int s = 0; s < 4; ++s)
        t.words[j][4 * h + s] = lsh::kStepConstants<std::uint32_t>[j][4 * h + kOrder[j % 3][s]];
    }
  }
  return t;
}

inline constexpr StepConstantTable kStepConstantTable = make_step_constant_table();

// The expanded message M_0 … M_26, each quarter in its step's slot order.
struct alignas(32) ExpandedMessage {
  std::uint32_t words[kSteps + 1][16];
};

KLMS_LSH_INLINE __m128i load_words(const std::uint32_t* p) noexcept {
  return _mm_load_si128(reinterpret_cast<const __m128i*>(p));
}

template <int R>
KLMS_LSH_INLINE __m128i rotl(__m128i x) noexcept {
#if defined(__AVX512VL__)
  return _mm_rol_epi32(x, R);
#else
  if constexpr (R == 1) return _mm_or_si128(_mm_add_epi32(x, x), _mm_srli_epi32(x, 31));  // add: any port
  return _mm_or_si128(_mm_slli_epi32(x, R), _mm_srli_epi32(x, 32 - R));
#endif
}

#if defined(__AVX2__)
// Expansion on 8-word halves: τ stays inside each 128-bit lane, so vpshufb does it.
alignas(32) constexpr std::uint8_t kTauShuffle256[32] = {
    12, 13, 14, 15, 8, 9, 10, 11, 0, 1, 2, 3, 4, 5, 6,  7,    // words 3, 2, 0, 1
    12, 13, 14, 15, 0, 1, 2,  3,  4, 5, 6, 7, 8, 9, 10, 11};  // words 7, 4, 5, 6

template <int J>
KLMS_LSH_INLINE void store_message(ExpandedMessage& e, __m256i lo, __m256i hi) noexcept {
  if constexpr (J % 3 != 0) {
    constexpr int kImm = reorder_imm(0, J % 3);
    lo = _mm256_shuffle_epi32(lo, kImm);
    hi = _mm256_shuffle_epi32(hi, kImm);
  }
  _mm256_store_si256(reinterpret_cast<__m256i*>(e.words[J]), lo);
  _mm256_store_si256(reinterpret_cast<__m256i*>(e.words[J] + 8), hi);
}

template <int J>
KLMS_LSH_INLINE void expand_from(ExpandedMessage& e, __m256i lo2, __m256i hi2, __m256i lo1, __m256i hi1,
                                 __m256i tau) noexcept {
  const __m256i lo = _mm256_add_epi32(lo1, _mm256_shuffle_epi8(lo2, tau));
  const __m256i hi = _mm256_add_epi32(hi1, _mm256_shuffle_epi8(hi2, tau));
  store_message<J>(e, lo, hi);
  if constexpr (J < kSteps) expand_from<J + 1>(e, lo1, hi1, lo, hi, tau);
}

KLMS_LSH_INLINE void expand(ExpandedMessage& e, const __m128i chunk[8]) noexcept {
  const __m256i lo0 = _mm256_set_m128i(chunk[1], chunk[0]);
  const __m256i hi0 = _mm256_set_m128i(chunk[3], chunk[2]);
  const __m256i lo1 = _mm256_set_m128i(chunk[5], chunk[4]);
  const __m256i hi1 = _mm256_set_m128i(chunk[7], chunk[6]);
  store_message<0>(e, lo0, hi0);
  store_message<1>(e, lo1, hi1);
  expand_from<2>(e, lo0, hi0, lo1, hi1, _mm256_load_si256(reinterpret_cast<const __m256i*>(kTauShuffle256)));
}
#else
// SSSE3: the same per quarter. τ maps each quarter into itself: (3,2,0,1) on quarters 0 and 2,
// (3,0,1,2) on quarters 1 and 3.
constexpr int kTauEvenQuarter = 3 | 2 << 2 | 0 << 4 | 1 << 6;
constexpr int kTauOddQuarter = 3 | 0 << 2 | 1 << 4 | 2 << 6;

struct Quarters {
  __m128i q[4];
};

template <int J>
KLMS_LSH_INLINE void store_message(ExpandedMessage& e, Quarters m) noexcept {
  constexpr int kImm = reorder_imm(0, J % 3);
  for (int i = 0; i < 4; ++i) {
    __m128i v = m.q[i];
    if constexpr (J % 3 != 0) v = _mm_shuffle_epi32(v, kImm);
    _mm_store_si128(reinterpret_cast<__m128i*>(e.words[J] + 4 * i), v);
  }
}

template <int J>
KLMS_LSH_INLINE void expand_from(ExpandedMessage& e, Quarters m2, Quarters m1) noexcept {
  Quarters m;
  m.q[0] = _mm_add_epi32(m1.q[0], _mm_shuffle_epi32(m2.q[0], kTauEvenQuarter));
  m.q[1] = _mm_add_epi32(m1.q[1], _mm_shuffle_epi32(m2.q[1], kTauOddQuarter));
  m.q[2] = _mm_add_epi32(m1.q[2], _mm_shuffle_epi32(m2.q[2], kTauEvenQuarter));
  m.q[3] = _mm_add_epi32(m1.q[3], _mm_shuffle_epi32(m2.q[3], kTauOddQuarter));
  store_message<J>(e, m);
  if constexpr (J < kSteps) expand_from<J + 1>(e, m1, m);
}

KLMS_LSH_INLINE void expand(ExpandedMessage& e, const __m128i chunk[8]) noexcept {
  const Quarters m0 = {{chunk[0], chunk[1], chunk[2], chunk[3]}};
  const Quarters m1 = {{chunk[4], chunk[5], chunk[6], chunk[7]}};
  store_message<0>(e, m0);
  store_message<1>(e, m1);
  expand_from<2>(e, m0, m1);
}
#endif

struct State {
  __m128i a, b, c, d;  // quarters A, B, C, D
};

struct MessageQuarters {
  __m128i q[4];  // M_j in step j's slot order
};

template <int J>
KLMS_LSH_INLINE State step(State s, const MessageQuarters& m) noexcept {
  constexpr int kAlpha = lsh::alpha<std::uint32_t>(J);
  constexpr int kBeta = lsh::beta<std::uint32_t>(J);
  __m128i a = _mm_xor_si128(s.a, m.q[0]);
  __m128i b = _mm_xor_si128(s.b, m.q[1]);
  __m128i c = _mm_xor_si128(s.c, m.q[2]);
  __m128i d = _mm_xor_si128(s.d, m.q[3]);
  a = _mm_add_epi32(a, c);
  b = _mm_add_epi32(b, d);
  a = rotl<kAlpha>(a);
  b = rotl<kAlpha>(b);
  a = _mm_xor_si128(a, load_words(kStepConstantTable.words[J]));
  b = _mm_xor_si128(b, load_words(kStepConstantTable.words[J] + 4));
  c = _mm_add_epi32(c, a);
  d = _mm_add_epi32(d, b);
  c = rotl<kBeta>(c);
  d = rotl<kBeta>(d);
  a = _mm_add_epi32(a, c);
  b = _mm_add_epi32(b, d);
  const __m128i new_b = _mm_shuffle_epi8(d, _mm_load_si128(reinterpret_cast<const __m128i*>(kYShuffle<J, 1>.bytes)));
  const __m128i new_d = _mm_shuffle_epi8(c, _mm_load_si128(reinterpret_cast<const __m128i*>(kYShuffle<J, 0>.bytes)));
  return State{b, new_b, a, new_d};
}

KLMS_LSH_INLINE MessageQuarters stored_message(const ExpandedMessage& e, int j) noexcept {
  const std::uint32_t* m = e.words[j];
  return MessageQuarters{{load_words(m), load_words(m + 4), load_words(m + 8), load_words(m + 12)}};
}

// Steps 2…25 read the expanded message from memory (load operands, off the critical path).
template <int... J>
KLMS_LSH_INLINE State run_steps(State s, const ExpandedMessage& e, std::integer_sequence<int, J...>) noexcept {
  ((s = step<J + 2>(s, stored_message(e, J + 2))), ...);
  return s;
}

// One compression; state in natural word order before and after.
KLMS_LSH_INLINE State compress(State s, const __m128i chunk[8]) noexcept {
  ExpandedMessage e;
  expand(e, chunk);
  // Keep the expanded words in memory: the steps then read them as load operands (free ports),
  // instead of the compiler carrying them in registers and extracting halves on the shuffle port.
  asm volatile("" : : "r"(e.words) : "memory");
  // Steps 0 and 1 take M0 and M1 straight from the chunks: no store/reload before the first step.
  constexpr int kOrder1 = reorder_imm(0, 1);
  s = step<0>(s, MessageQuarters{{chunk[0], chunk[1], chunk[2], chunk[3]}});
  s = step<1>(s, MessageQuarters{{_mm_shuffle_epi32(chunk[4], kOrder1), _mm_shuffle_epi32(chunk[5], kOrder1),
                                  _mm_shuffle_epi32(chunk[6], kOrder1), _mm_shuffle_epi32(chunk[7], kOrder1)}});
  s = run_steps(s, e, std::make_integer_sequence<int, kSteps - 2>{});
  constexpr int kLast = kSteps % 3;
  const std::uint32_t* m = e.words[kSteps];
  constexpr int kToNatural = reorder_imm(kLast, 0);
  s.a = _mm_shuffle_epi32(_mm_xor_si128(s.a, load_words(m)), kToNatural);
  s.b = _mm_shuffle_epi32(_mm_xor_si128(s.b, load_words(m + 4)), kToNatural);
  s.c = _mm_shuffle_epi32(_mm_xor_si128(s.c, load_words(m + 8)), kToNatural);
  s.d = _mm_shuffle_epi32(_mm_xor_si128(s.d, load_words(m + 12)), kToNatural);
  return s;
}

KLMS_LSH_INLINE State load_state(const std::uint32_t cv[16]) noexcept {
  const __m128i* p = reinterpret_cast<const __m128i*>(cv);
  return State{_mm_loadu_si128(p), _mm_loadu_si128(p + 1), _mm_loadu_si128(p + 2), _mm_loadu_si128(p + 3)};
}

KLMS_LSH_INLINE void store_state(const State& s, std::uint32_t cv[16]) noexcept {
  __m128i* p = reinterpret_cast<__m128i*>(cv);
  _mm_storeu_si128(p, s.a);
  _mm_storeu_si128(p + 1, s.b);
  _mm_storeu_si128(p + 2, s.c);
  _mm_storeu_si128(p + 3, s.d);
}

KLMS_LSH_INLINE void load_block(const std::uint8_t* p, __m128i chunk[8]) noexcept {
  for (int i = 0; i < 8; ++i) chunk[i] = lsh_simd::loadu128(p + 16 * i);
}

// Whole blocks into cv.
inline void compress_blocks(std::uint32_t cv[16], const std::uint8_t* blocks, std::size_t count) noexcept {
  State s = load_state(cv);
  for (std::size_t b = 0; b < count; ++b, blocks += 128) {
    __m128i chunk[8];
    load_block(blocks, chunk);
    s = compress(s, chunk);
  }
  store_state(s, cv);
}

// LSH-256 over (prefix || in), prefix_len 0 or 16: each block is read straight into registers,
// the first (with the prefix) and the last (with the padding) chunk by chunk.
inline void digest(const std::uint32_t iv[16], const std::uint8_t* prefix, std::size_t prefix_len,
                   const std::uint8_t* in, std::size_t len, std::uint8_t* out, std::size_t out_bytes) noexcept {
  const MessageShape shape = lsh_simd::make_shape(prefix_len, len);
  const std::size_t last_block = shape.total & ~static_cast<std::size_t>(127);
  State s = load_state(iv);
  for (std::size_t pos = 0;; pos += 128) {
    __m128i chunk[8];
    if (pos >= prefix_len && pos < last_block) {
      load_block(in + (pos - prefix_len), chunk);
    } else {
      for (int i = 0; i < 8; ++i) {
        const std::size_t at = pos + 16 * static_cast<std::size_t>(i);
        chunk[i] = lsh_simd::fetch_chunk(shape, shape.kind(at), prefix, in, at);
      }
    }
    s = compress(s, chunk);
    if (pos == last_block) break;
  }
  const __m128i h_lo = _mm_xor_si128(s.a, s.c);
  const __m128i h_hi = _mm_xor_si128(s.b, s.d);
  if (out_bytes == 32) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), h_lo);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 16), h_hi);
  } else {
    alignas(16) std::uint8_t full[32];
    _mm_store_si128(reinterpret_cast<__m128i*>(full), h_lo);
    _mm_store_si128(reinterpret_cast<__m128i*>(full + 16), h_hi);
    std::memcpy(out, full, out_bytes);
  }
}

// The implementation table of the including file: every entry but hash_many (each file has its own
// lane plan) is this header's code, that file's own copy compiled with its -m flags.
void impl_compress(std::uint32_t cv[16], const std::uint8_t* blocks, std::size_t count) noexcept {
  compress_blocks(cv, blocks, count);
}
void impl_digest(const std::uint32_t iv[16], const std::uint8_t* prefix, std::size_t prefix_len, const std::uint8_t* in,
                 std::size_t len, std::uint8_t* out, std::size_t out_bytes) noexcept {
  digest(iv, prefix, prefix_len, in, len, out, out_bytes);
}
void impl_update(Lsh256Context& ctx, const std::uint8_t* data, std::size_t len) noexcept {
  lsh_detail::lsh256_stream_update(ctx, data, len, &impl_compress);
}
void impl_final(Lsh256Context& ctx, std::uint8_t* out) noexcept {
  lsh_detail::lsh256_stream_final(ctx, out, &impl_compress);
}
using HashManyFn = void (*)(const std::uint8_t* prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                            std::uint8_t* const* outs, std::size_t count) noexcept;
constexpr Lsh256Implementation implementation(LshIsa isa, std::string_view name, std::size_t lanes,
                                              HashManyFn hash_many) noexcept {
  return {isa, name, lanes, &impl_compress, &impl_digest, hash_many, &impl_update, &impl_final};
}

// One message, LSH-256-256 of prefix[0..16) || rest: hash_many's leftovers.
inline void digest_prefixed(const std::uint8_t* prefix, const std::uint8_t* rest, std::size_t len,
                            std::uint8_t* out) noexcept {
  digest(lsh::kIv256_256.data(), prefix, kLsh256PrefixBytes, rest, len, out, 32);
}
// LSH-256-256 of `in`: the file's lsh256_256_digest_<isa>.
inline void digest_256(const std::uint8_t* in, std::size_t len, std::uint8_t* out) noexcept {
  digest(lsh::kIv256_256.data(), nullptr, 0, in, len, out, 32);
}

}  // namespace
}  // namespace klms::hashes::lsh256_simd
