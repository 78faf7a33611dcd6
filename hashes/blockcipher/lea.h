// LEA (KS X 3246 / ISO/IEC 29192-2): 128-bit block, 128/192/256-bit keys, 32-bit little-endian words.
// Only encryption. The LEA-256 word-level function fuses key schedule and encryption (each round key
// is made right before its round) because Tandem-DM uses every key exactly once.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "hashes/blockcipher/cipher_words.h"

namespace klms::hashes::lea {

using namespace words;

inline constexpr std::size_t kBlockBytes = 16;
inline constexpr int kMaxRounds = 32;

struct RoundKeys {
  std::uint32_t rk[kMaxRounds][6];
  int rounds;  // 24, 28 or 32
};

inline constexpr std::uint32_t kDelta[8] = {0xc3efe9db, 0x44626b02, 0x79e27c8a, 0x78df30ec,
                                            0x715ea49e, 0xc785da0a, 0xe04ef22a, 0xe5c40957};
inline constexpr unsigned kKeyRotation[6] = {1, 3, 6, 11, 13, 17};

// LEA-256 schedule constants rotl(delta[i mod 8], i + k), round i, word k: what the schedule adds.
inline constexpr auto kDelta256 = [] {
  std::array<std::uint32_t, 32 * 6> table{};
  for (unsigned i = 0; i < 32; ++i)
    for (unsigned k = 0; k < 6; ++k) table[6 * i + k] = rotl32(kDelta[i % 8], i + k);
  return table;
}();

// One LEA round on (x0,x1,x2,x3) with round key words k0..k5.
inline void round(std::uint32_t& x0, std::uint32_t& x1, std::uint32_t& x2, std::uint32_t& x3,
                  std::uint32_t k0, std::uint32_t k1, std::uint32_t k2, std::uint32_t k3, std::uint32_t k4,
                  std::uint32_t k5) noexcept {
  const std::uint32_t n0 = rotl32((x0 ^ k0) + (x1 ^ k1), 9);
  const std::uint32_t n1 = rotr32((x1 ^ k2) + (x2 ^ k3), 5);
  const std::uint32_t n2 = rotr32((x2 ^ k4) + (x3 ^ k5), 3);
  x3 = x0;
  x0 = n0;
  x1 = n1;
  x2 = n2;
}

// LEA-256 with the key words key[0..7]: encrypts x[0..3] in place, making round keys as it goes.
// Word j = (6i + k) mod 8 of the schedule repeats every four rounds, so four rounds per loop pass
// keep every index a constant.
inline void encrypt256_words(const std::uint32_t key[8], std::uint32_t x[4]) noexcept {
  std::uint32_t t0 = key[0], t1 = key[1], t2 = key[2], t3 = key[3];
  std::uint32_t t4 = key[4], t5 = key[5], t6 = key[6], t7 = key[7];
  std::uint32_t x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];
  for (int i = 0; i < 32; i += 4) {
    const std::uint32_t* c = kDelta256.data() + 6 * i;
    t0 = rotl32(t0 + c[0], 1); t1 = rotl32(t1 + c[1], 3); t2 = rotl32(t2 + c[2], 6);
    t3 = rotl32(t3 + c[3], 11); t4 = rotl32(t4 + c[4], 13); t5 = rotl32(t5 + c[5], 17);
    round(x0, x1, x2, x3, t0, t1, t2, t3, t4, t5);
    t6 = rotl32(t6 + c[6], 1); t7 = rotl32(t7 + c[7], 3); t0 = rotl32(t0 + c[8], 6);
    t1 = rotl32(t1 + c[9], 11); t2 = rotl32(t2 + c[10], 13); t3 = rotl32(t3 + c[11], 17);
    round(x0, x1, x2, x3, t6, t7, t0, t1, t2, t3);
    t4 = rotl32(t4 + c[12], 1); t5 = rotl32(t5 + c[13], 3); t6 = rotl32(t6 + c[14], 6);
    t7 = rotl32(t7 + c[15], 11); t0 = rotl32(t0 + c[16], 13); t1 = rotl32(t1 + c[17], 17);
    round(x0, x1, x2, x3, t4, t5, t6, t7, t0, t1);
    t2 = rotl32(t2 + c[18], 1); t3 = rotl32(t3 + c[19], 3); t4 = rotl32(t4 + c[20], 6);
    t5 = rotl32(t5 + c[21], 11); t6 = rotl32(t6 + c[22], 13); t7 = rotl32(t7 + c[23], 17);
    round(x0, x1, x2, x3, t2, t3, t4, t5, t6, t7);
  }
  x[0] = x0;
  x[1] = x1;
  x[2] = x2;
  x[3] = x3;
}

// Byte interface (little-endian words, as KS X 3246).
void expand_key128(const std::uint8_t key[16], RoundKeys& keys) noexcept;
void expand_key192(const std::uint8_t key[24], RoundKeys& keys) noexcept;
void expand_key256(const std::uint8_t key[32], RoundKeys& keys) noexcept;
void encrypt(const RoundKeys& keys, const std::uint8_t in[kBlockBytes], std::uint8_t out[kBlockBytes]) noexcept;

}  // namespace klms::hashes::lea
