// Internal to lsh256_avx2/avx512.cpp: LSH-256 of several equal-length messages at once, one
// message per 32-bit lane (8 with AVX2, 16 with AVX-512F).
//
// Register l holds word l of every message, so the whole step is lane-wise: σ is only a renaming
// of registers (tracked at compile time, no instruction), τ likewise, and γ is a per-register
// constant rotation. Messages go in and digests come out through word transposes.
//
// Anonymous namespace: each SIMD file compiles its own copy with its own -m flags.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <utility>

#include "hashes/lsh/lsh256_ymm_words.h"
#include "hashes/lsh/lsh_params.h"
#include "hashes/lsh/lsh_simd_chunks.h"

namespace klms::hashes::lsh256_simd {
namespace {

using lsh_simd::ChunkKind;
using lsh_simd::MessageShape;

constexpr int kLaneSteps = lsh::Params<std::uint32_t>::kSteps;

// Where each CV word lives, per step: cv[j][l] is the register holding CV word l at step j. σ
// only renames, so nothing moves.
struct LaneRegisterMap {
  int cv[kLaneSteps + 1][16];
};

constexpr LaneRegisterMap make_lane_register_map() {
  LaneRegisterMap map{};
  for (int l = 0; l < 16; ++l) map.cv[0][l] = l;
  for (int j = 0; j < kLaneSteps; ++j) {
    for (int l = 0; l < 16; ++l) map.cv[j + 1][l] = map.cv[j][lsh::kSigma[l]];
  }
  return map;
}

inline constexpr LaneRegisterMap kLaneMap = make_lane_register_map();

// Step constants already broadcast to N lanes, so each is one load operand of the xor (set1 of a
// constant would make the compiler build it in a general register and broadcast it: three uops).
template <std::size_t N>
struct BroadcastStepConstants {
  alignas(64) std::uint32_t words[kLaneSteps][8][N];
};

template <std::size_t N>
constexpr BroadcastStepConstants<N> make_broadcast_step_constants() {
  BroadcastStepConstants<N> t{};
  for (int j = 0; j < kLaneSteps; ++j) {
    for (int l = 0; l < 8; ++l) {
      for (std::size_t i = 0; i < N; ++i) t.words[j][l][i] = lsh::kStepConstants<std::uint32_t>[j][l];
    }
  }
  return t;
}

template <std::size_t N>
inline constexpr BroadcastStepConstants<N> kBroadcastStepConstants = make_broadcast_step_constants<N>();

// pshufb controls rotating every 32-bit word left by 8, 16 or 24 bits (index R / 8 - 1), 32 bytes.
struct alignas(32) ByteRotateControls {
  std::uint8_t bytes[3][32];
};

constexpr ByteRotateControls make_byte_rotate_controls() {
  ByteRotateControls c{};
  for (int r = 1; r <= 3; ++r) {
    for (int i = 0; i < 32; ++i) c.bytes[r - 1][i] = static_cast<std::uint8_t>((i & ~3 & 15) + (((i & 3) - r) & 3));
  }
  return c;
}

inline constexpr ByteRotateControls kByteRotateControls = make_byte_rotate_controls();

// Vector traits: V holds one 32-bit word of kLanes messages. (A 4-lane SSE version measured
// slower than one-shots on 128-bit registers, so the SSE build has none.)
#if defined(__AVX2__)
struct Avx8Lanes : YmmWords {
  static constexpr std::size_t kLanes = 8;
  static V set1(std::uint32_t w) noexcept { return _mm256_set1_epi32(static_cast<int>(w)); }
  template <int R>
  static V rotl_bytes(V x, const ByteRotateControls* c) noexcept {
    return _mm256_shuffle_epi8(x, load(c->bytes[R / 8 - 1]));
  }
  static V load(const void* p) noexcept { return _mm256_load_si256(static_cast<const __m256i*>(p)); }
  static V loadu(const std::uint8_t* p) noexcept { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)); }
  static V from_chunks(const __m128i* c) noexcept { return _mm256_set_m128i(c[1], c[0]); }
  static void transpose(V (&r)[kLanes]) noexcept {
    __m256i t[8], u[8];
    for (int k = 0; k < 8; k += 2) {
      t[k] = _mm256_unpacklo_epi32(r[k], r[k + 1]);
      t[k + 1] = _mm256_unpackhi_epi32(r[k], r[k + 1]);
    }
    for (int k = 0; k < 8; k += 4) {
      u[k] = _mm256_unpacklo_epi64(t[k], t[k + 2]);
      u[k + 1] = _mm256_unpackhi_epi64(t[k], t[k + 2]);
      u[k + 2] = _mm256_unpacklo_epi64(t[k + 1], t[k + 3]);
      u[k + 3] = _mm256_unpackhi_epi64(t[k + 1], t[k + 3]);
    }
    for (int k = 0; k < 4; ++k) {
      r[k] = _mm256_permute2x128_si256(u[k], u[k + 4], 0x20);
      r[k + 4] = _mm256_permute2x128_si256(u[k], u[k + 4], 0x31);
    }
  }
  // The 32-byte digest: the first eight words of a row.
  static void store_digest(std::uint8_t* out, V row) noexcept {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), row);
  }
};
#endif

