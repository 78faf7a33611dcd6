// TDM-ARIA for many messages with GFNI and AVX2: two ARIA states per ymm register (one per 128-bit
// half, bytes in RFC 5794 order), two registers interleaved, so four messages at once (four
// registers measured no faster per message, and coarser groups waste more on small counts).
//
// Substitution: every ARIA S-box is an affine map around GF(2^8) inversion (SB1 = AES S-box,
// SB2(x) = B x^247 + e2 = (B Q^3) x^-1 + e2 with Q squaring; SB3, SB4 their inverses), so each is one
// or two GF2P8AFFINE(INV)QB instructions; a byte blend picks the S-box by position. Diffusion: ARIA's
// A is a 0/1 matrix with seven ones per row and column, i.e. the xor of seven byte permutations (seven
// PSHUFBs). The matrices and permutations were derived offline and are checked by the tests, which
// compare every output with the table-based implementation.
//
// This file is compiled with -mavx2; GFNI comes from the target attribute on each function, and the
// backend only selects this code after a CPUID check for GFNI.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "hashes/tdm/tdm_core.h"
#include "hashes/tdm/tdm_lanes.h"

#define KLMS_GFNI_AVX2 __attribute__((target("avx2,gfni")))

namespace klms::hashes::tdm {
namespace {

using Vec = __m256i;

// GF2P8AFFINEQB matrices (row for output bit k in byte 7-k).
constexpr long long kAesAffine = static_cast<long long>(0xf1e3c78f1f3e7cf8ULL);        // SB1 after inversion
constexpr long long kSb2Affine = static_cast<long long>(0xeafcb7c3c273c66fULL);        // B Q^3, SB2 after inversion
constexpr long long kAesAffineInverse = static_cast<long long>(0xa44992254a942952ULL); // SB3 before inversion
constexpr long long kSb2AffineInverse = static_cast<long long>(0x186450c737d6bdc9ULL); // SB4 before inversion
constexpr long long kIdentity = static_cast<long long>(0x0102040810204080ULL);
constexpr int kSb3Constant = 0x05;  // A^-1 0x63
constexpr int kSb4Constant = 0x2c;  // (B Q^3)^-1 0xe2

// y_i = xor over k of x[kDiffusion[k][i]]: ARIA's diffusion layer A as seven byte permutations.
constexpr std::uint8_t kDiffusion[7][16] = {
    {8, 7, 4, 11, 14, 10, 9, 13, 15, 6, 3, 2, 12, 0, 5, 1},  {14, 12, 10, 7, 15, 1, 0, 11, 4, 5, 13, 9, 6, 8, 3, 2},
    {3, 5, 11, 10, 0, 15, 7, 1, 13, 14, 8, 12, 2, 6, 9, 4},  {13, 9, 1, 0, 8, 14, 2, 6, 7, 12, 15, 3, 11, 10, 4, 5},
    {6, 2, 15, 13, 11, 9, 10, 12, 1, 0, 5, 4, 7, 3, 14, 8},  {4, 15, 12, 5, 2, 3, 13, 8, 0, 1, 6, 14, 9, 7, 11, 10},
    {9, 8, 6, 14, 5, 4, 12, 3, 10, 11, 2, 7, 1, 13, 0, 15}};

// Key-schedule constants for a 256-bit key: CK1 = C3, CK2 = C1, CK3 = C2 (RFC 5794 byte order).
constexpr std::uint8_t kCk[3][16] = {
    {0xdb, 0x92, 0x37, 0x1d, 0x21, 0x26, 0xe9, 0x70, 0x03, 0x24, 0x97, 0x75, 0x04, 0xe8, 0xc9, 0x0e},
    {0x51, 0x7c, 0xc1, 0xb7, 0x27, 0x22, 0x0a, 0x94, 0xfe, 0x13, 0xab, 0xe8, 0xfa, 0x9a, 0x6e, 0xe0},
    {0x6d, 0xb1, 0x4a, 0xcc, 0x9e, 0x21, 0xc8, 0x20, 0xff, 0x28, 0xb1, 0xd5, 0xef, 0x5d, 0xe2, 0xb0}};

KLMS_GFNI_AVX2 inline Vec broadcast16(const std::uint8_t* bytes) noexcept {
  return _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(bytes)));
}

