// ARIA (RFC 5794, KS X 1213): 128-bit block, 128/192/256-bit keys, 12/14/16 rounds. Only encryption.
// The state is four big-endian 32-bit words. A round is four table lookups per word (substitution
// spread over the word) followed by word mixing; together they are SL1/SL2 and the diffusion A.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hashes/blockcipher/aria_tables.h"
#include "hashes/blockcipher/cipher_words.h"

namespace klms::hashes::aria {

using namespace words;

inline constexpr std::size_t kBlockBytes = 16;
inline constexpr int kMaxRounds = 16;

struct RoundKeys {
  std::uint32_t ek[kMaxRounds + 1][4];
  int rounds;  // 12, 14 or 16
};

// Key-schedule constants C1, C2, C3 (fractional part of 1/pi), as big-endian words.
inline constexpr std::uint32_t kC[3][4] = {{0x517cc1b7, 0x27220a94, 0xfe13abe8, 0xfa9a6ee0},
                                           {0x6db14acc, 0x9e21c820, 0xff28b1d5, 0xef5de2b0},
                                           {0xdb92371d, 0x2126e970, 0x03249775, 0x04e8c90e}};

namespace detail {

inline std::uint32_t substitute(const RoundTables& t, std::uint32_t w) noexcept {
  return t.t0[w >> 24] ^ t.t1[(w >> 16) & 0xff] ^ t.t2[(w >> 8) & 0xff] ^ t.t3[w & 0xff];
}

// Word-level part of the diffusion layer: A = mix . byte permutation . mix applied to the spread
// substitution outputs. mix is (a,b,c,d) -> (a^b^c, a^c^d, a^b^d, b^c^d), written as two levels of
// xors rather than the six-step in-place chain, so a round waits on fewer dependent operations.
inline void mix(std::uint32_t& t0, std::uint32_t& t1, std::uint32_t& t2, std::uint32_t& t3) noexcept {
  const std::uint32_t ab = t0 ^ t1, ac = t0 ^ t2, bc = t1 ^ t2;
  const std::uint32_t d = t3;
  t0 = ab ^ t2;
  t1 = ac ^ d;
  t2 = ab ^ d;
  t3 = bc ^ d;
}

inline void permute_bytes(std::uint32_t& t1, std::uint32_t& t2, std::uint32_t& t3) noexcept {
  t1 = ((t1 << 8) & 0xff00ff00u) | ((t1 >> 8) & 0x00ff00ffu);
  t2 = rotr32(t2, 16);
  t3 = __builtin_bswap32(t3);
}

}  // namespace detail

// One round function: x = A(SL(x xor key)), SL1 for odd rounds (FO), SL2 for even rounds (FE).
inline void round_function(const RoundTables& tables, const std::uint32_t key[4], std::uint32_t x[4]) noexcept {
  std::uint32_t t0 = detail::substitute(tables, x[0] ^ key[0]);
  std::uint32_t t1 = detail::substitute(tables, x[1] ^ key[1]);
  std::uint32_t t2 = detail::substitute(tables, x[2] ^ key[2]);
  std::uint32_t t3 = detail::substitute(tables, x[3] ^ key[3]);
  detail::mix(t0, t1, t2, t3);
  detail::permute_bytes(t1, t2, t3);
  detail::mix(t0, t1, t2, t3);
  x[0] = t0;
  x[1] = t1;
  x[2] = t2;
  x[3] = t3;
}

// out = a xor (b rotated left by N bits as one 128-bit big-endian value), N % 32 != 0.
template <unsigned N>
inline void xor_rotl128(const std::uint32_t a[4], const std::uint32_t b[4], std::uint32_t out[4]) noexcept {
  static_assert(N % 32 != 0 && N < 128);
  constexpr unsigned q = N / 32, r = N % 32;
  for (unsigned i = 0; i < 4; ++i) out[i] = a[i] ^ (b[(i + q) % 4] << r) ^ (b[(i + q + 1) % 4] >> (32 - r));
}

// Four round keys of one rotation amount: ek_{4g+j+1} = W_j xor (W_{(j+1) mod 4} rotated), j = 0..3.
template <unsigned N>
inline void make_round_key_group(const std::uint32_t w[4][4], std::uint32_t (*ek)[4], int count) noexcept {
  for (int j = 0; j < count; ++j) xor_rotl128<N>(w[j], w[(j + 1) % 4], ek[j]);
}

// Round keys ek_1..ek_{rounds+1} from W0..W3 (RFC 5794 section 2.2): rotations >>>19, >>>31,
// <<<61, <<<31, <<<19, written as left rotations.
inline void make_round_keys(const std::uint32_t w[4][4], int rounds, std::uint32_t ek[kMaxRounds + 1][4]) noexcept {
  make_round_key_group<128 - 19>(w, ek, 4);
  make_round_key_group<128 - 31>(w, ek + 4, 4);
  make_round_key_group<61>(w, ek + 8, 4);
  make_round_key_group<31>(w, ek + 12, rounds == 12 ? 1 : rounds == 14 ? 3 : 4);
  if (rounds == 16) make_round_key_group<19>(w, ek + 16, 1);
}

// Key schedule from the left and right key halves (kr zero-padded for short keys).
inline void expand_key_words(const std::uint32_t kl[4], const std::uint32_t kr[4], int rounds,
                             std::uint32_t ek[kMaxRounds + 1][4]) noexcept {
  const int first = (rounds - 12) / 2;  // CK1 = C1, C2, C3 for 128, 192, 256-bit keys
  const std::uint32_t* ck1 = kC[first];
  const std::uint32_t* ck2 = kC[(first + 1) % 3];
  const std::uint32_t* ck3 = kC[(first + 2) % 3];
  std::uint32_t w[4][4];
  std::uint32_t x[4];
  for (int k = 0; k < 4; ++k) w[0][k] = x[k] = kl[k];
  round_function(kOddTables, ck1, x);
  for (int k = 0; k < 4; ++k) w[1][k] = x[k] ^= kr[k];
  round_function(kEvenTables, ck2, x);
  for (int k = 0; k < 4; ++k) w[2][k] = x[k] ^= w[0][k];
  round_function(kOddTables, ck3, x);
  for (int k = 0; k < 4; ++k) w[3][k] = x[k] ^ w[1][k];
  make_round_keys(w, rounds, ek);
}

// Last round: SL2 without diffusion, then the final whitening key.
inline void final_round(const std::uint32_t k[4], const std::uint32_t last[4], std::uint32_t x[4]) noexcept {
  for (int w = 0; w < 4; ++w) {
    const std::uint32_t v = x[w] ^ k[w];
    const std::uint32_t s = (static_cast<std::uint32_t>(kSBoxes.sb3[v >> 24]) << 24) |
                            (static_cast<std::uint32_t>(kSBoxes.sb4[(v >> 16) & 0xff]) << 16) |
                            (static_cast<std::uint32_t>(kSBoxes.sb1[(v >> 8) & 0xff]) << 8) |
                            kSBoxes.sb2[v & 0xff];
    x[w] = s ^ last[w];
  }
}

// Encrypts N independent blocks x[n] with their own round keys ek[n], round by round, so the
// table-lookup latency of one block overlaps the work on the others (N = 1 is plain encryption).
template <int N>
inline void encrypt_interleaved(const std::uint32_t (*const ek[N])[4], int rounds, std::uint32_t (*const x[N])) noexcept {
  for (int i = 0; i < rounds - 1; ++i) {
    const RoundTables& tables = i % 2 == 0 ? kOddTables : kEvenTables;
    for (int n = 0; n < N; ++n) round_function(tables, ek[n][i], x[n]);
  }
  for (int n = 0; n < N; ++n) final_round(ek[n][rounds - 1], ek[n][rounds], x[n]);
}

// Encrypts x in place with round keys ek_1..ek_{rounds+1}.
inline void encrypt_words(const std::uint32_t ek[kMaxRounds + 1][4], int rounds, std::uint32_t x[4]) noexcept {
  const std::uint32_t(*const keys[1])[4] = {ek};
  std::uint32_t* const blocks[1] = {x};
  encrypt_interleaved<1>(keys, rounds, blocks);
}

// ARIA-256 of N blocks under N keys (key[n] = 8 big-endian words), interleaved.
template <int N>
inline void encrypt256_interleaved(const std::uint32_t* const key[N], std::uint32_t* const x[N]) noexcept {
  std::uint32_t ek[N][kMaxRounds + 1][4];
  const std::uint32_t(*keys[N])[4];
  for (int n = 0; n < N; ++n) {
    expand_key_words(key[n], key[n] + 4, 16, ek[n]);
    keys[n] = ek[n];
  }
  encrypt_interleaved<N>(keys, 16, x);
}

// Byte interface, bytes as in RFC 5794.
void expand_key128(const std::uint8_t key[16], RoundKeys& keys) noexcept;
void expand_key192(const std::uint8_t key[24], RoundKeys& keys) noexcept;
void expand_key256(const std::uint8_t key[32], RoundKeys& keys) noexcept;
void encrypt(const RoundKeys& keys, const std::uint8_t in[kBlockBytes], std::uint8_t out[kBlockBytes]) noexcept;

}  // namespace klms::hashes::aria