#if defined(__AVX512F__)
struct Avx512x16Lanes {
  using V = __m512i;
  static constexpr std::size_t kLanes = 16;
  static V add(V a, V b) noexcept { return _mm512_add_epi32(a, b); }
  static V xor_(V a, V b) noexcept { return _mm512_xor_si512(a, b); }
  static V set1(std::uint32_t w) noexcept { return _mm512_set1_epi32(static_cast<int>(w)); }
  template <int R>
  static V rotl(V x) noexcept {
    return _mm512_rol_epi32(x, R);
  }
  // vpshufb on zmm needs AVX-512BW; the rotate is as cheap.
  template <int R>
  static V rotl_bytes(V x, const ByteRotateControls*) noexcept {
    return _mm512_rol_epi32(x, R);
  }
  static V load(const void* p) noexcept { return _mm512_load_si512(p); }
  static V loadu(const std::uint8_t* p) noexcept { return _mm512_loadu_si512(p); }
  static V from_chunks(const __m128i* c) noexcept {
    V v = _mm512_castsi128_si512(c[0]);
    v = _mm512_inserti32x4(v, c[1], 1);
    v = _mm512_inserti32x4(v, c[2], 2);
    return _mm512_inserti32x4(v, c[3], 3);
  }
  static void transpose(V (&r)[kLanes]) noexcept {
    __m512i t[16], u[16];
    for (int k = 0; k < 16; k += 2) {
      t[k] = _mm512_unpacklo_epi32(r[k], r[k + 1]);
      t[k + 1] = _mm512_unpackhi_epi32(r[k], r[k + 1]);
    }
    for (int k = 0; k < 16; k += 4) {
      u[k] = _mm512_unpacklo_epi64(t[k], t[k + 2]);
      u[k + 1] = _mm512_unpackhi_epi64(t[k], t[k + 2]);
      u[k + 2] = _mm512_unpacklo_epi64(t[k + 1], t[k + 3]);
      u[k + 3] = _mm512_unpackhi_epi64(t[k + 1], t[k + 3]);
    }
    // u[4k + c], 128-bit lane λ: word 4λ + c of rows 4k..4k+3.
    for (int c = 0; c < 4; ++c) {
      const __m512i v0 = _mm512_shuffle_i32x4(u[c], u[4 + c], 0x88);
      const __m512i v1 = _mm512_shuffle_i32x4(u[c], u[4 + c], 0xdd);
      const __m512i v2 = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0x88);
      const __m512i v3 = _mm512_shuffle_i32x4(u[8 + c], u[12 + c], 0xdd);
      r[c] = _mm512_shuffle_i32x4(v0, v2, 0x88);
      r[4 + c] = _mm512_shuffle_i32x4(v1, v3, 0x88);
      r[8 + c] = _mm512_shuffle_i32x4(v0, v2, 0xdd);
      r[12 + c] = _mm512_shuffle_i32x4(v1, v3, 0xdd);
    }
  }
  static void store_digest(std::uint8_t* out, V row) noexcept {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm512_castsi512_si256(row));
  }
};
#endif

template <class T>
struct LaneHasher {
  using V = typename T::V;
  static constexpr std::size_t kLanes = T::kLanes;
  static constexpr std::size_t kChunksPerRow = kLanes / 4;
  static constexpr std::size_t kRowBytes = 4 * kLanes;
  static_assert(kLanes >= 8, "a digest is eight words: one transposed row per message");