KLMS_GFNI_AVX2 inline Vec bxor(Vec a, Vec b) noexcept { return _mm256_xor_si256(a, b); }

struct Sboxes {
  Vec sb1, sb2, sb3, sb4;
};

KLMS_GFNI_AVX2 inline Sboxes all_sboxes(Vec x) noexcept {
  const Vec identity = _mm256_set1_epi64x(kIdentity);
  Sboxes s;
  s.sb1 = _mm256_gf2p8affineinv_epi64_epi8(x, _mm256_set1_epi64x(kAesAffine), 0x63);
  s.sb2 = _mm256_gf2p8affineinv_epi64_epi8(x, _mm256_set1_epi64x(kSb2Affine), 0xe2);
  s.sb3 = _mm256_gf2p8affineinv_epi64_epi8(
      _mm256_gf2p8affine_epi64_epi8(x, _mm256_set1_epi64x(kAesAffineInverse), kSb3Constant), identity, 0);
  s.sb4 = _mm256_gf2p8affineinv_epi64_epi8(
      _mm256_gf2p8affine_epi64_epi8(x, _mm256_set1_epi64x(kSb2AffineInverse), kSb4Constant), identity, 0);
  return s;
}

// Byte position p mod 4 picks the S-box: first, second, third, fourth argument.
KLMS_GFNI_AVX2 inline Vec select_by_position(Vec p0, Vec p1, Vec p2, Vec p3) noexcept {
  Vec r = _mm256_blendv_epi8(p0, p1, _mm256_set1_epi32(0x0000ff00));
  r = _mm256_blendv_epi8(r, p2, _mm256_set1_epi32(0x00ff0000));
  return _mm256_blendv_epi8(r, p3, _mm256_set1_epi32(static_cast<int>(0xff000000u)));
}

KLMS_GFNI_AVX2 inline Vec substitute_odd(Vec x) noexcept {  // SL1: SB1, SB2, SB3, SB4
  const Sboxes s = all_sboxes(x);
  return select_by_position(s.sb1, s.sb2, s.sb3, s.sb4);
}

KLMS_GFNI_AVX2 inline Vec substitute_even(Vec x) noexcept {  // SL2: SB3, SB4, SB1, SB2
  const Sboxes s = all_sboxes(x);
  return select_by_position(s.sb3, s.sb4, s.sb1, s.sb2);
}

KLMS_GFNI_AVX2 inline Vec diffuse(Vec x) noexcept {
  Vec t[7];
  for (int k = 0; k < 7; ++k) t[k] = _mm256_shuffle_epi8(x, broadcast16(kDiffusion[k]));
  return bxor(bxor(bxor(t[0], t[1]), bxor(t[2], t[3])), bxor(bxor(t[4], t[5]), t[6]));
}

KLMS_GFNI_AVX2 inline Vec round_odd(Vec x, Vec key) noexcept { return diffuse(substitute_odd(bxor(x, key))); }
KLMS_GFNI_AVX2 inline Vec round_even(Vec x, Vec key) noexcept { return diffuse(substitute_even(bxor(x, key))); }

// Byte reversal inside each half: the half then reads as the 128-bit big-endian number, little-endian.
KLMS_GFNI_AVX2 inline Vec reverse_bytes(Vec x) noexcept {
  const Vec order = _mm256_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
                                     15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  return _mm256_shuffle_epi8(x, order);
}

