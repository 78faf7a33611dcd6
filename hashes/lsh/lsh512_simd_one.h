// Internal to lsh512_sse2/avx2/avx512.cpp: LSH-512 of one message.
//
// The same plan as lsh256_simd_one.h with 64-bit words: the chaining value is four quarters A, B
// (X = words 0..7) and C, D (Y = words 8..15) of four words each; the X quarters are never
// shuffled, all four keep a common slot order that changes every step (period 3), and σ together
// with the γ rotations costs one byte shuffle plus one word permutation per Y quarter. A quarter is
// a Vec4: one ymm with AVX2, a pair of xmm with SSE.
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

namespace klms::hashes::lsh512_simd {
namespace {

using lsh_simd::MessageShape;

constexpr int kSteps = lsh::Params<std::uint64_t>::kSteps;

constexpr int kOrder[3][4] = {{0, 1, 2, 3}, {1, 2, 0, 3}, {2, 0, 1, 3}};
constexpr int kQ[4] = {0, 3, 2, 1};

constexpr int slot_of(int order, int word) {
  for (int s = 0; s < 4; ++s) {
    if (kOrder[order][s] == word) return s;
  }
  return -1;
}

// A word permutation as a vpermq immediate: destination slot s takes source slot (imm >> 2s) & 3.
constexpr int permute_imm(int s0, int s1, int s2, int s3) { return s0 | s1 << 2 | s2 << 4 | s3 << 6; }

constexpr int reorder_imm(int from, int to) {
  return permute_imm(slot_of(from, kOrder[to][0]), slot_of(from, kOrder[to][1]), slot_of(from, kOrder[to][2]),
                     slot_of(from, kOrder[to][3]));
}

// τ inside a quarter: (3,2,0,1) on quarters 0 and 2, (3,0,1,2) on quarters 1 and 3.
constexpr int kTauEven = permute_imm(3, 2, 0, 1);
constexpr int kTauOdd = permute_imm(3, 0, 1, 2);

#if defined(__AVX2__)
struct Vec4 {
  __m256i v;
  static Vec4 load(const std::uint64_t* p) noexcept { return {_mm256_load_si256(reinterpret_cast<const __m256i*>(p))}; }
  static Vec4 loadu(const std::uint64_t* p) noexcept {
    return {_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))};
  }
  static Vec4 from_chunks(__m128i lo, __m128i hi) noexcept { return {_mm256_set_m128i(hi, lo)}; }
  void store(std::uint64_t* p) const noexcept { _mm256_store_si256(reinterpret_cast<__m256i*>(p), v); }
  void storeu(std::uint64_t* p) const noexcept { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  friend Vec4 operator+(Vec4 a, Vec4 b) noexcept { return {_mm256_add_epi64(a.v, b.v)}; }
  friend Vec4 operator^(Vec4 a, Vec4 b) noexcept { return {_mm256_xor_si256(a.v, b.v)}; }
  template <int R>
  Vec4 rotl() const noexcept {
#if defined(__AVX512VL__)
    return {_mm256_rol_epi64(v, R)};
#else
    return {_mm256_or_si256(_mm256_slli_epi64(v, R), _mm256_srli_epi64(v, 64 - R))};
#endif
  }
  Vec4 shuffle_bytes(const std::uint8_t* control) const noexcept {
    return {_mm256_shuffle_epi8(v, _mm256_load_si256(reinterpret_cast<const __m256i*>(control)))};
  }
  template <int kImm>
  Vec4 permute() const noexcept {
    if constexpr (kImm == permute_imm(0, 1, 2, 3)) {
      return *this;
    } else {
      return {_mm256_permute4x64_epi64(v, kImm)};
    }
  }
};
#else
struct Vec4 {
  __m128i lo, hi;  // words 0,1 and 2,3
  static Vec4 load(const std::uint64_t* p) noexcept {
    const __m128i* q = reinterpret_cast<const __m128i*>(p);
    return {_mm_load_si128(q), _mm_load_si128(q + 1)};
  }
  static Vec4 loadu(const std::uint64_t* p) noexcept {
    const __m128i* q = reinterpret_cast<const __m128i*>(p);
    return {_mm_loadu_si128(q), _mm_loadu_si128(q + 1)};
  }
  static Vec4 from_chunks(__m128i lo, __m128i hi) noexcept { return {lo, hi}; }
  void store(std::uint64_t* p) const noexcept {
    __m128i* q = reinterpret_cast<__m128i*>(p);
    _mm_store_si128(q, lo);
    _mm_store_si128(q + 1, hi);
  }
  void storeu(std::uint64_t* p) const noexcept {
    __m128i* q = reinterpret_cast<__m128i*>(p);
    _mm_storeu_si128(q, lo);
    _mm_storeu_si128(q + 1, hi);
  }
  friend Vec4 operator+(Vec4 a, Vec4 b) noexcept { return {_mm_add_epi64(a.lo, b.lo), _mm_add_epi64(a.hi, b.hi)}; }
  friend Vec4 operator^(Vec4 a, Vec4 b) noexcept { return {_mm_xor_si128(a.lo, b.lo), _mm_xor_si128(a.hi, b.hi)}; }
  template <int R>
  static __m128i rotl_half(__m128i x) noexcept {
    return _mm_or_si128(_mm_slli_epi64(x, R), _mm_srli_epi64(x, 64 - R));
  }
  template <int R>
  Vec4 rotl() const noexcept {
    return {rotl_half<R>(lo), rotl_half<R>(hi)};
  }
  Vec4 shuffle_bytes(const std::uint8_t* control) const noexcept {
    const __m128i* c = reinterpret_cast<const __m128i*>(control);
    return {_mm_shuffle_epi8(lo, _mm_load_si128(c)), _mm_shuffle_epi8(hi, _mm_load_si128(c + 1))};
  }
  // Destination words (2h, 2h+1) from source slots (s0, s1).
  template <int s0, int s1>
  static __m128i pick(__m128i a, __m128i b) noexcept {
    const __m128i first = s0 < 2 ? a : b;
    const __m128i second = s1 < 2 ? a : b;
    if constexpr (s0 / 2 == s1 / 2) {
      if constexpr (s0 % 2 == 0) return first;  // (0,1) in order
      return _mm_shuffle_epi32(first, 0x4e);    // (1,0) swapped
    } else {
      return _mm_castpd_si128(
          _mm_shuffle_pd(_mm_castsi128_pd(first), _mm_castsi128_pd(second), (s0 % 2) | (s1 % 2) << 1));
    }
  }
  template <int kImm>
  Vec4 permute() const noexcept {
    return {pick<kImm & 3, (kImm >> 2) & 3>(lo, hi), pick<(kImm >> 4) & 3, (kImm >> 6) & 3>(lo, hi)};
  }
};
#endif

struct alignas(32) Control32 {
  std::uint8_t bytes[32];
};

// Rotates each word of a Y quarter (0 = C, 1 = D) by its γ, in step j's slot order.
constexpr Control32 gamma_shuffle(int step, int half) {
  Control32 c{};
  for (int t = 0; t < 4; ++t) {
    const int word = kOrder[step % 3][t];
    const int rot_bytes = lsh::Params<std::uint64_t>::kGamma[4 * half + word] / 8;
    for (int k = 0; k < 8; ++k) c.bytes[8 * t + k] = static_cast<std::uint8_t>(8 * (t % 2) + ((k - rot_bytes) & 7));
  }
  return c;
}

// The word permutation that makes new B (from D) or new D (from C) in step j+1's slot order.
constexpr int y_permute_imm(int step) {
  const int now = step % 3;
  const int next = (step + 1) % 3;
  return permute_imm(slot_of(now, kQ[kOrder[next][0]]), slot_of(now, kQ[kOrder[next][1]]),
                     slot_of(now, kQ[kOrder[next][2]]), slot_of(now, kQ[kOrder[next][3]]));
}

template <int J, int Half>
inline constexpr Control32 kGammaShuffle = gamma_shuffle(J, Half);

struct alignas(32) StepConstantTable {
  std::uint64_t words[kSteps][8];
};

constexpr StepConstantTable make_step_constant_table() {
  StepConstantTable t{};
  for (int j = 0; j < kSteps; ++j) {
    for (int h = 0; h < 2; ++h) {
      for (int s = 0; s < 4; ++s)
        t.words[j][4 * h + s] = lsh::kStepConstants<std::uint64_t>[j][4 * h + kOrder[j % 3][s]];
    }
  }
  return t;
}

inline constexpr StepConstantTable kStepConstantTable = make_step_constant_table();

struct alignas(32) ExpandedMessage {
  std::uint64_t words[kSteps + 1][16];
};

struct Quarters {
  Vec4 q[4];
};

template <int J>
KLMS_LSH_INLINE void store_message(ExpandedMessage& e, const Quarters& m) noexcept {
  constexpr int kImm = reorder_imm(0, J % 3);
  for (int i = 0; i < 4; ++i) m.q[i].template permute<kImm>().store(e.words[J] + 4 * i);
}

template <int J>
KLMS_LSH_INLINE void expand_from(ExpandedMessage& e, const Quarters& m2, const Quarters& m1) noexcept {
  Quarters m;
  m.q[0] = m1.q[0] + m2.q[0].template permute<kTauEven>();
  m.q[1] = m1.q[1] + m2.q[1].template permute<kTauOdd>();
  m.q[2] = m1.q[2] + m2.q[2].template permute<kTauEven>();
  m.q[3] = m1.q[3] + m2.q[3].template permute<kTauOdd>();
  store_message<J>(e, m);
  if constexpr (J < kSteps) expand_from<J + 1>(e, m1, m);
}

// chunk[0..15]: the 256-byte block as 16-byte pieces.
KLMS_LSH_INLINE void expand(ExpandedMessage& e, const __m128i chunk[16]) noexcept {
  Quarters m0, m1;
  for (int i = 0; i < 4; ++i) {
    m0.q[i] = Vec4::from_chunks(chunk[2 * i], chunk[2 * i + 1]);
    m1.q[i] = Vec4::from_chunks(chunk[8 + 2 * i], chunk[8 + 2 * i + 1]);
  }
  store_message<0>(e, m0);
  store_message<1>(e, m1);
  expand_from<2>(e, m0, m1);
}

struct State {
  Vec4 a, b, c, d;
};

template <int J>
KLMS_LSH_INLINE State step(State s, const ExpandedMessage& e) noexcept {
  constexpr int kAlpha = lsh::alpha<std::uint64_t>(J);
  constexpr int kBeta = lsh::beta<std::uint64_t>(J);
  constexpr int kYPermute = y_permute_imm(J);
  const std::uint64_t* m = e.words[J];
  Vec4 a = s.a ^ Vec4::load(m);
  Vec4 b = s.b ^ Vec4::load(m + 4);
  Vec4 c = s.c ^ Vec4::load(m + 8);
  Vec4 d = s.d ^ Vec4::load(m + 12);
  a = a + c;
  b = b + d;
  a = a.template rotl<kAlpha>() ^ Vec4::load(kStepConstantTable.words[J]);
  b = b.template rotl<kAlpha>() ^ Vec4::load(kStepConstantTable.words[J] + 4);
  c = c + a;
  d = d + b;
  c = c.template rotl<kBeta>();
  d = d.template rotl<kBeta>();
  a = a + c;
  b = b + d;
  const Vec4 new_b = d.shuffle_bytes(kGammaShuffle<J, 1>.bytes).template permute<kYPermute>();
  const Vec4 new_d = c.shuffle_bytes(kGammaShuffle<J, 0>.bytes).template permute<kYPermute>();
  return State{b, new_b, a, new_d};
}

template <int... J>
KLMS_LSH_INLINE State run_steps(State s, const ExpandedMessage& e, std::integer_sequence<int, J...>) noexcept {
  ((s = step<J>(s, e)), ...);
  return s;
}

KLMS_LSH_INLINE State compress(State s, const __m128i chunk[16]) noexcept {
  ExpandedMessage e;
  expand(e, chunk);
  // Keep the expanded words in memory: the steps then read them as load operands (free ports),
  // instead of the compiler carrying them in registers and extracting halves on the shuffle port.
  asm volatile("" : : "r"(e.words) : "memory");
  s = run_steps(s, e, std::make_integer_sequence<int, kSteps>{});
  constexpr int kToNatural = reorder_imm(kSteps % 3, 0);
  const std::uint64_t* m = e.words[kSteps];
  s.a = (s.a ^ Vec4::load(m)).template permute<kToNatural>();
  s.b = (s.b ^ Vec4::load(m + 4)).template permute<kToNatural>();
  s.c = (s.c ^ Vec4::load(m + 8)).template permute<kToNatural>();
  s.d = (s.d ^ Vec4::load(m + 12)).template permute<kToNatural>();
  return s;
}

KLMS_LSH_INLINE State load_state(const std::uint64_t cv[16]) noexcept {
  return State{Vec4::loadu(cv), Vec4::loadu(cv + 4), Vec4::loadu(cv + 8), Vec4::loadu(cv + 12)};
}

KLMS_LSH_INLINE void store_state(const State& s, std::uint64_t cv[16]) noexcept {
  s.a.storeu(cv);
  s.b.storeu(cv + 4);
  s.c.storeu(cv + 8);
  s.d.storeu(cv + 12);
}

KLMS_LSH_INLINE void load_block(const std::uint8_t* p, __m128i chunk[16]) noexcept {
  for (int i = 0; i < 16; ++i) chunk[i] = lsh_simd::loadu128(p + 16 * i);
}

inline void compress_blocks(std::uint64_t cv[16], const std::uint8_t* blocks, std::size_t count) noexcept {
  State s = load_state(cv);
  for (std::size_t b = 0; b < count; ++b, blocks += 256) {
    __m128i chunk[16];
    load_block(blocks, chunk);
    s = compress(s, chunk);
  }
  store_state(s, cv);
}

inline void digest(const std::uint64_t iv[16], const std::uint8_t* in, std::size_t len, std::uint8_t* out,
                   std::size_t out_bytes) noexcept {
  const MessageShape shape = lsh_simd::make_shape(0, len);
  const std::size_t last_block = len & ~static_cast<std::size_t>(255);
  State s = load_state(iv);
  for (std::size_t pos = 0;; pos += 256) {
    __m128i chunk[16];
    if (pos < last_block) {
      load_block(in + pos, chunk);
    } else {
      for (int i = 0; i < 16; ++i) {
        const std::size_t at = pos + 16 * static_cast<std::size_t>(i);
        chunk[i] = lsh_simd::fetch_chunk(shape, shape.kind(at), nullptr, in, at);
      }
    }
    s = compress(s, chunk);
    if (pos == last_block) break;
  }
  alignas(32) std::uint8_t full[64];
  const Vec4 h_lo = s.a ^ s.c;
  const Vec4 h_hi = s.b ^ s.d;
  h_lo.storeu(reinterpret_cast<std::uint64_t*>(full));
  h_hi.storeu(reinterpret_cast<std::uint64_t*>(full + 32));
  std::memcpy(out, full, out_bytes);
}

// The implementation table of the including file: every entry is that file's own copy, compiled with
// its -m flags (the three per-ISA files differ only in their name and flags).
void impl_compress(std::uint64_t cv[16], const std::uint8_t* blocks, std::size_t count) noexcept {
  compress_blocks(cv, blocks, count);
}
void impl_digest(const std::uint64_t iv[16], const std::uint8_t* in, std::size_t len, std::uint8_t* out,
                 std::size_t out_bytes) noexcept {
  digest(iv, in, len, out, out_bytes);
}
void impl_update(Lsh512Context& ctx, const std::uint8_t* data, std::size_t len) noexcept {
  lsh_detail::lsh512_stream_update(ctx, data, len, &impl_compress);
}
void impl_final(Lsh512Context& ctx, std::uint8_t* out) noexcept {
  lsh_detail::lsh512_stream_final(ctx, out, &impl_compress);
}
constexpr Lsh512Implementation implementation(LshIsa isa, std::string_view name) noexcept {
  return {isa, name, &impl_compress, &impl_digest, &impl_update, &impl_final};
}

}  // namespace
}  // namespace klms::hashes::lsh512_simd