  // The constant tables, reached through pointers the compiler cannot see through: otherwise it
  // folds each broadcast constant into an immediate and rebuilds it with three instructions.
  struct Constants {
    const BroadcastStepConstants<kLanes>* step_constants;
    const ByteRotateControls* byte_rotations;
  };
  using StepConstantRows = const std::uint32_t (*)[8][kLanes];
  static Constants opaque_constants() noexcept {
    Constants k{&kBroadcastStepConstants<kLanes>, &kByteRotateControls};
    asm("" : "+r"(k.step_constants), "+r"(k.byte_rotations));
    return k;
  }

  // M_j gets its own slots (not the ones of M_{j-2}): stores to consecutive addresses pair up, which
  // measured clearly faster than scattered in-place updates.
  template <int J, int L>
  KLMS_LSH_INLINE static void absorb_word(V* cv, V (*msg)[16]) noexcept {
    if constexpr (J >= 2) msg[J][L] = T::add(msg[J - 1][L], msg[J - 2][lsh::kTau[L % 8] + 8 * (L / 8)]);
    constexpr int kCv = kLaneMap.cv[J][L];
    cv[kCv] = T::xor_(cv[kCv], msg[J][L]);
  }

  template <int J, int L>
  KLMS_LSH_INLINE static void mix_column(V* cv, const StepConstantRows sc, const Constants& k) noexcept {
    constexpr int kX = kLaneMap.cv[J][L];
    constexpr int kY = kLaneMap.cv[J][L + 8];
    constexpr int kGamma = lsh::Params<std::uint32_t>::kGamma[L];
    V x = cv[kX];
    V y = cv[kY];
    x = T::add(x, y);
    x = T::template rotl<lsh::alpha<std::uint32_t>(J)>(x);
    x = T::xor_(x, T::load(sc[J][L]));
    y = T::add(y, x);
    y = T::template rotl<lsh::beta<std::uint32_t>(J)>(y);
    x = T::add(x, y);
    if constexpr (kGamma != 0) y = T::template rotl_bytes<kGamma>(y, k.byte_rotations);
    cv[kX] = x;
    cv[kY] = y;
  }

  template <int J, int... L>
  KLMS_LSH_INLINE static void absorb(V* cv, V (*msg)[16], std::integer_sequence<int, L...>) noexcept {
    (absorb_word<J, L>(cv, msg), ...);
  }

  // Column by column (absorb X[l] and Y[l], then mix them), pairs {0,4} {2,6} {1,5} {3,7} first to
  // last: few values live at once, and this order measured best.
  template <int J, int... I>
  KLMS_LSH_INLINE static void step(V* cv, V (*msg)[16], const StepConstantRows sc, const Constants& k,
                                   std::integer_sequence<int, I...>) noexcept {
    constexpr int kOrder[8] = {0, 4, 2, 6, 1, 5, 3, 7};
    ((absorb_word<J, kOrder[I]>(cv, msg), absorb_word<J, kOrder[I] + 8>(cv, msg), mix_column<J, kOrder[I]>(cv, sc, k)),
     ...);
  }

  template <int... J>
  KLMS_LSH_INLINE static void run_steps(V* cv, V (*msg)[16], const StepConstantRows sc, const Constants& k,
                                        std::integer_sequence<int, J...>) noexcept {
    (step<J>(cv, msg, sc, k, std::make_integer_sequence<int, 8>{}), ...);
  }

  // One compression of every lane; block holds M0 and M1 (word-major). The expanded message lives
  // in a local array whose address never escapes, so the compiler knows the constant tables behind
  // the opaque pointers cannot alias it.
  KLMS_LSH_INLINE static void compress(V (&cv)[16], const V (&block)[2][16], const Constants& k) noexcept {
    alignas(64) V msg[kLaneSteps + 1][16];
    for (int l = 0; l < 16; ++l) {
      msg[0][l] = block[0][l];
      msg[1][l] = block[1][l];
    }
    V work[16];
    for (int l = 0; l < 16; ++l) work[l] = cv[l];
    run_steps(work, msg, k.step_constants->words, k, std::make_integer_sequence<int, kLaneSteps>{});
    absorb<kLaneSteps>(work, msg, std::make_integer_sequence<int, 16>{});
    for (int l = 0; l < 16; ++l) cv[l] = work[kLaneMap.cv[kLaneSteps][l]];
  }