// 128-bit left rotation by N of each half, halves in reversed (little-endian) byte order.
template <int N>
KLMS_GFNI_AVX2 inline Vec rotl128_reversed(Vec x) noexcept {
  static_assert(N % 64 != 0 && N > 0 && N < 128);
  const Vec swapped = _mm256_shuffle_epi32(x, 0x4e);
  if constexpr (N < 64) {
    return _mm256_or_si256(_mm256_slli_epi64(x, N), _mm256_srli_epi64(swapped, 64 - N));
  } else {
    return _mm256_or_si256(_mm256_slli_epi64(swapped, N - 64), _mm256_srli_epi64(x, 128 - N));
  }
}

// Four round keys of one rotation: ek_j = W_j xor rot(W_{(j+1) mod 4}), made in reversed order.
template <int N>
KLMS_GFNI_AVX2 inline void round_key_group(const Vec reversed_w[4], Vec* ek, int count) noexcept {
  for (int j = 0; j < count; ++j)
    ek[j] = reverse_bytes(bxor(reversed_w[j], rotl128_reversed<N>(reversed_w[(j + 1) % 4])));
}

// K registers (2K blocks) of ARIA-256 with their keys kl || kr, interleaved; x encrypted in place.
template <int K>
KLMS_GFNI_AVX2 inline void encrypt256(const Vec (&kl)[K], const Vec (&kr)[K], Vec (&x)[K]) noexcept {
  Vec w[K][4], ek[K][17];
  const Vec ck1 = broadcast16(kCk[0]), ck2 = broadcast16(kCk[1]), ck3 = broadcast16(kCk[2]);
  for (int k = 0; k < K; ++k) {
    w[k][0] = kl[k];
    w[k][1] = bxor(round_odd(kl[k], ck1), kr[k]);
  }
  for (int k = 0; k < K; ++k) w[k][2] = bxor(round_even(w[k][1], ck2), w[k][0]);
  for (int k = 0; k < K; ++k) w[k][3] = bxor(round_odd(w[k][2], ck3), w[k][1]);
  for (int k = 0; k < K; ++k) {
    Vec reversed[4];
    for (int j = 0; j < 4; ++j) reversed[j] = reverse_bytes(w[k][j]);
    round_key_group<128 - 19>(reversed, ek[k], 4);
    round_key_group<128 - 31>(reversed, ek[k] + 4, 4);
    round_key_group<61>(reversed, ek[k] + 8, 4);
    round_key_group<31>(reversed, ek[k] + 12, 4);
    round_key_group<19>(reversed, ek[k] + 16, 1);
  }
  for (int i = 0; i < 15; ++i)
    for (int k = 0; k < K; ++k) x[k] = i % 2 == 0 ? round_odd(x[k], ek[k][i]) : round_even(x[k], ek[k][i]);
  for (int k = 0; k < K; ++k) x[k] = bxor(substitute_even(bxor(x[k], ek[k][15])), ek[k][16]);
}

// Tandem-DM on K registers: W = E_{H||M}(G), V = E_{M||W}(H), G ^= W, H ^= V.
template <int K>
KLMS_GFNI_AVX2 inline void compress(Vec (&g)[K], Vec (&h)[K], const Vec (&m)[K]) noexcept {
  Vec w[K], v[K];
  for (int k = 0; k < K; ++k) w[k] = g[k];
  encrypt256<K>(h, m, w);
  for (int k = 0; k < K; ++k) v[k] = h[k];
  encrypt256<K>(m, w, v);
  for (int k = 0; k < K; ++k) {
    g[k] = bxor(g[k], w[k]);
    h[k] = bxor(h[k], v[k]);
  }
}

KLMS_GFNI_AVX2 inline Vec load_two(const std::uint8_t* low, const std::uint8_t* high) noexcept {
  const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(low));
  const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(high));
  return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
}

KLMS_GFNI_AVX2 inline void store_two(Vec v, std::uint8_t* low, std::uint8_t* high) noexcept {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(low), _mm256_castsi256_si128(v));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(high), _mm256_extracti128_si256(v, 1));
}

constexpr int kRegisters = 2;
static_assert(2 * kRegisters == kAriaGfniMessages);
constexpr std::size_t kMessages = 2 * kRegisters;

