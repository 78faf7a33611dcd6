// CHAM-128/256, revised version (Roh et al., ICISC 2019): 120 rounds, 32-bit little-endian words.
// Only encryption: Tandem-DM never decrypts. The word-level functions are inline so the Tandem-DM
// compression function can keep everything in registers; the byte API is for tests and benchmarks.
#pragma once

#include <cstddef>
#include <cstdint>

#include "hashes/blockcipher/cipher_words.h"

namespace klms::hashes::cham {

using namespace words;

inline constexpr std::size_t kKeyBytes = 32;
inline constexpr std::size_t kBlockBytes = 16;
inline constexpr int kRounds = 120;  // the 2017 version had 96
inline constexpr std::size_t kRoundKeyWords = 16;

struct RoundKeys {
  std::uint32_t rk[kRoundKeyWords];
};

// Round keys from the eight key words K[0..7].
inline void expand_key_words(const std::uint32_t key[8], std::uint32_t rk[kRoundKeyWords]) noexcept {
  for (int i = 0; i < 8; ++i) {
    const std::uint32_t k = key[i];
    rk[i] = k ^ rotl32(k, 1) ^ rotl32(k, 8);
    rk[(i + 8) ^ 1] = k ^ rotl32(k, 1) ^ rotl32(k, 11);
  }
}

// Encrypts the block x[0..3] in place. Four rounds per loop pass so the word rotation
// (X0,X1,X2,X3) <- (X1,X2,X3,T) becomes register renaming instead of moves.
inline void encrypt_words(const std::uint32_t rk[kRoundKeyWords], std::uint32_t x[4]) noexcept {
  std::uint32_t x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];
  for (std::uint32_t r = 0; r < static_cast<std::uint32_t>(kRounds); r += 8) {
    const std::uint32_t* k = rk + (r & 15);
    x0 = rotl32((x0 ^ r) + (rotl32(x1, 1) ^ k[0]), 8);
    x1 = rotl32((x1 ^ (r + 1)) + (rotl32(x2, 8) ^ k[1]), 1);
    x2 = rotl32((x2 ^ (r + 2)) + (rotl32(x3, 1) ^ k[2]), 8);
    x3 = rotl32((x3 ^ (r + 3)) + (rotl32(x0, 8) ^ k[3]), 1);
    x0 = rotl32((x0 ^ (r + 4)) + (rotl32(x1, 1) ^ k[4]), 8);
    x1 = rotl32((x1 ^ (r + 5)) + (rotl32(x2, 8) ^ k[5]), 1);
    x2 = rotl32((x2 ^ (r + 6)) + (rotl32(x3, 1) ^ k[6]), 8);
    x3 = rotl32((x3 ^ (r + 7)) + (rotl32(x0, 8) ^ k[7]), 1);
  }
  x[0] = x0;
  x[1] = x1;
  x[2] = x2;
  x[3] = x3;
}

// Byte interface: key and blocks as in the revised-CHAM reference (little-endian words).
void expand_key(const std::uint8_t key[kKeyBytes], RoundKeys& keys) noexcept;
void encrypt(const RoundKeys& keys, const std::uint8_t in[kBlockBytes], std::uint8_t out[kBlockBytes]) noexcept;

}  // namespace klms::hashes::cham