  // Message words of block `pos` (byte offset) of every lane, word-major.
  KLMS_LSH_INLINE static void load_block(const MessageShape& shape, const std::uint8_t* prefix,
                                         const std::uint8_t* const* rests, std::size_t pos, V* words) noexcept {
    for (std::size_t g = 0; g < 32 / kLanes; ++g) {
      const std::size_t row_pos = pos + kRowBytes * g;
      V rows[kLanes];
      if (row_pos >= shape.prefix_len && row_pos + kRowBytes <= shape.total) {
        for (std::size_t i = 0; i < kLanes; ++i) rows[i] = T::loadu(rests[i] + (row_pos - shape.prefix_len));
      } else {
        ChunkKind kinds[kChunksPerRow];
        for (std::size_t c = 0; c < kChunksPerRow; ++c) kinds[c] = shape.kind(row_pos + 16 * c);
        for (std::size_t i = 0; i < kLanes; ++i) {
          __m128i chunks[kChunksPerRow];
          for (std::size_t c = 0; c < kChunksPerRow; ++c) {
            chunks[c] = lsh_simd::fetch_chunk(shape, kinds[c], prefix, rests[i], row_pos + 16 * c);
          }
          rows[i] = T::from_chunks(chunks);
        }
      }
      T::transpose(rows);
      for (std::size_t i = 0; i < kLanes; ++i) words[kLanes * g + i] = rows[i];
    }
  }

  // LSH-256-256(prefix || rests[k]) for k < used (used <= kLanes); spare lanes repeat message 0.
  static void hash_batch(const std::uint8_t* prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                         std::uint8_t* const* outs, std::size_t used) noexcept {
    const std::uint8_t* lane_rest[kLanes];
    for (std::size_t i = 0; i < kLanes; ++i) lane_rest[i] = rests[i < used ? i : 0];
    const MessageShape shape = lsh_simd::make_shape(16, rest_len);
    const std::size_t last_block = shape.total & ~static_cast<std::size_t>(127);
    const Constants k = opaque_constants();
    V cv[16];
    for (int l = 0; l < 16; ++l) cv[l] = T::set1(lsh::kIv256_256[l]);
    for (std::size_t pos = 0;; pos += 128) {
      V block[2][16];
      load_block(shape, prefix, lane_rest, pos, &block[0][0]);
      compress(cv, block, k);
      if (pos == last_block) break;
    }
    // Digest word l = cv[l] ^ cv[l+8]; transpose back to one row per message (rows 8… unused).
    V rows[kLanes];
    for (std::size_t i = 0; i < kLanes; ++i) rows[i] = i < 8 ? T::xor_(cv[i], cv[i + 8]) : T::set1(0);
    T::transpose(rows);
    for (std::size_t i = 0; i < used; ++i) T::store_digest(outs[i], rows[i]);
  }
};

// hash_many for any count: full batches of Wide lanes; the rest as one padded Wide batch when at
// least kPadWideFrom are left, else full Narrow batches and then either one padded Narrow batch
// (at least kPadNarrowFrom left) or one message at a time. The thresholds come from measured costs:
// a padded batch costs as much as a full one, a one-shot a fixed fraction of that.
template <class Wide, class Narrow, std::size_t kPadWideFrom, std::size_t kPadNarrowFrom, class OneShot>
inline void hash_many_lanes(const std::uint8_t* prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                            std::uint8_t* const* outs, std::size_t count, OneShot one_shot) noexcept {
  static_assert(kPadWideFrom >= 1 && kPadNarrowFrom >= 1, "a padded batch needs at least one real message");
  std::size_t k = 0;
  for (; count - k >= Wide::kLanes; k += Wide::kLanes) {
    LaneHasher<Wide>::hash_batch(prefix, rests + k, rest_len, outs + k, Wide::kLanes);
  }
  if (count - k >= kPadWideFrom) {
    LaneHasher<Wide>::hash_batch(prefix, rests + k, rest_len, outs + k, count - k);
    return;
  }
  for (; count - k >= Narrow::kLanes; k += Narrow::kLanes) {
    LaneHasher<Narrow>::hash_batch(prefix, rests + k, rest_len, outs + k, Narrow::kLanes);
  }
  if (count - k >= kPadNarrowFrom) {
    LaneHasher<Narrow>::hash_batch(prefix, rests + k, rest_len, outs + k, count - k);
    return;
  }
  for (; k < count; ++k) one_shot(prefix, rests[k], rest_len, outs[k]);
}

}  // namespace
}  // namespace klms::hashes::lsh256_simd