// kMessages messages I || rests[n] from the saved chain value; all input is read before any output
// is written (outs[n] may alias rests[n]).
KLMS_GFNI_AVX2 void hash_group(const ChainValue& start, const std::uint8_t* const* rests, std::size_t rest_len,
                              std::uint8_t* const* outs) noexcept {
  // The chain value holds big-endian words; as bytes it is G || H in RFC order.
  std::uint8_t start_bytes[2 * kBlockBytes];
  for (int i = 0; i < 4; ++i) {
    const std::uint32_t gw = __builtin_bswap32(start.g[i]), hw = __builtin_bswap32(start.h[i]);
    std::memcpy(start_bytes + 4 * i, &gw, 4);
    std::memcpy(start_bytes + kBlockBytes + 4 * i, &hw, 4);
  }
  Vec g[kRegisters], h[kRegisters], m[kRegisters];
  for (int k = 0; k < kRegisters; ++k) {
    g[k] = broadcast16(start_bytes);
    h[k] = broadcast16(start_bytes + kBlockBytes);
  }
  const std::size_t full = rest_len / kBlockBytes, tail_len = rest_len % kBlockBytes;
  for (std::size_t b = 0; b < full; ++b) {
    for (int k = 0; k < kRegisters; ++k)
      m[k] = load_two(rests[2 * k] + b * kBlockBytes, rests[2 * k + 1] + b * kBlockBytes);
    compress<kRegisters>(g, h, m);
  }
  std::uint8_t tails[kMessages][2 * kBlockBytes];
  const std::size_t tail_blocks = tail_len + 9 <= kBlockBytes ? 1 : 2;
  const std::uint64_t bit_length = (kBlockBytes + static_cast<std::uint64_t>(rest_len)) * 8;
  for (std::size_t n = 0; n < kMessages; ++n) {
    std::memset(tails[n], 0, sizeof tails[n]);
    if (tail_len != 0) std::memcpy(tails[n], rests[n] + full * kBlockBytes, tail_len);
    tails[n][tail_len] = 0x80;
    endian::store_be64(tails[n] + tail_blocks * kBlockBytes - 8, bit_length);
  }
  for (std::size_t b = 0; b < tail_blocks; ++b) {
    for (int k = 0; k < kRegisters; ++k)
      m[k] = load_two(tails[2 * k] + b * kBlockBytes, tails[2 * k + 1] + b * kBlockBytes);
    compress<kRegisters>(g, h, m);
  }
  for (int k = 0; k < kRegisters; ++k) {
    store_two(g[k], outs[2 * k], outs[2 * k + 1]);
    store_two(h[k], outs[2 * k] + kBlockBytes, outs[2 * k + 1] + kBlockBytes);
  }
}

}  // namespace

void aria_hash_many_gfni_avx2(const PrefixState& prefix, const std::uint8_t* const* rests, std::size_t rest_len,
                              std::uint8_t* const* outs, std::size_t count) noexcept {
  // A partial group costs a full one; below this many messages the interleaved scalar code wins
  // (measured with klms-blockhash-bench, many-gfni/count:N).
  constexpr std::size_t kMinMessagesWorthGroup = 2;
  ChainValue start;
  std::memcpy(&start, prefix.bytes, sizeof start);
  std::size_t k = 0;
  for (; k + kMessages <= count; k += kMessages) hash_group(start, rests + k, rest_len, outs + k);
  const std::size_t left = count - k;
  if (left == 0) return;
  if (left < kMinMessagesWorthGroup) {
    aria_hash_many_portable(prefix, rests + k, rest_len, outs + k, left);
    return;
  }
  std::uint8_t scratch[kMessages][kDigestBytes];
  const std::uint8_t* in[kMessages];
  std::uint8_t* out[kMessages];
  for (std::size_t n = 0; n < kMessages; ++n) {
    in[n] = n < left ? rests[k + n] : rests[k];
    out[n] = n < left ? outs[k + n] : scratch[n];
  }
  hash_group(start, in, rest_len, out);
}

}  // namespace klms::hashes::tdm
